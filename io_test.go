package phobos_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// End-to-end tests of .npy sources (tensor.FromNpy) and sinks (ToNpy)
// through a local session: every dtype, C and Fortran order, both byte
// orders, many chunkings, expressions between the two, and bad input.

var ioDTypes = []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int64, ndarray.Int32, ndarray.Bool}

// ioArray is a deterministic array with distinct values (as far as the
// dtype allows), so a misplaced element shows.
func ioArray(t testing.TB, dt ndarray.DType, shape []int, seed uint64) *ndarray.Array {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Size() {
		switch dt {
		case ndarray.Bool:
			a.SetFlat(i, float64(r.IntN(2)))
		case ndarray.Int32, ndarray.Int64:
			a.SetFlat(i, float64(int(r.Int32N(2000000))-1000000))
		default:
			a.SetFlat(i, r.NormFloat64()*1e3)
		}
	}
	return a
}

// writeNpyLayout writes a as a .npy file in the given layout, as NumPy
// would: fortran orders the data column-major, big stores multi-byte
// elements big-endian.
func writeNpyLayout(t testing.TB, path string, a *ndarray.Array, fortran, big bool) {
	t.Helper()
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	if !fortran && !big {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	descr := map[ndarray.DType]string{ndarray.Float64: "f8", ndarray.Float32: "f4", ndarray.Int64: "i8", ndarray.Int32: "i4", ndarray.Bool: "b1"}[a.DType()]
	order := "<"
	if big && a.DType() != ndarray.Bool {
		order = ">"
	}
	if a.DType() == ndarray.Bool {
		order = "|"
	}
	dims := make([]string, a.NDim())
	for i, d := range a.Shape() {
		dims[i] = fmt.Sprint(d)
	}
	shape := strings.Join(dims, ", ")
	if a.NDim() == 1 {
		shape += ","
	}
	f := "False"
	if fortran {
		f = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': %s, 'shape': (%s), }", order, descr, f, shape)
	hl := len(dict) + 1
	pad := 64 - (10+hl)%64
	var out bytes.Buffer
	out.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&out, binary.LittleEndian, uint16(hl+pad))
	out.WriteString(dict)
	out.WriteString(strings.Repeat(" ", pad))
	out.WriteByte('\n')
	src := a
	if fortran && a.NDim() > 1 {
		tr, err := a.Transpose()
		if err != nil {
			t.Fatal(err)
		}
		src = tr.Copy()
	}
	data := append([]byte(nil), src.Bytes()...)
	if big {
		isz := a.DType().Size()
		for i := 0; i+isz <= len(data) && isz > 1; i += isz {
			for j := 0; j < isz/2; j++ {
				data[i+j], data[i+isz-1-j] = data[i+isz-1-j], data[i+j]
			}
		}
	}
	out.Write(data)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newIOSession(t testing.TB, opts ...phobos.Option) *phobos.Session {
	t.Helper()
	s, err := phobos.NewSession(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ioCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func sameArray(got, want *ndarray.Array) error {
	if got.DType() != want.DType() || !ndarray.SameShape(got.Shape(), want.Shape()) {
		return fmt.Errorf("got %v%v, want %v%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		return fmt.Errorf("values differ: got %v, want %v", got, want)
	}
	return nil
}

// noTemps fails if dir holds anything but the named files.
func noTemps(t testing.TB, dir string, keep ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		found := false
		for _, k := range keep {
			found = found || e.Name() == k
		}
		if !found {
			t.Errorf("%s: unexpected file %s left behind", dir, e.Name())
		}
	}
}

type ioChunking struct {
	name string
	opt  func(shape []int) []tensor.Option
}

var ioChunkings = []ioChunking{
	{"default", func([]int) []tensor.Option { return nil }},
	{"ones", func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(1)} }},
	{"odd", func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(3)} }},
	{"larger", func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(1000)} }},
	{"rows", func(s []int) []tensor.Option {
		// whole trailing rows: one read per chunk
		sz := append([]int(nil), s...)
		if len(sz) > 0 {
			sz[0] = 2
		}
		if len(sz) == 0 {
			return nil
		}
		return []tensor.Option{tensor.Chunks(sz...)}
	}},
	{"bytes", func([]int) []tensor.Option { return []tensor.Option{tensor.ChunkBytes(40)} }},
	{"irregular", func(s []int) []tensor.Option {
		sp := make([][]int, len(s))
		for i, d := range s {
			switch {
			case d >= 3:
				sp[i] = []int{1, d - 3, 2}
				if d == 3 {
					sp[i] = []int{1, 2}
				}
			default:
				sp[i] = []int{d}
			}
		}
		return []tensor.Option{tensor.ChunkSplits(sp...)}
	}},
}

