package ops

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	modes := []string{"full", "same", "valid"}
	Register(
		Descriptor{Name: "convolve", Op: Convolve{}, Kinds: Complex, Calls: []Call{{
			Name: "convolve",
			Doc: "numpy.convolve: the discrete linear convolution of two 1-D tensors, mode 'full', 'same' or 'valid'.\n\n" +
				"The shorter operand is gathered into one chunk; the output is chunked like the longer one and each\n" +
				"output chunk reads only the chunks of the longer operand its window overlaps. float32 and complex64\n" +
				"are summed in double precision. float16 is refused.",
			Params: []Param{{Name: "a"}, {Name: "v"}, {Name: "mode", Kind: ParamString, Default: "full", Choices: modes}},
			New:    func(v Values) (TensorOp, error) { return Convolve{Mode: v.String("mode")}, nil },
		}, {
			Name: "correlate",
			Doc: "numpy.correlate: the cross-correlation c[k] = sum_n a[n+k] * conj(v[n]) of two 1-D tensors,\n" +
				"mode 'valid', 'same' or 'full', computed as convolve is.",
			Params: []Param{{Name: "a"}, {Name: "v"}, {Name: "mode", Kind: ParamString, Default: "valid", Choices: modes}},
			New:    func(v Values) (TensorOp, error) { return Convolve{Mode: v.String("mode"), Correlate: true}, nil },
		}}},
		Descriptor{Name: "convolve_chunk", Op: ConvolveChunk{}},
	)
}

// Convolve is numpy.convolve of two 1-D tensors, or numpy.correlate when
// Correlate is set. Both are computed as a convolution of the longer
// operand L with the shorter S (reversed and conjugated for a
// correlation; NumPy's correlate with a shorter first operand is the
// reversed conjugate of the one with its operands swapped), of which the
// mode keeps a window.
type Convolve struct {
	Mode      string `json:"mode"`
	Correlate bool   `json:"correlate,omitempty"`
}

// Type implements TensorOp.
func (op Convolve) Type() string {
	if op.Correlate {
		return "correlate"
	}
	return "convolve"
}

// Infer implements TensorOp.
func (op Convolve) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("%s: want 2 inputs, got %d", op.Type(), len(in))
	}
	in = slices.Clone(in)
	for i, m := range in {
		if m.NDim() == 0 && !op.Correlate {
			// numpy.convolve reads a 0-d operand as one element
			// (ndmin=1); numpy.correlate refuses it.
			m.Shape = []int{1}
			in[i] = m
		}
		if m.NDim() != 1 {
			return Meta{}, fmt.Errorf("%s: %s must be one-dimensional, got shape %v", op.Type(), "av"[i:i+1], m.Shape)
		}
		if m.Shape[0] == 0 {
			return Meta{}, fmt.Errorf("%s: %s cannot be empty", op.Type(), "av"[i:i+1])
		}
	}
	w, err := op.window(in[0].Shape[0], in[1].Shape[0])
	if err != nil {
		return Meta{}, err
	}
	return Meta{Shape: []int{w.n}, DType: resultType(in)}, nil
}

// convWindow is how an output is computed: a window [off, off+n) of the
// convolution of L with S (sRev, sConj: S reversed, conjugated first), read
// backwards and conjugated when rev is set.
type convWindow struct {
	lIsA        bool
	sRev, sConj bool
	rev         bool
	nl, ns      int
	off, n      int
}

func (op Convolve) window(na, nv int) (convWindow, error) {
	w := convWindow{lIsA: na >= nv}
	mn, mx := min(na, nv), max(na, nv)
	w.nl, w.ns = mx, mn
	switch {
	case !op.Correlate:
		// Convolution commutes: L is the longer.
	case na >= nv:
		w.sRev, w.sConj = true, true // c = conv(a, conj(v[::-1]))
	default:
		w.sRev, w.sConj, w.rev = true, true, true // c = conj(conv(v, conj(a[::-1])))[::-1]
	}
	total := mn + mx - 1
	switch op.Mode {
	case "full":
		w.off, w.n = 0, total
	case "same":
		w.off, w.n = mn-1-mn/2, mx
	case "valid":
		w.off, w.n = mn-1, mx-mn+1
	default:
		return w, fmt.Errorf("%s: mode must be 'full', 'same' or 'valid', not %q", op.Type(), op.Mode)
	}
	if w.rev {
		// The window is in the correlation's coordinates; rev reads the
		// convolution backwards, so the window moves to the other end.
		w.off = total - w.off - w.n
	}
	return w, nil
}

