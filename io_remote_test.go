package phobos_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestNpyRemote runs .npy sources and sinks on a cluster (its roles in this
// process, talking over HTTP): the ops travel in the graph JSON and run on
// the workers, which read and write the files themselves. A failing sink
// leaves no file at its path.
func TestNpyRemote(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sp, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	dir := t.TempDir()
	for range 2 {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Scheduler: sp.URL(), Slots: 2, Memory: 64 << 20, SpillDir: t.TempDir(), DataRoots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
	}
	wp, err := cluster.StartWeb(cluster.WebConfig{Scheduler: sp.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wp.Close)
	hc, err := cluster.NewClient("", rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.WaitReady(ctx, hc, wp.URL(), 2); err != nil {
		t.Fatal(err)
	}
	s, err := phobos.Connect(ctx, wp.URL(), phobos.WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	a := ioArray(t, ndarray.Int32, []int{30, 17}, 5)
	src := filepath.Join(dir, "a.npy")
	writeNpyLayout(t, src, a, true, true)
	x := tensor.FromNpy(src, tensor.Chunks(4, 5))
	out := filepath.Join(dir, "b.npy")
	res, err := s.Execute(ctx, x.Transpose().Mul(2).ToNpy(out), x)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(res[1], a); err != nil {
		t.Fatal(err)
	}
	got, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Execute(ctx, x.Transpose().Mul(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(got, want[0]); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); res[0].Int64s()[0] != fi.Size() {
		t.Errorf("sink value %v, file size %d", res[0], fi.Size())
	}

	// The source shrinks: the read fails on a worker, naming file and chunk.
	if err := os.Truncate(src, 200); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "c.npy")
	_, err = s.Execute(ctx, x.Add(1).ToNpy(bad))
	if err == nil || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "chunk at") {
		t.Errorf("got %v, want an error naming %s and a chunk", err, src)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed sink left %s (%v)", bad, err)
	}
	// (Its temporary file goes when the workers get the release of the
	// failed graph's chunks, which may come after Execute returns.)

	// Files outside the workers' data root are refused, by `..`, by a
	// symbolic link leading out, or plainly; nothing is written there.
	outside := t.TempDir()
	writeNpyLayout(t, filepath.Join(outside, "secret.npy"), a, false, false)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(outside, "secret.npy"),
		filepath.Join(dir, "..", filepath.Base(outside), "secret.npy"),
		filepath.Join(dir, "link", "secret.npy"),
	} {
		// The header is read on the client (a local process may read any
		// path); the cluster refuses the graph when it is submitted (403).
		_, err := s.Execute(ctx, tensor.FromNpy(p).Sum())
		if err == nil || !strings.Contains(err.Error(), "this worker allows files under") || !strings.Contains(err.Error(), "HTTP 403") {
			t.Errorf("reading %s: %v, want a 403 naming the data root", p, err)
		}
		sink := strings.TrimSuffix(p, "secret.npy") + "stolen.npy"
		_, err = s.Execute(ctx, tensor.Ones([]int{3, 4}, tensor.Chunks(2)).ToNpy(sink))
		if err == nil || !strings.Contains(err.Error(), "this worker allows files under") || !strings.Contains(err.Error(), "HTTP 403") {
			t.Errorf("writing %s: %v, want a 403 naming the data root", sink, err)
		}
		if _, err := os.Stat(filepath.Join(outside, "stolen.npy")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused sink wrote %s", sink)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the outside directory holds %d files, want only secret.npy", len(entries))
	}
}