// TestNpyRoundTrips reads files of every dtype, order and byte order under
// many chunkings, checks the values, and writes them back with ToNpy: the
// output must be byte-identical to np.save's of the same array.
func TestNpyRoundTrips(t *testing.T) {
	s := newIOSession(t, phobos.WithWorkers(2))
	ctx := ioCtx(t)
	dir := t.TempDir()
	shapes := [][]int{{}, {1}, {13}, {7, 5}, {4, 3, 6}, {0, 3}, {3, 1, 4, 2}}
	cases := 0
	for di, dt := range ioDTypes {
		for si, shape := range shapes {
			a := ioArray(t, dt, shape, uint64(100*di+si))
			var want bytes.Buffer
			if err := npy.Write(&want, a); err != nil {
				t.Fatal(err)
			}
			for _, layout := range []struct{ fortran, big bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				src := filepath.Join(dir, fmt.Sprintf("in-%v-%d-%v-%v.npy", dt, si, layout.fortran, layout.big))
				writeNpyLayout(t, src, a, layout.fortran, layout.big)
				for _, ck := range ioChunkings {
					name := fmt.Sprintf("%v%v/fortran=%v/big=%v/%s", dt, shape, layout.fortran, layout.big, ck.name)
					x := tensor.FromNpy(src, ck.opt(shape)...)
					if err := x.Err(); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					dst := filepath.Join(dir, "out.npy")
					res, err := s.Execute(ctx, x, x.ToNpy(dst))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := sameArray(res[0], a); err != nil {
						t.Fatalf("%s: read: %v", name, err)
					}
					got, err := os.ReadFile(dst)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !bytes.Equal(got, want.Bytes()) {
						t.Fatalf("%s: written file differs from np.save's (%d vs %d bytes)", name, len(got), want.Len())
					}
					if n := res[1].Int64s()[0]; n != int64(want.Len()) || res[1].NDim() != 0 {
						t.Fatalf("%s: sink value %v, want the file size %d", name, res[1], want.Len())
					}
					cases++
				}
			}
		}
	}
	noTemps(t, dir, dirNames(t, dir)...)
	t.Logf("npy round trips: %d cases (%d dtypes x %d shapes x 4 layouts x %d chunkings)", cases, len(ioDTypes), len(shapes), len(ioChunkings))
}