// Tile implements TensorOp: S in one chunk; the output chunked like L;
// each output chunk from the chunks of L its window overlaps.
func (op Convolve) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	in = []*Tiled{oneElement(in[0]), oneElement(in[1])}
	w, err := op.window(in[0].Meta.Shape[0], in[1].Meta.Shape[0])
	if err != nil {
		return nil, err
	}
	lt, st := in[0], in[1]
	if !w.lIsA {
		lt, st = st, lt
	}
	s := RechunkTiled(b, st, [][]int{{w.ns}})
	size := max(lt.NSplits[0][0], 1)
	var splits []int
	for rest := w.n; rest > 0; rest -= size {
		splits = append(splits, min(size, rest))
	}
	starts := make([]int, len(lt.NSplits[0])+1)
	for i, n := range lt.NSplits[0] {
		starts[i+1] = starts[i] + n
	}
	res := &Tiled{Meta: out, NSplits: [][]int{splits}}
	pos := 0
	for _, n := range splits {
		// The convolution's outputs [k0, k1) that this chunk holds.
		k0, k1 := w.off+pos, w.off+pos+n
		if w.rev {
			total := w.nl + w.ns - 1
			k0, k1 = total-(w.off+pos+n), total-(w.off+pos)
		}
		// y[k] reads L[k-ns+1 .. k].
		l0, l1 := max(k0-w.ns+1, 0), min(k1, w.nl)
		ins := []ChunkRef{s.Chunks[0]}
		// The chunks of L that hold [l0, l1): from the one holding l0 on.
		i := sort.Search(len(lt.Chunks), func(i int) bool { return starts[i+1] > l0 })
		first := starts[i]
		for ; i < len(lt.Chunks) && starts[i] < l1; i++ {
			if lt.NSplits[0][i] > 0 {
				ins = append(ins, lt.Chunks[i])
			}
		}
		kop := ConvolveChunk{K0: k0, N: n, LOff: first, NL: w.nl, SRev: w.sRev, SConj: w.sConj, Rev: w.rev, DType: out.DType}
		res.Chunks = append(res.Chunks, b.AddChunk(kop, ins, Meta{Shape: []int{n}, DType: out.DType}))
		pos += n
	}
	return res, nil
}

// oneElement reads a 0-d operand (one chunk) as a 1-D one of one element;
// its chunk stays 0-d, which ConvolveChunk reads as one element too.
func oneElement(t *Tiled) *Tiled {
	if t.Meta.NDim() != 0 {
		return t
	}
	m := t.Meta
	m.Shape = []int{1}
	return &Tiled{Meta: m, NSplits: [][]int{{1}}, Chunks: t.Chunks}
}

