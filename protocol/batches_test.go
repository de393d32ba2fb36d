package protocol

import (
	"errors"
	"testing"
)

// A batch made by NewResultBatch has room for ResultBatchCap results, and
// one given back is cleared before it is made again; a slice of another
// capacity is not taken.
func TestResultBatchRecycled(t *testing.T) {
	rs := NewResultBatch()
	if len(rs) != 0 || cap(rs) != ResultBatchCap {
		t.Fatalf("len %d cap %d", len(rs), cap(rs))
	}
	for i := range ResultBatchCap {
		rs = append(rs, Result{Key: ChunkKey{Graph: 1, Node: int32(i)}, Err: errors.New("x"), Lost: []ChunkKey{{Node: 1}}})
	}
	if cap(rs) != ResultBatchCap {
		t.Fatal("a full batch grew")
	}
	RecycleResultBatch(rs)
	for _, r := range rs[:ResultBatchCap] {
		if r.Err != nil || r.Lost != nil || r.Key != (ChunkKey{}) {
			t.Fatalf("a recycled batch still holds %+v", r)
		}
	}
	RecycleResultBatch(make([]Result, 3)) // another capacity: ignored
	RecycleResultBatch(nil)
	if b := NewResultBatch(); len(b) != 0 || cap(b) != ResultBatchCap {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
}
