// Package python_test runs the Python client's pytest suite (python/tests)
// against a cluster built from this checkout, so that go test ./... runs
// every test of the repository, Go and Python alike.
package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

const python = "/usr/bin/python3" // Debian's, with python3-numpy and python3-pytest

var summary = regexp.MustCompile(`(?m)^=*\s*(\d+ (passed|failed|error).*?)\s*=*$`)

// marsExamples is the line conftest.py prints: how many of Mars's examples
// (tests/test_mars_examples.py) ran as written, each compared with NumPy.
var marsExamples = regexp.MustCompile(`(?m)^mars examples: .*$`)

func TestPytest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the pytest suite starts clusters")
	}
	if out, err := exec.Command(python, "-c", "import numpy, pytest").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import numpy and pytest (apt-get install python3-numpy python3-pytest): %v: %s", python, err, out)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "phobos")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/phobos-tensor/phobos/cmd/phobos").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/phobos: %v\n%s", err, out)
	}
	cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
	cmd.Env = append(os.Environ(), "PHOBOS_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	line := "pytest printed no summary"
	if m := summary.FindAllSubmatch(out, -1); len(m) > 0 {
		line = "pytest: " + string(m[len(m)-1][1])
	}
	if m := marsExamples.Find(out); m != nil {
		line += "\n" + string(m)
	}
	t.Log(line)
	if f := os.Getenv("PHOBOS_PYTEST_SUMMARY"); f != "" {
		if werr := os.WriteFile(f, []byte(line+"\n"), 0o644); werr != nil {
			t.Errorf("writing the summary: %v", werr)
		}
	}
	if err != nil {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
}