// ConvolveChunk computes outputs [K0, K0+N) of the convolution of L with S: input 0 is S whole, the others consecutive
// chunks of L starting at L's element LOff (of NL). SRev and SConj reverse
// and conjugate S first; Rev writes the outputs backwards, conjugated.
type ConvolveChunk struct {
	K0    int           `json:"k0"`
	N     int           `json:"n"`
	LOff  int           `json:"l_off"`
	NL    int           `json:"nl"`
	SRev  bool          `json:"s_rev,omitempty"`
	SConj bool          `json:"s_conj,omitempty"`
	Rev   bool          `json:"rev,omitempty"`
	DType ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (ConvolveChunk) Type() string { return "convolve_chunk" }

// Exec implements ChunkOp.
func (op ConvolveChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("convolve_chunk: want S and at least one chunk of L, got %d inputs", len(in))
	}
	in = slices.Clone(in)
	for i, a := range in {
		if a.NDim() == 0 {
			r, err := a.Reshape(1)
			if err != nil {
				return nil, fmt.Errorf("convolve_chunk: %w", err)
			}
			in[i] = r
		}
	}
	nL := 0
	for _, a := range in[1:] {
		if a.NDim() != 1 {
			return nil, fmt.Errorf("convolve_chunk: inputs must be 1-D, got shape %v", a.Shape())
		}
		nL += a.Shape()[0]
	}
	if in[0].NDim() != 1 || op.LOff < 0 || op.LOff+nL > op.NL {
		return nil, fmt.Errorf("convolve_chunk: S of shape %v, L elements [%d, %d) of %d", in[0].Shape(), op.LOff, op.LOff+nL, op.NL)
	}
	ns := in[0].Shape()[0]
	// y[k] reads L[k-ns+1 .. k]: the pieces must hold all the chunk reads.
	if l0, l1 := max(op.K0-ns+1, 0), min(op.K0+op.N, op.NL); op.K0 < 0 || op.N < 1 || op.K0+op.N > op.NL+ns-1 || l0 < op.LOff || l1 > op.LOff+nL {
		return nil, fmt.Errorf("convolve_chunk: outputs [%d, %d) need L elements [%d, %d), given [%d, %d)", op.K0, op.K0+op.N, l0, l1, op.LOff, op.LOff+nL)
	}
	work := workDType(op.DType)
	s := in[0].Astype(work).Contiguous()
	ls := make([]*ndarray.Array, len(in)-1)
	for i, a := range in[1:] {
		ls[i] = a.Astype(work).Contiguous()
	}
	var res *ndarray.Array
	var err error
	switch work {
	case ndarray.Bool:
		res, err = convolveBool(ctx, op, s.Bools(), joinL(ls, (*ndarray.Array).Bools))
	case ndarray.Int64:
		res, err = convolveTyped(ctx, op, s.Int64s(), joinL(ls, (*ndarray.Array).Int64s), ndarray.FromInt64s)
	case ndarray.Float64:
		res, err = convolveTyped(ctx, op, s.Float64s(), joinL(ls, (*ndarray.Array).Float64s), ndarray.FromFloat64s)
	case ndarray.Complex128:
		res, err = convolveTyped(ctx, op, s.Complex128s(), joinL(ls, (*ndarray.Array).Complex128s), ndarray.FromComplex128s)
	default:
		return nil, &DTypeError{Op: "convolve", DType: op.DType}
	}
	if err != nil {
		return nil, err
	}
	return res.Astype(op.DType), nil
}

// workDType is the dtype a convolution of dt is summed in: integers wrap
// as NumPy's do in int64 (the low bits are the same), floats and complex
// numbers in double precision.
func workDType(dt ndarray.DType) ndarray.DType {
	switch {
	case dt == ndarray.Bool:
		return ndarray.Bool
	case dt.IsComplex():
		return ndarray.Complex128
	case dt.IsFloat():
		return ndarray.Float64
	}
	return ndarray.Int64
}

func joinL[T any](ls []*ndarray.Array, get func(*ndarray.Array) []T) []T {
	if len(ls) == 1 {
		return get(ls[0])
	}
	var out []T
	for _, a := range ls {
		out = append(out, get(a)...)
	}
	return out
}

type convNumber interface{ int64 | float64 | complex128 }

// convolveTyped sums y[k] = sum_j L[k-j] * S'[j] for the chunk's outputs.
func convolveTyped[T convNumber](ctx context.Context, op ConvolveChunk, s, l []T, from func([]int, []T) (*ndarray.Array, error)) (*ndarray.Array, error) {
	ns := len(s)
	sp := make([]T, ns)
	for j := range s {
		v := s[j]
		if op.SRev {
			v = s[ns-1-j]
		}
		if op.SConj {
			v = conjT(v)
		}
		sp[j] = v
	}
	n := op.N
	out := make([]T, n)
	for i := range n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k := op.K0 + i
		j0, j1 := max(0, k-(op.NL-1)), min(ns-1, k)
		var acc T
		for j := j0; j <= j1; j++ {
			acc += l[k-j-op.LOff] * sp[j]
		}
		out[i] = acc
	}
	if op.Rev {
		slices.Reverse(out)
		for i := range out {
			out[i] = conjT(out[i])
		}
	}
	return from([]int{n}, out)
}

func conjT[T convNumber](v T) T {
	if c, ok := any(v).(complex128); ok {
		return any(complex(real(c), -imag(c))).(T)
	}
	return v
}

// convolveBool is the convolution of booleans: NumPy's dot of bools, an
// OR of ANDs.
func convolveBool(ctx context.Context, op ConvolveChunk, s, l []uint8) (*ndarray.Array, error) {
	ns := len(s)
	n := op.N
	out := make([]bool, n)
	for i := range n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k := op.K0 + i
		for j := max(0, k-(op.NL-1)); j <= min(ns-1, k); j++ {
			sj := s[j]
			if op.SRev {
				sj = s[ns-1-j]
			}
			if l[k-j-op.LOff] != 0 && sj != 0 {
				out[i] = true
				break
			}
		}
	}
	if op.Rev {
		slices.Reverse(out)
	}
	return ndarray.FromBools([]int{n}, out)
}
