package ndarray

// ewPeriodMax bounds the period ewPeriodic handles: a row broadcast over
// the rows of a matrix (a bias added to each sample's scores) whose rows
// are too short for runs to pay for their setup.
const ewPeriodMax = 64

// ewPeriod reports whether a, broadcast to shape, repeats one C-contiguous
// block of its trailing axes along the leading ones (strides 0 there):
// its flat element e in C order is then base[e % p], with p the block's
// size and base starting at a's offset. A contiguous a is not periodic.
func ewPeriod(a *Array) (p int, ok bool) {
	nd := len(a.shape)
	p = 1
	i := nd - 1
	for ; i >= 0; i-- {
		if a.shape[i] == 1 {
			continue
		}
		if a.strides[i] != p {
			break
		}
		p *= a.shape[i]
	}
	if i < 0 {
		return 0, false // contiguous
	}
	for ; i >= 0; i-- {
		if a.shape[i] != 1 && a.strides[i] != 0 {
			return 0, false
		}
	}
	return p, true
}

// ewPeriodicRun is ewBinaryRun for one contiguous operand and one that
// repeats a block of at most ewPeriodMax elements (ewPeriod): the block is
// repeated into a buffer of whole periods and the vector-vector loop runs
// over the output in pieces of that buffer's length, so each piece starts
// at a multiple of the period. The same elementwise operation on the same
// pairs of elements as the general walk; false when x and y are not so.
func ewPeriodicRun[T, R any](k ewBinKernel[T, R], d []R, x, y *Array) bool {
	n := len(d)
	xc, yc := x.IsContiguous(), y.IsContiguous()
	var p int
	var ok bool
	switch {
	case xc && !yc:
		p, ok = ewPeriod(y)
	case yc && !xc:
		p, ok = ewPeriod(x)
	}
	if !ok || p < 2 || p > ewPeriodMax || n < 4*p {
		return false
	}
	reps := max(1, ewBlock/p)
	P := reps * p
	var rep []T
	var con []T
	if xc {
		rep, con = ewRepeat(typedAll[T](y)[y.offset:y.offset+p], reps), typedAll[T](x)[x.offset:x.offset+n]
	} else {
		rep, con = ewRepeat(typedAll[T](x)[x.offset:x.offset+p], reps), typedAll[T](y)[y.offset:y.offset+n]
	}
	for i := 0; i < n; i += P {
		b := min(P, n-i)
		if xc {
			k.vv(d[i:i+b], con[i:i+b], rep[:b])
		} else {
			k.vv(d[i:i+b], rep[:b], con[i:i+b])
		}
	}
	return true
}

// ewRepeat is block repeated reps times.
func ewRepeat[T any](block []T, reps int) []T {
	out := make([]T, 0, reps*len(block))
	for range reps {
		out = append(out, block...)
	}
	return out
}
