package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// fileChunk writes an n-unit array to a .npy file and returns the op that
// reads it back, and the array.
func fileChunk(t *testing.T, units int, v float64) (ops.NpyReadChunk, *ndarray.Array) {
	t.Helper()
	a := chunk(t, units, v)
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := npy.WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	r, err := ops.NewNpyRead(path, ops.ChunkSpec{})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Size()
	return ops.NpyReadChunk{Path: path, DType: a.DType(), Global: []int{n}, DataOffset: r.DataOffset, Offset: []int{0}, Shape: []int{n}}, a
}

// A chunk read from a file is dropped rather than spilled when reading it
// again is cheaper than a spill's write and read, and comes back identical.
// With a slow file (the estimate), it spills; once a re-read has measured
// the file's real speed (far above the slow disk set here), the measure
// decides.
func TestFileChunkDroppedNotSpilled(t *testing.T) {
	ctx := context.Background()
	t.Run("fast file", func(t *testing.T) {
		s := storage.Open(storage.Config{Limit: 2 * unit, SpillDir: t.TempDir()})
		defer s.Close()
		op, a := fileChunk(t, 1, 3)
		s.PutWith(key(1), a, storage.PutOptions{Regen: op, Consumers: -1})
		reserve(t, s, storage.Request{Op: "next", Output: 2 * unit}).Close()
		wantTier(t, s, key(1), storage.TierDropped)
		got, err := s.Read(ctx, key(1))
		if err != nil {
			t.Fatal(err)
		}
		equalArrays(t, got, a)
		st := s.Stats()
		if st.DroppedBytes != unit || st.SpilledBytes != 0 || st.RecomputedBytes != unit {
			t.Errorf("dropped %d, spilled %d, re-read %d bytes; want %d dropped and re-read, none spilled", st.DroppedBytes, st.SpilledBytes, st.RecomputedBytes, unit)
		}
	})
	t.Run("slow file, then measured", func(t *testing.T) {
		const units = 128 // 1 MiB: re-reads this large are measured
		s := storage.Open(storage.Config{Limit: 2 * units * unit, SpillDir: t.TempDir(), Costs: storage.Costs{FileReadBytesPerSec: 1, DiskWriteBytesPerSec: 1e6, DiskReadBytesPerSec: 1e6}})
		defer s.Close()
		op1, a1 := fileChunk(t, units, 3)
		s.PutWith(key(1), a1, storage.PutOptions{Regen: op1, Consumers: -1})
		reserve(t, s, storage.Request{Op: "next", Output: 2 * units * unit}).Close()
		wantTier(t, s, key(1), storage.TierDisk)
		// A lost spill copy is read from the file again: a measure.
		if err := os.Remove(s.SpillFile(key(1))); err != nil {
			t.Fatal(err)
		}
		got, err := s.Read(ctx, key(1))
		if err != nil {
			t.Fatal(err)
		}
		equalArrays(t, got, a1)
		op2, a2 := fileChunk(t, units, 7)
		s.PutWith(key(2), a2, storage.PutOptions{Regen: op2, Consumers: -1})
		reserve(t, s, storage.Request{Op: "next", Output: 2 * units * unit}).Close()
		wantTier(t, s, key(2), storage.TierDropped)
		st := s.Stats()
		if st.SpillCount != 1 || st.DroppedCount != 1 {
			t.Errorf("%d spills, %d drops; want 1 and 1", st.SpillCount, st.DroppedCount)
		}
	})
}

// finalOp is a source op whose chunks count their finalizations.
type finalOp struct{ n *int }

func (finalOp) Type() string { return "final" }

func (finalOp) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) { return nil, nil }

func (f finalOp) Finalize(*ndarray.Array) { *f.n++ }

// A Finalizer's chunk is finalized when it is deleted or the store closes,
// not when a new run of its op replaces it.
func TestFinalizerOnDelete(t *testing.T) {
	s := storage.New()
	var n int
	op := finalOp{n: &n}
	s.PutWith(key(1), chunk(t, 1, 0), storage.PutOptions{Regen: op, Consumers: -1})
	s.PutWith(key(1), chunk(t, 1, 0), storage.PutOptions{Regen: op, Consumers: -1})
	if n != 0 {
		t.Fatalf("finalized %d times on replacement", n)
	}
	wantTier(t, s, key(1), storage.TierMemory)
	s.Delete([]protocol.ChunkKey{key(1), key(1)})
	if n != 1 {
		t.Fatalf("finalized %d times on delete, want 1", n)
	}
	s.PutWith(key(2), chunk(t, 1, 0), storage.PutOptions{Regen: op, Consumers: -1})
	s.Close()
	if n != 2 {
		t.Fatalf("finalized %d times after close, want 2", n)
	}
}
