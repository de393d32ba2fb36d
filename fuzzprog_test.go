package phobos_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/calls"
	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// The random-program differential test (issue 35): programs drawn over
// the function registry (fuzzprog_gen_test.go) run fused, unfused and on a
// cluster of three workers over loopback, each compared with NumPy 1.24
// run on the same inputs in Debian's interpreter. Integers, bools, indices
// and sorts must be equal; floats within bounds by dtype (and family, for
// linear algebra and FFTs), NaN where NumPy has NaN, the same infinities,
// and the sign of a zero where an elementwise function's IEEE definition
// fixes it. A program NumPy refuses must be refused; one Phobos refuses
// and NumPy computes is counted (the dtypes Phobos has no kernel for are
// in docs/differences-from-numpy.md), not failed. A failing program is
// shrunk and written under testdata/fuzzprog, which TestFuzzProgRegressions
// replays in the ordinary go test.
//
// PHOBOS_FUZZ_N=300 go test -run 'TestFuzzPrograms$' runs 300 programs
// for the fixed seed 1 and for the seed of the day (YYYYMMDD), or for
// PHOBOS_FUZZ_SEED alone (PHOBOS_FUZZ_CLUSTER=0 leaves the cluster out);
// without PHOBOS_FUZZ_N it skips, and .ci/run runs it in a step of its
// own that prints the counts per family. The regressions replay in the
// local modes only.

const fzRegressionDir = "testdata/fuzzprog"

// fzMode is a way of running a program.
type fzMode struct {
	name string
	sess *phobos.Session
}

func fzBuildMeta(p fzProg) (m fzMeta, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	prog, err := p.program()
	if err != nil {
		return fzMeta{}, err
	}
	ts, err := prog.Build(false)
	if err != nil {
		return fzMeta{}, err
	}
	t := ts[len(ts)-1]
	return fzMeta{shape: t.Shape(), dt: t.DType()}, nil
}

// fzRun builds p and computes its result in sess; a panic anywhere is an
// error that says so.
func fzRun(sess *phobos.Session, p fzProg) (res *ndarray.Array, meta fzMeta, built bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	prog, err := p.program()
	if err != nil {
		return nil, meta, false, err
	}
	ts, err := prog.Build(false)
	if err != nil {
		return nil, meta, false, err
	}
	t := ts[len(ts)-1]
	meta = fzMeta{shape: t.Shape(), dt: t.DType()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := sess.Execute(ctx, t)
	if err != nil {
		return nil, meta, true, err
	}
	return got[0], meta, true, nil
}

// fzCase is what NumPy is asked for p.
func fzCase(name string, p fzProg) (numpytest.Case, error) {
	in := map[string]*ndarray.Array{}
	for i, l := range p.Leaves {
		a, err := l.array()
		if err != nil {
			return numpytest.Case{}, err
		}
		in["l"+strconv.Itoa(i)] = a
	}
	return numpytest.Case{Name: name, Inputs: in, Expr: fzNumpyPrelude + p.expr()}, nil
}

// fzTol is the float tolerance of a result: relative to the value, and
// absolute relative to scale (the largest finite input), since a sum in
// another order cancels differently.
func fzTol(dt ndarray.DType, family string) float64 {
	var tol float64
	switch dt {
	case ndarray.Float16:
		tol = 4e-3
	case ndarray.Float32, ndarray.Complex64:
		tol = 2e-4
	default:
		tol = 1e-9
	}
	if family == "linalg" || family == "fft" || family == "statistics" {
		tol *= 100
	}
	return tol
}

// fzLeastPrecise is the least precise float type among p's inputs
// (float64 if none): a float64 result computed from float16 data carries
// float16's error.
func fzLeastPrecise(p fzProg) ndarray.DType {
	dt := ndarray.Float64
	for _, l := range p.Leaves {
		switch l.DType {
		case "float16":
			return ndarray.Float16
		case "float32", "complex64":
			dt = ndarray.Float32
		}
	}
	return dt
}

// fzScale is the largest finite magnitude among p's inputs, at least 1.
func fzScale(p fzProg) float64 {
	s := 1.0
	for _, l := range p.Leaves {
		a, err := l.array()
		if err != nil || a.Size() == 0 {
			continue
		}
		if a.DType().IsComplex() {
			c := a.Astype(ndarray.Complex128)
			for i := range c.Size() {
				if v := cmplx.Abs(c.ComplexAtFlat(i)); !math.IsInf(v, 0) && !math.IsNaN(v) {
					s = max(s, v)
				}
			}
			continue
		}
		f := a.Astype(ndarray.Float64).Contiguous()
		for _, v := range f.Float64s()[:f.Size()] {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				s = max(s, math.Abs(v))
			}
		}
	}
	return s
}

