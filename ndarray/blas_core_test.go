//go:build !phobos_noopenblas && (linux || darwin || freebsd || netbsd)

package ndarray

import (
	"os"
	"strings"
	"testing"
)

// The core named at start-up is the one OpenBLAS runs, and Go's own
// environment (what child processes get) is left as it was.
func TestOpenBLASCoreNamedAtStartup(t *testing.T) {
	if mmStartupCore == "" {
		t.Skip("no core named at start-up (OPENBLAS_CORETYPE set, PHOBOS_BLAS=gonum, or no AVX-512)")
	}
	if v := os.Getenv("OPENBLAS_CORETYPE"); v != "" {
		t.Fatalf("Go's environment has OPENBLAS_CORETYPE=%s", v)
	}
	b := BLASBackend()
	if strings.HasPrefix(b, "openblas") && !strings.Contains(strings.ToLower(b), strings.ToLower(mmStartupCore)) {
		t.Fatalf("backend %q, named %q at start-up", b, mmStartupCore)
	}
}
