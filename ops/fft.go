package ops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/fft"
)

func init() {
	Register(
		Descriptor{Name: "fft", Op: FFT{}, Kinds: Complex},
	)
}

// FFT is a discrete Fourier transform along one axis, numpy.fft's kernel
// (pocketfft's execute): a complex transform (fft, ifft), a real-input
// forward transform (rfft, ihfft) or an inverse to real values (irfft,
// hfft). As in NumPy 1.24, it computes in float64 and returns complex128
// (float64 for the inverse to real values) whatever the input's dtype.
//
// It serves both levels. As a tensor op it gives each output chunk one
// kernel call that reads the input chunks along its axis in order (the
// axis whole, as Dask and Mars rechunk it, without an assembled copy); the
// other axes keep their chunks, cut when whole lanes would make chunks
// larger than the input's. The kernel (the same struct) pads or truncates
// each lane to N and transforms it. Transforms over several axes are
// chains of these, one axis at a time.
type FFT struct {
	// Kind is "c2c" (complex to complex), "r2c" (real input, the first
	// N/2+1 coefficients out) or "c2r" (the first N/2+1 coefficients of
	// a Hermitian spectrum in, N real values out).
	Kind string `json:"kind"`
	// Inverse picks the transform's sign for c2c: exp(+2πi jk/N).
	Inverse bool `json:"inverse,omitempty"`
	// Axis is normalised (0 <= Axis < ndim).
	Axis int `json:"axis"`
	// N is the transform length: c2c's output length along Axis, r2c's
	// input length (longer lanes are cut, shorter ones padded with zeros),
	// c2r's output length.
	N int `json:"n"`
	// Norm is NumPy's norm: "backward" (or empty), "ortho" or "forward".
	Norm string `json:"norm,omitempty"`
	// Conj conjugates the input of c2r and the output of r2c: numpy's
	// hfft and ihfft are irfft(conj(a)) and conj(rfft(a)).
	Conj bool `json:"conj,omitempty"`
}

// FFT kinds.
const (
	FFTComplex  = "c2c"
	FFTReal     = "r2c"
	FFTInvReal  = "c2r"
	normDefault = "backward"
)

// Type implements TensorOp and ChunkOp.
func (op FFT) Type() string { return "fft" }

// FFTNormError is a norm NumPy does not know (numpy raises ValueError).
type FFTNormError struct{ Norm string }

func (e *FFTNormError) Error() string {
	return fmt.Sprintf(`Invalid norm value %s; should be "backward", "ortho" or "forward".`, e.Norm)
}

// FFTLengthError is a transform length below 1 (numpy raises ValueError).
type FFTLengthError struct{ N int }

func (e *FFTLengthError) Error() string {
	return fmt.Sprintf("Invalid number of FFT data points (%d) specified.", e.N)
}

// CheckFFTNorm accepts NumPy's norms ("" stands for "backward").
func CheckFFTNorm(norm string) error {
	switch norm {
	case "", "backward", "ortho", "forward":
		return nil
	}
	return &FFTNormError{Norm: norm}
}

// inLen is how many input elements along the axis one lane uses.
func (op FFT) inLen() int {
	if op.Kind == FFTInvReal {
		return op.N/2 + 1
	}
	return op.N
}

// outLen is the output's length along the axis.
func (op FFT) outLen() int {
	if op.Kind == FFTReal {
		return op.N/2 + 1
	}
	return op.N
}

// forward reports whether the transform has the forward sign.
func (op FFT) forward() bool {
	switch op.Kind {
	case FFTReal:
		return true
	case FFTInvReal:
		return false
	}
	return !op.Inverse
}

// scale is NumPy's normalisation factor for the transform of length N.
func (op FFT) scale() float64 {
	n := float64(op.N)
	norm := op.Norm
	if norm == "" {
		norm = normDefault
	}
	switch norm {
	case "ortho":
		return 1 / math.Sqrt(n)
	case "forward":
		if op.forward() {
			return 1 / n
		}
		return 1
	}
	if op.forward() {
		return 1
	}
	return 1 / n
}

