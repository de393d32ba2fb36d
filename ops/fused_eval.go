package ops

// Evaluating a fused op's nodes tile by tile (Fused.Exec's inner loop), and
// the working sets a Shared kernel keeps between runs.

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Unshared returns op without the working memory Shared gave it: what
// decoding its encoding gives.
func (op Fused) Unshared() Fused {
	op.scratch = nil
	return op
}

// takeState is a working set for one run: a previous run's when the
// kernel is Shared and one is free (reused is then true: its node
// buffers, constant tiles and operand lists are ready), else a new one.
func (op Fused) takeState(tile, k1 int, in []*ndarray.Array) (st *fusedState, reused bool) {
	if op.scratch != nil {
		// A copy of the kernel with another tile or program (the same
		// pool) must not get buffers sized for this one.
		if x, ok := op.scratch.Get().(*fusedState); ok && x.tile == tile && x.k1 == k1 && sameNodes(x.op.Nodes, op.Nodes) && slices.Equal(x.op.Shape, op.Shape) {
			st, reused = x, true
		}
	}
	if !reused {
		st = &fusedState{op: op, k1: k1, tile: tile, plan: newFusedPlan(op, tile)}
	}
	st.in = in
	st.ext = slices.Grow(st.ext[:0], len(in))[:len(in)]
	st.flat = slices.Grow(st.flat[:0], len(in))[:len(in)]
	clear(st.flat) // putState cleared the rest of what a run leaves
	return st, reused
}

// sameNodes reports whether a and b are the same program (one slice).
func sameNodes(a, b []FusedNode) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// putState keeps st for the next run, holding on to nothing of this one's
// inputs (chunks the store may want to free).
//
// Only references still set are cleared: a store of a pointer costs a
// write barrier while the collector runs, which, for kernels over a few
// hundred bytes, is much of the time.
func (op Fused) putState(st *fusedState) {
	st.in = nil
	clear(st.ext)
	clear(st.flat)
	if st.one != nil || st.period != nil {
		st.period, st.one, st.gathered, st.gatheredView, st.gatheredAt = nil, nil, nil, nil, nil
	}
	for i := range st.ns {
		ns := &st.ns[i]
		unset(&ns.val)
		unset(&ns.gen)
		if ns.tiles != nil {
			ns.tiles = nil
		}
		for j := range ns.args {
			unset(&ns.args[j])
		}
	}
	op.scratch.Put(st)
}

// unset sets *p to nil unless it is already.
func unset[T any](p **T) {
	if *p != nil {
		*p = nil
	}
}

// inputLevel is the level of input k.
func (op Fused) inputLevel(k int) uint8 {
	if k < len(op.InputLevels) {
		return op.InputLevels[k]
	}
	return 0
}

// arg is the value of an operand on the tile [f, f+L) of level-0 elements:
// contiguous, unless strided allows a zero-stride view of a one-element
// input.
func (st *fusedState) arg(a, f, L int, strided bool) (*ndarray.Array, error) {
	if a >= 0 {
		return st.ns[a].val, nil
	}
	k := -1 - a
	if st.op.inputLevel(k) == 1 {
		f, L = f/st.k1, L/st.k1
	}
	if fl := st.flat[k]; fl != nil {
		return fl.Slice([]ndarray.Range{{Start: f, Step: 1, Len: L}})
	}
	if st.one == nil {
		n := len(st.ext)
		st.one, st.gathered, st.gatheredView, st.gatheredAt = make([]*ndarray.Array, n), make([]*ndarray.Array, n), make([]*ndarray.Array, n), make([]int, n)
	}
	x := st.ext[k]
	if strided && x.Size() > 0 && st.in[k].Size() == 1 {
		if v := st.one[k]; v != nil && v.Size() == L {
			return v, nil
		}
		v, err := st.in[k].Reshape(1)
		if err != nil {
			return nil, err
		}
		if v, err = v.BroadcastTo([]int{L}); err != nil {
			return nil, err
		}
		st.one[k] = v
		return v, nil
	}
	// Strided or broadcast input: gather the tile into a reused buffer.
	if v := st.gatheredView[k]; v != nil && v.Size() == L {
		if st.gatheredAt[k] == f {
			return v, nil
		}
		// A row broadcast (x - x.mean(axis=0)) over tiles of whole rows
		// is the same tile every time.
		if p := st.periodOf(k); p > 0 && f%p == 0 && st.gatheredAt[k]%p == 0 {
			return v, nil
		}
	}
	buf := st.gathered[k]
	if buf == nil || buf.Size() < L {
		var err error
		if buf, err = ndarray.NewUninit(x.DType(), L); err != nil {
			return nil, err
		}
		st.gathered[k] = buf
	}
	if buf.Size() > L {
		var err error
		if buf, err = buf.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: L}}); err != nil {
			return nil, err
		}
	}
	st.gatheredView[k], st.gatheredAt[k] = buf, f
	return buf, ndarray.GatherFlat(buf, x, f)
}

