// Package numpytest runs differential tests of Phobos against NumPy: it
// evaluates NumPy expressions on Phobos arrays in a real Python process and
// hands the results back as arrays, so kernels can be checked against the
// library whose semantics they copy, not against expectations written by
// hand.
//
// All cases of one Eval run in a single python3 process (starting NumPy
// is slow and a test suite has hundreds of cases). Arrays travel as .npy
// files written and read by package npy, which the round trip also tests.
package numpytest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

//go:embed driver.py
var driverPy []byte

// defaultPython is the interpreter used: the system one, where Debian's
// python3-numpy installs NumPy.
const defaultPython = "/usr/bin/python3"

const installHint = "apt-get install python3-numpy"

// Runner evaluates NumPy expressions. It remembers whether NumPy is usable,
// so create one per test binary (e.g. in a package-level test helper) and
// share it; it is safe for concurrent use.
type Runner struct {
	python string

	once sync.Once
	ok   bool
	why  string
}

// NewRunner returns a Runner using /usr/bin/python3.
func NewRunner() *Runner { return &Runner{python: defaultPython} }

// Available reports whether python3 can import NumPy. When it cannot, why
// says what is missing and how to install it; when it can, why names the
// NumPy version. The check runs once per Runner.
func (r *Runner) Available() (ok bool, why string) {
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, r.python, "-c", "import numpy; print(numpy.__version__)").CombinedOutput()
		msg := lastLines(out, 3)
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
			r.why = fmt.Sprintf("%s not found; install Python and NumPy with: apt-get install python3 python3-numpy", r.python)
		case err != nil:
			r.why = fmt.Sprintf("%s cannot import numpy (%v: %s); install it with: %s", r.python, err, msg, installHint)
		default:
			r.ok = true
			r.why = fmt.Sprintf("numpy %s via %s", strings.TrimSpace(string(out)), r.python)
		}
	})
	return r.ok, r.why
}

// Skip skips t (with the reason and the install hint) when NumPy is not
// available.
func (r *Runner) Skip(t testing.TB) {
	t.Helper()
	if ok, why := r.Available(); !ok {
		t.Skipf("NumPy differential test skipped: %s", why)
	}
}

