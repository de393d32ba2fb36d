package ndarray

import "fmt"

// In-place forms of the elementwise kernels, for fused evaluation over small
// tiles: the caller owns the output buffer and reuses it tile after tile, so
// no full-size temporary is ever allocated.

func checkOut(name string, out *Array, dt DType, shape []int) error {
	if out.dtype != dt || !SameShape(out.shape, shape) || !out.IsContiguous() {
		return fmt.Errorf("ndarray: %s into %v%v (contiguous=%v): want contiguous %v%v",
			name, out.dtype, out.shape, out.IsContiguous(), dt, shape)
	}
	return nil
}

// UnaryInto is Unary writing into out, a contiguous array of a's shape and
// the op's result type.
func UnaryInto(op UnaryOp, out, a *Array) error {
	ct, rt, err := ewUnaryTypes(op, a.dtype)
	if err != nil {
		return fmt.Errorf("%w (array of shape %v)", err, a.shape)
	}
	if err := checkOut(op.String(), out, rt, a.shape); err != nil {
		return err
	}
	if ct == Float16 {
		r, err := Unary(op, a) // through float32
		if err != nil {
			return err
		}
		CopyInto(out, r)
		return nil
	}
	x := a
	if a.dtype != ct {
		x = a.Astype(ct)
	}
	return ewUnaryKernel(op, ct, out, x)
}

// BinaryInto is Binary writing into out, a contiguous array of the broadcast
// shape and the op's result type.
func BinaryInto(op BinaryOp, out, a, b *Array) error {
	if binaryIntoFloat64(op, out, a, b) {
		return nil
	}
	ct, rt, err := ewBinaryTypes(op, a.dtype, b.dtype)
	if err != nil {
		return fmt.Errorf("%w (shapes %v and %v)", err, a.shape, b.shape)
	}
	if err := checkOut(op.String(), out, rt, out.shape); err != nil {
		return err
	}
	if ct == Float16 {
		r, err := Binary(op, a, b) // through float32
		if err != nil {
			return err
		}
		if !SameShape(r.shape, out.shape) {
			return fmt.Errorf("ndarray: %v into %v%v: operands broadcast to %v", op, out.dtype, out.shape, r.shape)
		}
		CopyInto(out, r)
		return nil
	}
	x, y := a, b
	if x.dtype != ct {
		x = x.Astype(ct)
	}
	if y.dtype != ct {
		y = y.Astype(ct)
	}
	if err := ewCheckPow(op, ct, a, b, y, out.shape); err != nil {
		return err
	}
	return ewBinaryKernel(op, ct, out, x, y)
}

// GatherFlat copies the elements of src with C-order flat indices start,
// start+1, ... into dst, a contiguous array of the same dtype. src may be any
// strided or broadcast view.
func GatherFlat(dst, src *Array, start int) error {
	n := dst.Size()
	if dst.dtype != src.dtype || !dst.IsContiguous() || start < 0 || start+n > src.Size() {
		return fmt.Errorf("ndarray: gather %d elements at %d from %v%v into %v%v", n, start, src.dtype, src.shape, dst.dtype, dst.shape)
	}
	switch src.dtype {
	case Float64:
		gatherFlat[float64](dst, src, start, n)
	case Float32:
		gatherFlat[float32](dst, src, start, n)
	case Int64:
		gatherFlat[int64](dst, src, start, n)
	case Int32:
		gatherFlat[int32](dst, src, start, n)
	case Int8:
		gatherFlat[int8](dst, src, start, n)
	case Int16:
		gatherFlat[int16](dst, src, start, n)
	case Uint8:
		gatherFlat[uint8](dst, src, start, n)
	case Uint16, Float16:
		gatherFlat[uint16](dst, src, start, n)
	case Uint32:
		gatherFlat[uint32](dst, src, start, n)
	case Uint64:
		gatherFlat[uint64](dst, src, start, n)
	case Bool:
		gatherFlat[uint8](dst, src, start, n)
	case Complex64:
		gatherFlat[complex64](dst, src, start, n)
	case Complex128:
		gatherFlat[complex128](dst, src, start, n)
	}
	return nil
}

func gatherFlat[T any](dst, src *Array, start, n int) {
	d := typed[T](dst)[:n]
	if src.IsContiguous() {
		copy(d, typed[T](src)[start:start+n])
		return
	}
	s := typedAll[T](src)
	nd := len(src.shape)
	if nd == 0 {
		d[0] = s[src.offset]
		return
	}
	// multi-index of start
	idx := make([]int, nd)
	off := src.offset
	rem := start
	for ax := nd - 1; ax >= 0; ax-- {
		idx[ax] = rem % src.shape[ax]
		rem /= src.shape[ax]
		off += idx[ax] * src.strides[ax]
	}
	last := nd - 1
	L, st := src.shape[last], src.strides[last]
	// A transposed layout (the row axis has the smaller stride): copy runs
	// of whole rows column by column, so reads walk memory in order.
	blocked := nd >= 2 && st != 0 && abs(src.strides[last-1]) < abs(st)
	for k := 0; k < n; {
		if blocked && idx[last] == 0 && n-k >= 2*L {
			sr := src.strides[last-1]
			R := min((n-k)/L, src.shape[last-1]-idx[last-1])
			if R >= 2 {
				gatherColumns(d[k:k+R*L], s, off, R, L, sr, st)
				k += R * L
				if k == n {
					return
				}
				off += R * sr
				idx[last-1] += R
				for ax := last - 1; ax > 0 && idx[ax] == src.shape[ax]; ax-- {
					off -= idx[ax] * src.strides[ax]
					idx[ax] = 0
					idx[ax-1]++
					off += src.strides[ax-1]
				}
				continue
			}
		}
		m := min(L-idx[last], n-k)
		switch st {
		case 1:
			copy(d[k:k+m], s[off:off+m])
		case 0:
			v := s[off]
			for i := range m {
				d[k+i] = v
			}
		default:
			o := off
			for i := range m {
				d[k+i] = s[o]
				o += st
			}
		}
		k += m
		if k == n {
			return
		}
		// move to the start of the next row
		off += (L - idx[last]) * st
		idx[last] = L
		for ax := last; ax > 0 && idx[ax] == src.shape[ax]; ax-- {
			off -= idx[ax] * src.strides[ax]
			idx[ax] = 0
			idx[ax-1]++
			off += src.strides[ax-1]
		}
	}
}