// periodOf is P when input k, broadcast to the iteration space, repeats
// the same P contiguous elements (its own) over and over; else 0.
func (st *fusedState) periodOf(k int) int {
	if st.period == nil {
		st.period = make([]int, len(st.in))
		for i := range st.period {
			st.period[i] = -1
		}
	}
	if p := st.period[k]; p >= 0 {
		return p
	}
	p := 0
	in, x := st.in[k], st.ext[k]
	if in.IsContiguous() && in.Size() > 1 {
		s, xs := in.Shape(), x.Shape()
		for len(s) > 0 && s[0] == 1 {
			s = s[1:]
		}
		if len(s) <= len(xs) && slices.Equal(s, xs[len(xs)-len(s):]) && ndarray.Size(xs) > in.Size() {
			p = in.Size()
		}
	}
	st.period[k] = p
	return p
}

// tileBuf is node i's buffer cut to the tile of L level-0 elements.
func (st *fusedState) tileBuf(i, L int) (*ndarray.Array, error) {
	b := st.ns[i].buf
	if st.op.Nodes[i].Level == 1 {
		L /= st.k1
	}
	if b.Size() == L {
		return b, nil
	}
	return b.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: L}})
}

// eval computes node i on the tile [f, f+L), into dst when given.
func (st *fusedState) eval(i, f, L int, dst *ndarray.Array) (*ndarray.Array, error) {
	nd := &st.op.Nodes[i]
	ns := &st.ns[i]
	var err error
	own := dst == nil && ns.buf != nil // dst will be a prefix of ns.buf
	if own {
		if dst, err = st.tileBuf(i, L); err != nil {
			return nil, err
		}
	}
	args := ns.args
	// Unary and binary kernels take strided operands; the others read
	// their operands as contiguous memory.
	strided := ns.strided
	for j, a := range nd.Args {
		if args[j], err = st.arg(a, f, L, strided); err != nil {
			return nil, err
		}
	}
	// Generators index their own level's elements.
	gf, gL := f, L
	if nd.Level == 1 {
		gf, gL = f/st.k1, L/st.k1
	}
	if ns.tiles != nil {
		if dst == nil {
			return nil, fmt.Errorf("fuse: %s has no tile buffer", Label(nd.Op))
		}
		return dst, ns.tiles.ReadTile(gf, dst)
	}
	switch op := nd.Op.(type) {
	case Elementwise:
		all := args
		if len(op.Consts) > 0 {
			if ns.consts == nil {
				ns.consts = make([]*ndarray.Array, len(op.Consts))
				for j, c := range op.Consts {
					ns.consts[j] = c.Array()
				}
				ns.all = make([]*ndarray.Array, 0, len(args)+len(op.Consts))
			}
			consts := ns.consts
			if strided {
				if consts, err = ns.tileConsts(dst, args); err != nil {
					return nil, err
				}
			}
			all = placeConsts(ns.all[:0], op.Consts, args, consts)
		}
		switch op.Kind {
		case "unary":
			if !ns.parsed {
				if ns.unary, err = ndarray.ParseUnaryOp(op.Name); err != nil {
					return nil, err
				}
				ns.parsed = true
			}
			return dst, ndarray.UnaryInto(ns.unary, dst, all[0])
		case "binary":
			if !ns.parsed {
				if ns.binary, err = ndarray.ParseBinaryOp(op.Name); err != nil {
					return nil, err
				}
				ns.parsed = true
			}
			return dst, ndarray.BinaryInto(ns.binary, dst, all[0], all[1])
		}
		v, err := op.Exec(context.Background(), args)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, v)
		return dst, nil
	case FullChunk:
		// Constant: made once per kernel; consumers only read it.
		if ns.fill.Size() != gL {
			return ns.fill.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: gL}})
		}
		return ns.fill, nil
	case ArangeChunk:
		v, err := ArangeChunk{N: gL, Offset: op.Offset + gf, Total: op.Total, DType: op.DType, Start: op.Start, Step: op.Step, End: op.End, EndValue: op.EndValue}.Exec(context.Background(), nil)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, v)
		return dst, nil
	case RandomChunk:
		if own {
			if ns.gen == nil {
				if ns.gen, err = newTileGen(op, ns.buf); err != nil {
					return nil, err
				}
			}
			return dst, ns.gen.fill(gf, gL)
		}
		return dst, fillRandomTile(op, dst, gf, gL)
	case ReducePartial:
		// The inner reduction of a two-level kernel: runs of k1 -> 1.
		x := args[0]
		if op.Func == "sum" && x.DType() == ndarray.Float64 && dst.DType() == ndarray.Float64 {
			ndarray.RowSums(dst.Float64s()[:L/st.k1], x.Float64s()[:L], st.k1)
			return dst, nil
		}
		r, err := ndarray.ParseReduceOp(op.Func)
		if err != nil {
			return nil, err
		}
		x2, err := x.Reshape(L/st.k1, st.k1)
		if err != nil {
			return nil, err
		}
		part, err := ndarray.Reduce(r, x2, []int{1}, false)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, part)
		return dst, nil
	case ReduceFinish:
		// After an inner reduction only a reshape, which tiles do not see.
		if args[0].DType() != nd.Meta.DType {
			return nil, fmt.Errorf("fuse: %s changes dtype %v to %v", op.Type(), args[0].DType(), nd.Meta.DType)
		}
		return args[0], nil
	}
	return nil, fmt.Errorf("fuse: op %s cannot run inside a fused kernel", nd.Op.Type())
}