func dirNames(t testing.TB, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestNpyExpressionToNpy writes an expression of a file (not just a copy)
// and of a generator, with chunks of the sink that are views (transpose).
func TestNpyExpressionToNpy(t *testing.T) {
	s := newIOSession(t, phobos.WithWorkers(3), phobos.WithSlots(2))
	ctx := ioCtx(t)
	dir := t.TempDir()
	a := ioArray(t, ndarray.Float64, []int{30, 20}, 1)
	src := filepath.Join(dir, "a.npy")
	writeNpyLayout(t, src, a, true, true)
	x := tensor.FromNpy(src, tensor.Chunks(7, 6))
	y := x.Mul(2).Add(x.Mean(tensor.Axis(0))).Transpose()
	want, err := s.Execute(ctx, y)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "y.npy")
	if _, err := s.Execute(ctx, y.ToNpy(out)); err != nil {
		t.Fatal(err)
	}
	got, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(got, want[0]); err != nil {
		t.Fatal(err)
	}
	// A file overwritten by a sink, and WithDType casting on read.
	g := tensor.NewGenerator(3).Rand([]int{9, 4}, tensor.Chunks(2, 3))
	if _, err := s.Execute(ctx, g.ToNpy(out)); err != nil {
		t.Fatal(err)
	}
	wantG, err := s.Execute(ctx, g.Astype(ndarray.Float32))
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.Execute(ctx, tensor.FromNpy(out, tensor.WithDType(ndarray.Float32)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(back[0], wantG[0]); err != nil {
		t.Fatal(err)
	}
	noTemps(t, dir, "a.npy", "y.npy")
}

// TestNpyBadInput: files that are missing, directories, truncated, with a
// lying header or an unsupported dtype give errors naming the file (and
// the chunk, when found while running); sinks that cannot complete leave no
// file at their path and no temporary file; the session keeps working.
func TestNpyBadInput(t *testing.T) {
	s := newIOSession(t, phobos.WithWorkers(2), phobos.WithMaxAttempts(1))
	ctx := ioCtx(t)
	dir := t.TempDir()
	a := ioArray(t, ndarray.Float64, []int{40, 10}, 2)
	good := filepath.Join(dir, "good.npy")
	writeNpyLayout(t, good, a, false, false)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lying := bytes.Replace(raw, []byte("(40, 10)"), []byte("(80, 10)"), 1)
	u8 := bytes.Replace(raw, []byte("'<f8'"), []byte("'<U8'"), 1) // a string dtype
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"missing", filepath.Join(dir, "nope.npy"), []string{"nope.npy", "no such file"}},
		{"directory", dir, []string{dir, "is a directory"}},
		{"truncated", write("trunc.npy", raw[:len(raw)-9]), []string{"trunc.npy", "truncated"}},
		{"lying header", write("lying.npy", lying), []string{"lying.npy", "truncated", "[80 10]"}},
		{"not npy", write("text.npy", []byte("hello, world\n")), []string{"text.npy", "bad magic"}},
		{"unsupported dtype", write("u8.npy", u8), []string{"u8.npy", "unsupported dtype '<U8'"}},
		{"empty", write("empty.npy", nil), []string{"empty.npy", "empty"}},
	} {
		x := tensor.FromNpy(c.path)
		err := x.Err()
		if err == nil {
			_, err = s.Execute(ctx, x)
		}
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, w)
			}
		}
	}

	// A file that shrinks after the tensor is built fails in the chunk
	// that reads past the end, which the error names; a sink of it leaves
	// nothing at its path.
	shrink := write("shrink.npy", raw)
	x := tensor.FromNpy(shrink, tensor.Chunks(10, 10))
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(shrink, int64(len(raw)-100*8)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npy")
	_, err = s.Execute(ctx, x.Mul(3).ToNpy(out))
	for _, w := range []string{"shrink.npy", "chunk at [30 0]", "truncated"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("shrunk file: got %v, want an error containing %q", err, w)
		}
	}
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("failed sink left %s (%v)", out, serr)
	}
	noTemps(t, dir, "empty.npy", "good.npy", "lying.npy", "shrink.npy", "text.npy", "trunc.npy", "u8.npy")

	// Sinks into a missing directory and onto a directory fail naming the
	// path and leave nothing.
	for _, p := range []string{filepath.Join(dir, "missing", "x.npy"), filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := s.Execute(ctx, tensor.FromNpy(good).ToNpy(p))
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("sink to %s: got %v, want an error naming it", p, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "sub")); err != nil || !fi.IsDir() {
		t.Errorf("sink onto a directory changed it: %v", err)
	}

	// The session still works.
	res, err := s.Execute(ctx, tensor.FromNpy(good).Sum())
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range a.Float64s() {
		sum += v
	}
	if math.Abs(res[0].Float64s()[0]-sum) > 1e-9*math.Abs(sum)+1e-9 {
		t.Errorf("sum %v, want %v", res[0], sum)
	}
}