// gatherColumns writes R rows of L elements, row r starting at s[off+r*sr]
// with element stride sc, into d (R*L, row-major). Where rows are adjacent
// in the source (sr = 1, a transposed chunk) four rows are copied per step
// from one four-element run of the source: twice as fast as row by row,
// which is bound by index arithmetic and bounds checks, not memory. Other
// layouts go in blocks of eight rows so each source cache line is read once.
func gatherColumns[T any](d, s []T, off, R, L, sr, sc int) {
	r0 := 0
	if sr == 1 {
		for ; r0+4 <= R; r0 += 4 {
			d0, d1, d2, d3 := d[r0*L:(r0+1)*L], d[(r0+1)*L:(r0+2)*L], d[(r0+2)*L:(r0+3)*L], d[(r0+3)*L:(r0+4)*L]
			o := off + r0
			for j := range d0 {
				q := s[o : o+4 : o+4]
				d0[j], d1[j], d2[j], d3[j] = q[0], q[1], q[2], q[3]
				o += sc
			}
		}
	}
	const rb = 8 // rows per block: eight destination streams
	for ; r0 < R; r0 += rb {
		r1 := min(r0+rb, R)
		for j := range L {
			o := off + r0*sr + j*sc
			for r := r0; r < r1; r++ {
				d[r*L+j] = s[o]
				o += sr
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Flat returns a as a 1-D array of its elements in C order: a view when a is
// contiguous, else a copy.
func (a *Array) Flat() *Array {
	c := a.Contiguous()
	return c.view([]int{c.Size()}, []int{1}, c.offset)
}

// AddFloat64s sets d[i] = x[i] + y[i] for i < len(d) (x and y at least as
// long), with the vector loop where the CPU has one.
func AddFloat64s(d, x, y []float64) {
	if k, ok := vecKernel64(Add); ok {
		k.vv(d, x, y)
		return
	}
	ewAddVV(d, x, y)
}

// binaryIntoFloat64 is BinaryInto's path for float64 arithmetic over the
// short tiles of fused kernels: out contiguous, each operand either
// contiguous in out's shape or a single value (a broadcast constant). It
// calls the kernels BinaryInto would, without the type promotion,
// broadcasting and dispatch that cost more than adding a hundred
// elements. It reports false, having done nothing, for anything else.
func binaryIntoFloat64(op BinaryOp, out, x, y *Array) bool {
	if x.dtype != Float64 || y.dtype != Float64 || out.dtype != Float64 || !out.IsContiguous() {
		return false
	}
	var k ewBinKernel[float64, float64]
	switch op {
	case Add, Sub, Mul, Div:
		var ok bool
		if k, ok = vecKernel64(op); !ok {
			k = float64Arith(op)
		}
	default:
		return false
	}
	xc, xk, okx := fastOperand(x, out)
	yc, yk, oky := fastOperand(y, out)
	if !okx || !oky {
		return false
	}
	n := out.Size()
	if n == 0 {
		return true
	}
	d := typedAll[float64](out)[out.offset : out.offset+n]
	xs, ys := typedAll[float64](x), typedAll[float64](y)
	switch {
	case xc && yc:
		k.vv(d, xs[x.offset:x.offset+n], ys[y.offset:y.offset+n])
	case xk && yk:
		k.vs(d[:1], xs[x.offset:x.offset+1], ys[y.offset])
		ewFill(d, d[0])
	case xc:
		k.vs(d, xs[x.offset:x.offset+n], ys[y.offset])
	default:
		k.sv(d, xs[x.offset], ys[y.offset:y.offset+n])
	}
	return true
}

// fastOperand says how binaryIntoFloat64 reads a as an operand of out:
// contiguous in out's shape, or one value repeated (a single element that
// broadcasts to out, or a view of out's shape with zero strides); ok is
// false otherwise.
func fastOperand(a, out *Array) (contiguous, single, ok bool) {
	if SameShape(a.shape, out.shape) {
		if a.IsContiguous() {
			return true, false, true
		}
		if ewIsConst(a) {
			return false, true, true
		}
		return false, false, false
	}
	if a.Size() == 1 && len(a.shape) <= len(out.shape) {
		return false, true, true
	}
	return false, false, false
}

// float64Arith is the portable kernel of an arithmetic op on float64, as
// ewBinaryFloat picks it.
func float64Arith(op BinaryOp) ewBinKernel[float64, float64] {
	switch op {
	case Add:
		return ewBinKernel[float64, float64]{ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]}
	case Sub:
		return ewBinKernel[float64, float64]{ewSubVV[float64], ewSubVS[float64], ewSubSV[float64]}
	case Mul:
		return ewBinKernel[float64, float64]{ewMulVV[float64], ewMulVS[float64], ewMulSV[float64]}
	}
	return ewBinKernel[float64, float64]{ewDivVV[float64], ewDivVS[float64], ewDivSV[float64]}
}