// fzCompare checks got against NumPy's want. signedZeros asks for the
// sign of zero results to match too.
func fzCompare(got, want *ndarray.Array, inputs ndarray.DType, family string, scale float64, signedZeros, loose bool) error {
	if got.DType() != want.DType() {
		return fmt.Errorf("wrong dtype: %v, NumPy %v", got.DType(), want.DType())
	}
	if !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Errorf("wrong shape: %v, NumPy %v", got.Shape(), want.Shape())
	}
	dt := got.DType()
	if !dt.IsFloat() && !dt.IsComplex() {
		return numpytest.Compare(got, want, 0, 0)
	}
	tol := max(fzTol(dt, family), fzTol(inputs, family))
	g, w := got.Astype(ndarray.Complex128), want.Astype(ndarray.Complex128)
	for i := range g.Size() {
		gv, wv := g.ComplexAtFlat(i), w.ComplexAtFlat(i)
		if loose && (cmplx.IsNaN(gv) || cmplx.IsInf(gv) || cmplx.IsNaN(wv) || cmplx.IsInf(wv)) {
			continue
		}
		if loose && fzClose(real(gv), real(wv), imag(wv), tol, scale) && fzClose(math.Abs(imag(gv)), math.Abs(imag(wv)), real(wv), tol, scale) {
			// A zero's sign from an FFT or a factorisation picks the side
			// of a branch cut after it (log(-1 ± 0i) = ±πi).
			continue
		}
		if !fzClose(real(gv), real(wv), imag(wv), tol, scale) || !fzClose(imag(gv), imag(wv), real(wv), tol, scale) {
			return fmt.Errorf("wrong value at flat index %d: %v, NumPy %v (tolerance %g, scale %g)", i, gv, wv, tol, scale)
		}
		if signedZeros && (real(gv) == 0 && real(wv) == 0 && math.Signbit(real(gv)) != math.Signbit(real(wv)) ||
			imag(gv) == 0 && imag(wv) == 0 && dt.IsComplex() && math.Signbit(imag(gv)) != math.Signbit(imag(wv))) {
			return fmt.Errorf("wrong sign of zero at flat index %d: %v, NumPy %v", i, gv, wv)
		}
	}
	return nil
}

// fzClose compares one part, g against w; other is w's other part (a
// complex number's error is relative to its magnitude).
func fzClose(g, w, other, tol, scale float64) bool {
	switch {
	case math.IsNaN(g) || math.IsNaN(w):
		return math.IsNaN(g) && math.IsNaN(w)
	case math.IsInf(g, 0) || math.IsInf(w, 0):
		return g == w
	}
	mag := math.Abs(w)
	if !math.IsInf(other, 0) && !math.IsNaN(other) {
		mag = math.Hypot(w, other)
	}
	return math.Abs(g-w) <= tol*mag+tol*scale
}

// fzOutcome is one program in one mode.
type fzOutcome int

const (
	fzAgree      fzOutcome = iota // same value, or both refuse
	fzRefused                     // Phobos refuses what NumPy computes
	fzLenient                     // Phobos computes what NumPy refuses
	fzWrong                       // a wrong value, dtype or shape, or a panic
	fzDocumented                  // a difference docs/differences-from-numpy.md lists
)

