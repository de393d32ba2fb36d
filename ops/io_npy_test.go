package ops

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// The sink and source ops encode to the graph JSON and back unchanged.
func TestNpyOpsCodec(t *testing.T) {
	for _, op := range []any{
		NpyRead{Path: "/d/a b.npy", Meta: Meta{Shape: []int{3, 4}, DType: ndarray.Int32}, Fortran: true, BigEndian: true, DataOffset: 128, Chunks: ChunkSpec{Size: []int{2}}},
		NpyReadChunk{Path: "a.npy", DType: ndarray.Bool, Global: []int{5}, DataOffset: 64, Offset: []int{2}, Shape: []int{3}},
		NpyWrite{Path: "o.npy", Temp: ".o.npy.phobos-1.tmp"},
		NpyCreate{Path: "o.npy", Temp: ".o.npy.phobos-1.tmp", DType: ndarray.Float32, Shape: []int{}, Size: 132},
		NpyWriteChunk{Path: "o.npy", Temp: ".o.npy.phobos-1.tmp", DType: ndarray.Float64, Global: []int{4, 4}, DataOffset: 128, Offset: []int{2, 0}, Shape: []int{2, 4}},
		NpyCount{},
		NpyCommit{Path: "o.npy", Temp: ".o.npy.phobos-1.tmp", Size: 256},
	} {
		b, err := MarshalOp(op)
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalOp(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		b2, err := MarshalOp(back)
		if err != nil || !bytes.Equal(b, b2) {
			t.Errorf("round trip: %s became %s (%v)", b, b2, err)
		}
	}
}

// RegionRuns gives one run per chunk of whole trailing rows, and otherwise
// one per contiguous run, covering the box in C order.
func TestRegionRuns(t *testing.T) {
	for _, c := range []struct {
		shape, off, size []int
		runs             int
		first            [2]int64 // start, n of the first run
	}{
		{[]int{}, []int{}, []int{}, 1, [2]int64{0, 1}},
		{[]int{10}, []int{3}, []int{4}, 1, [2]int64{3, 4}},
		{[]int{8, 6}, []int{2, 0}, []int{3, 6}, 1, [2]int64{12, 18}},
		{[]int{8, 6}, []int{2, 1}, []int{3, 4}, 3, [2]int64{13, 4}},
		{[]int{4, 5, 6}, []int{1, 0, 0}, []int{2, 5, 6}, 1, [2]int64{30, 60}},
		{[]int{4, 5, 6}, []int{1, 2, 0}, []int{2, 3, 6}, 2, [2]int64{42, 18}},
		{[]int{4, 5, 6}, []int{0, 0, 1}, []int{4, 5, 2}, 20, [2]int64{1, 2}},
		{[]int{4, 0}, []int{0, 0}, []int{4, 0}, 0, [2]int64{}},
	} {
		var runs int
		var first [2]int64
		var total int64
		err := npy.RegionRuns(c.shape, c.off, c.size, func(start, n int64) error {
			if runs == 0 {
				first = [2]int64{start, n}
			}
			runs++
			total += n
			return nil
		})
		if err != nil || runs != c.runs || first != c.first || total != int64(ndarray.Size(c.size)) {
			t.Errorf("%v at %v of %v: %d runs, first %v, %d elements (%v); want %d runs, first %v",
				c.size, c.off, c.shape, runs, first, total, err, c.runs, c.first)
		}
	}
	if err := npy.RegionRuns([]int{4}, []int{3}, []int{2}, func(int64, int64) error { return nil }); err == nil {
		t.Error("a box outside the shape was accepted")
	}
}

// failingFile fails every write as a full disk does.
type failingFile struct{ *os.File }

func (failingFile) WriteAt([]byte, int64) (int, error) { return 0, syscall.ENOSPC }

// A chunk write that fails (a full disk) or is cancelled removes the
// temporary file and names the file and the chunk; later writes do not
// bring the file back, and the commit fails.
func TestNpyWriteChunkFailures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.npy")
	temp := SinkTemp(filepath.Join(dir, "out.npy"), "0123456789abcdef")
	a, _ := ndarray.FromFloat64s([]int{4, 3}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	h, _ := npy.Header(ndarray.Float64, []int{4, 3})
	size := int64(len(h)) + 96
	ctx := context.Background()
	create := NpyCreate{Path: path, Temp: temp, DType: ndarray.Float64, Shape: []int{4, 3}, Size: size}
	chunk, _ := a.Slice([]ndarray.Range{{Start: 2, Step: 1, Len: 2}, {Start: 0, Step: 1, Len: 3}})
	w := NpyWriteChunk{Path: path, Temp: temp, DType: ndarray.Float64, Global: []int{4, 3}, DataOffset: int64(len(h)), Offset: []int{2, 0}, Shape: []int{2, 3}}
	w.open = func(name string, flag int, perm fs.FileMode) (writerFile, error) {
		f, err := os.OpenFile(name, flag, perm)
		return failingFile{f}, err
	}
	for _, c := range []struct {
		name string
		ctx  func() context.Context
		op   NpyWriteChunk
		want []string
	}{
		{"full disk", func() context.Context { return ctx }, w, []string{path, "chunk at [2 0]", "no space left"}},
		{"cancelled", func() context.Context {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c
		}, NpyWriteChunk{Path: path, Temp: temp, DType: ndarray.Float64, Global: []int{4, 3}, DataOffset: int64(len(h)), Offset: []int{2, 0}, Shape: []int{2, 3}}, []string{"context canceled"}},
	} {
		if _, err := create.Exec(ctx, nil); err != nil {
			t.Fatal(err)
		}
		_, err := c.op.Exec(c.ctx(), []*ndarray.Array{chunk, nil})
		for _, s := range c.want {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, s)
			}
		}
		if _, err := os.Stat(temp); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the temporary file is still there (%v)", c.name, err)
		}
		good := w
		good.open = nil
		if _, err := good.Exec(ctx, []*ndarray.Array{chunk, nil}); err == nil || !strings.Contains(err.Error(), "gone") {
			t.Errorf("%s: a later write: %v, want the temporary file gone", c.name, err)
		}
		if _, err := (NpyCommit{Path: path, Temp: temp, Size: size}).Exec(ctx, nil); err == nil {
			t.Errorf("%s: commit succeeded", c.name)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %s exists (%v)", c.name, path, err)
		}
	}

	// All chunks written, in any order, a repeated write, a repeated create
	// and a repeated commit: the file is np.save's.
	if _, err := create.Exec(ctx, nil); err != nil {
		t.Fatal(err)
	}
	good := w
	good.open = nil
	top, _ := a.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: 2}, {Start: 0, Step: 1, Len: 3}})
	first := good
	first.Offset = []int{0, 0}
	var counts []*ndarray.Array
	for _, step := range []struct {
		op NpyWriteChunk
		in *ndarray.Array
	}{{good, chunk}, {first, top}, {good, chunk}} {
		n, err := step.op.Exec(ctx, []*ndarray.Array{step.in, nil})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
	}
	created, err := create.Exec(ctx, nil) // a repeated create keeps the data
	if err != nil {
		t.Fatal(err)
	}
	commit := NpyCommit{Path: path, Temp: temp, Size: size}
	// The counts must add up to the data: here one chunk is counted twice.
	if _, err := commit.Exec(ctx, append(append([]*ndarray.Array(nil), counts...), created)); err == nil || !strings.Contains(err.Error(), "wrote 144 bytes") {
		t.Fatalf("commit of counts that do not add up: %v", err)
	}
	if _, err := os.Stat(temp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a failed commit left the temporary file (%v)", err)
	}
	// Again, from the start; then a repeated commit.
	if _, err := create.Exec(ctx, nil); err != nil {
		t.Fatal(err)
	}
	total, err := NpyCount{}.Exec(ctx, counts[1:])
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		op NpyWriteChunk
		in *ndarray.Array
	}{{good, chunk}, {first, top}} {
		if _, err := step.op.Exec(ctx, []*ndarray.Array{step.in, nil}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		n, err := commit.Exec(ctx, []*ndarray.Array{total, created})
		if err != nil || n.Int64s()[0] != size {
			t.Fatalf("commit: %v, %v", n, err)
		}
	}
	var want bytes.Buffer
	npy.Write(&want, a)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file differs from np.save's")
	}
}

