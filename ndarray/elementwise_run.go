package ndarray

import "unsafe"

// Drivers that walk strided, broadcast operands and hand contiguous pieces to
// the typed loops in elementwise_loops.go. Every driver writes into a
// contiguous output (usually fresh from newArray, but any contiguous view
// works, offset included), so the output run always has stride 1.
//
// Offsets are kept absolute (from the start of the buffer) rather than going
// through typed(): a view with a negative stride addresses elements before
// its first one, which a slice starting at the first element cannot reach.

// ewNum are the element types that support arithmetic.
type ewNum interface {
	float64 | float32 | int64 | int32 | int16 | int8 | uint64 | uint32 | uint16 | uint8
}

// ewFloat are the floating element types.
type ewFloat interface{ float64 | float32 }

// ewInt are the integer element types. uint8 is also bool's storage type;
// kernels are chosen by dtype, so the two never meet.
type ewInt interface {
	int64 | int32 | int16 | int8 | uint64 | uint32 | uint16 | uint8
}

// ewElem are all storage types; bool is stored as uint8 0/1.
type ewElem interface {
	float64 | float32 | int64 | int32 | int16 | int8 | uint64 | uint32 | uint16 | uint8
}

// ewBlock is the number of elements gathered at once from a strided run:
// small enough to stay in L1, large enough to amortise the loop call.
const ewBlock = 512

// ewB2U turns a bool into 0/1 without a branch.
func ewB2U(b bool) uint8 { return *(*uint8)(unsafe.Pointer(&b)) }

// ewIsConst reports whether every element of a is the same memory location
// (a 0-d array broadcast, or all strides zero), so it can be read once.
func ewIsConst(a *Array) bool {
	for i, d := range a.shape {
		if d > 1 && a.strides[i] != 0 {
			return false
		}
	}
	return true
}

// ewRun returns src[o:o+n] when the stride is 1, else gathers the n
// elements o, o+s, ... into buf and returns buf[:n].
func ewRun[T any](src []T, o, s, n int, buf []T) []T {
	if s == 1 {
		return src[o : o+n]
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = src[o]
		o += s
	}
	return buf
}

func ewFill[T any](d []T, v T) {
	if len(d) == 0 {
		return
	}
	d[0] = v
	for k := 1; k < len(d); k *= 2 {
		copy(d[k:], d[:k])
	}
}

// ewUnaryRun applies loop (contiguous in, contiguous out) to x, which has
// out's shape (possibly broadcast). out must be a new contiguous array.
func ewUnaryRun[T, R any](loop func(d []R, x []T), out, x *Array) {
	n := out.Size()
	if n == 0 {
		return
	}
	d := typedAll[R](out)[out.offset : out.offset+n]
	xs := typedAll[T](x)
	switch {
	case x.IsContiguous():
		loop(d, xs[x.offset:x.offset+n])
		return
	case ewIsConst(x):
		loop(d[:1], xs[x.offset:x.offset+1])
		ewFill(d, d[0])
		return
	}
	var buf []T
	ewForEachRun([]*Array{out, x}, out.shape, func(offs []int, m int, st []int) {
		do, xo, sx := offs[0], x.offset+offs[1], st[1]
		if sx == 1 {
			loop(d[do:do+m], xs[xo:xo+m])
			return
		}
		if buf == nil {
			buf = make([]T, ewBlock)
		}
		for i := 0; i < m; i += ewBlock {
			b := min(ewBlock, m-i)
			loop(d[do+i:do+i+b], ewRun(xs, xo+i*sx, sx, b, buf))
		}
	})
}

// ewBinKernel is one binary op on element type T with result type R, as
// three loops: vector-vector, vector-scalar and scalar-vector. All slices
// passed to them have the same length.
type ewBinKernel[T, R any] struct {
	vv func(d []R, x, y []T)
	vs func(d []R, x []T, y T)
	sv func(d []R, x T, y []T)
}