// fzJudge runs p in mode m against NumPy's result (or its error).
func fzJudge(m fzMode, p fzProg, family string, want []*ndarray.Array, pyErr error) (fzOutcome, string) {
	got, meta, _, err := fzRun(m.sess, p)
	if err != nil && strings.Contains(err.Error(), "panic") {
		return fzWrong, "panic: " + fzShort(err.Error())
	}
	switch {
	case pyErr != nil && err != nil:
		return fzAgree, ""
	case pyErr != nil:
		return fzLenient, fzShort(pyErr.Error())
	case err != nil:
		return fzRefused, fzShort(err.Error())
	}
	if len(want) != 1 {
		return fzWrong, fmt.Sprintf("NumPy gave %d results", len(want))
	}
	if fzLoose(p) && fzFamily(p.Calls[len(p.Calls)-1].Fn) == "sets" {
		// Equality of floats an FFT or a factorisation computed is
		// equality to the last rounding, which differs from NumPy's.
		if got.DType() == want[0].DType() {
			return fzDocumented, "set operation of rounded FFT or linear algebra results"
		}
	}
	if got.DType() != meta.dt {
		return fzWrong, fmt.Sprintf("meta says %v, execution gave %v", meta.dt, got.DType())
	}
	if got.DType() != want[0].DType() && fzReadsZeroD(p) {
		// NumPy 1.24 types 0-d arrays by their values, as scalars;
		// Phobos by dtype and kind, as a computed 0-d tensor's value is
		// not known when the graph is built.
		return fzDocumented, "0-d operands typed by dtype and kind"
	}
	if got.DType() != want[0].DType() && fzFamily(p.Calls[len(p.Calls)-1].Fn) == "sets" && fzNumberArg(p.Calls[len(p.Calls)-1]) {
		// NumPy 1.24 makes a Python number a 0-d array typed by value
		// beside the other array; Phobos types it int64, float64 or
		// complex128, as NumPy 2 does.
		return fzDocumented, "a Python number in a set operation"
	}
	if fn := p.Calls[len(p.Calls)-1].Fn; (fn == "nanvar" || fn == "nanstd") && got.DType() == ndarray.Float64 && want[0].DType() == ndarray.Float32 {
		// NumPy's nanvar of complex64 is float32 only when no NaN is
		// there (it falls back to var); Phobos has its NaN path's type.
		return fzDocumented, "nanvar of complex64"
	}
	if !slices.Equal(got.Shape(), want[0].Shape()) && slices.ContainsFunc(p.Calls, func(c fzCall) bool { return c.Fn == "linalg.solve" }) {
		// NumPy 1.24 reads a b of a.ndim - 1 dimensions as a stack of
		// vectors; Phobos as a stack of matrices, as the Array API and
		// NumPy 2 do.
		return fzDocumented, "solve's stacked b"
	}
	signed := family == "ufuncs" && len(p.Calls) == 1
	if err := fzCompare(got, want[0], fzLeastPrecise(p), family, fzScale(p), signed, fzLoose(p)); err != nil && fzCloseOfComplexInf(p) {
		// NumPy 1.24's isclose multiplies by ones first, which makes an
		// infinite complex number's other part NaN: x is not close to x.
		return fzDocumented, "isclose of complex infinities"
	}
	if err := fzCompare(got, want[0], fzLeastPrecise(p), family, fzScale(p), signed, fzLoose(p)); err != nil && fzScanOfNonFinite(p, want[0]) {
		// A chunked running product or sum is each chunk's scan
		// combined with the carry of the chunks before it (as Dask's
		// is), so chunks scan in parallel; where NumPy's one pass meets
		// an infinity or overflows, that association can give NaN or a
		// finite part in place of NumPy's infinity.
		return fzDocumented, "chunked scans of non-finite values"
	}
	if err := fzCompare(got, want[0], fzLeastPrecise(p), family, fzScale(p), signed, fzLoose(p)); err != nil {
		return fzWrong, err.Error()
	}
	return fzAgree, ""
}

// fzScanOfNonFinite: the program runs a cumulative product or sum and
// NumPy's result holds an infinity or a NaN.
func fzScanOfNonFinite(p fzProg, want *ndarray.Array) bool {
	if !slices.ContainsFunc(p.Calls, func(c fzCall) bool {
		return c.Fn == "cumprod" || c.Fn == "cumsum" || c.Fn == "nancumprod" || c.Fn == "nancumsum"
	}) {
		return false
	}
	if !want.DType().IsFloat() && !want.DType().IsComplex() {
		return false
	}
	c := want.Astype(ndarray.Complex128)
	for i := range c.Size() {
		if z := c.ComplexAtFlat(i); cmplx.IsInf(z) || cmplx.IsNaN(z) {
			return true
		}
	}
	return false
}

// fzCloseOfComplexInf reports whether p calls isclose or allclose with
// complex inputs holding an infinity.
func fzCloseOfComplexInf(p fzProg) bool {
	if !slices.ContainsFunc(p.Calls, func(c fzCall) bool { return c.Fn == "isclose" || c.Fn == "allclose" }) {
		return false
	}
	for _, l := range p.Leaves {
		a, err := l.array()
		if err != nil || !a.DType().IsComplex() {
			continue
		}
		c := a.Astype(ndarray.Complex128)
		for i := range c.Size() {
			if cmplx.IsInf(c.ComplexAtFlat(i)) {
				return true
			}
		}
	}
	return false
}