// Case is one NumPy expression to evaluate.
type Case struct {
	// Name identifies the case in error messages.
	Name string
	// Inputs are bound to these Python variable names.
	Inputs map[string]*ndarray.Array
	// Expr is a Python expression with np (NumPy) and the inputs in scope,
	// e.g. "np.sum(a + b, axis=1)". It may produce an array, a NumPy or
	// Python scalar (float -> float64, int -> int64, bool -> bool, all 0-d),
	// or a tuple or list of those, which gives several results in order
	// (wrap a list in np.array(...) to mean one array). Results must have a
	// Phobos dtype: float16, complex, unsigned and other types are errors.
	Expr string
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

type manifestCase struct {
	Index  int               `json:"index"`
	Name   string            `json:"name"`
	Expr   string            `json:"expr"`
	Inputs map[string]string `json:"inputs"`
}

type manifest struct {
	Results string         `json:"results"`
	OutDir  string         `json:"outdir"`
	Cases   []manifestCase `json:"cases"`
}

type caseResult struct {
	Index int    `json:"index"`
	OK    bool   `json:"ok"`
	N     int    `json:"n"`
	Error string `json:"error"`
}

// Eval evaluates all cases in one Python process. results[i] holds case i's
// results in order; errs[i] is non-nil when case i failed (its Python
// exception message, an unsupported result type, a bad input), and then
// results[i] is nil. err reports a failure of the whole batch: NumPy
// unavailable, the process failing or ctx ending.
func (r *Runner) Eval(ctx context.Context, cases []Case) (results [][]*ndarray.Array, errs []error, err error) {
	if ok, why := r.Available(); !ok {
		return nil, nil, fmt.Errorf("numpytest: NumPy unavailable: %s", why)
	}
	results = make([][]*ndarray.Array, len(cases))
	errs = make([]error, len(cases))
	if len(cases) == 0 {
		return results, errs, nil
	}
	dir, err := os.MkdirTemp("", "numpytest-")
	if err != nil {
		return nil, nil, fmt.Errorf("numpytest: %w", err)
	}
	defer os.RemoveAll(dir)
	inDir, outDir := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, d := range []string{inDir, outDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, nil, fmt.Errorf("numpytest: %w", err)
		}
	}

	m := manifest{Results: filepath.Join(dir, "results.json"), OutDir: outDir}
	for i, c := range cases {
		mc := manifestCase{Index: i, Name: c.Name, Expr: c.Expr, Inputs: map[string]string{}}
		n := 0
		for name, a := range c.Inputs {
			if !identRE.MatchString(name) || name == "np" || name == "numpy" {
				errs[i] = fmt.Errorf("numpytest: case %q: input name %q is not usable as a Python variable", c.Name, name)
				break
			}
			if a == nil {
				errs[i] = fmt.Errorf("numpytest: case %q: input %q is nil", c.Name, name)
				break
			}
			p := filepath.Join(inDir, fmt.Sprintf("%d_%d.npy", i, n))
			n++
			if err := npy.WriteFile(p, a); err != nil {
				errs[i] = fmt.Errorf("numpytest: case %q: input %q: %w", c.Name, name, err)
				break
			}
			mc.Inputs[name] = p
		}
		if errs[i] == nil {
			m.Cases = append(m.Cases, mc)
		}
	}
	if len(m.Cases) == 0 {
		return results, errs, nil
	}
	mpath := filepath.Join(dir, "manifest.json")
	mb, err := json.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("numpytest: %w", err)
	}
	dpath := filepath.Join(dir, "driver.py")
	if err := os.WriteFile(mpath, mb, 0o644); err != nil {
		return nil, nil, fmt.Errorf("numpytest: %w", err)
	}
	if err := os.WriteFile(dpath, driverPy, 0o644); err != nil {
		return nil, nil, fmt.Errorf("numpytest: %w", err)
	}

	cmd := exec.CommandContext(ctx, r.python, "-B", dpath, mpath)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("numpytest: python stopped: %w", ctx.Err())
		}
		return nil, nil, fmt.Errorf("numpytest: python driver failed: %v\n%s", err, lastLines(out.Bytes(), 20))
	}
	rb, err := os.ReadFile(m.Results)
	if err != nil {
		return nil, nil, fmt.Errorf("numpytest: python driver wrote no results: %v\n%s", err, lastLines(out.Bytes(), 20))
	}
	var res struct {
		Results []caseResult `json:"results"`
	}
	if err := json.Unmarshal(rb, &res); err != nil {
		return nil, nil, fmt.Errorf("numpytest: bad results file: %w", err)
	}
	if len(res.Results) != len(m.Cases) {
		return nil, nil, fmt.Errorf("numpytest: python returned %d results for %d cases", len(res.Results), len(m.Cases))
	}
	for k, cr := range res.Results {
		i := m.Cases[k].Index
		if cr.Index != i {
			return nil, nil, fmt.Errorf("numpytest: python returned result for case %d in place of %d", cr.Index, i)
		}
		name := cases[i].Name
		if !cr.OK {
			errs[i] = fmt.Errorf("numpytest: case %q (%s): %s", name, cases[i].Expr, cr.Error)
			continue
		}
		outs := make([]*ndarray.Array, cr.N)
		for j := range outs {
			a, err := npy.ReadFile(filepath.Join(outDir, fmt.Sprintf("%d_%d.npy", i, j)))
			if err != nil {
				errs[i] = fmt.Errorf("numpytest: case %q: result %d: %w", name, j, err)
				outs = nil
				break
			}
			outs[j] = a
		}
		results[i] = outs
	}
	return results, errs, nil
}

// lastLines is the end of a process's output, for error messages.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := strings.Join(lines, "\n")
	if len(s) > 4000 {
		s = "..." + s[len(s)-4000:]
	}
	return s
}