// A chunk read names the file and the chunk when the file is shorter than
// its header says, and is a Rereadable of the chunk's bytes.
func TestNpyReadChunkTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.npy")
	a, _ := ndarray.FromInt32s([]int{6, 2}, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if err := npy.WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	op, err := NewNpyRead(path, ChunkSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, op.DataOffset+20); err != nil {
		t.Fatal(err)
	}
	c := NpyReadChunk{Path: path, DType: ndarray.Int32, Global: []int{6, 2}, DataOffset: op.DataOffset, Offset: []int{2, 0}, Shape: []int{2, 2}}
	_, err = c.Exec(context.Background(), nil)
	for _, s := range []string{path, "chunk at [2 0]", "truncated", "read 4 of 16 bytes"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("got %v, want an error containing %q", err, s)
		}
	}
	var rr Rereadable = c
	if rr.ReadBytes() != 16 {
		t.Errorf("ReadBytes %d, want 16", rr.ReadBytes())
	}
}

// NpyCreate's Finalize removes the temporary file it made, not one a later
// run of the same sink made under the same name after it committed.
func TestNpyCreateFinalize(t *testing.T) {
	dir := t.TempDir()
	temp := SinkTemp(filepath.Join(dir, "o.npy"), "0123456789abcdef")
	op := NpyCreate{Path: filepath.Join(dir, "o.npy"), Temp: temp, DType: ndarray.Int64, Shape: []int{2}, Size: 144}
	ctx := context.Background()
	first, err := op.Exec(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.Finalize(first)
	if _, err := os.Stat(temp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("abandoned temporary file still there (%v)", err)
	}
	// A run that committed: its file lives on at the target.
	first, err = op.Exec(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(temp, op.Path); err != nil {
		t.Fatal(err)
	}
	second, err := op.Exec(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.Finalize(first) // a late release of the committed run
	if fileID(mustStat(t, temp)) == [2]int64{} {
		t.Skip("no file identities on this system")
	}
	if _, err := os.Stat(temp); err != nil {
		t.Fatalf("a newer run's temporary file was removed: %v", err)
	}
	op.Finalize(second)
	if _, err := os.Stat(temp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("abandoned temporary file still there (%v)", err)
	}
}

func mustStat(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