// fzNumberArg reports whether c has a number among its positional arguments.
func fzNumberArg(c fzCall) bool {
	for _, a := range c.Args {
		if !a.isRef() && a.Seq == nil && len(a.JSON) > 0 && strings.ContainsAny(string(a.JSON[:1]), "-0123456789") {
			return true
		}
	}
	return false
}

// fzReadsZeroD reports whether the last call of p reads a 0-d array.
func fzReadsZeroD(p fzProg) bool {
	prog, err := p.program()
	if err != nil {
		return false
	}
	ts, err := prog.Build(false)
	if err != nil {
		return false
	}
	last := p.Calls[len(p.Calls)-1]
	args := slices.Clone(last.Args)
	for _, a := range last.Kwargs {
		args = append(args, a)
	}
	for len(args) > 0 {
		a := args[0]
		args = append(args[1:], a.Seq...)
		var t int
		switch {
		case a.Leaf != nil:
			t = *a.Leaf
		case a.Call != nil:
			t = len(p.Leaves) + *a.Call
		default:
			continue
		}
		if ts[t].NDim() == 0 {
			return true
		}
	}
	return false
}

// fzLoose reports whether p calls an FFT or a linear algebra function:
// NaN and infinities (of its inputs, or made on the way, as log(0)) spread
// through those as their algorithms have them (NumPy's pocketfft and
// LAPACK their own way), so non-finite results are not compared there.
func fzLoose(p fzProg) bool {
	for _, c := range p.Calls {
		if f := fzFamily(c.Fn); f == "fft" || f == "linalg" {
			return true
		}
	}
	return false
}

func fzShort(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// fzTally counts outcomes per family.
type fzTally struct {
	n       map[string][5]int
	refused map[string]int // reason prefix -> count
	lenient []string       // programs NumPy refuses and Phobos computes
}

func (t *fzTally) add(family string, o fzOutcome, why string, p fzProg) {
	c := t.n[family]
	c[o]++
	t.n[family] = c
	switch o {
	case fzRefused:
		t.refused[fzReason(why)]++
	case fzLenient:
		t.lenient = append(t.lenient, fmt.Sprintf("%s  (numpy: %s)", p.expr(), why))
	}
}

// fzReason is a refusal's message without its values, to count alike ones.
func fzReason(s string) string {
	if i := strings.Index(s, ": "); i > 0 && i < 40 {
		s = s[i+2:]
	}
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}

func (t *fzTally) report(tb testing.TB, label string) {
	fams := make([]string, 0, len(t.n))
	for f := range t.n {
		fams = append(fams, f)
	}
	slices.Sort(fams)
	var total [5]int
	var b strings.Builder
	for _, f := range fams {
		c := t.n[f]
		for i := range total {
			total[i] += c[i]
		}
		fmt.Fprintf(&b, "\n  %-15s %5d agree %4d documented differences %4d refused by phobos %4d refused by numpy only %3d wrong", f, c[0], c[4], c[1], c[2], c[3])
	}
	tb.Logf("fuzzprog %s: %d program runs: %d agree, %d documented differences, %d refused by phobos, %d refused by numpy only, %d wrong%s",
		label, total[0]+total[1]+total[2]+total[3]+total[4], total[0], total[4], total[1], total[2], total[3], b.String())
	if testing.Verbose() {
		type kv struct {
			k string
			v int
		}
		var rs []kv
		for k, v := range t.refused {
			rs = append(rs, kv{k, v})
		}
		slices.SortFunc(rs, func(a, b kv) int { return b.v - a.v })
		for i, r := range rs {
			if i == 25 {
				break
			}
			tb.Logf("  refused %4d: %s", r.v, r.k)
		}
		for i, l := range t.lenient {
			if i == 25 {
				break
			}
			tb.Logf("  numpy refuses: %s", l)
		}
	}
}

// fzModes starts the sessions programs run in: fused, unfused and a
// cluster of three workers over loopback.
func fzModes(t *testing.T) []fzMode {
	t.Helper()
	fused, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fused.Close() })
	unfused, err := phobos.NewSession(phobos.WithFusion(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unfused.Close() })
	modes := []fzMode{{"fused", fused}, {"unfused", unfused}}
	if os.Getenv("PHOBOS_FUZZ_CLUSTER") != "0" {
		ctx := context.Background()
		c := startUploadCluster(t, ctx, 3)
		remote, err := phobos.Connect(ctx, c.web.URL(), phobos.WithMaxAttempts(1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { remote.Close() })
		modes = append(modes, fzMode{"cluster3", remote})
	}
	return modes
}