// tileConsts is a unary or binary node's constants for a tile into dst:
// viewed at dst's length (zero strides) when they and the operands all
// have dst's dtype, else as they are (the kernel converts a 0-d constant
// once, where a tile-long view would be converted whole).
func (ns *nodeState) tileConsts(dst *ndarray.Array, args []*ndarray.Array) ([]*ndarray.Array, error) {
	if dst == nil {
		return ns.consts, nil
	}
	dt := dst.DType()
	for _, a := range args {
		if a.DType() != dt {
			return ns.consts, nil
		}
	}
	for _, c := range ns.consts {
		if c.DType() != dt {
			return ns.consts, nil
		}
	}
	if n := dst.Size(); ns.constsAt == nil || ns.constLen != n || dst.NDim() != 1 {
		if dst.NDim() != 1 {
			return ns.consts, nil
		}
		at := make([]*ndarray.Array, len(ns.consts))
		for j, c := range ns.consts {
			v, err := c.BroadcastTo([]int{n})
			if err != nil {
				return nil, err
			}
			at[j] = v
		}
		ns.constsAt, ns.constLen = at, n
	}
	return ns.constsAt, nil
}

// placeConsts is withConsts into dst's storage: the operands with the
// constants at their positions, without allocating per tile.
func placeConsts(dst []*ndarray.Array, consts []Const, args, vals []*ndarray.Array) []*ndarray.Array {
	k := 0
	for j, c := range consts {
		for len(dst) < c.Pos && k < len(args) {
			dst = append(dst, args[k])
			k++
		}
		dst = append(dst, vals[j])
	}
	return append(dst, args[k:]...)
}
