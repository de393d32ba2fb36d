package ndarray

import "fmt"

// LU is scipy.linalg.lu(a) for every matrix of a (..., M, N), K = min(M,
// N): the permutation matrix p (..., M, M), the unit lower-trapezoidal l
// (..., M, K) and the upper-trapezoidal u (..., K, N) with a = p l u. It is
// LAPACK's xGETRF (partial pivoting), whose row exchanges p records. A
// singular matrix is not an error: u has a zero on its diagonal, as in
// SciPy.
func LU(a *Array) (p, l, u *Array, err error) { return luWith(laDefault(), a) }

func luWith(lb *lapackBackend, a *Array) (p, l, u *Array, err error) {
	if err := laCheck(a, false); err != nil {
		return nil, nil, nil, fmt.Errorf("lu: %w", err)
	}
	nd := a.NDim()
	m, n := a.shape[nd-2], a.shape[nd-1]
	k := min(m, n)
	batch := a.shape[:nd-2]
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	p = newArray(dt, append(append([]int{}, batch...), m, m))
	l = newArray(dt, append(append([]int{}, batch...), m, k))
	u = newArray(dt, append(append([]int{}, batch...), k, n))
	if dt == Float64 {
		luT(laFuncs[float64](lb), src, p, l, u, m, n)
	} else {
		luT(laFuncs[float32](lb), src, p, l, u, m, n)
	}
	return p, l, u, nil
}

func luT[T float32 | float64](lf *lapackFuncs[T], src, p, l, u *Array, m, n int) {
	k := min(m, n)
	if m == 0 || n == 0 {
		// p is still the identity of the M rows.
		for b := range p.Size() / max(m*m, 1) {
			pm := typed[T](p)[b*m*m:]
			for i := range m {
				pm[i*m+i] = 1
			}
		}
		return
	}
	s, ps, ls, us := typed[T](src), typed[T](p), typed[T](l), typed[T](u)
	buf := make([]T, m*n)
	ipiv := make([]int32, k)
	perm := make([]int, m)
	for b := range src.Size() / (m * n) {
		toCol(s[b*m*n:(b+1)*m*n], m, n, buf, m)
		// info > 0 is an exactly zero pivot: the factorisation is complete
		// and u is singular, which scipy returns without complaint.
		lf.getrf(m, n, buf, m, ipiv)
		for i := range perm {
			perm[i] = i
		}
		for i := range k {
			j := int(ipiv[i]) - 1
			perm[i], perm[j] = perm[j], perm[i]
		}
		// Row i of l u is row perm[i] of a: a = p l u with p[perm[i], i] = 1.
		pm := ps[b*m*m : (b+1)*m*m]
		for i, r := range perm {
			pm[r*m+i] = 1
		}
		lm := ls[b*m*k : (b+1)*m*k]
		for i := range m {
			for j := range min(i, k) {
				lm[i*k+j] = buf[j*m+i]
			}
			if i < k {
				lm[i*k+i] = 1
			}
		}
		um := us[b*k*n : (b+1)*k*n]
		for i := range k {
			for j := i; j < n; j++ {
				um[i*n+j] = buf[j*m+i]
			}
		}
	}
}