// fzEvaluate has NumPy evaluate every program.
func fzEvaluate(t *testing.T, progs []fzProg) ([][]*ndarray.Array, []error) {
	t.Helper()
	cases := make([]numpytest.Case, len(progs))
	for i, p := range progs {
		c, err := fzCase(fmt.Sprintf("program %d", i), p)
		if err != nil {
			t.Fatal(err)
		}
		cases[i] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	want, errs, err := npRunner.Eval(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	return want, errs
}

// fzFailure is a shrunk failing program, as written under testdata.
type fzFailure struct {
	Seed    uint64 `json:"seed"`
	Index   int    `json:"index"`
	Mode    string `json:"mode"`
	Family  string `json:"family"`
	Why     string `json:"why"`
	Program fzProg `json:"program"`
}

// TestFuzzPrograms is the random-program differential test.
func TestFuzzPrograms(t *testing.T) {
	s := os.Getenv("PHOBOS_FUZZ_N")
	if s == "" {
		t.Skip("set PHOBOS_FUZZ_N to run the random-program test (.ci/run runs 300; 10000 for the long run)")
	}
	npRunner.Skip(t)
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("PHOBOS_FUZZ_N=%q: %v", s, err)
	}
	seeds := []uint64{1, uint64(fzDay(time.Now()))}
	if s := os.Getenv("PHOBOS_FUZZ_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PHOBOS_FUZZ_SEED=%q: %v", s, err)
		}
		seeds = []uint64{v}
	}
	fns, skipped := fzFuzzable()
	t.Logf("fuzzprog: %d of %d registry functions drawn; left out: %v", len(fns), len(fns)+len(skipped), fzSortedKeys(skipped))
	modes := fzModes(t)
	for _, seed := range seeds {
		fzSeed(t, seed, n, fns, modes)
	}
}

func fzDay(now time.Time) int {
	y, m, d := now.UTC().Date()
	return y*10000 + int(m)*100 + d
}

func fzSortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// fzSeed draws n programs from seed and judges them in batches.
func fzSeed(t *testing.T, seed uint64, n int, fns []calls.Function, modes []fzMode) {
	start := time.Now()
	g := &fzGen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), fns: fns}
	tally := &fzTally{n: map[string][5]int{}, refused: map[string]int{}}
	const batch = 250
	wrong := 0
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		progs := make([]fzProg, 0, hi-lo)
		fams := make([]string, 0, hi-lo)
		for range hi - lo {
			p, fam := g.draw()
			progs = append(progs, p)
			fams = append(fams, fam)
		}
		want, pyErrs := fzEvaluate(t, progs)
		for i, p := range progs {
			if len(p.Calls) == 0 {
				continue
			}
			for _, m := range modes {
				o, why := fzJudge(m, p, fams[i], want[i], pyErrs[i])
				tally.add(fams[i], o, why, p)
				if o != fzWrong {
					continue
				}
				wrong++
				if wrong > 20 {
					continue // enough to work on
				}
				f := fzShrink(t, fzFailure{Seed: seed, Index: lo + i, Mode: m.name, Family: fams[i], Why: why, Program: p}, m)
				path := fzWrite(t, f)
				t.Errorf("seed %d program %d (%s, %s): %s\n  numpy: %s\n  shrunk to: %s\n  written to %s",
					seed, lo+i, fams[i], m.name, why, p.expr(), f.Program.expr(), path)
				break
			}
		}
	}
	tally.report(t, fmt.Sprintf("seed %d, %d programs x %d modes in %v", seed, n, len(modes), time.Since(start).Round(time.Second)))
}

