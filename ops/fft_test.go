package ops

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"math/rand"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// naiveDFT1 is the O(n²) transform of one lane, sign -1 forward.
func naiveDFT1(x []complex128, n int, sign float64) []complex128 {
	out := make([]complex128, n)
	for k := range n {
		var s complex128
		for j := range min(len(x), n) {
			s += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k%n)/float64(n)))
		}
		out[k] = s
	}
	return out
}

// TestFFTTile: the transformed axis becomes one chunk, the other axes keep
// their splits, each output chunk is one fft op reading one input chunk,
// and the result is the naive DFT of every lane.
func TestFFTTile(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	a := laRand(t, r, ndarray.Float64, 5, 7, 3)
	for _, c := range []struct {
		op      FFT
		nsplits [][]int
	}{
		{FFT{Kind: FFTComplex, Axis: 1, N: 7}, [][]int{{2, 3}, {1, 4, 2}, {3}}},
		{FFT{Kind: FFTComplex, Axis: 0, N: 3, Inverse: true, Norm: "ortho"}, [][]int{{1, 1, 1, 1, 1}, {7}, {1, 2}}},
		{FFT{Kind: FFTComplex, Axis: 2, N: 8, Norm: "forward"}, [][]int{{5}, {3, 4}, {2, 1}}},
	} {
		b := &laBuilder{}
		in := laTile(t, b, a, c.nsplits)
		out, err := c.op.Infer([]Meta{in.Meta})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.op.Tile(b, []*Tiled{in}, out)
		if err != nil {
			t.Fatal(err)
		}
		size := max(shape0(a, c.op.Axis), c.op.N)
		for ax, s := range res.NSplits {
			switch {
			case ax == c.op.Axis && (len(s) != 1 || s[0] != c.op.N):
				t.Errorf("%+v: output splits along the axis %v, want [%d]", c.op, s, c.op.N)
			case ax != c.op.Axis && !refines(s, c.nsplits[ax]):
				t.Errorf("%+v: axis %d splits %v, not a refinement of the input's %v", c.op, ax, s, c.nsplits[ax])
			case ax != c.op.Axis:
				size *= slicesMax(s)
			}
		}
		// A whole axis must not make chunks larger than the input's largest.
		if limit := maxChunkSize(c.nsplits); size > limit {
			t.Errorf("%+v: chunks of %d elements, the input's largest has %d", c.op, size, limit)
		}
		if got := b.count("assemble"); got != 0 {
			t.Errorf("%+v: %d assembled chunks; the kernels read the pieces themselves", c.op, got)
		}
		if got := b.count("fft"); got != len(res.Chunks) {
			t.Errorf("%+v: %d fft chunk ops for %d output chunks", c.op, got, len(res.Chunks))
		}
		got := laExec(t, b, res)
		// Check every lane against the naive DFT.
		shape := a.Shape()
		outShape := got.Shape()
		sign := -1.0
		if c.op.Inverse {
			sign = 1
		}
		ForEachGrid(withOne(shape, c.op.Axis), func(idx []int) {
			lane := make([]complex128, shape[c.op.Axis])
			pos := append([]int(nil), idx...)
			for j := range lane {
				pos[c.op.Axis] = j
				lane[j] = complex(a.AtFlat(flatIndex(shape, pos)), 0)
			}
			want := naiveDFT1(lane, c.op.N, sign)
			for k, w := range want {
				pos[c.op.Axis] = k
				g := got.ComplexAtFlat(flatIndex(outShape, pos))
				if cmplx.Abs(g-w*complex(c.op.scale(), 0)) > 1e-12 {
					t.Fatalf("%+v: lane %v element %d: got %v, want %v", c.op, idx, k, g, w*complex(c.op.scale(), 0))
				}
			}
		})
	}
}

func shape0(a *ndarray.Array, ax int) int { return a.Shape()[ax] }

