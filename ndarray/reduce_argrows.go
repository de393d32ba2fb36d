package ndarray

// ArgIndexLast is argmin (isMax false) or argmax of a along its last axis,
// each index shifted by off, as int64 in a's shape with the last axis kept
// as 1: what FinishArg(ArgPartial(isMax, a, last, ...)) makes when the
// axis is whole in a, without the partial's values and float64 indices.
// It takes C-contiguous arrays of float64, float32, int64, int32 and bool
// with a non-empty last axis; ok is false for any other (the caller goes
// through ArgPartial). NaN wins as in NumPy (the first one), and of equal
// values the first.
func ArgIndexLast(isMax bool, a *Array, off int) (out *Array, ok bool) {
	if a == nil || a.NDim() == 0 || !a.IsContiguous() {
		return nil, false
	}
	nd := a.NDim()
	L := a.shape[nd-1]
	if L == 0 {
		return nil, false
	}
	keep := append([]int(nil), a.shape...)
	keep[nd-1] = 1
	switch a.dtype {
	case Float64, Float32, Int64, Int32, Bool:
	default:
		return nil, false
	}
	out = newArrayUninit(Int64, keep)
	o := typedAll[int64](out)[:Size(keep)]
	n := Size(a.shape)
	switch a.dtype {
	case Float64:
		argRows(isMax, typedAll[float64](a)[a.offset:a.offset+n], L, o, off)
	case Float32:
		argRows(isMax, typedAll[float32](a)[a.offset:a.offset+n], L, o, off)
	case Int64:
		argRows(isMax, typedAll[int64](a)[a.offset:a.offset+n], L, o, off)
	case Int32:
		argRows(isMax, typedAll[int32](a)[a.offset:a.offset+n], L, o, off)
	case Bool:
		argRows(isMax, typedAll[uint8](a)[a.offset:a.offset+n], L, o, off)
	}
	return out, true
}

// argRows writes, for each run of L consecutive elements of in, the
// position of its winner plus off. The scan has no branch on the data
// (the winner's position is a select, its value a max or min), and a
// lane holding a NaN is scanned again for its first NaN, the winner in
// NumPy's order (redArgBetter). Of equal values the first wins: -0.0 and
// 0.0 compare equal, so max taking the positive zero changes no later
// comparison.
func argRows[T redNum](isMax bool, in []T, L int, out []int64, off int) {
	o := int64(off)
	for r := range out {
		lane := in[r*L : r*L+L]
		bv, bi := lane[0], 0
		nan := bv != bv
		if isMax {
			for j := 1; j < len(lane); j++ {
				v := lane[j]
				bj := bi
				if v > bv {
					bj = j
				}
				bv, bi = max(bv, v), bj
				if v != v {
					nan = true
				}
			}
		} else {
			for j := 1; j < len(lane); j++ {
				v := lane[j]
				bj := bi
				if v < bv {
					bj = j
				}
				bv, bi = min(bv, v), bj
				if v != v {
					nan = true
				}
			}
		}
		if nan {
			for j, v := range lane {
				if v != v {
					bi = j
					break
				}
			}
		}
		out[r] = int64(bi) + o
	}
}
