package ndarray

import (
	"math"
	"testing"
)

// TestBinaryIntoFloat64Paths checks that BinaryInto's float64 path gives
// the bits of Binary (the general kernel) for every operand form it takes
// (contiguous, a single element of any rank, zero strides) and that
// operands it does not take (strided, broadcast rows) still go the general
// way, at lengths around the vector kernels' block sizes.
func TestBinaryIntoFloat64Paths(t *testing.T) {
	vals := func(n int, seed float64) *Array {
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Sin(seed+float64(i)) * math.Pow(10, float64(i%7)-3)
		}
		if n > 3 {
			d[1], d[2] = math.Inf(1), -0.0
		}
		a, err := FromFloat64s([]int{n}, d)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, n := range []int{0, 1, 2, 7, 8, 9, 17, 100} {
		x, y := vals(n, 1), vals(n, 2)
		one := vals(1, 3)
		scalar, err := one.Reshape()
		if err != nil {
			t.Fatal(err)
		}
		zs, err := one.BroadcastTo([]int{n})
		if err != nil {
			t.Fatal(err)
		}
		forms := map[string]*Array{"contiguous": y, "one": one, "scalar": scalar, "zero-stride": zs}
		if n >= 2 {
			wide := vals(2*n, 4)
			strided, err := wide.Slice([]Range{{Start: 0, Step: 2, Len: n}})
			if err != nil {
				t.Fatal(err)
			}
			forms["strided"] = strided
		}
		for _, op := range []BinaryOp{Add, Sub, Mul, Div, Maximum, Pow} {
			for name, b := range forms {
				for _, swap := range []bool{false, true} {
					l, r := x, b
					if swap {
						l, r = b, x
					}
					want, err := Binary(op, l, r)
					if err != nil {
						t.Fatal(err)
					}
					out := newArray(Float64, []int{n})
					if err := BinaryInto(op, out, l, r); err != nil {
						t.Fatalf("%v n=%d %s swap=%v: %v", op, n, name, swap, err)
					}
					w, g := want.Contiguous().Float64s(), out.Float64s()
					for i := range n {
						if math.Float64bits(w[i]) != math.Float64bits(g[i]) && !(math.IsNaN(w[i]) && math.IsNaN(g[i])) {
							t.Fatalf("%v n=%d %s swap=%v: element %d is %v, want %v", op, n, name, swap, i, g[i], w[i])
						}
					}
				}
			}
		}
	}
}

// TestTinyArrays checks arrays made in one object with their data: zero,
// of the requested length whatever the dtype, and independent of each
// other.
func TestTinyArrays(t *testing.T) {
	for _, dt := range []DType{Bool, Int8, Int32, Int64, Float32, Float64, Complex64, Complex128} {
		for _, shape := range [][]int{{}, {1}, {1, 1}, {2}} {
			if Size(shape)*dt.Size() > tinyBytes {
				continue
			}
			a, err := New(dt, shape...)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := New(dt, shape...)
			if len(a.Bytes()) != Size(shape)*dt.Size() || !SameShape(a.Shape(), shape) || !a.IsContiguous() {
				t.Fatalf("%v%v: %d bytes, shape %v", dt, shape, len(a.Bytes()), a.Shape())
			}
			for i, c := range a.Bytes() {
				if c != 0 {
					t.Fatalf("%v%v: byte %d is %d", dt, shape, i, c)
				}
				a.Bytes()[i] = 0xff
			}
			for _, c := range b.Bytes() {
				if c != 0 {
					t.Fatalf("%v%v: writing one array changed another", dt, shape)
				}
			}
		}
	}
}