func slicesMax(s []int) int {
	m := 0
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

// refines reports whether every chunk boundary of coarse is one of fine.
func refines(fine, coarse []int) bool {
	bounds := map[int]bool{}
	pos := 0
	for _, v := range fine {
		pos += v
		bounds[pos] = true
	}
	pos = 0
	for _, v := range coarse {
		pos += v
		if !bounds[pos] {
			return false
		}
	}
	return true
}

func withOne(shape []int, ax int) []int {
	s := append([]int(nil), shape...)
	s[ax] = 1
	return s
}

func flatIndex(shape, idx []int) int {
	f := 0
	for i, d := range shape {
		f = f*d + idx[i]
	}
	return f
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFFTInfer(t *testing.T) {
	m := Meta{Shape: []int{4, 6}, DType: ndarray.Float32}
	for _, c := range []struct {
		op   FFT
		want Meta
	}{
		{FFT{Kind: FFTComplex, Axis: 1, N: 6}, Meta{Shape: []int{4, 6}, DType: ndarray.Complex128}},
		{FFT{Kind: FFTReal, Axis: 1, N: 6}, Meta{Shape: []int{4, 4}, DType: ndarray.Complex128}},
		{FFT{Kind: FFTReal, Axis: 0, N: 7}, Meta{Shape: []int{4, 6}, DType: ndarray.Complex128}},
		{FFT{Kind: FFTInvReal, Axis: 1, N: 10}, Meta{Shape: []int{4, 10}, DType: ndarray.Float64}},
	} {
		got, err := c.op.Infer([]Meta{m})
		if err != nil || got.DType != c.want.DType || !equalInts(got.Shape, c.want.Shape) {
			t.Errorf("%+v: %v %v, want %v", c.op, got, err, c.want)
		}
	}
	for _, c := range []struct {
		op   FFT
		want string
	}{
		{FFT{Kind: FFTComplex, Axis: 2, N: 3}, "axis 2"},
		{FFT{Kind: FFTComplex, Axis: 0, N: 0}, "Invalid number of FFT data points (0)"},
		{FFT{Kind: FFTComplex, Axis: 0, N: 2, Norm: "sideways"}, "Invalid norm value sideways"},
		{FFT{Kind: "r2r", Axis: 0, N: 2}, "unknown kind"},
	} {
		if _, err := c.op.Infer([]Meta{m}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.op, err, c.want)
		}
	}
	var le *FFTLengthError
	if _, err := (FFT{Kind: FFTReal, N: -3}).Infer([]Meta{m}); !errors.As(err, &le) {
		t.Errorf("negative length: %v, want an FFTLengthError", err)
	}
}

// TestFFTExecChecks: a chunk op from the wire with a bad axis or length is
// an error, not a panic; a cancelled context stops the kernel.
func TestFFTExecChecks(t *testing.T) {
	a, _ := ndarray.FromFloat64s([]int{3, 4}, make([]float64, 12))
	if _, err := (FFT{Kind: FFTComplex, Axis: 5, N: 4}).Exec(context.Background(), []*ndarray.Array{a}); err == nil {
		t.Error("axis 5 of a 2-d chunk ran")
	}
	if _, err := (FFT{Kind: FFTComplex, Axis: 0, N: 0}).Exec(context.Background(), []*ndarray.Array{a}); err == nil {
		t.Error("length 0 ran")
	}
	if _, err := (FFT{Kind: FFTComplex, Axis: 0, N: 3}).Exec(context.Background(), nil); err == nil {
		t.Error("no input ran")
	}
	b, _ := ndarray.FromFloat64s([]int{2, 4}, make([]float64, 8))
	if _, err := (FFT{Kind: FFTComplex, Axis: 0, N: 5}).Exec(context.Background(), []*ndarray.Array{a, b}); err != nil {
		t.Errorf("pieces of 3 and 2 rows along axis 0: %v", err)
	}
	if _, err := (FFT{Kind: FFTComplex, Axis: 1, N: 4}).Exec(context.Background(), []*ndarray.Array{a, b}); err == nil {
		t.Error("pieces of 3 and 2 rows joined along axis 1 ran")
	}
	c, _ := ndarray.FromInt64s([]int{2, 4}, make([]int64, 8))
	if _, err := (FFT{Kind: FFTComplex, Axis: 0, N: 5}).Exec(context.Background(), []*ndarray.Array{a, c}); err == nil {
		t.Error("pieces of two dtypes ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (FFT{Kind: FFTComplex, Axis: 1, N: 4}).Exec(ctx, []*ndarray.Array{a}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestFFTThreads: lent threads share the lanes out and give the same bits
// as one thread, along the last axis and an inner one.
func TestFFTThreads(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	a := laRand(t, r, ndarray.Float64, 7, 40, 37)
	for _, op := range []FFT{
		{Kind: FFTComplex, Axis: 2, N: 37},
		{Kind: FFTReal, Axis: 1, N: 50, Norm: "ortho"},
		{Kind: FFTInvReal, Axis: 0, N: 12},
	} {
		if got := op.MaxThreads(op.outMeta(a.Shape())); got < 2 {
			t.Errorf("%+v: MaxThreads %d for many lanes", op, got)
		}
		one, err := op.Exec(context.Background(), []*ndarray.Array{a})
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{2, 3, 64} {
			many, err := op.Exec(WithThreads(context.Background(), th), []*ndarray.Array{a})
			if err != nil {
				t.Fatal(err)
			}
			for i := range one.Size() {
				if one.ComplexAtFlat(i) != many.ComplexAtFlat(i) {
					t.Fatalf("%+v with %d threads: element %d is %v, one thread gives %v", op, th, i, many.ComplexAtFlat(i), one.ComplexAtFlat(i))
				}
			}
		}
	}
	if got := (FFT{Kind: FFTComplex, N: 1009}).MaxThreads(Meta{Shape: []int{1009}, DType: ndarray.Complex128}); got != 1 {
		t.Errorf("one short lane: MaxThreads %d, want 1", got)
	}
	// One long lane: its plan's blocks share the threads out.
	long := laRand(t, r, ndarray.Float64, 1<<16)
	op := FFT{Kind: FFTComplex, N: 1 << 16, Inverse: true}
	if got := op.MaxThreads(op.outMeta(long.Shape())); got < 2 {
		t.Errorf("one long lane: MaxThreads %d", got)
	}
	one, err := op.Exec(context.Background(), []*ndarray.Array{long})
	if err != nil {
		t.Fatal(err)
	}
	many, err := op.Exec(WithThreads(context.Background(), 3), []*ndarray.Array{long})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one.Size() {
		if one.ComplexAtFlat(i) != many.ComplexAtFlat(i) {
			t.Fatalf("one long lane with 3 threads: element %d is %v, one thread gives %v", i, many.ComplexAtFlat(i), one.ComplexAtFlat(i))
		}
	}
}

// TestFFTViews: pieces that are views (a slice along another axis, a
// transpose, a broadcast, a reversal) give what their contiguous copies
// give.
func TestFFTViews(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	big := laRand(t, r, ndarray.Float64, 6, 10, 4)
	slice, err := big.Slice([]ndarray.Range{{Start: 1, Step: 1, Len: 4}, {Start: 2, Step: 1, Len: 7}, {Start: 0, Step: 1, Len: 4}})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := big.Slice([]ndarray.Range{{Start: 5, Step: -1, Len: 6}, {Start: 0, Step: 2, Len: 5}, {Start: 0, Step: 1, Len: 4}})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := big.Transpose(2, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	row := laRand(t, r, ndarray.Float64, 1, 1, 4)
	bc, err := row.BroadcastTo([]int{3, 5, 4})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]*ndarray.Array{"slice": slice, "reversed": rev, "transposed": tr, "broadcast": bc} {
		for axis := range v.NDim() {
			for _, op := range []FFT{
				{Kind: FFTComplex, Axis: axis, N: v.Shape()[axis] + 1},
				{Kind: FFTReal, Axis: axis, N: v.Shape()[axis]},
			} {
				want, err := op.Exec(context.Background(), []*ndarray.Array{v.Copy()})
				if err != nil {
					t.Fatal(err)
				}
				got, err := op.Exec(context.Background(), []*ndarray.Array{v})
				if err != nil {
					t.Fatal(err)
				}
				for i := range want.Size() {
					if got.ComplexAtFlat(i) != want.ComplexAtFlat(i) {
						t.Fatalf("%s %+v: element %d is %v, the copy gives %v", name, op, i, got.ComplexAtFlat(i), want.ComplexAtFlat(i))
					}
				}
			}
		}
	}
}

// TestFFTScratch: the memory an FFT reserves beside its output covers its
// plan, which for a prime length (Bluestein) is several lanes.
func TestFFTScratch(t *testing.T) {
	var est ScratchEstimator = FFT{N: 1009, Axis: 0, Norm: "backward"}
	out := Meta{Shape: []int{1009}, DType: ndarray.Complex128}
	if got, lane := est.ScratchBytes(out), int64(16*1009); got < 5*lane {
		t.Errorf("prime length 1009: %d bytes of scratch, want at least 5 lanes (%d)", got, 5*lane)
	}
	smooth := FFT{N: 1024, Axis: 0, Norm: "backward"}.ScratchBytes(Meta{Shape: []int{1024}, DType: ndarray.Complex128})
	if smooth <= 0 || smooth > 16*1024*8 {
		t.Errorf("length 1024: %d bytes of scratch, want a few lanes", smooth)
	}
}
