package fft

// stockham is a mixed-radix (4, 2, 3, 5, and a generic pass for primes up
// to maxRadix) Stockham autosort transform: each pass reads one buffer and writes the other in
// natural order, so there is no bit-reversal pass and every pass walks
// memory in unit strides. Its twiddles are computed once per plan, each
// directly from its exact index (unitRoot), so their error does not grow
// with the pass.
//
// Pass t with radix p, stride s (the product of the radices before it) and
// m = n/(s*p) computes, for j < m, q < s and k < p,
//
//	y[q + s*(p*j + k)] = w^(j*k) * Σ_r x[q + s*(j + r*m)] ω_p^(r*k)
//
// with w = exp(-2πi/(m*p)): a decimation in frequency, its results in order.
type stockham struct {
	n      int
	passes []pass
	work   []complex128
}

type pass struct {
	p, s, m int
	tw      []complex128 // w^(j*k) for j < m, 1 <= k < p, at j*(p-1) + k-1
	roots   []complex128 // ω_p^t, t < p, for the generic pass (p > 5)
	a       []complex128 // its p inputs
}

// newStockham plans n (n > 1, no prime factor above maxRadix).
func newStockham(n int) *stockham {
	var radices []int
	r := n
	for r%4 == 0 {
		radices = append(radices, 4)
		r /= 4
	}
	if r%2 == 0 {
		radices = append(radices, 2)
		r /= 2
	}
	for r%3 == 0 {
		radices = append(radices, 3)
		r /= 3
	}
	for r%5 == 0 {
		radices = append(radices, 5)
		r /= 5
	}
	for f := 7; r > 1; f += 2 {
		for r%f == 0 {
			radices = append(radices, f)
			r /= f
		}
	}
	st := &stockham{n: n, work: make([]complex128, n)}
	s := 1
	for _, p := range radices {
		m := n / (s * p)
		ps := pass{p: p, s: s, m: m}
		if m > 1 {
			ps.tw = make([]complex128, m*(p-1))
			for j := range m {
				for k := 1; k < p; k++ {
					ps.tw[j*(p-1)+k-1] = unitRoot(j*k, m*p)
				}
			}
		}
		if p > 5 {
			ps.roots = make([]complex128, p)
			for t := range p {
				ps.roots[t] = unitRoot(t, p)
			}
			ps.a = make([]complex128, p)
		}
		st.passes = append(st.passes, ps)
		s *= p
	}
	return st
}

// forward transforms src into dst (which may be src). The passes
// alternate between dst and the plan's work buffer, ending in dst; src is
// read only by the first pass, which writes work when that is needed to
// keep an aliased src intact.
func (st *stockham) forward(dst, src []complex128) {
	np := len(st.passes)
	x := src
	if np%2 == 1 && &dst[0] == &src[0] {
		copy(st.work, src)
		x = st.work
	}
	for i := range st.passes {
		y := st.work
		if (np-1-i)%2 == 0 {
			y = dst
		}
		st.passes[i].run(y, x)
		x = y
	}
}

const (
	sin60 = 0.86602540378443864676372317075293618 // sin(π/3)
	c51   = 0.30901699437494742410229341718281906 // cos(2π/5)
	c52   = -0.80901699437494742410229341718281906
	s51   = 0.95105651629515357211643933337938214 // sin(2π/5)
	s52   = 0.58778525229247312916870595463907277
)

// mulNegI is z * -i.
func mulNegI(z complex128) complex128 { return complex(imag(z), -real(z)) }

