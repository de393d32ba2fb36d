package numpytest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Compare checks got against want, NumPy's result: equal shapes, equal
// dtypes, integers and bools exactly equal, and floats within
// |got-want| <= atol + rtol*|want| elementwise (complex numbers part by
// part), where NaN matches NaN and an
// infinity matches only the same infinity. The error names the first
// mismatching index, both values and how many elements differ.
func Compare(got, want *ndarray.Array, rtol, atol float64) error {
	if got == nil || want == nil {
		return fmt.Errorf("numpytest: Compare of a nil array (got %v, want %v)", got != nil, want != nil)
	}
	if !(rtol >= 0) || !(atol >= 0) {
		return fmt.Errorf("numpytest: Compare tolerances must be >= 0 (rtol %v, atol %v)", rtol, atol)
	}
	if got.DType() != want.DType() {
		return fmt.Errorf("numpytest: dtype %v, want %v (shape %v, want %v)", got.DType(), want.DType(), got.Shape(), want.Shape())
	}
	if !ndarray.SameShape(got.Shape(), want.Shape()) {
		return fmt.Errorf("numpytest: shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.Contiguous(), want.Contiguous()
	n := g.Size()
	var bad func(i int) bool
	var show func(i int) (string, string)
	switch g.DType() {
	case ndarray.Float64:
		gs, ws := g.Float64s()[:n], w.Float64s()[:n]
		bad = func(i int) bool { return !within(gs[i], ws[i], rtol, atol) }
		show = func(i int) (string, string) {
			return strconv.FormatFloat(gs[i], 'g', -1, 64), strconv.FormatFloat(ws[i], 'g', -1, 64)
		}
	case ndarray.Float32:
		gs, ws := g.Float32s()[:n], w.Float32s()[:n]
		bad = func(i int) bool { return !within(float64(gs[i]), float64(ws[i]), rtol, atol) }
		show = func(i int) (string, string) {
			return strconv.FormatFloat(float64(gs[i]), 'g', -1, 32), strconv.FormatFloat(float64(ws[i]), 'g', -1, 32)
		}
	case ndarray.Int64:
		gs, ws := g.Int64s()[:n], w.Int64s()[:n]
		bad = func(i int) bool { return gs[i] != ws[i] }
		show = func(i int) (string, string) { return strconv.FormatInt(gs[i], 10), strconv.FormatInt(ws[i], 10) }
	case ndarray.Int32:
		gs, ws := g.Int32s()[:n], w.Int32s()[:n]
		bad = func(i int) bool { return gs[i] != ws[i] }
		show = func(i int) (string, string) {
			return strconv.FormatInt(int64(gs[i]), 10), strconv.FormatInt(int64(ws[i]), 10)
		}
	case ndarray.Bool:
		gs, ws := g.Bools()[:n], w.Bools()[:n]
		bad = func(i int) bool { return (gs[i] != 0) != (ws[i] != 0) }
		show = func(i int) (string, string) {
			return strconv.FormatBool(gs[i] != 0), strconv.FormatBool(ws[i] != 0)
		}
	case ndarray.Complex128, ndarray.Complex64:
		// Each part on its own, as a float of the part type; the shown
		// values are complex128 either way.
		bits := 64
		if g.DType() == ndarray.Complex64 {
			bits = 32
		}
		bad = func(i int) bool {
			gv, wv := g.ComplexAtFlat(i), w.ComplexAtFlat(i)
			return !within(real(gv), real(wv), rtol, atol) || !within(imag(gv), imag(wv), rtol, atol)
		}
		show = func(i int) (string, string) {
			return strconv.FormatComplex(g.ComplexAtFlat(i), 'g', -1, 2*bits), strconv.FormatComplex(w.ComplexAtFlat(i), 'g', -1, 2*bits)
		}
	case ndarray.Float16:
		gs, ws := g.Float16s()[:n], w.Float16s()[:n]
		bad = func(i int) bool {
			return !within(ndarray.HalfToFloat64(gs[i]), ndarray.HalfToFloat64(ws[i]), rtol, atol)
		}
		show = func(i int) (string, string) {
			return strconv.FormatFloat(ndarray.HalfToFloat64(gs[i]), 'g', -1, 32), strconv.FormatFloat(ndarray.HalfToFloat64(ws[i]), 'g', -1, 32)
		}
	default:
		if !g.DType().IsInt() {
			return errors.New("numpytest: Compare of an invalid dtype")
		}
		// The narrower and unsigned integers: equal bytes, shown by value.
		sz := g.DType().Size()
		gb, wb := g.Bytes(), w.Bytes()
		bad = func(i int) bool { return !bytes.Equal(gb[i*sz:(i+1)*sz], wb[i*sz:(i+1)*sz]) }
		str := func(a *ndarray.Array, i int) string {
			if a.DType() == ndarray.Uint64 {
				return strconv.FormatUint(uint64(a.IntAtFlat(i)), 10)
			}
			return strconv.FormatInt(a.IntAtFlat(i), 10)
		}
		show = func(i int) (string, string) { return str(g, i), str(w, i) }
	}
	first, count := -1, 0
	for i := 0; i < n; i++ {
		if bad(i) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	if count == 0 {
		return nil
	}
	gv, wv := show(first)
	tol := ""
	if g.DType().IsFloat() || g.DType().IsComplex() {
		tol = fmt.Sprintf(" (rtol %g, atol %g)", rtol, atol)
	}
	return fmt.Errorf("numpytest: %d of %d elements differ%s; first at index %s: got %s, want %s",
		count, n, tol, multiIndex(first, g.Shape()), gv, wv)
}

// within is the float comparison of Compare.
func within(g, w, rtol, atol float64) bool {
	switch {
	case math.IsNaN(g) || math.IsNaN(w):
		return math.IsNaN(g) && math.IsNaN(w)
	case math.IsInf(g, 0) || math.IsInf(w, 0):
		return g == w
	}
	return math.Abs(g-w) <= atol+rtol*math.Abs(w)
}

// multiIndex formats C-order flat index i of shape as a NumPy index tuple.
func multiIndex(i int, shape []int) string {
	idx := make([]string, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		idx[ax] = strconv.Itoa(i % shape[ax])
		i /= shape[ax]
	}
	if len(idx) == 1 {
		return "(" + idx[0] + ",)"
	}
	return "(" + strings.Join(idx, ", ") + ")"
}
