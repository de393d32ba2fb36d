package phobos_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"testing"
)

var updateCoverage = flag.Bool("update", false, "rewrite docs/numpy-coverage.md")

// docs/numpy-coverage.md is what python/tools/numpy_coverage.py makes of the
// installed NumPy and the Python client: a function added on either side
// without the table following fails here.
func TestNumpyCoverage(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	}
	cmd := exec.Command("/usr/bin/python3", "python/tools/numpy_coverage.py")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy_coverage.py: %v\n%s", err, stderr.Bytes())
	}
	const path = "docs/numpy-coverage.md"
	if *updateCoverage {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestNumpyCoverage -update . writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: go test -run TestNumpyCoverage -update . rewrites it", path)
	}
}