func (op FFT) check() error {
	switch op.Kind {
	case FFTComplex, FFTReal, FFTInvReal:
	default:
		return fmt.Errorf("fft: unknown kind %q (want c2c, r2c or c2r)", op.Kind)
	}
	if op.N < 1 {
		return &FFTLengthError{N: op.N}
	}
	return CheckFFTNorm(op.Norm)
}

// outMeta is the output's meta for an input of shape.
func (op FFT) outMeta(shape []int) Meta {
	s := slices.Clone(shape)
	s[op.Axis] = op.outLen()
	dt := ndarray.Complex128
	if op.Kind == FFTInvReal {
		dt = ndarray.Float64
	}
	return Meta{Shape: s, DType: dt}
}

// Infer implements TensorOp.
func (op FFT) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("fft", in); err != nil {
		return Meta{}, err
	}
	if err := op.check(); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if !m.DType.Valid() {
		return Meta{}, fmt.Errorf("fft: invalid dtype %v", m.DType)
	}
	if op.Axis < 0 || op.Axis >= m.NDim() {
		return Meta{}, &ndarray.AxisError{Axis: op.Axis, NDim: m.NDim()}
	}
	return op.outMeta(m.Shape), nil
}

// Tile implements TensorOp: the axis is made whole, then one kernel per chunk.
func (op FFT) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	// The other axes, cut if whole lanes would make chunks larger than
	// the input's largest; the axis keeps its chunks, which each kernel
	// reads in order (no assembled copy of the lanes is made).
	want := boundChunks(slices.Clone(t.NSplits), op.Axis, max(t.Meta.Shape[op.Axis], out.Shape[op.Axis]), maxChunkSize(t.NSplits))
	grid := make([]int, len(want))
	for ax, s := range want {
		grid[ax] = len(s)
	}
	grid[op.Axis] = 1
	// The views of a refinement make up to one chunk op per piece, the
	// transforms one per output chunk.
	if err := admitGrid(b, grid, float64(1+len(want[op.Axis]))); err != nil {
		return nil, err
	}
	pieces := RechunkTiled(b, t, want)
	pgrid := pieces.Grid()
	ns := slices.Clone(want)
	ns[op.Axis] = []int{out.Shape[op.Axis]}
	res := &Tiled{Meta: out, NSplits: ns, Chunks: make([]ChunkRef, 0, gridCount(grid))}
	var sc ShapeCache
	ForEachGrid(grid, func(idx []int) {
		meta := Meta{Shape: sc.Shape(ns, idx), DType: out.DType}
		refs := make([]ChunkRef, pgrid[op.Axis])
		for a := range refs {
			idx[op.Axis] = a
			refs[a] = pieces.At(idx)
		}
		idx[op.Axis] = 0
		res.Chunks = append(res.Chunks, b.AddChunk(op, refs, meta))
	})
	return res, nil
}

// boundChunks splits the axes other than axis of a chunking whose axis was
// made whole, so that no chunk (of length n along axis) holds more than
// limit elements, the input's largest chunk: the second axis of an fft2 of
// row chunks would otherwise gather the whole array into one chunk, one
// kernel on one core. The widest other axis is halved (each of its chunks
// cut into even parts, so every new chunk is a part of an old one) until
// the chunks fit or no axis can be cut further.
func boundChunks(nsplits [][]int, axis, n, limit int) [][]int {
	if limit <= 0 {
		return nsplits
	}
	for {
		size, widest, width := n, -1, 1
		for ax, s := range nsplits {
			if ax == axis {
				continue
			}
			m := slices.Max(append([]int{0}, s...))
			size *= m
			if m > width {
				widest, width = ax, m
			}
		}
		if size <= limit || widest < 0 {
			return nsplits
		}
		target := (width + 1) / 2
		var cut []int
		for _, c := range nsplits[widest] {
			cut = append(cut, SplitEven(c, target)...)
		}
		nsplits = slices.Clone(nsplits)
		nsplits[widest] = cut
	}
}

