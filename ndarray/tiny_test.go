package ndarray

import (
	"testing"
	"unsafe"
)

// NewTiny makes arrays of up to 16 bytes and two axes, zeroed; ResetTiny
// makes one over in place as another tiny array, zeroed, and refuses views,
// arrays of separate buffers and shapes larger than its room.
func TestTinyReset(t *testing.T) {
	if off := unsafe.Offsetof(tinyObject[[1]uint64]{}.data); off != tinyDataOffset {
		t.Fatalf("tiny objects' data at %d and %d", off, tinyDataOffset)
	}
	for _, c := range []struct {
		dt    DType
		shape []int
		fits  bool
	}{
		{Float64, nil, true}, {Float64, []int{1}, true}, {Float64, []int{2}, true},
		{Float64, []int{1, 2}, true}, {Complex128, nil, true}, {Int8, []int{4, 4}, true},
		{Float64, []int{3}, false}, {Float64, []int{1, 1, 1}, false}, {Float64, []int{0}, false},
		{Int8, []int{17}, false},
	} {
		if got := FitsTiny(c.dt, c.shape); got != c.fits {
			t.Fatalf("FitsTiny(%v, %v) = %v", c.dt, c.shape, got)
		}
		a := NewTiny(c.dt, c.shape)
		if (a != nil) != c.fits {
			t.Fatalf("NewTiny(%v, %v) = %v", c.dt, c.shape, a)
		}
		if a == nil {
			continue
		}
		if a.DType() != c.dt || !SameShape(a.Shape(), c.shape) || !a.IsContiguous() || a.Nbytes() != Size(c.shape)*c.dt.Size() {
			t.Fatalf("NewTiny(%v, %v) made %v%v", c.dt, c.shape, a.DType(), a.Shape())
		}
	}

	a := NewTiny(Float64, []int{2})
	a.Float64s()[0], a.Float64s()[1] = 3, 4
	if !ResetTiny(a, Int32, []int{1, 3}) {
		t.Fatal("a 16-byte tiny array refused 12 bytes")
	}
	if a.DType() != Int32 || !SameShape(a.Shape(), []int{1, 3}) || !SameShape(a.Strides(), []int{3, 1}) {
		t.Fatalf("reset made %v%v strides %v", a.DType(), a.Shape(), a.Strides())
	}
	for i, v := range a.Int32s()[:3] {
		if v != 0 {
			t.Fatalf("element %d = %d after a reset, want 0", i, v)
		}
	}
	if !ResetTiny(a, Complex128, nil) {
		t.Fatal("a 16-byte tiny array refused a complex128 scalar")
	}
	b := NewTiny(Float64, nil)
	if ResetTiny(b, Complex128, nil) {
		t.Fatal("an 8-byte tiny array took 16 bytes")
	}
	if b.DType() != Float64 || b.NDim() != 0 {
		t.Fatal("a refused reset changed the array")
	}
	if !ResetTiny(b, Float32, []int{2}) {
		t.Fatal("an 8-byte tiny array refused 8 bytes")
	}
	v, err := NewTiny(Float64, []int{2}).Slice([]Range{{Start: 1, Step: 1, Len: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if ResetTiny(v, Float64, nil) {
		t.Fatal("a view of a tiny array was reset")
	}
	c, _ := New(Float64, 100)
	if ResetTiny(c, Float64, nil) {
		t.Fatal("an array of a separate buffer was reset")
	}
	s := Scalar(Float64, 2)
	if ResetTiny(s, Float64, nil) && s.Float64s()[0] != 0 {
		t.Fatal("a reset left the old value")
	}
}

// CombineInto gives Combine's values, into out when it fits and not
// otherwise, whatever out held before.
func TestCombineInto(t *testing.T) {
	parts := []*Array{Scalar(Float64, 1.5), Scalar(Float64, -2), Scalar(Float64, 7)}
	for _, op := range []ReduceOp{Sum, Prod, Min, Max, NanSum, CountNonzero} {
		want, err := Combine(op, parts)
		if err != nil {
			t.Fatal(err)
		}
		out := NewTiny(want.DType(), nil)
		CopyInto(out, FillScalar(want.DType(), nil, 99))
		got, err := CombineInto(op, parts, out)
		if err != nil {
			t.Fatal(err)
		}
		if got != out {
			t.Fatalf("%v: did not write into a fitting array", op)
		}
		if got.Float64s()[0] != want.Float64s()[0] {
			t.Fatalf("%v: %v, want %v", op, got.Float64s()[0], want.Float64s()[0])
		}
		wrong := NewTiny(Float32, nil)
		if got, _ := CombineInto(op, parts, wrong); got == wrong || got.Float64s()[0] != want.Float64s()[0] {
			t.Fatalf("%v: into an array of another dtype: %v", op, got)
		}
	}
}