func (ps *pass) run(y, x []complex128) {
	s, m := ps.s, ps.m
	switch ps.p {
	case 4:
		switch {
		case s == 1 && m > 1:
			// The first pass: one element per group, so index
			// directly instead of slicing four runs of one.
			x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:4*m]
			tw := ps.tw[:3*m]
			y = y[:4*m]
			for j := range x0 {
				a0, a1, a2, a3 := x0[j], x1[j], x2[j], x3[j]
				t0, t1 := a0+a2, a0-a2
				t2, t3 := a1+a3, mulNegI(a1-a3)
				y[4*j] = t0 + t2
				y[4*j+1] = (t1 + t3) * tw[3*j]
				y[4*j+2] = (t0 - t2) * tw[3*j+1]
				y[4*j+3] = (t1 - t3) * tw[3*j+2]
			}
			return
		case m == 1:
			// The last pass: no twiddles.
			x0, x1, x2, x3 := x[:s], x[s:2*s], x[2*s:3*s], x[3*s:4*s]
			y0, y1, y2, y3 := y[:s], y[s:2*s], y[2*s:3*s], y[3*s:4*s]
			for q := range x0 {
				a0, a1, a2, a3 := x0[q], x1[q], x2[q], x3[q]
				t0, t1 := a0+a2, a0-a2
				t2, t3 := a1+a3, mulNegI(a1-a3)
				y0[q] = t0 + t2
				y1[q] = t1 + t3
				y2[q] = t0 - t2
				y3[q] = t1 - t3
			}
			return
		}
		for j := range m {
			var w1, w2, w3 complex128 = 1, 1, 1
			if m > 1 {
				w1, w2, w3 = ps.tw[3*j], ps.tw[3*j+1], ps.tw[3*j+2]
			}
			x0 := x[s*j : s*j+s]
			x1 := x[s*(j+m) : s*(j+m)+s]
			x2 := x[s*(j+2*m) : s*(j+2*m)+s]
			x3 := x[s*(j+3*m) : s*(j+3*m)+s]
			o := s * 4 * j
			y0 := y[o : o+s]
			y1 := y[o+s : o+2*s]
			y2 := y[o+2*s : o+3*s]
			y3 := y[o+3*s : o+4*s]
			for q := range x0 {
				a0, a1, a2, a3 := x0[q], x1[q], x2[q], x3[q]
				t0, t1 := a0+a2, a0-a2
				t2, t3 := a1+a3, mulNegI(a1-a3)
				y0[q] = t0 + t2
				y1[q] = (t1 + t3) * w1
				y2[q] = (t0 - t2) * w2
				y3[q] = (t1 - t3) * w3
			}
		}
	case 2:
		for j := range m {
			var w1 complex128 = 1
			if m > 1 {
				w1 = ps.tw[j]
			}
			x0 := x[s*j : s*j+s]
			x1 := x[s*(j+m) : s*(j+m)+s]
			o := s * 2 * j
			y0 := y[o : o+s]
			y1 := y[o+s : o+2*s]
			for q := range x0 {
				a0, a1 := x0[q], x1[q]
				y0[q] = a0 + a1
				y1[q] = (a0 - a1) * w1
			}
		}
	case 3:
		for j := range m {
			var w1, w2 complex128 = 1, 1
			if m > 1 {
				w1, w2 = ps.tw[2*j], ps.tw[2*j+1]
			}
			x0 := x[s*j : s*j+s]
			x1 := x[s*(j+m) : s*(j+m)+s]
			x2 := x[s*(j+2*m) : s*(j+2*m)+s]
			o := s * 3 * j
			y0 := y[o : o+s]
			y1 := y[o+s : o+2*s]
			y2 := y[o+2*s : o+3*s]
			for q := range x0 {
				a0, a1, a2 := x0[q], x1[q], x2[q]
				t1 := a1 + a2
				t2 := a0 - t1*0.5
				t3 := mulNegI(a1-a2) * sin60
				y0[q] = a0 + t1
				y1[q] = (t2 + t3) * w1
				y2[q] = (t2 - t3) * w2
			}
		}
	case 5:
		for j := range m {
			var w1, w2, w3, w4 complex128 = 1, 1, 1, 1
			if m > 1 {
				w1, w2, w3, w4 = ps.tw[4*j], ps.tw[4*j+1], ps.tw[4*j+2], ps.tw[4*j+3]
			}
			o := s * 5 * j
			for q := range s {
				a0 := x[q+s*j]
				a1 := x[q+s*(j+m)]
				a2 := x[q+s*(j+2*m)]
				a3 := x[q+s*(j+3*m)]
				a4 := x[q+s*(j+4*m)]
				t1, t2 := a1+a4, a2+a3
				t3, t4 := a1-a4, a2-a3
				r1 := a0 + t1*c51 + t2*c52
				r2 := a0 + t1*c52 + t2*c51
				i1 := mulNegI(t3*s51 + t4*s52)
				i2 := mulNegI(t3*s52 - t4*s51)
				y[o+q] = a0 + t1 + t2
				y[o+s+q] = (r1 + i1) * w1
				y[o+2*s+q] = (r2 + i2) * w2
				y[o+3*s+q] = (r2 - i2) * w3
				y[o+4*s+q] = (r1 - i1) * w4
			}
		}
	default:
		// A prime p > 5: the DFT of p points directly, O(p²) a group.
		p, a, roots := ps.p, ps.a, ps.roots
		for j := range m {
			o := s * p * j
			for q := range s {
				for r := range p {
					a[r] = x[q+s*(j+r*m)]
				}
				for k := range p {
					var sum complex128
					t := 0 // r*k mod p
					for _, v := range a {
						sum += v * roots[t]
						t += k
						if t >= p {
							t -= p
						}
					}
					if k > 0 && m > 1 {
						sum *= ps.tw[j*(p-1)+k-1]
					}
					y[o+s*k+q] = sum
				}
			}
		}
	}
}