// Exec implements ChunkOp: every lane of the chunk along Axis is padded or
// cut to the transform's input length, transformed and scaled. One plan
// (twiddles and scratch) serves all lanes.
func (op FFT) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("fft: no input")
	}
	if err := op.check(); err != nil {
		return nil, err
	}
	// The inputs are the lanes' consecutive pieces along the axis.
	x := in[0]
	if op.Axis < 0 || op.Axis >= x.NDim() {
		return nil, fmt.Errorf("fft: %w", &ndarray.AxisError{Axis: op.Axis, NDim: x.NDim()})
	}
	shape := slices.Clone(x.Shape())
	shape[op.Axis] = 0
	for k, p := range in {
		ps := p.Shape()
		if p.DType() != x.DType() || len(ps) != len(shape) {
			return nil, fmt.Errorf("fft: piece %d is %v%v, piece 0 %v%v", k, p.DType(), ps, x.DType(), x.Shape())
		}
		for ax, d := range ps {
			if ax != op.Axis && d != shape[ax] {
				return nil, fmt.Errorf("fft: piece %d of shape %v does not continue piece 0 of shape %v along axis %d", k, ps, x.Shape(), op.Axis)
			}
		}
		shape[op.Axis] += ps[op.Axis]
	}
	meta := op.outMeta(shape)
	out, err := ndarray.New(meta.DType, meta.Shape...)
	if err != nil {
		return nil, fmt.Errorf("fft: %w", err)
	}
	plan, err := fft.NewPlan(op.N)
	if err != nil {
		return nil, fmt.Errorf("fft: %w", err)
	}
	outer, inner := 1, 1
	for ax := range op.Axis {
		outer *= shape[ax]
	}
	for _, d := range shape[op.Axis+1:] {
		inner *= d
	}
	if outer*inner == 0 {
		return out, nil
	}
	l := lanes{k: min(shape[op.Axis], op.inLen()), inner: inner, outLen: op.outLen(), real: !x.DType().IsComplex() || op.Kind == FFTReal}
	start := 0
	for _, p := range in {
		pc := piece{start: start, len: p.Shape()[op.Axis]}
		start += pc.len
		if pc.len == 0 || pc.start >= l.k {
			continue // nothing of it is read
		}
		// A float64 or complex128 view whose lanes are laid out
		// regularly is read in place; anything else is copied (and
		// converted) in C order.
		pc.so, pc.sa = pc.len*inner, inner
		so, sa, regular := laneLayout(p, op.Axis)
		switch dt := p.DType(); {
		case regular && dt == ndarray.Float64:
			pc.r, pc.so, pc.sa = p.Float64s(), so, sa
		case regular && dt == ndarray.Complex128 && op.Kind != FFTReal:
			pc.c, pc.so, pc.sa = p.Complex128s(), so, sa
		case op.Kind == FFTReal:
			pc.r, pc.c = realValues(p)
		default:
			pc.r, pc.c = complexValues(p)
		}
		l.pieces = append(l.pieces, pc)
	}
	if op.Kind == FFTInvReal {
		l.dstR = out.Float64s()
	} else {
		l.dstC = out.Complex128s()
	}
	// Lanes along an inner axis are strided: gather and scatter a group
	// of neighbouring lanes at once, so each cache line read or written
	// serves the whole group instead of one element.
	l.group = min(inner, max(1, (4<<20)/(16*op.N)), 16)
	items := outer * ((inner + l.group - 1) / l.group)
	if items == 1 && op.Kind == FFTComplex && inner == 1 {
		// One long lane: the plan itself may use the threads.
		l.laneThreads = Threads(ctx)
	}
	threads := min(Threads(ctx), items)
	if threads <= 1 {
		if err := l.run(ctx, op, plan, 0, items); err != nil {
			return nil, err
		}
		return out, nil
	}
	// Lent slots: the groups of lanes are shared out, each thread with a
	// plan of its own; every lane is computed as it is alone.
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := plan
			if t > 0 {
				if p, errs[t] = fft.NewPlan(op.N); errs[t] != nil {
					return
				}
			}
			errs[t] = l.run(ctx, op, p, items*t/threads, items*(t+1)/threads)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// ScratchBytes implements ScratchEstimator: the input's lanes as