// ewBinaryRun applies k to x and y, which have out's shape (possibly via
// zero strides). out must be a new contiguous array.
func ewBinaryRun[T, R any](k ewBinKernel[T, R], out, x, y *Array) {
	n := out.Size()
	if n == 0 {
		return
	}
	d := typedAll[R](out)[out.offset : out.offset+n]
	xs, ys := typedAll[T](x), typedAll[T](y)
	xc, yc := x.IsContiguous(), y.IsContiguous()
	xk, yk := ewIsConst(x), ewIsConst(y)
	switch {
	case xc && yc:
		k.vv(d, xs[x.offset:x.offset+n], ys[y.offset:y.offset+n])
		return
	case xk && yk:
		k.vs(d[:1], xs[x.offset:x.offset+1], ys[y.offset])
		ewFill(d, d[0])
		return
	case xc && yk:
		k.vs(d, xs[x.offset:x.offset+n], ys[y.offset])
		return
	case xk && yc:
		k.sv(d, xs[x.offset], ys[y.offset:y.offset+n])
		return
	}
	if ewPeriodicRun(k, d, x, y) {
		return
	}
	var bx, by []T
	ewForEachRun([]*Array{out, x, y}, out.shape, func(offs []int, m int, st []int) {
		do, xo, yo := offs[0], x.offset+offs[1], y.offset+offs[2]
		sx, sy := st[1], st[2]
		switch {
		case sx == 1 && sy == 1:
			k.vv(d[do:do+m], xs[xo:xo+m], ys[yo:yo+m])
			return
		case sx == 1 && sy == 0:
			k.vs(d[do:do+m], xs[xo:xo+m], ys[yo])
			return
		case sx == 0 && sy == 1:
			k.sv(d[do:do+m], xs[xo], ys[yo:yo+m])
			return
		}
		if bx == nil {
			bx, by = make([]T, ewBlock), make([]T, ewBlock)
		}
		for i := 0; i < m; i += ewBlock {
			b := min(ewBlock, m-i)
			dd := d[do+i : do+i+b]
			switch {
			case sy == 0:
				k.vs(dd, ewRun(xs, xo+i*sx, sx, b, bx), ys[yo])
			case sx == 0:
				k.sv(dd, xs[xo], ewRun(ys, yo+i*sy, sy, b, by))
			default:
				k.vv(dd, ewRun(xs, xo+i*sx, sx, b, bx), ewRun(ys, yo+i*sy, sy, b, by))
			}
		}
	})
}

// ewTernaryRun applies loop to c, x, y, which have out's shape (possibly via
// zero strides). Non-unit-stride operands are gathered block by block.
func ewTernaryRun[C, T, R any](loop func(d []R, c []C, x, y []T), out, c, x, y *Array) {
	n := out.Size()
	if n == 0 {
		return
	}
	d := typedAll[R](out)[out.offset : out.offset+n]
	cs, xs, ys := typedAll[C](c), typedAll[T](x), typedAll[T](y)
	if c.IsContiguous() && x.IsContiguous() && y.IsContiguous() {
		loop(d, cs[c.offset:c.offset+n], xs[x.offset:x.offset+n], ys[y.offset:y.offset+n])
		return
	}
	var bc []C
	var bx, by []T
	ewForEachRun([]*Array{out, c, x, y}, out.shape, func(offs []int, m int, st []int) {
		do, co, xo, yo := offs[0], c.offset+offs[1], x.offset+offs[2], y.offset+offs[3]
		sc, sx, sy := st[1], st[2], st[3]
		if sc == 1 && sx == 1 && sy == 1 {
			loop(d[do:do+m], cs[co:co+m], xs[xo:xo+m], ys[yo:yo+m])
			return
		}
		if bc == nil {
			bc, bx, by = make([]C, ewBlock), make([]T, ewBlock), make([]T, ewBlock)
		}
		for i := 0; i < m; i += ewBlock {
			b := min(ewBlock, m-i)
			loop(d[do+i:do+i+b], ewRun(cs, co+i*sc, sc, b, bc),
				ewRun(xs, xo+i*sx, sx, b, bx), ewRun(ys, yo+i*sy, sy, b, by))
		}
	})
}

