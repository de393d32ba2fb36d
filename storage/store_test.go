package storage_test

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// unit is the size of the test chunks: 1024 float64s.
const unit = 8 << 10

func key(n int32) protocol.ChunkKey { return protocol.ChunkKey{Graph: 1, Node: n} }

// chunk is an n-unit float64 array whose elements are v, v+1, ...
func chunk(t *testing.T, units int, v float64) *ndarray.Array {
	t.Helper()
	data := make([]float64, units*unit/8)
	for i := range data {
		data[i] = v + float64(i)
	}
	a, err := ndarray.FromFloat64s([]int{len(data)}, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func prio(depth int32) protocol.Priority { return protocol.Priority{Depth: depth} }

// reserve asks for out bytes of output at priority p and fails the test if
// the request is not granted.
func reserve(t *testing.T, s *storage.Store, req storage.Request) *storage.Reservation {
	req.NoWait = true // the tests force evictions from an idle store
	t.Helper()
	r, err := s.Reserve(req)
	if err != nil || r == nil {
		t.Fatalf("Reserve(%+v) = %v, %v; want a reservation", req, r, err)
	}
	if err := r.Evict(context.Background()); err != nil {
		t.Fatalf("Evict: %v", err)
	}
	return r
}

func wantTier(t *testing.T, s *storage.Store, k protocol.ChunkKey, want storage.Tier) {
	t.Helper()
	if got := s.Tier(k); got != want {
		t.Errorf("chunk %v is in %v, want %v", k, got, want)
	}
}

func equalArrays(t *testing.T, got, want *ndarray.Array) {
	t.Helper()
	if got.DType() != want.DType() || !ndarray.SameShape(got.Shape(), want.Shape()) {
		t.Fatalf("got %v%v, want %v%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := got.ToFloat64s(), want.ToFloat64s()
	for i := range w {
		if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			t.Fatalf("%v: element %d = %v, want %v", want.DType(), i, g[i], w[i])
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"1GiB": 1 << 30, "4GB": 4e9, "512 MiB": 512 << 20, "1.5g": 1.5e9, "1073741824": 1 << 30,
		"8m": 8e6, "2KiB": 2048, "10b": 10, "0": 0, "1_000": 1000, " 3 TiB ": 3 << 40,
	} {
		got, err := storage.ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "1.2.3", "1 XB", "1e30 TiB", "NaN"} {
		if got, err := storage.ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
	if got := storage.FormatBytes(3 << 30); got != "3 GiB" {
		t.Errorf("FormatBytes(3 GiB) = %q", got)
	}
}

// Every dtype, views and scalars survive a spill and a reload, by both Get
// (private read) and Acquire (back into the store).
func TestSpillRoundTripAllDTypes(t *testing.T) {
	var arrays []*ndarray.Array
	base := chunk(t, 1, -3.5)
	for _, dt := range []ndarray.DType{ndarray.Bool, ndarray.Int32, ndarray.Int64, ndarray.Float32, ndarray.Float64} {
		a := base.Astype(dt)
		m, err := a.Reshape(32, 32)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := m.Transpose()
		if err != nil {
			t.Fatal(err)
		}
		arrays = append(arrays, a, tr, ndarray.Scalar(dt, 7))
	}
	for _, via := range []string{"Get", "Acquire"} {
		t.Run(via, func(t *testing.T) {
			s := storage.Open(storage.Config{Limit: 2 * unit, SpillDir: t.TempDir()})
			defer s.Close()
			for i, a := range arrays {
				k := key(int32(i))
				s.PutWith(k, a, storage.PutOptions{Consumers: 2})
				// Room for one unit-sized output forces k out.
				r := reserve(t, s, storage.Request{Op: "test", Output: 2 * unit, Priority: prio(0)})
				r.Close()
				wantTier(t, s, k, storage.TierDisk)
				var got *ndarray.Array
				var err error
				if via == "Get" {
					got, err = s.Get(k)
				} else {
					r := reserve(t, s, storage.Request{Op: "test", Inputs: []storage.InputRequest{{Key: k}}, Priority: prio(1)})
					got, err = r.Acquire(context.Background(), k)
					r.Close()
					wantTier(t, s, k, storage.TierMemory)
				}
				if err != nil {
					t.Fatal(err)
				}
				equalArrays(t, got, a)
				s.Delete([]protocol.ChunkKey{k})
			}
			st := s.Stats()
			if st.SpillCount != int64(len(arrays)) || st.LoadCount != int64(len(arrays)) {
				t.Errorf("spilled %d, loaded %d chunks, want %d each", st.SpillCount, st.LoadCount, len(arrays))
			}
			if st.DiskBytes != 0 || st.Bytes != 0 || st.Reserved != 0 {
				t.Errorf("after deleting all: %+v", st)
			}
		})
	}
}

// Victims go by next use: chunks no queued op reads first (least recently
// used first), then the one read last; chunks a more urgent op reads and
// pinned chunks stay.
func TestEvictionOrder(t *testing.T) {
	dir := t.TempDir()
	s := storage.Open(storage.Config{Limit: 6 * unit, SpillDir: dir})
	defer s.Close()
	a, b, c, d, e := key(1), key(2), key(3), key(4), key(5)
	for i, k := range []protocol.ChunkKey{a, b, c, d, e} {
		s.Put(k, chunk(t, 1, float64(i)))
	}
	s.SetNextUse(a, prio(5), true) // read soon by an urgent op
	s.SetNextUse(c, prio(1), true) // read late
	// b and e: nobody queued reads them; b is older.
	if _, err := s.Get(e); err != nil { // touch e: b is now least recently used
		t.Fatal(err)
	}
	pin := reserve(t, s, storage.Request{Op: "running", Inputs: []storage.InputRequest{{Key: d}}, Priority: prio(9)})

	// 1 unit free; 2 needed: b goes.
	r1 := reserve(t, s, storage.Request{Op: "r1", Output: 2 * unit, Priority: prio(3)})
	wantTier(t, s, b, storage.TierDisk)
	for _, k := range []protocol.ChunkKey{a, c, d, e} {
		wantTier(t, s, k, storage.TierMemory)
	}
	// Then e (no next use), then c (read later than r2), never a or d.
	r2 := reserve(t, s, storage.Request{Op: "r2", Output: 2 * unit, Priority: prio(3)})
	wantTier(t, s, e, storage.TierDisk)
	wantTier(t, s, c, storage.TierDisk)
	wantTier(t, s, a, storage.TierMemory)
	wantTier(t, s, d, storage.TierMemory)

	// Full: a is protected from a less urgent op, d is pinned: wait.
	if r, err := s.Reserve(storage.Request{Op: "r3", Output: unit, Priority: prio(3)}); r != nil || err != nil {
		t.Fatalf("Reserve with only protected and pinned chunks = %v, %v; want to wait", r, err)
	}
	// Unpinning d makes it a victim.
	pin.Close()
	r3 := reserve(t, s, storage.Request{Op: "r3", Output: unit, Priority: prio(3)})
	wantTier(t, s, d, storage.TierDisk)
	wantTier(t, s, a, storage.TierMemory)
	// An op more urgent than a's reader may evict a.
	r4 := reserve(t, s, storage.Request{Op: "r4", Output: unit, Priority: prio(7)})
	wantTier(t, s, a, storage.TierDisk)
	for _, r := range []*storage.Reservation{r1, r2, r3, r4} {
		r.Close()
	}
	if st := s.Stats(); st.PeakUsed > 6*unit {
		t.Errorf("peak used %d over the limit %d", st.PeakUsed, 6*unit)
	}
}

func TestTooLarge(t *testing.T) {
	s := storage.Open(storage.Config{Limit: 10 * unit, SpillDir: t.TempDir()})
	defer s.Close()
	s.Put(key(1), chunk(t, 4, 0))
	_, err := s.Reserve(storage.Request{Op: "matmul", Inputs: []storage.InputRequest{{Key: key(1)}}, Output: 4 * unit, Temp: 4 * unit})
	var tl *storage.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want a TooLargeError", err)
	}
	for _, want := range []string{"matmul", "96 KiB", "80 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// An input an op reads several times (x * x) counts once against the
// limit, whether the op reads a few inputs or many.
func TestRepeatedInputCountsOnce(t *testing.T) {
	for _, reads := range []int{2, 3, 17, 40} {
		s := storage.Open(storage.Config{Limit: 10 * unit, SpillDir: t.TempDir()})
		s.Put(key(1), chunk(t, 4, 0))
		ins := make([]storage.InputRequest, reads)
		for i := range ins {
			ins[i] = storage.InputRequest{Key: key(1), Nbytes: 4 * unit}
		}
		// 4 units of input once, 3 of output and 3 of temporaries: the
		// limit exactly; counted twice, too large.
		r, err := s.Reserve(storage.Request{Op: "mul", Inputs: ins, Output: 3 * unit, Temp: 3 * unit})
		if err != nil || r == nil {
			t.Errorf("%d reads of one input: Reserve = %v, %v; want a reservation", reads, r, err)
		}
		r.Close()
		s.Close()
	}
}

func randomOp(n int) ops.RandomChunk {
	return ops.RandomChunk{Shape: []int{n}, Offset: []int{0}, Global: []int{n}, DType: ndarray.Float64, Key: rng.NewKey(42, 1), Dist: rng.Uniform, P2: 1}
}

// A generated chunk is dropped rather than spilled when regenerating it is
// cheaper, and comes back identical.
func TestRecomputeInsteadOfSpill(t *testing.T) {
	for _, cheap := range []bool{true, false} {
		costs := storage.Costs{}
		if !cheap {
			costs.GenerateNsPerElement = 1e6 // now a spill is cheaper
		}
		s := storage.Open(storage.Config{Limit: 2 * unit, SpillDir: t.TempDir(), Costs: costs})
		op := randomOp(unit / 8)
		a, err := op.Exec(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		s.PutWith(key(1), a, storage.PutOptions{Regen: op, Consumers: -1})
		reserve(t, s, storage.Request{Op: "next", Output: 2 * unit}).Close()
		st := s.Stats()
		if cheap {
			wantTier(t, s, key(1), storage.TierDropped)
			if st.DroppedBytes != unit || st.SpilledBytes != 0 {
				t.Errorf("dropped %d, spilled %d bytes; want %d dropped", st.DroppedBytes, st.SpilledBytes, unit)
			}
		} else {
			wantTier(t, s, key(1), storage.TierDisk)
			if st.DroppedBytes != 0 || st.SpilledBytes != unit {
				t.Errorf("dropped %d, spilled %d bytes; want %d spilled", st.DroppedBytes, st.SpilledBytes, unit)
			}
		}
		got, err := s.Get(key(1))
		if err != nil {
			t.Fatal(err)
		}
		equalArrays(t, got, a)
		st = s.Stats()
		if cheap && (st.RecomputedBytes != unit || st.RecomputeCount != 1) {
			t.Errorf("recomputed %d bytes in %d runs, want %d in 1", st.RecomputedBytes, st.RecomputeCount, unit)
		}
		s.Close()
	}
}

// The last consumer of a spilled chunk reads it into its own memory; the
// chunk is not brought back into the store.
func TestLastConsumerReadsPrivately(t *testing.T) {
	for _, consumers := range []int{1, 2} {
		s := storage.Open(storage.Config{Limit: 4 * unit, SpillDir: t.TempDir()})
		want := chunk(t, 2, 1)
		s.PutWith(key(1), want, storage.PutOptions{Consumers: consumers})
		reserve(t, s, storage.Request{Op: "evict", Output: 4 * unit}).Close()
		wantTier(t, s, key(1), storage.TierDisk)
		r := reserve(t, s, storage.Request{Op: "consumer", Inputs: []storage.InputRequest{{Key: key(1)}}, Output: unit})
		if r.Bytes() != 3*unit {
			t.Errorf("reserved %d, want input + output = %d", r.Bytes(), 3*unit)
		}
		got, err := r.Acquire(context.Background(), key(1))
		if err != nil {
			t.Fatal(err)
		}
		equalArrays(t, got, want)
		st := s.Stats()
		if consumers == 1 {
			wantTier(t, s, key(1), storage.TierDisk)
			if st.PrivateLoads != 1 || st.Bytes != 0 || st.Reserved != 3*unit {
				t.Errorf("private read: %+v", st)
			}
		} else {
			wantTier(t, s, key(1), storage.TierMemory)
			if st.PrivateLoads != 0 || st.Bytes != 2*unit || st.Reserved != unit {
				t.Errorf("shared read: %+v", st)
			}
		}
		r.Close()
		if st := s.Stats(); st.Reserved != 0 {
			t.Errorf("reserved %d after Close", st.Reserved)
		}
		s.Close()
	}
}

// A missing or unusable spill directory: the store serves from memory,
// reports the problem naming the directory, drops what it can regenerate,
// and fails only the requests that need a spill.
func TestSpillDirUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), file, filepath.Join(file, "sub")} {
		s := storage.Open(storage.Config{Limit: 3 * unit, SpillDir: dir})
		if err := s.SpillErr(); err == nil || !strings.Contains(err.Error(), dir) {
			t.Fatalf("SpillErr() = %v, want an error naming %s", err, dir)
		}
		op := randomOp(unit / 8)
		g, _ := op.Exec(context.Background(), nil)
		s.PutWith(key(1), g, storage.PutOptions{Regen: op})
		s.Put(key(2), chunk(t, 1, 0))
		// Needs one unit: the generated chunk is dropped, no spill needed.
		reserve(t, s, storage.Request{Op: "fits", Output: 2 * unit}).Close()
		wantTier(t, s, key(1), storage.TierDropped)
		// Needs the other chunk out: impossible, and nothing runs to free memory.
		r, err := s.Reserve(storage.Request{Op: "needs-spill", Output: 3 * unit})
		var se *storage.SpillError
		if r != nil || !errors.As(err, &se) || !strings.Contains(err.Error(), dir) {
			t.Errorf("Reserve needing a spill = %v, %v; want a SpillError naming %s", r, err, dir)
		}
		// While something runs it may yet free memory: wait instead.
		running := reserve(t, s, storage.Request{Op: "running", Output: unit / 2})
		if r, err := s.Reserve(storage.Request{Op: "needs-spill", Output: 2 * unit}); r != nil || err != nil {
			t.Errorf("Reserve needing a spill while an op runs = %v, %v; want to wait", r, err)
		}
		running.Close()
		s.Close()
	}
}

// failingWriter fails every write once the budget is spent, as a full disk does.
type failingWriter struct {
	w    io.Writer
	left *atomic.Int64
}

func (f failingWriter) Write(p []byte) (int, error) {
	if f.left.Add(-int64(len(p))) < 0 {
		return 0, syscall.ENOSPC
	}
	return f.w.Write(p)
}

func TestDiskFullInjected(t *testing.T) {
	dir := t.TempDir()
	var left atomic.Int64
	left.Store(1 << 40)
	s := storage.Open(storage.Config{Limit: 2 * unit, SpillDir: dir, Knobs: storage.TestingKnobs{
		SpillWriter: func(w io.Writer) io.Writer { return failingWriter{w, &left} },
	}})
	defer s.Close()
	checkDiskFull(t, s, dir, func() { left.Store(unit / 2) }, func() { left.Store(1 << 40) })
}

// The same with a real 8 MiB tmpfs, when the test may mount one (root).
func TestDiskFullTmpfs(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); TestDiskFullInjected covers the logic", err, strings.TrimSpace(string(out)))
	}
	defer exec.Command("umount", dir).Run()
	s := storage.Open(storage.Config{Limit: 64 * unit, SpillDir: dir})
	defer s.Close()
	// 1 MiB holds one 64-unit (512 KiB) chunk, not two.
	const big = 64
	s.Put(key(100), chunk(t, big, 0))
	reserve(t, s, storage.Request{Op: "first", Output: big * unit}).Close()
	wantTier(t, s, key(100), storage.TierDisk)
	checkDiskFullSized(t, s, dir, big, func() {}, func() { s.Delete([]protocol.ChunkKey{key(100)}) })
}

func checkDiskFull(t *testing.T, s *storage.Store, dir string, fill, free func()) {
	checkDiskFullSized(t, s, dir, 1, fill, free)
}

// checkDiskFullSized: with the disk full, a spill fails naming the chunk's
// file and the cause, leaves no partial file and keeps the chunk in memory;
// once space frees, spilling works again.
func checkDiskFullSized(t *testing.T, s *storage.Store, dir string, units int, fill, free func()) {
	t.Helper()
	want := chunk(t, units, 5)
	s.Put(key(1), want)
	before, _ := os.ReadDir(dir)
	fill()
	r, err := s.Reserve(storage.Request{Op: "needs-room", Output: s.Limit()})
	if err != nil || r == nil {
		t.Fatalf("Reserve = %v, %v", r, err)
	}
	err = r.Evict(context.Background())
	r.Close()
	var se *storage.SpillError
	if !errors.As(err, &se) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Evict on a full disk = %v; want a SpillError (ENOSPC) naming %s", err, dir)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("a failed spill left files: %d before, %d after", len(before), len(after))
	}
	wantTier(t, s, key(1), storage.TierMemory)
	if st := s.Stats(); st.SpillErrors != 1 || st.Reserved != 0 {
		t.Errorf("stats after a failed spill: %+v", st)
	}
	free()
	reserve(t, s, storage.Request{Op: "needs-room", Output: s.Limit()}).Close()
	wantTier(t, s, key(1), storage.TierDisk)
	got, err := s.Get(key(1))
	if err != nil {
		t.Fatal(err)
	}
	equalArrays(t, got, want)
}

// A spill file deleted behind the store's back: a generated chunk is
// regenerated; any other is lost, with an error naming chunk and file.
func TestSpillFileDeleted(t *testing.T) {
	s := storage.Open(storage.Config{Limit: 2 * unit, SpillDir: t.TempDir(), Costs: storage.Costs{GenerateNsPerElement: 1e6}})
	defer s.Close()
	op := randomOp(unit / 8)
	g, _ := op.Exec(context.Background(), nil)
	s.PutWith(key(1), g, storage.PutOptions{Regen: op})
	s.Put(key(2), chunk(t, 1, 0))
	reserve(t, s, storage.Request{Op: "evict", Output: 2 * unit}).Close()
	for _, k := range []protocol.ChunkKey{key(1), key(2)} {
		wantTier(t, s, k, storage.TierDisk)
		if err := os.Remove(s.SpillFile(k)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(key(1))
	if err != nil {
		t.Fatalf("regenerable chunk with its file gone: %v", err)
	}
	equalArrays(t, got, g)
	if st := s.Stats(); st.RecomputeCount != 1 {
		t.Errorf("recomputed %d times, want 1", st.RecomputeCount)
	}
	file := s.SpillFile(key(2))
	r := reserve(t, s, storage.Request{Op: "consumer", Inputs: []storage.InputRequest{{Key: key(2)}}})
	_, err = r.Acquire(context.Background(), key(2))
	r.Close()
	var lost *storage.LostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "g1/c2") || !strings.Contains(err.Error(), file) {
		t.Fatalf("Acquire of a lost chunk = %v; want a LostError naming g1/c2 and %s", err, file)
	}
	if _, err := s.Get(key(2)); !errors.As(err, &lost) {
		t.Errorf("Get after the loss = %v, want the LostError again", err)
	}
}

// Views of one buffer count once and leave memory together.
func TestSharedBufferEvictedWhole(t *testing.T) {
	s := storage.Open(storage.Config{Limit: 4 * unit, SpillDir: t.TempDir()})
	defer s.Close()
	a := chunk(t, 2, 0)
	v, err := a.Reshape(2, unit/8)
	if err != nil {
		t.Fatal(err)
	}
	tv, _ := v.Transpose()
	s.Put(key(1), a)
	s.Put(key(2), tv)
	if st := s.Stats(); st.Bytes != 2*unit {
		t.Fatalf("two views of one buffer hold %d bytes, want %d", st.Bytes, 2*unit)
	}
	reserve(t, s, storage.Request{Op: "evict", Output: 4 * unit}).Close()
	wantTier(t, s, key(1), storage.TierDisk)
	wantTier(t, s, key(2), storage.TierDisk)
	got, err := s.Get(key(2))
	if err != nil {
		t.Fatal(err)
	}
	equalArrays(t, got, tv)
}

// Many ops reserving, loading, putting and releasing at once keep the
// accounting exact (run under -race).
func TestConcurrentAccounting(t *testing.T) {
	s := storage.Open(storage.Config{Limit: 16 * unit, SpillDir: t.TempDir()})
	defer s.Close()
	for i := range 8 {
		s.PutWith(key(int32(i)), chunk(t, 1, float64(i)), storage.PutOptions{Consumers: 100})
	}
	var wg sync.WaitGroup
	var fails atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				in := key(int32((g + i) % 8))
				out := key(int32(1000 + g*100 + i))
				var r *storage.Reservation
				for r == nil {
					var err error
					r, err = s.Reserve(storage.Request{Op: "op", Inputs: []storage.InputRequest{{Key: in}}, Output: unit, Temp: unit, Priority: prio(int32(i))})
					if err != nil {
						fails.Add(1)
						return
					}
					runtime.Gosched()
				}
				if err := r.Evict(context.Background()); err != nil {
					fails.Add(1)
				}
				a, err := r.Acquire(context.Background(), in)
				if err != nil || a.AtFlat(0) != float64((g+i)%8) {
					fails.Add(1)
				}
				r.Put(out, chunk(t, 1, 0), storage.PutOptions{})
				r.Close()
				s.Delete([]protocol.ChunkKey{out})
			}
		}()
	}
	wg.Wait()
	if fails.Load() > 0 {
		t.Fatalf("%d operations failed", fails.Load())
	}
	st := s.Stats()
	if st.Reserved != 0 || st.Chunks != 8 || st.Bytes > 8*unit {
		t.Errorf("after the storm: %+v", st)
	}
}

func TestHoldGoMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	r1 := storage.HoldGoMemoryLimit(3 << 30)
	r2 := storage.HoldGoMemoryLimit(1 << 30)
	if got := debug.SetMemoryLimit(-1); got != min(orig, 4<<30) {
		t.Errorf("two holders: limit %d, want %d", got, int64(4<<30))
	}
	r1()
	r1()
	if got := debug.SetMemoryLimit(-1); got != min(orig, 1<<30) {
		t.Errorf("one holder left: limit %d, want %d", got, int64(1<<30))
	}
	r2()
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("none left: limit %d, want the original %d", got, orig)
	}
	if storage.GoHeapLimit(1<<30) != 1<<30+128<<20 || storage.GoHeapLimit(8<<30) != 8<<30+512<<20 {
		t.Errorf("GoHeapLimit: %d, %d", storage.GoHeapLimit(1<<30), storage.GoHeapLimit(8<<30))
	}
	if storage.DefaultLimit() <= 0 {
		t.Errorf("DefaultLimit = %d", storage.DefaultLimit())
	}
}
