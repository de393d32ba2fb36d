package ops

import (
	"bytes"
	"errors"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

func putChunk(t *testing.T, s *UploadStore, session, upload string, index int, vals []float64) {
	t.Helper()
	a, err := ndarray.FromFloat64s([]int{len(vals)}, vals)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := npy.Write(&b, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(session, upload, index, &b); err != nil {
		t.Fatal(err)
	}
}

func readChunk(t *testing.T, s *UploadStore, session, upload string, index int) []float64 {
	t.Helper()
	a, err := s.Read(session, upload, index)
	if err != nil {
		t.Fatal(err)
	}
	return a.Float64s()
}

// Small uploaded chunks are kept in memory too: every read is a copy of
// the chunk as last uploaded, and a deleted session's are gone.
func TestUploadCacheSmallChunks(t *testing.T) {
	s, err := NewUploadStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	putChunk(t, s, "s1", "u1", 0, []float64{1, 2, 3})
	got := readChunk(t, s, "s1", "u1", 0)
	if s.cache.bytes != 24 {
		t.Fatalf("kept %d bytes after reading a chunk of 24", s.cache.bytes)
	}
	got[0] = 99 // a reader's copy is its own
	if again := readChunk(t, s, "s1", "u1", 0); again[0] != 1 || again[2] != 3 {
		t.Fatalf("second read %v", again)
	}
	// Uploaded again, with other values: reads see them.
	putChunk(t, s, "s1", "u1", 0, []float64{4, 5, 6})
	if again := readChunk(t, s, "s1", "u1", 0); again[0] != 4 || again[2] != 6 {
		t.Fatalf("read after a new upload %v", again)
	}
	// A large chunk is read from its file each time, not kept.
	big := make([]float64, maxCachedUpload/8+1)
	big[len(big)-1] = 7
	putChunk(t, s, "s1", "u2", 0, big)
	if v := readChunk(t, s, "s1", "u2", 0); v[len(v)-1] != 7 || s.cache.bytes != 24 {
		t.Fatalf("large chunk: last %v, kept %d bytes", v[len(v)-1], s.cache.bytes)
	}
	putChunk(t, s, "s10", "u1", 0, []float64{8})
	readChunk(t, s, "s10", "u1", 0)
	if err := s.DeleteSession("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("s1", "u1", 0); !errors.Is(err, ErrNoUpload) {
		t.Fatalf("read of a deleted session's chunk: %v", err)
	}
	// Another session whose name starts alike keeps its chunk.
	if v := readChunk(t, s, "s10", "u1", 0); v[0] != 8 || s.cache.bytes != 8 {
		t.Fatalf("s10: %v, kept %d bytes", v, s.cache.bytes)
	}
}