// complex128 (pieces that are not float64 or complex128 lanes laid out
// regularly are copied; counted always, as the input's type is not known
// here), one group of lane buffers and one plan (fft.PlanBytes: Bluestein's
// padded sequences for lengths with large prime factors). Threads on lent
// slots each add a group and a plan.
func (op FFT) ScratchBytes(out Meta) int64 {
	ol := op.outLen()
	if ol == 0 || op.N <= 0 {
		return 0
	}
	lanes := int64(ndarray.Size(out.Shape) / ol)
	n, width := int64(op.N), int64(max(op.N, ol))
	group := min(lanes, max(1, (4<<20)/(16*n)), 16)
	return lanes*int64(op.inLen())*16 + group*(16*width+8*n) + fft.PlanBytes(op.N)
}

// MaxThreads implements Threaded: a chunk of several lanes can use a
// thread per group of lanes, a lone complex lane of a length the plan
// splits (fft.Splits) a thread per block of its columns.
func (op FFT) MaxThreads(out Meta) int {
	if op.outLen() == 0 || out.NDim() == 0 {
		return 1
	}
	lanes := ndarray.Size(out.Shape) / op.outLen()
	if lanes == 1 && op.Kind == FFTComplex && fft.Splits(op.N) {
		return 16
	}
	return max(1, min(64, lanes))
}

// piece is one input of the kernel: the lanes' elements start to
// start+len, as float64 values (r) or complex128 ones (c).
type piece struct {
	start, len int
	so, sa     int // the strides of the outer index and of the axis; the inner index has stride 1
	r          []float64
	c          []complex128
}

// laneLayout reports whether x's element (o, j, i) (o over the axes before
// axis in C order, j along it, i over the axes after it in C order) is at
// o*so + j*sa + i from its offset, with non-negative strides: the axes
// after axis packed, those before it collapsing into one stride. Slices of
// a chunk along any axis are; reversed views are not.
func laneLayout(x *ndarray.Array, axis int) (so, sa int, ok bool) {
	shape, st := x.Shape(), x.Strides()
	s := 1
	for k := len(shape) - 1; k > axis; k-- {
		if shape[k] == 1 {
			continue
		}
		if st[k] != s {
			return 0, 0, false
		}
		s *= shape[k]
	}
	sa = st[axis]
	if shape[axis] == 1 {
		sa = 0
	}
	prod := 0
	for k := axis - 1; k >= 0; k-- {
		if shape[k] == 1 {
			continue
		}
		if prod == 0 {
			so, prod = st[k], shape[k]
			continue
		}
		if st[k] != so*prod {
			return 0, 0, false
		}
		prod *= shape[k]
	}
	return so, sa, so >= 0 && sa >= 0
}

// lanes walks the lanes of C-contiguous pieces: element j of lane (o, i)
// is, in the piece holding it, at (o*len + j-start)*inner + i, and in the
// output at (o*outLen + j)*inner + i.
type lanes struct {
	k, inner, outLen int // input elements used, lane stride, output length
	pieces           []piece
	real             bool // the pieces hold real values (r)
	group            int  // neighbouring lanes gathered at once
	laneThreads      int  // threads a lone lane's transform may use
	dstR             []float64
	dstC             []complex128
}

