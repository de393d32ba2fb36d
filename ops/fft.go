package ops

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/fft"
)

// FFT is a discrete Fourier transform along one axis, numpy.fft's kernel
// (pocketfft's execute): a complex transform (fft, ifft), a real-input
// forward transform (rfft, ihfft) or an inverse to real values (irfft,
// hfft). As in NumPy 1.24, it computes in float64 and returns complex128
// (float64 for the inverse to real values) whatever the input's dtype.
//
// It serves both levels. As a tensor op it rechunks its axis whole, so
// every chunk holds whole lanes, leaves the other axes' chunks as they are
// and makes one chunk op per chunk: the same struct, whose kernel pads or
// truncates each lane to N and transforms it. Transforms over several axes
// are chains of these, one axis at a time.
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
	want := slices.Clone(t.NSplits)
	want[op.Axis] = []int{t.Meta.Shape[op.Axis]}
	grid := t.Grid()
	grid[op.Axis] = 1
	// The rechunk makes up to one chunk op per output chunk, the
	// transforms one more.
	if err := admitGrid(b, grid, 2); err != nil {
		return nil, err
	}
	whole := RechunkTiled(b, t, want)
	ns := slices.Clone(want)
	ns[op.Axis] = []int{out.Shape[op.Axis]}
	res := &Tiled{Meta: out, NSplits: ns, Chunks: make([]ChunkRef, len(whole.Chunks))}
	var sc ShapeCache
	ForEachGrid(grid, func(idx []int) {
		f := GridFlat(grid, idx)
		meta := Meta{Shape: sc.Shape(ns, idx), DType: out.DType}
		res.Chunks[f] = b.AddChunk(op, []ChunkRef{whole.Chunks[f]}, meta)
	})
	return res, nil
}

// Exec implements ChunkOp: every lane of the chunk along Axis is padded or
// cut to the transform's input length, transformed and scaled. One plan
// (twiddles and scratch) serves all lanes.
func (op FFT) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("fft: %d inputs, want 1", len(in))
	}
	if err := op.check(); err != nil {
		return nil, err
	}
	x := in[0]
	if op.Axis < 0 || op.Axis >= x.NDim() {
		return nil, fmt.Errorf("fft: %w", &ndarray.AxisError{Axis: op.Axis, NDim: x.NDim()})
	}
	meta := op.outMeta(x.Shape())
	out, err := ndarray.New(meta.DType, meta.Shape...)
	if err != nil {
		return nil, fmt.Errorf("fft: %w", err)
	}
	plan, err := fft.NewPlan(op.N)
	if err != nil {
		return nil, fmt.Errorf("fft: %w", err)
	}
	shape := x.Shape()
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
	l := lanes{m: shape[op.Axis], k: min(shape[op.Axis], op.inLen()), inner: inner, outLen: op.outLen()}
	if op.Kind == FFTReal {
		l.srcR, l.srcC = realValues(x)
	} else {
		l.srcR, l.srcC = complexValues(x)
	}
	if op.Kind == FFTInvReal {
		l.dstR = out.Float64s()
	} else {
		l.dstC = out.Complex128s()
	}
	return out, l.run(ctx, op, plan, outer)
}

// lanes walks the lanes of a C-contiguous chunk: element j of lane (o, i)
// is at (o*m + j)*inner + i in the input and (o*outLen + j)*inner + i in
// the output. Exactly one of srcR and srcC holds the input.
type lanes struct {
	m, k, inner, outLen int // input length, elements used, lane stride, output length
	srcR                []float64
	srcC                []complex128
	dstR                []float64
	dstC                []complex128
}

func (l *lanes) run(ctx context.Context, op FFT, plan *fft.Plan, outer int) error {
	n := op.N
	s := op.scale()
	cs := complex(s, 0)
	bufC := make([]complex128, max(n, op.outLen()))
	var bufR []float64
	if op.Kind != FFTComplex {
		bufR = make([]float64, n)
	}
	for o := range outer {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range l.inner {
			in0 := o*l.m*l.inner + i
			out0 := o*l.outLen*l.inner + i
			switch op.Kind {
			case FFTComplex:
				buf := bufC[:n]
				l.gatherC(buf, in0, false)
				if op.Inverse {
					plan.Backward(buf, buf)
				} else {
					plan.Forward(buf, buf)
				}
				for j, v := range buf {
					l.dstC[out0+j*l.inner] = v * cs
				}
			case FFTReal:
				l.gatherR(bufR, in0)
				spec := bufC[:n/2+1]
				plan.RealForward(spec, bufR)
				for j, v := range spec {
					if op.Conj {
						v = complex(real(v), -imag(v))
					}
					l.dstC[out0+j*l.inner] = v * cs
				}
			case FFTInvReal:
				spec := bufC[:n/2+1]
				l.gatherC(spec, in0, op.Conj)
				plan.RealBackward(bufR, spec)
				for j, v := range bufR {
					l.dstR[out0+j*l.inner] = v * s
				}
			}
		}
	}
	return nil
}

// gatherC copies the lane starting at in0 into buf as complex numbers
// (conjugated if conj), zero-padding past the input's end.
func (l *lanes) gatherC(buf []complex128, in0 int, conj bool) {
	k := min(l.k, len(buf))
	if l.srcC != nil {
		for j := range k {
			v := l.srcC[in0+j*l.inner]
			if conj {
				v = complex(real(v), -imag(v))
			}
			buf[j] = v
		}
	} else {
		for j := range k {
			buf[j] = complex(l.srcR[in0+j*l.inner], 0)
		}
	}
	clear(buf[k:])
}

// gatherR copies the real lane starting at in0 into buf, zero-padded.
func (l *lanes) gatherR(buf []float64, in0 int) {
	k := min(l.k, len(buf))
	for j := range k {
		buf[j] = l.srcR[in0+j*l.inner]
	}
	clear(buf[k:])
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
