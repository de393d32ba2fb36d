package zarr

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzBloscDecode decodes arbitrary bytes as a blosc frame: an error or at
// most the bytes allowed, never a panic.
func FuzzBloscDecode(f *testing.F) {
	// np.arange(70, dtype='<i8') * 3 + 5, blosc zlib with bit shuffle, as
	// numcodecs wrote it.
	seed, _ := hex.DecodeString("020174083002000030020000af00000014000000")
	f.Add(seed)
	f.Add([]byte{2, 1, 0x21, 8, 64, 0, 0, 0, 64, 0, 0, 0, 80, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := bloscDecode(data, 1<<16)
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("decoded %d bytes past the limit", len(out))
		}
	})
}

// FuzzParseMeta parses arbitrary .zarray documents.
func FuzzParseMeta(f *testing.F) {
	f.Add([]byte(`{"zarr_format":2,"shape":[10,4],"chunks":[3,3],"dtype":"<f8","compressor":{"id":"blosc","cname":"lz4"},"fill_value":"NaN","order":"F","filters":null,"dimension_separator":"/"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, err := parse(data); err == nil {
			_ = a.Grid()
		}
	})
}

// A chunk file the Check callback refuses (a worker's data roots) is not
// read; a corrupt one is an error naming the array and the chunk.
func TestChunkCheckedAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	meta := `{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<f8","compressor":{"id":"zlib"},"fill_value":0,"order":"C","filters":null}`
	if err := os.WriteFile(filepath.Join(dir, ".zarray"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0"), []byte("not zlib"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadChunk([]int{0}); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "chunk 0") {
		t.Errorf("corrupt chunk: %v, want an error naming the array and the chunk", err)
	}
	refused := errors.New("outside the data roots")
	a.Check = func(string) error { return refused }
	if _, err := a.ReadChunk([]int{0}); !errors.Is(err, refused) {
		t.Errorf("refused chunk: %v", err)
	}
}