// run transforms the groups of lanes lo to hi: group w is the l.group
// lanes (o, i...) with o = w / groups per row and i = (w % that) * l.group.
func (l *lanes) run(ctx context.Context, op FFT, plan *fft.Plan, lo, hi int) error {
	n := op.N
	s := op.scale()
	cs := complex(s, 0)
	group := l.group
	perRow := (l.inner + group - 1) / group
	width := max(n, op.outLen())
	bufC := make([][]complex128, group)
	bufR := make([][]float64, group)
	for g := range group {
		bufC[g] = make([]complex128, width)
		if op.Kind != FFTComplex || l.real {
			bufR[g] = make([]float64, n)
		}
	}
	for w := lo; w < hi; w++ {
		o, i := w/perRow, (w%perRow)*group
		if err := ctx.Err(); err != nil {
			return err
		}
		gs := min(group, l.inner-i)
		out0 := o*l.outLen*l.inner + i
		switch op.Kind {
		case FFTComplex:
			if l.real {
				// Real input: its spectrum is Hermitian, so a real
				// transform (half the work) gives the first half and
				// conjugates the rest; the inverse is its conjugate.
				if l.inner == 1 {
					lane := l.dstC[out0 : out0+n]
					l.gatherR(bufR[:1], o, i)
					plan.RealForwardThreads(lane[:n/2+1], bufR[0], l.laneThreads)
					hermitian(lane, op.Inverse, cs)
					continue
				}
				l.gatherR(bufR[:gs], o, i)
				for g := range gs {
					plan.RealForward(bufC[g][:n/2+1], bufR[g])
					hermitian(bufC[g][:n], op.Inverse, 1)
				}
				l.scatterC(bufC[:gs], n, out0, cs, false)
				continue
			}
			if l.inner == 1 {
				// A contiguous lane: transform it where it is
				// written, saving a copy.
				lane := l.dstC[out0 : out0+n]
				l.gatherC([][]complex128{lane}, n, o, i, false)
				if op.Inverse {
					plan.BackwardThreads(lane, lane, l.laneThreads)
				} else {
					plan.ForwardThreads(lane, lane, l.laneThreads)
				}
				if s != 1 {
					for j := range lane {
						lane[j] *= cs
					}
				}
				continue
			}
			l.gatherC(bufC[:gs], n, o, i, false)
			for g := range gs {
				if op.Inverse {
					plan.Backward(bufC[g][:n], bufC[g][:n])
				} else {
					plan.Forward(bufC[g][:n], bufC[g][:n])
				}
			}
			l.scatterC(bufC[:gs], n, out0, cs, false)
		case FFTReal:
			l.gatherR(bufR[:gs], o, i)
			for g := range gs {
				plan.RealForward(bufC[g][:n/2+1], bufR[g])
			}
			l.scatterC(bufC[:gs], n/2+1, out0, cs, op.Conj)
		case FFTInvReal:
			l.gatherC(bufC[:gs], n/2+1, o, i, op.Conj)
			for g := range gs {
				plan.RealBackward(bufR[g], bufC[g][:n/2+1])
			}
			l.scatterR(bufR[:gs], out0, s)
		}
	}
	return nil
}

// gatherC copies the len(bufs) neighbouring lanes (o, i...) into
// bufs[g][:width] as complex numbers (conjugated if conj), piece by piece,
// zero-padding past the input's end.
func (l *lanes) gatherC(bufs [][]complex128, width, o, i int, conj bool) {
	k := min(l.k, width)
	for _, p := range l.pieces {
		if p.start >= k {
			break
		}
		rows := min(p.len, k-p.start)
		base := o*p.so + i
		if len(bufs) == 1 && p.sa == 1 && !conj {
			// A contiguous lane: straight loops.
			b := bufs[0][p.start : p.start+rows]
			if p.c != nil {
				copy(b, p.c[base:base+rows])
			} else {
				for j, v := range p.r[base : base+rows] {
					b[j] = complex(v, 0)
				}
			}
			continue
		}
		for j := range rows {
			row := base + j*p.sa
			if p.c != nil {
				for g, b := range bufs {
					v := p.c[row+g]
					if conj {
						v = complex(real(v), -imag(v))
					}
					b[p.start+j] = v
				}
			} else {
				for g, b := range bufs {
					b[p.start+j] = complex(p.r[row+g], 0)
				}
			}
		}
	}
	for _, b := range bufs {
		clear(b[k:width])
	}
}