// ewCopyInto copies src into dst (same dtype and shape; dst may be a strided
// view, src any view including negative strides).
func ewCopyInto(dst, src *Array) {
	switch dst.dtype.Size() {
	case 16:
		ewCopyTyped[complex128](dst, src)
	case 8:
		ewCopyTyped[uint64](dst, src)
	case 4:
		ewCopyTyped[uint32](dst, src)
	case 2:
		ewCopyTyped[uint16](dst, src)
	case 1:
		ewCopyTyped[uint8](dst, src)
	}
}

func ewCopyTyped[T any](dst, src *Array) {
	ds, ss := typedAll[T](dst), typedAll[T](src)
	ewForEachRun([]*Array{dst, src}, dst.shape, func(offs []int, m int, st []int) {
		do, so, sd, s := dst.offset+offs[0], src.offset+offs[1], st[0], st[1]
		if sd == 1 && s == 1 {
			copy(ds[do:do+m], ss[so:so+m])
			return
		}
		for i := 0; i < m; i++ {
			ds[do] = ss[so]
			do += sd
			so += s
		}
	})
}

// ewTileR x ewTileC are the tiles ewForEachRun walks for transposed operands:
// runs of 1024 elements keep the contiguous operands streaming, and 32 runs
// use each cache line of the transposed operand fully while its ~1024 pages
// stay in the second-level TLB (half the time of 64x64 tiles on a.T + a,
// and less than untiled).
const (
	ewTileR = 32
	ewTileC = 1024
)

// ewForEachRun is ForEachRun, except that when an operand walks the
// innermost axis with a large stride but the next axis with a smaller one
// (a transposed view), the last two axes are visited in tiles. Each cache
// line and TLB entry of that operand is then used for many runs instead of
// one, which roughly halves the time of a + a.T.
func ewForEachRun(arrs []*Array, shape []int, fn func(offs []int, n int, strides []int)) {
	if Size(shape) == 0 {
		return
	}
	dims, st := ewCollapse(arrs, shape)
	nd := len(dims)
	tile := false
	if nd >= 2 && dims[nd-1] >= 64 && dims[nd-2] >= 2*ewTileR {
		for _, s := range st {
			in, next := ewAbs(s[nd-1]), ewAbs(s[nd-2])
			if in > 1 && next < in {
				tile = true
			}
		}
	}
	if !tile {
		ForEachRun(arrs, shape, fn)
		return
	}
	k := len(arrs)
	rows, cols := dims[nd-2], dims[nd-1]
	base := make([]int, k)
	offs := make([]int, k)
	inner := make([]int, k)
	for j := range k {
		inner[j] = st[j][nd-1]
	}
	idx := make([]int, nd-2)
	for {
		for rb := 0; rb < rows; rb += ewTileR {
			re := min(rb+ewTileR, rows)
			for cb := 0; cb < cols; cb += ewTileC {
				m := min(ewTileC, cols-cb)
				for r := rb; r < re; r++ {
					for j := range k {
						offs[j] = base[j] + r*st[j][nd-2] + cb*st[j][nd-1]
					}
					fn(offs, m, inner)
				}
			}
		}
		// advance the outer multi-index
		ax := nd - 3
		for ; ax >= 0; ax-- {
			idx[ax]++
			for j := range k {
				base[j] += st[j][ax]
			}
			if idx[ax] < dims[ax] {
				break
			}
			for j := range k {
				base[j] -= st[j][ax] * dims[ax]
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

func ewAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ewCollapse drops length-1 axes and merges axes that are contiguous in
// every array, as ForEachRun does, returning the merged dims and each
// array's strides along them.
func ewCollapse(arrs []*Array, shape []int) ([]int, [][]int) {
	dims := make([]int, 0, len(shape))
	st := make([][]int, len(arrs))
	for ax, d := range shape {
		if d == 1 {
			continue
		}
		if last := len(dims) - 1; last >= 0 {
			merge := true
			for j, a := range arrs {
				if st[j][last] != a.strides[ax]*d {
					merge = false
					break
				}
			}
			if merge {
				dims[last] *= d
				for j, a := range arrs {
					st[j][last] = a.strides[ax]
				}
				continue
			}
		}
		dims = append(dims, d)
		for j, a := range arrs {
			st[j] = append(st[j], a.strides[ax])
		}
	}
	return dims, st
}
