package zarr

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// FuzzParseMetaV3 parses arbitrary zarr.json documents: an error or an
// array whose grid, keys and canonical metadata hold together, never a
// panic.
func FuzzParseMetaV3(f *testing.F) {
	for _, c := range v3cases() {
		f.Add([]byte(c.doc()))
	}
	f.Add([]byte(metaDoc("spam", `{"name": "spam", "must_understand": false}`)))
	f.Add([]byte(metaDoc("codecs", `[{"name": "transpose", "configuration": {"order": "F"}}, "bytes"]`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseV3(data)
		if err != nil {
			return
		}
		grid := a.Grid()
		if len(grid) != len(a.Shape) || len(a.Chunks) != len(a.Shape) {
			t.Fatalf("grid %v, chunks %v for shape %v", grid, a.Chunks, a.Shape)
		}
		_ = a.Key(make([]int, len(grid)))
		b, err := parseV3(a.V3Meta())
		if err != nil {
			t.Fatalf("canonical metadata %s: %v", a.V3Meta(), err)
		}
		if !slices.Equal(a.Shape, b.Shape) || !slices.Equal(a.Chunks, b.Chunks) || a.DType != b.DType || a.Separator != b.Separator ||
			!bytes.Equal(a.v3.fill, b.v3.fill) || !bytes.Equal(a.V3Meta(), b.V3Meta()) {
			t.Fatalf("canonical metadata %s reads differently", a.V3Meta())
		}
	})
}

// FuzzReadShard reads arbitrary bytes as a shard (index at the end with a
// checksum, and at the start without): an error or a chunk of the right
// shape, never a panic. The stores are opened once; each input only
// replaces the shard file (a fuzzing process runs its inputs one by one).
func FuzzReadShard(f *testing.F) {
	var c v3case
	for _, x := range v3cases() {
		if x.inner != nil && x.indexCRC && len(x.shape) == 2 {
			c = x
			break
		}
	}
	seedDir := f.TempDir()
	c.build(f, seedDir)
	raw, err := os.ReadFile(filepath.Join(seedDir, "c/0/0"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:len(raw)-30])
	f.Add([]byte{})
	var stores []*Array
	for _, start := range []bool{false, true} {
		x := c
		x.indexEnd, x.indexCRC = !start, !start
		d := f.TempDir()
		if err := os.WriteFile(filepath.Join(d, "zarr.json"), []byte(x.doc()), 0o644); err != nil {
			f.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(d, "c", "0"), 0o755); err != nil {
			f.Fatal(err)
		}
		a, err := Open(d)
		if err != nil {
			f.Fatal(err)
		}
		stores = append(stores, a)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range stores {
			if err := os.WriteFile(filepath.Join(a.Path, "c", "0", "0"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, idx := range [][]int{{0, 0}, {1, 1}} {
				if ch, err := a.ReadChunk(idx); err == nil && !slices.Equal(ch.Shape(), a.Chunks) {
					t.Fatalf("chunk of shape %v, want %v", ch.Shape(), a.Chunks)
				}
			}
			if _, err := a.ReadRegion([]int{0, 0}, []int{4, 6}); err != nil && !strings.Contains(err.Error(), "shard c/0/0") {
				t.Fatalf("an error that does not name the shard: %v", err)
			}
		}
	})
}
