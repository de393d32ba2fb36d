package ndarray

import (
	"strings"
	"testing"
)

// TestWrapRefusesWrappedSize: a shape whose byte count overflows an int
// must not pass for a small buffer whose length it wraps around to; New
// refuses it too.
func TestWrapRefusesWrappedSize(t *testing.T) {
	b := make([]byte, 8) // (2^61+1) * 8 bytes wraps around to 8
	if a, err := Wrap(Float64, []int{1<<61 + 1}, b); err == nil || !strings.Contains(err.Error(), "too many elements") {
		t.Fatalf("Wrap of %d float64s over 8 bytes: %v, %v; want a refusal", 1<<61+1, a, err)
	}
	if a, err := New(Complex128, 1<<60+1); err == nil {
		t.Fatalf("New of %d complex128s: %v; want a refusal", 1<<60+1, a.Shape())
	}
	if _, err := Wrap(Float64, []int{1}, b); err != nil {
		t.Fatalf("Wrap of one float64 over 8 bytes: %v", err)
	}
}