// TestNpyChunksDroppedUnderPressure: x is read again after x.mean() (a
// mean absolute deviation: a variance would read x once), and does not fit
// the budget. Its chunks are dropped
// and read again from the file instead of being spilled; the result equals
// the unlimited run's.
func TestNpyChunksDroppedUnderPressure(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "x.npy")
	writeNpyLayout(t, src, ioArray(t, ndarray.Float64, []int{800, 800}, 8), false, false) // 64 chunks, 5 MB
	build := func() *tensor.Tensor {
		x := tensor.FromNpy(src, tensor.Chunks(100, 100))
		return x.Sub(x.Mean()).Abs().Mean()
	}
	run := func(opts ...phobos.Option) (float64, phobos.MemoryStats) {
		s := newIOSession(t, opts...)
		v, err := s.ExecuteScalar(ioCtx(t), build())
		if err != nil {
			t.Fatal(err)
		}
		return v, s.Stats().Memory
	}
	want, _ := run(phobos.WithFusion(false), phobos.WithMemoryLimit(-1))
	const limit = 16 * 100 * 100 * 8
	got, st := run(phobos.WithFusion(false), phobos.WithMemoryLimit(limit), phobos.WithSpillDir(t.TempDir()))
	if got != want {
		t.Errorf("mean absolute deviation %v, want %v", got, want)
	}
	t.Logf("file chunks under a %d-byte budget: dropped %d, re-read %d, spilled %d bytes", limit, st.DroppedBytes, st.RecomputedBytes, st.SpilledBytes)
	// (Outputs of other ops may spill if a release is slow to come.)
	if st.DroppedBytes == 0 || st.RecomputedBytes == 0 || st.SpilledBytes > st.DroppedBytes/4 {
		t.Errorf("dropped %d, re-read %d, spilled %d bytes; want drops and re-reads, few spills", st.DroppedBytes, st.RecomputedBytes, st.SpilledBytes)
	}
}

// blockChunk is a source chunk that signals it runs and blocks until its
// graph is cancelled.
type blockChunk struct{ started chan<- struct{} }

func (blockChunk) Type() string { return "block_chunk" }

func (b blockChunk) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// block is a tensor of one float64 chunk that never completes.
type block struct {
	shape   []int
	started chan<- struct{}
}

func (block) Type() string { return "block" }

func (b block) Infer([]ops.Meta) (ops.Meta, error) {
	return ops.Meta{Shape: b.shape, DType: ndarray.Float64}, nil
}

func (b block) Tile(bd ops.Builder, _ []*ops.Tiled, out ops.Meta) (*ops.Tiled, error) {
	c := bd.AddChunk(blockChunk{started: b.started}, nil, out)
	ns := make([][]int, len(out.Shape))
	for i, d := range out.Shape {
		ns[i] = []int{d}
	}
	return &ops.Tiled{Meta: out, NSplits: ns, Chunks: []ops.ChunkRef{c}}, nil
}

// TestNpySinkCancelled cancels a sink while one of its input chunks is
// being computed and others are written: nothing appears at the path.
func TestNpySinkCancelled(t *testing.T) {
	s := newIOSession(t, phobos.WithWorkers(2))
	dir := t.TempDir()
	out := filepath.Join(dir, "out.npy")
	started := make(chan struct{}, 1)
	x := tensor.Concatenate(0,
		tensor.Ones([]int{40, 10}, tensor.Chunks(5, 10)),
		tensor.New(block{shape: []int{5, 10}, started: started}),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	_, err := s.Execute(ctx, x.ToNpy(out))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancelled execution", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled sink left %s (%v)", out, err)
	}
	noTemps(t, dir)
	// The session still writes.
	if _, err := s.Execute(ioCtx(t), tensor.Ones([]int{3}).ToNpy(out)); err != nil {
		t.Fatal(err)
	}
}
