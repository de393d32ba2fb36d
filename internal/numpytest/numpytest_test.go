package numpytest

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
)

// runner is shared by the tests so NumPy's availability is checked once.
var runner = NewRunner()

func f64(t *testing.T, shape []int, v ...float64) *ndarray.Array {
	t.Helper()
	a, err := ndarray.FromFloat64s(shape, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func i64(t *testing.T, shape []int, v ...int64) *ndarray.Array {
	t.Helper()
	a, err := ndarray.FromInt64s(shape, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestEval(t *testing.T) {
	runner.Skip(t)
	_, why := runner.Available()
	t.Log(why)
	a := f64(t, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := f64(t, []int{2, 3}, 0.5, 0.5, 0.5, 1, 1, 1)
	ia := i64(t, []int{4}, 7, -7, 9, 10)
	at, _ := a.Transpose() // a strided input
	f32, _ := ndarray.FromFloat32s([]int{3}, []float32{1.5, 2.5, -1})
	bools, _ := ndarray.FromBools([]int{3}, []bool{true, false, true})
	empty, _ := ndarray.New(ndarray.Float64, 0, 3)
	scalar := ndarray.Scalar(ndarray.Float64, 2)

	cases := []Case{
		{Name: "sum", Inputs: map[string]*ndarray.Array{"a": a, "b": b}, Expr: "np.sum(a + b, axis=1)"},
		{Name: "transposed input", Inputs: map[string]*ndarray.Array{"x": at}, Expr: "x.copy()"},
		{Name: "transposed result", Inputs: map[string]*ndarray.Array{"a": a}, Expr: "a.T"},
		{Name: "python float", Expr: "1.5"},
		{Name: "python int", Expr: "2**40"},
		{Name: "python bool", Inputs: map[string]*ndarray.Array{"a": a}, Expr: "a.shape == (2, 3)"},
		{Name: "numpy scalar", Inputs: map[string]*ndarray.Array{"f": f32}, Expr: "f.sum()"},
		{Name: "tuple", Inputs: map[string]*ndarray.Array{"x": ia}, Expr: "np.divmod(x, 3)"},
		{Name: "list", Inputs: map[string]*ndarray.Array{"a": a, "m": bools}, Expr: "[a.max(), ~m, a.dtype == np.float64]"},
		{Name: "empty and 0-d", Inputs: map[string]*ndarray.Array{"e": empty, "s": scalar}, Expr: "(e.sum(axis=0), e * s, s * 3)"},
		{Name: "int32", Expr: "np.arange(4, dtype=np.int32)[::-1]"},
		{Name: "nan inf", Expr: "np.array([0.0, 1.0, -1.0]) / 0.0"},
	}
	res, errs, err := runner.Eval(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("case %d: %v", i, e)
		}
	}
	check := func(name string, got, want *ndarray.Array) {
		t.Helper()
		if err := Compare(got, want, 0, 0); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	one := func(i int) *ndarray.Array {
		t.Helper()
		if len(res[i]) != 1 {
			t.Fatalf("case %q: %d results, want 1", cases[i].Name, len(res[i]))
		}
		return res[i][0]
	}
	check("sum", one(0), f64(t, []int{2}, 7.5, 18))
	check("transposed input", one(1), f64(t, []int{3, 2}, 1, 4, 2, 5, 3, 6))
	check("transposed result", one(2), f64(t, []int{3, 2}, 1, 4, 2, 5, 3, 6))
	check("python float", one(3), ndarray.Scalar(ndarray.Float64, 1.5))
	check("python int", one(4), ndarray.ScalarInt(1<<40))
	check("python bool", one(5), ndarray.Scalar(ndarray.Bool, 1))
	check("numpy scalar", one(6), ndarray.Scalar(ndarray.Float32, 3))
	if len(res[7]) != 2 {
		t.Fatalf("divmod gave %d results", len(res[7]))
	}
	check("divmod q", res[7][0], i64(t, []int{4}, 2, -3, 3, 3))
	check("divmod r", res[7][1], i64(t, []int{4}, 1, 2, 0, 1))
	nb, _ := ndarray.FromBools([]int{3}, []bool{false, true, false})
	if len(res[8]) != 3 {
		t.Fatalf("list gave %d results", len(res[8]))
	}
	check("list max", res[8][0], ndarray.Scalar(ndarray.Float64, 6))
	check("list not", res[8][1], nb)
	check("list bool", res[8][2], ndarray.Scalar(ndarray.Bool, 1))
	z3, _ := ndarray.New(ndarray.Float64, 3)
	check("empty sum", res[9][0], z3)
	check("empty product", res[9][1], empty)
	check("0-d", res[9][2], ndarray.Scalar(ndarray.Float64, 6))
	i32, _ := ndarray.FromInt32s([]int{4}, []int32{3, 2, 1, 0})
	check("int32", one(10), i32)
	check("nan inf", one(11), f64(t, []int{3}, math.NaN(), math.Inf(1), math.Inf(-1)))
	// A deliberately wrong expectation must fail Compare, naming the index.
	err = Compare(one(0), f64(t, []int{2}, 7.5, 18.5), 1e-9, 0)
	if err == nil || !strings.Contains(err.Error(), "index (1,)") || !strings.Contains(err.Error(), "got 18, want 18.5") {
		t.Errorf("wrong expectation: Compare said %v", err)
	}
}

// TestEvalCaseErrors: failures of single cases come back per case with
// Python's message, and do not spoil the batch.
func TestEvalCaseErrors(t *testing.T) {
	runner.Skip(t)
	a := f64(t, []int{3}, 1, 2, 3)
	cases := []Case{
		{Name: "ok before", Inputs: map[string]*ndarray.Array{"a": a}, Expr: "a * 2"},
		{Name: "name error", Inputs: map[string]*ndarray.Array{"a": a}, Expr: "a + undefined_thing"},
		{Name: "broadcast", Expr: "np.ones(3) + np.ones(4)"},
		{Name: "syntax", Expr: "np.sum(("},
		{Name: "statement", Expr: "x = 1"},
		{Name: "bytes", Expr: "np.array([b\"ab\"])"},
		{Name: "complex256", Expr: "np.array([1j, 2], dtype=np.clongdouble)"},
		{Name: "complex", Expr: "np.arange(3) * 1j"},
		{Name: "python complex", Expr: "1j"},
		{Name: "string", Expr: "'x'"},
		{Name: "nested", Expr: "(1, (2, 3))"},
		{Name: "big int", Expr: "2**70"},
		{Name: "nil input", Inputs: map[string]*ndarray.Array{"a": nil}, Expr: "a"},
		{Name: "bad name", Inputs: map[string]*ndarray.Array{"np": a}, Expr: "np"},
		{Name: "keyword name", Inputs: map[string]*ndarray.Array{"lambda": a}, Expr: "1"},
		{Name: "ok after", Inputs: map[string]*ndarray.Array{"a": a}, Expr: "a.sum()"},
	}
	want := []string{
		"",
		"NameError: name 'undefined_thing' is not defined",
		"ValueError: operands could not be broadcast together",
		"SyntaxError",
		"SyntaxError",
		"dtype |S2",
		"dtype complex256",
		"",
		"",
		"Python str",
		"nested tuple",
		"does not fit int64",
		"input \"a\" is nil",
		"input name \"np\"",
		"input name 'lambda'",
		"",
	}
	res, errs, err := runner.Eval(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		switch {
		case w == "" && errs[i] != nil:
			t.Errorf("case %q: %v", cases[i].Name, errs[i])
		case w != "" && (errs[i] == nil || !strings.Contains(errs[i].Error(), w)):
			t.Errorf("case %q: error %v, want one containing %q", cases[i].Name, errs[i], w)
		case w != "" && res[i] != nil:
			t.Errorf("case %q failed but has results", cases[i].Name)
		}
	}
	if err := Compare(res[0][0], f64(t, []int{3}, 2, 4, 6), 0, 0); err != nil {
		t.Error(err)
	}
	if err := Compare(res[15][0], ndarray.Scalar(ndarray.Float64, 6), 0, 0); err != nil {
		t.Error(err)
	}
	t.Logf("example per-case error: %v", errs[1])
}

func TestEvalBatch(t *testing.T) {
	runner.Skip(t)
	// No cases: nothing to run.
	res, errs, err := runner.Eval(context.Background(), nil)
	if err != nil || len(res) != 0 || len(errs) != 0 {
		t.Fatalf("empty batch: %v %v %v", res, errs, err)
	}
	// A cancelled context is a batch error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := runner.Eval(ctx, []Case{{Name: "x", Expr: "1"}}); err == nil {
		t.Fatal("cancelled Eval succeeded")
	}
	// A hung case is stopped by the context.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err = runner.Eval(ctx, []Case{{Name: "sleep", Expr: "__import__('time').sleep(60)"}})
	if err == nil || time.Since(start) > 30*time.Second {
		t.Fatalf("hung case: err %v after %v", err, time.Since(start))
	}
	// A missing interpreter makes Available false with an install hint.
	r := &Runner{python: "/nonexistent/python3"}
	if ok, why := r.Available(); ok || !strings.Contains(why, "apt-get install") {
		t.Fatalf("missing python: %v %q", ok, why)
	}
	if _, _, err := r.Eval(context.Background(), []Case{{Expr: "1"}}); err == nil || !strings.Contains(err.Error(), "apt-get install") {
		t.Fatalf("Eval without numpy: %v", err)
	}
	// A batch of many cases runs in one process.
	var many []Case
	for i := 0; i < 200; i++ {
		many = append(many, Case{Name: "n", Inputs: map[string]*ndarray.Array{"v": ndarray.ScalarInt(int64(i))}, Expr: "v * v"})
	}
	res, errs, err = runner.Eval(context.Background(), many)
	if err != nil {
		t.Fatal(err)
	}
	for i := range many {
		if errs[i] != nil || res[i][0].IntAtFlat(0) != int64(i*i) {
			t.Fatalf("case %d: %v %v", i, errs[i], res[i])
		}
	}
}

func TestCompare(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	a := f64(t, []int{2, 3}, 1, 2, 3, nan, inf, -inf)
	if err := Compare(a, a.Copy(), 0, 0); err != nil {
		t.Fatalf("equal arrays: %v", err)
	}
	tr, _ := f64(t, []int{3, 2}, 1, nan, 2, inf, 3, -inf).Transpose()
	if err := Compare(tr, a, 0, 0); err != nil {
		t.Fatalf("strided equal array: %v", err)
	}
	cases := []struct {
		name       string
		got, want  *ndarray.Array
		rtol, atol float64
		msg        string // "" means must pass
	}{
		{"within rtol", f64(t, []int{2}, 1.0000001, 100), f64(t, []int{2}, 1, 100.00001), 1e-6, 0, ""},
		{"within atol", f64(t, []int{1}, 1e-12), f64(t, []int{1}, 0), 0, 1e-11, ""},
		{"outside", f64(t, []int{2, 2}, 1, 2, 3, 4.1), f64(t, []int{2, 2}, 1, 2.5, 3, 4), 1e-3, 1e-3, "2 of 4 elements differ (rtol 0.001, atol 0.001); first at index (0, 1): got 2, want 2.5"},
		{"nan vs number", f64(t, []int{1}, nan), f64(t, []int{1}, 0), 1, 1, "got NaN, want 0"},
		{"number vs nan", f64(t, []int{1}, 0), f64(t, []int{1}, nan), 1, 1, "got 0, want NaN"},
		{"inf sign", f64(t, []int{1}, inf), f64(t, []int{1}, -inf), 1, 1, "got +Inf, want -Inf"},
		{"inf vs big tolerance", f64(t, []int{1}, 1e300), f64(t, []int{1}, inf), 1e10, 1e300, "want +Inf"},
		{"dtype", f64(t, []int{1}, 1), i64(t, []int{1}, 1), 0, 0, "dtype float64, want int64"},
		{"shape", f64(t, []int{2}, 1, 2), f64(t, []int{2, 1}, 1, 2), 0, 0, "shape [2], want [2 1]"},
		{"int exact", i64(t, []int{3}, 1, 2, math.MaxInt64), i64(t, []int{3}, 1, 2, math.MaxInt64-1), 1, 1, "1 of 3 elements differ; first at index (2,): got 9223372036854775807, want 9223372036854775806"},
		{"0-d", ndarray.Scalar(ndarray.Float32, 1.5), ndarray.Scalar(ndarray.Float32, 1.25), 0, 0, "index (): got 1.5, want 1.25"},
		{"bool", ndarray.Scalar(ndarray.Bool, 1), ndarray.Scalar(ndarray.Bool, 0), 0, 0, "got true, want false"},
		{"empty", f64(t, []int{0, 2}), f64(t, []int{0, 2}), 0, 0, ""},
		{"negative tol", f64(t, []int{1}, 1), f64(t, []int{1}, 1), -1, 0, "tolerances"},
		{"nil", nil, f64(t, []int{1}, 1), 0, 0, "nil"},
	}
	for _, c := range cases {
		err := Compare(c.got, c.want, c.rtol, c.atol)
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.msg)
		}
	}
	big, _ := ndarray.New(ndarray.Int32, 3, 4, 5)
	other := big.Copy()
	other.SetFlat(2*20+3*5+4, 1) // index (2, 3, 4)
	if err := Compare(big, other, 0, 0); err == nil || !strings.Contains(err.Error(), "index (2, 3, 4): got 0, want 1") {
		t.Errorf("multi-index: %v", err)
	}
}
