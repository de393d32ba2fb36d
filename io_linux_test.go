//go:build linux

package phobos_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestNpySinkFileTooLarge writes a sink where the file system refuses its
// size (a process file-size limit, set in a child process of this test so
// that nothing else is limited): the error names the file and the cause,
// and neither the file nor its temporary file is left.
func TestNpySinkFileTooLarge(t *testing.T) {
	const env = "PHOBOS_NPY_FSIZE_DIR"
	if dir := os.Getenv(env); dir != "" {
		signal.Ignore(syscall.SIGXFSZ) // writes past the limit fail with EFBIG instead
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}); err != nil {
			t.Fatal(err)
		}
		s, err := phobos.NewSession(phobos.WithMaxAttempts(1))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out := filepath.Join(dir, "out.npy")
		_, err = s.Execute(ctx, tensor.Ones([]int{256, 256}, tensor.Chunks(32)).ToNpy(out))
		if err == nil || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "file too large") {
			t.Fatalf("got %v, want an error naming %s and the cause", err, out)
		}
		t.Logf("sink error: %v", err)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNpySinkFileTooLarge$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "sink error:") {
		t.Fatalf("the child did not run the test:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.npy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed sink left out.npy (%v)", err)
	}
	noTemps(t, dir)
}
