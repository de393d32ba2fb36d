package ndarray

import "unsafe"

// An owner that knows when nothing reads an array any more (a chunk store,
// for a chunk it never served) can make tiny outputs itself (NewTiny) and
// make a dead one again in place (ResetTiny) for the next op, instead of
// leaving one object per scalar chunk to the garbage collector.

// tinyDataOffset is where a tinyObject's data starts, past its header; the
// same for both sizes of data.
var tinyDataOffset = unsafe.Offsetof(tinyObject[[2]uint64]{}.data)

// FitsTiny reports whether an array of dtype and shape can be made by
// NewTiny: at most two axes and one to tinyBytes bytes of data.
func FitsTiny(dtype DType, shape []int) bool {
	if len(shape) > smallRank || !dtype.Valid() {
		return false
	}
	n := dtype.Size()
	for _, d := range shape {
		if d <= 0 || d > tinyBytes {
			return false
		}
		n *= d
	}
	return n > 0 && n <= tinyBytes
}

// NewTiny makes a zeroed contiguous array of dtype and shape in one
// object with its header, or returns nil when !FitsTiny(dtype, shape).
func NewTiny(dtype DType, shape []int) *Array {
	if !FitsTiny(dtype, shape) {
		return nil
	}
	n := Size(shape) * dtype.Size()
	if n <= 8 {
		r := &tinyObject[[1]uint64]{}
		return r.set(dtype, shape, unsafe.Slice((*byte)(unsafe.Pointer(&r.data)), 8)[:n])
	}
	r := &tinyObject[[2]uint64]{}
	return r.set(dtype, shape, unsafe.Slice((*byte)(unsafe.Pointer(&r.data)), 16)[:n])
}

// ResetTiny makes a, an array NewTiny made, a zeroed contiguous array of
// dtype and shape in place, and reports whether it could: false, leaving a
// as it was, when its room is too small or a is not a whole NewTiny array
// (a view of one, say). The caller must own a: nothing else may read it or
// a view of it any more.
func ResetTiny(a *Array, dtype DType, shape []int) bool {
	if a == nil || len(a.buf) == 0 || unsafe.Pointer(unsafe.SliceData(a.buf)) != unsafe.Add(unsafe.Pointer(a), tinyDataOffset) {
		return false
	}
	if a.dtype == dtype && a.offset == 0 && SameShape(a.shape, shape) {
		// Made over as it was (the common case: chunks of one kernel):
		// its shape and strides stand.
		clear(a.buf)
		return true
	}
	if !FitsTiny(dtype, shape) {
		return false
	}
	n := Size(shape) * dtype.Size()
	room := cap(a.buf)
	if n > room {
		return false
	}
	buf := a.buf[:room]
	clear(buf)
	(*smallArray)(unsafe.Pointer(a)).set(dtype, shape, buf[:n])
	return true
}
