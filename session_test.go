package phobos_test

import (
	"context"
	"math"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// One Session runs several Executes at once, each with its own result;
// Stats is safe meanwhile. Concurrent Executes used to race on the
// session's last statistics.
func TestConcurrentExecute(t *testing.T) {
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 1000 * (i + 1)
			x := tensor.Arange(0, float64(n), 1, tensor.Chunks(97+i)).Mul(2).Sum()
			v, err := sess.ExecuteScalar(context.Background(), x)
			if err != nil {
				errs <- err
				return
			}
			if want := float64(n) * float64(n-1); v != want {
				t.Errorf("execute %d: %v, want %v", i, v, want)
			}
			_ = sess.Stats()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := sess.Stats(); st.ChunkOps == 0 {
		t.Errorf("stats of the last execute: %+v", st)
	}
}

// NewSession lowers the Go memory limit while it is open and restores it
// when the last session closes; WithGoMemoryLimit(false) leaves it alone.
func TestSessionGoMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	if orig != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): the sessions would keep it", orig)
	}
	off, err := phobos.NewSession(phobos.WithGoMemoryLimit(false), phobos.WithMemoryLimit(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("WithGoMemoryLimit(false) changed the limit to %d", got)
	}
	a, err := phobos.NewSession(phobos.WithMemoryLimit(1 << 30))
	if err != nil {
		t.Fatal(err)
	}
	one := debug.SetMemoryLimit(-1)
	b, err := phobos.NewSession(phobos.WithMemoryLimit(1 << 30))
	if err != nil {
		t.Fatal(err)
	}
	two := debug.SetMemoryLimit(-1)
	if one == orig || two <= one {
		t.Errorf("limits: %d with one session, %d with two (before %d)", one, two, orig)
	}
	b.Close()
	if got := debug.SetMemoryLimit(-1); got != one {
		t.Errorf("after closing one of two: %d, want %d", got, one)
	}
	a.Close()
	off.Close()
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("after closing all: %d, want the original %d", got, orig)
	}
}