// hermitian completes the spectrum of a real lane whose first len/2+1
// values x holds (x[n-k] = conj x[k]), conjugates it all for the inverse
// transform's sign, and scales it.
func hermitian(x []complex128, inverse bool, scale complex128) {
	n := len(x)
	for k := n/2 + 1; k < n; k++ {
		v := x[n-k]
		x[k] = complex(real(v), -imag(v))
	}
	if inverse {
		for k, v := range x {
			x[k] = complex(real(v), -imag(v))
		}
	}
	if scale != 1 {
		for k := range x {
			x[k] *= scale
		}
	}
}

// gatherR copies the real lanes (o, i...) into bufs, zero-padded.
func (l *lanes) gatherR(bufs [][]float64, o, i int) {
	k := min(l.k, len(bufs[0]))
	for _, p := range l.pieces {
		if p.start >= k {
			break
		}
		rows := min(p.len, k-p.start)
		base := o*p.so + i
		if len(bufs) == 1 && p.sa == 1 {
			copy(bufs[0][p.start:p.start+rows], p.r[base:base+rows])
			continue
		}
		for j := range rows {
			row := base + j*p.sa
			for g, b := range bufs {
				b[p.start+j] = p.r[row+g]
			}
		}
	}
	for _, b := range bufs {
		clear(b[k:])
	}
}

// scatterC writes bufs[g][:width], scaled (and conjugated if conj), to the
// output lanes starting at out0.
func (l *lanes) scatterC(bufs [][]complex128, width, out0 int, scale complex128, conj bool) {
	if scale == 1 && !conj {
		for j := range width {
			row := l.dstC[out0+j*l.inner : out0+j*l.inner+len(bufs)]
			for g, b := range bufs {
				row[g] = b[j]
			}
		}
		return
	}
	for j := range width {
		row := out0 + j*l.inner
		for g, b := range bufs {
			v := b[j]
			if conj {
				v = complex(real(v), -imag(v))
			}
			l.dstC[row+g] = v * scale
		}
	}
}

// scatterR writes the real lanes bufs, scaled, to the output at out0.
func (l *lanes) scatterR(bufs [][]float64, out0 int, scale float64) {
	for j := range len(bufs[0]) {
		row := out0 + j*l.inner
		for g, b := range bufs {
			l.dstR[row+g] = b[j] * scale
		}
	}
}

// complexValues is x's elements in C order, as complex128 values when x is
// complex, else as float64 values (the imaginary parts are zero).
func complexValues(x *ndarray.Array) (re []float64, c []complex128) {
	switch x.DType() {
	case ndarray.Complex128:
		c := x.Contiguous()
		return nil, c.Complex128s()[:c.Size()]
	case ndarray.Complex64:
		c := x.Contiguous()
		src := c.Complex64s()[:c.Size()]
		out := make([]complex128, len(src))
		for i, v := range src {
			out[i] = complex128(v)
		}
		return nil, out
	case ndarray.Float64:
		c := x.Contiguous()
		return c.Float64s()[:c.Size()], nil
	}
	return x.ToFloat64s(), nil
}

// realValues is x's elements in C order as float64 values; of a complex x,
// the real parts (NumPy's rfft casts complex input to float64, discarding
// the imaginary parts with a ComplexWarning).
func realValues(x *ndarray.Array) ([]float64, []complex128) {
	re, c := complexValues(x)
	if c == nil {
		return re, nil
	}
	out := make([]float64, len(c))
	for i, v := range c {
		out[i] = real(v)
	}
	return out, nil
}