// fzShrink makes a failing program smaller while it still fails in its
// mode: the last call alone on NumPy's values of its operands, fewer
// keyword arguments, one chunk per leaf.
func fzShrink(t *testing.T, f fzFailure, m fzMode) fzFailure {
	fails := func(p fzProg) (bool, string) {
		want, errs := fzEvaluate(t, []fzProg{p})
		o, why := fzJudge(m, p, f.Family, want[0], errs[0])
		return o == fzWrong, why
	}
	try := func(p fzProg) bool {
		if ok, why := fails(p); ok {
			f.Program, f.Why = p, why
			return true
		}
		return false
	}
	if len(f.Program.Calls) > 1 {
		if p, ok := fzMaterialise(t, f.Program); ok {
			try(p)
		}
	}
	for changed := true; changed; {
		changed = false
		last := f.Program.Calls[len(f.Program.Calls)-1]
		for k := range last.Kwargs {
			p := fzClone(f.Program)
			delete(p.Calls[len(p.Calls)-1].Kwargs, k)
			if try(p) {
				changed = true
				break
			}
		}
		for i, l := range f.Program.Leaves {
			if l.Chunks == nil {
				continue
			}
			p := fzClone(f.Program)
			p.Leaves[i].Chunks = nil
			if try(p) {
				changed = true
				break
			}
		}
	}
	return f
}

func fzClone(p fzProg) fzProg {
	b, _ := json.Marshal(p)
	var q fzProg
	if err := json.Unmarshal(b, &q); err != nil {
		panic(err)
	}
	return q
}

// fzMaterialise is p's last call with the earlier calls it reads
// replaced by NumPy's values of them, as leaves.
func fzMaterialise(t *testing.T, p fzProg) (fzProg, bool) {
	q := fzProg{Leaves: p.Leaves}
	last := p.Calls[len(p.Calls)-1]
	values := map[int]fzArg{}
	var sub func(a fzArg) (fzArg, bool)
	sub = func(a fzArg) (fzArg, bool) {
		switch {
		case a.Call != nil:
			if v, ok := values[*a.Call]; ok {
				return v, true
			}
			pre := fzProg{Leaves: p.Leaves, Calls: p.Calls[:*a.Call+1]}
			want, errs := fzEvaluate(t, []fzProg{pre})
			if errs[0] != nil || len(want[0]) != 1 {
				return a, false
			}
			i := len(q.Leaves)
			q.Leaves = append(q.Leaves, fzLeafOf(want[0][0], nil))
			v := fzArg{Leaf: &i}
			values[*a.Call] = v
			return v, true
		case a.Seq != nil:
			out := a
			out.Seq = make([]fzArg, len(a.Seq))
			for j, s := range a.Seq {
				v, ok := sub(s)
				if !ok {
					return a, false
				}
				out.Seq[j] = v
			}
			return out, true
		}
		return a, true
	}
	c := fzCall{Fn: last.Fn, Out: last.Out, Kwargs: map[string]fzArg{}}
	for _, a := range last.Args {
		v, ok := sub(a)
		if !ok {
			return p, false
		}
		c.Args = append(c.Args, v)
	}
	for k, a := range last.Kwargs {
		v, ok := sub(a)
		if !ok {
			return p, false
		}
		c.Kwargs[k] = v
	}
	q.Calls = []fzCall{c}
	return fzClone(q), true
}

// fzWrite writes a failure as a regression case and returns its path.
func fzWrite(t *testing.T, f fzFailure) string {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fzRegressionDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(fzRegressionDir, fmt.Sprintf("seed%d-%d-%s.json", f.Seed, f.Index, f.Mode))
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFuzzProgRegressions replays the shrunk programs the fuzzer found
// wrong (testdata/fuzzprog), each in every local mode, against NumPy.
func TestFuzzProgRegressions(t *testing.T) {
	npRunner.Skip(t)
	paths, err := filepath.Glob(filepath.Join(fzRegressionDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skip("no regression programs")
	}
	var fs []fzFailure
	var progs []fzProg
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fzFailure
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		fs = append(fs, f)
		progs = append(progs, f.Program)
	}
	t.Setenv("PHOBOS_FUZZ_CLUSTER", "0")
	modes := fzModes(t)
	want, errs := fzEvaluate(t, progs)
	for i, f := range fs {
		for _, m := range modes {
			if o, why := fzJudge(m, f.Program, f.Family, want[i], errs[i]); o == fzWrong {
				t.Errorf("%s (%s): %s\n  numpy: %s", paths[i], m.name, why, f.Program.expr())
			}
		}
	}
	t.Logf("fuzzprog regressions: %d programs replayed", len(fs))
}

// npyData64 is a's .npy bytes in base64, as a data node carries them.
func npyData64(a *ndarray.Array) string {
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
