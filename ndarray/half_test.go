package ndarray

import (
	"errors"
	"math"
	"testing"
)

// Every half survives the trip through float64, and every float64 between
// two neighbouring halves rounds to the nearer one (the even one at the
// midpoint). NumPy agreement on the same values is in the root package's
// dtypes suite.
func TestHalfConversions(t *testing.T) {
	for h := range 1 << 16 {
		f := HalfToFloat64(uint16(h))
		got := Float64ToHalf(f)
		if f != f {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("half %#04x (NaN) came back as %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("half %#04x = %v came back as %#04x", h, f, got)
		}
	}
	for h := uint16(0); h < 0x7bff; h++ {
		lo, hi := HalfToFloat64(h), HalfToFloat64(h+1)
		mid := (lo + hi) / 2
		even := h
		if h&1 != 0 {
			even = h + 1
		}
		for _, c := range []struct {
			v    float64
			want uint16
		}{{math.Nextafter(mid, lo), h}, {mid, even}, {math.Nextafter(mid, hi), h + 1}} {
			if got := Float64ToHalf(c.v); got != c.want {
				t.Fatalf("%v (between halves %#04x and %#04x) rounded to %#04x, want %#04x", c.v, h, h+1, got, c.want)
			}
			if got := Float64ToHalf(-c.v); got != c.want|0x8000 {
				t.Fatalf("%v rounded to %#04x, want %#04x", -c.v, got, c.want|0x8000)
			}
		}
	}
	for _, c := range []struct {
		v    float64
		want uint16
	}{{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {math.Inf(-1), 0xfc00}, {0x1p-25, 0}, {0x1p-25 * 1.0001, 1}, {1e-300, 0}} {
		if got := Float64ToHalf(c.v); got != c.want {
			t.Errorf("Float64ToHalf(%v) = %#04x, want %#04x", c.v, got, c.want)
		}
	}
}

// Kernels without float16 loops refuse it with a DTypeError.
func TestHalfRefused(t *testing.T) {
	a := Scalar(Float16, 1.5)
	v, err := a.Reshape(1)
	if err != nil {
		t.Fatal(err)
	}
	var de *DTypeError
	if _, err := CumSum(v, 0); !errors.As(err, &de) {
		t.Errorf("cumsum of float16: %v, want a DTypeError", err)
	}
	if _, err := MatMul(v, v); !errors.As(err, &de) {
		t.Errorf("matmul of float16: %v, want a DTypeError", err)
	}
}

// spacing and nextafter of float16 work on the half format's own bits.
func TestHalfSpacingNextAfter(t *testing.T) {
	v, err := Scalar(Float16, 1.5).Reshape(1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Unary(Spacing, v)
	if err != nil || s.DType() != Float16 || s.AtFlat(0) != 0x1p-10 {
		t.Errorf("spacing(float16 1.5) = %v, %v; want float16 2**-10", s, err)
	}
	up, err := Binary(NextAfter, v, Scalar(Float16, 2))
	if err != nil || up.AtFlat(0) != 1.5+0x1p-10 {
		t.Errorf("nextafter(float16 1.5, 2) = %v, %v; want 1.5 + 2**-10", up, err)
	}
	down, err := Binary(NextAfter, Scalar(Float16, 0), Scalar(Float16, -1))
	if err != nil || down.AtFlat(0) != -0x1p-24 {
		t.Errorf("nextafter(float16 0, -1) = %v, %v; want -2**-24", down, err)
	}
}

// The float32 path rounds as the float64 one, over a spread of float32 bit
// patterns and every half's neighbourhood.
func TestFloat32ToHalf(t *testing.T) {
	check := func(b uint32) {
		f := math.Float32frombits(b)
		got, want := float32ToHalf(f), Float64ToHalf(float64(f))
		if got != want {
			t.Fatalf("float32 %#08x (%v): %#04x, want %#04x", b, f, got, want)
		}
	}
	for b := uint32(0); b < 1<<32-4093; b += 4093 {
		check(b)
	}
	for h := range 1 << 16 {
		b := math.Float32bits(float32(HalfToFloat64(uint16(h))))
		for d := uint32(0); d < 1<<14; d += 97 {
			check(b + d)
			check(b - d)
		}
		check(b + 1<<12)
		check(b - 1<<12)
	}
}
