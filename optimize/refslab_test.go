package optimize

import (
	"testing"

	"github.com/phobos-tensor/phobos/ops"
)

// The slab's lists are apart (writing one leaves the others as they
// were), each of capacity n, and its blocks grow from small to the cap:
// a few ops take a small block, a graph of millions whole blocks.
func TestRefSlabListsApartAndBlocksGrow(t *testing.T) {
	var s refSlab
	if s.take(0) != nil {
		t.Fatal("take(0) is not nil")
	}
	var lists [][]ops.ChunkRef
	sizes := []int{1, 3, 2, 70, 1, refSlabBlock + 5, 4}
	for i := 0; i < 20000; i++ {
		sizes = append(sizes, 1+i%7)
	}
	for k, n := range sizes {
		l := s.take(n)
		if len(l) != n || cap(l) != n {
			t.Fatalf("take(%d): len %d cap %d", n, len(l), cap(l))
		}
		for j := range l {
			l[j] = ops.ChunkRef(k)
		}
		lists = append(lists, l)
		if k == 0 && len(s.free)+1 != refSlabFirst {
			t.Fatalf("first block holds %d refs, want %d", len(s.free)+1, refSlabFirst)
		}
	}
	for k, l := range lists {
		for _, v := range l {
			if v != ops.ChunkRef(k) {
				t.Fatalf("list %d was overwritten by list %d", k, v)
			}
		}
	}
	if s.next != refSlabBlock {
		t.Errorf("after %d refs the blocks are %d refs, want the cap %d", len(sizes), s.next, refSlabBlock)
	}
}
