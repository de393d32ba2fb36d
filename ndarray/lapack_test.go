package ndarray

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// Table tests of the dense linear-algebra kernels on both LAPACK backends:
// identities (Q orthonormal, Q R = A, R upper triangular, U diag(S) Vᵀ = A,
// L Lᵀ = A, A A⁻¹ = I, A x = b, normal equations of least squares), the
// backends against each other, float32 and float64, and bad inputs.

// laBackends are the backends to test: gonum always, OpenBLAS's LAPACK
// when the library has it.
func laBackends(t *testing.T) []*lapackBackend {
	t.Helper()
	bs := []*lapackBackend{gonumLapackBackend()}
	laDefault()
	if laImpl.openblas != nil {
		bs = append(bs, laImpl.openblas)
	} else {
		t.Logf("OpenBLAS LAPACK not available; testing gonum only")
	}
	return bs
}

// laRand is an m×n array of dt with values in [-1, 1).
func laRand(r *rand.Rand, dt DType, m, n int) *Array {
	a := newArray(dt, []int{m, n})
	for i := range a.Size() {
		a.SetFlat(i, r.Float64()*2-1)
	}
	return a
}

// laMul is a b in float64.
func laMul(t *testing.T, a, b *Array) *Array {
	t.Helper()
	c, err := MatMul(redConvert(a, Float64), redConvert(b, Float64))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// laT is the transpose of a 2-D array, contiguous.
func laT(a *Array) *Array {
	v, _ := a.Transpose(1, 0)
	return v.Copy()
}

// laMaxDiff is max |a - b| elementwise (float64 values).
func laMaxDiff(t *testing.T, a, b *Array) float64 {
	t.Helper()
	if !SameShape(a.shape, b.shape) {
		t.Fatalf("shapes %v and %v differ", a.shape, b.shape)
	}
	av, bv := a.ToFloat64s(), b.ToFloat64s()
	d := 0.0
	for i := range av {
		d = math.Max(d, math.Abs(av[i]-bv[i]))
	}
	return d
}

func laEye(n int) *Array {
	e := newArray(Float64, []int{n, n})
	for i := range n {
		e.SetFlat(i*n+i, 1)
	}
	return e
}

// laTol is the tolerance of identities on matrices of size about n.
func laTol(dt DType, n int) float64 {
	if dt == Float32 {
		return 2e-5 * float64(max(n, 1))
	}
	return 1e-12 * float64(max(n, 1))
}

// laCheckQR checks q (m×qk), r (qk×n) against a.
func laCheckQR(t *testing.T, a, q, r *Array, dt DType) {
	t.Helper()
	m, n := a.shape[0], a.shape[1]
	tol := laTol(dt, max(m, n))
	if q.dtype != dt || r.dtype != dt {
		t.Fatalf("dtypes q %v r %v, want %v", q.dtype, r.dtype, dt)
	}
	if d := laMaxDiff(t, laMul(t, laT(q), q), laEye(q.shape[1])); d > tol {
		t.Errorf("QᵀQ - I = %g", d)
	}
	if d := laMaxDiff(t, laMul(t, q, r), redConvert(a, Float64)); d > tol {
		t.Errorf("QR - A = %g", d)
	}
	for i := range r.shape[0] {
		for j := range min(i, r.shape[1]) {
			if r.AtFlat(i*r.shape[1]+j) != 0 {
				t.Fatalf("R[%d,%d] = %g below the diagonal", i, j, r.AtFlat(i*r.shape[1]+j))
			}
		}
	}
}

func TestLAPACKQR(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	shapes := [][2]int{{1, 1}, {5, 3}, {3, 5}, {7, 7}, {200, 7}, {1, 6}, {6, 1}, {0, 3}, {3, 0},
		{5000, 50}, {70000, 3}, {900, 300}, {4000, 1}}
	for _, lb := range laBackends(t) {
		for _, dt := range []DType{Float64, Float32} {
			for _, sh := range shapes {
				name := fmt.Sprintf("%s/%v/%dx%d", strings.Fields(lb.name)[0], dt, sh[0], sh[1])
				t.Run(name, func(t *testing.T) {
					a := laRand(r, dt, sh[0], sh[1])
					for _, mode := range []string{"reduced", "complete"} {
						if mode == "complete" && sh[0] > 2000 {
							continue // Q would be m×m
						}
						q, rr, err := qrWith(lb, a, mode)
						if err != nil {
							t.Fatal(err)
						}
						k := min(sh[0], sh[1])
						if mode == "complete" {
							k = sh[0]
						}
						if !SameShape(q.shape, []int{sh[0], k}) || !SameShape(rr.shape, []int{k, sh[1]}) {
							t.Fatalf("%s: q %v r %v", mode, q.shape, rr.shape)
						}
						laCheckQR(t, a, q, rr, dt)
					}
					// Qᵀ b from the packed factor equals Qᵀ b from Q.
					f, err := qrFactorWith(lb, []*Array{a}, dt)
					if err != nil {
						t.Fatal(err)
					}
					b := laRand(r, dt, sh[0], 3)
					qtb, err := qrApplyTWith(lb, f, sh[0], sh[1], b)
					if err != nil {
						t.Fatal(err)
					}
					q, err := qrApplyWith(lb, f, sh[0], sh[1], nil, min(sh[0], sh[1]))
					if err != nil {
						t.Fatal(err)
					}
					if d := laMaxDiff(t, qtb, laMul(t, laT(q), b)); d > laTol(dt, sh[0]) {
						t.Errorf("Qᵀb differs by %g", d)
					}
				})
			}
		}
	}
}

// The factorisation of parts stacked vertically is that of their
// concatenation, and the tree over blocks gives the same R as one block.
func TestQRFactorParts(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, lb := range laBackends(t) {
		a := laRand(r, Float64, 3000, 40)
		p1, _ := a.Slice([]Range{{0, 1, 1000}, {0, 1, 40}})
		p2, _ := a.Slice([]Range{{1000, 1, 1}, {0, 1, 40}})
		p3, _ := a.Slice([]Range{{1001, 1, 1999}, {0, 1, 40}})
		f1, err := qrFactorWith(lb, []*Array{a}, Float64)
		if err != nil {
			t.Fatal(err)
		}
		f2, err := qrFactorWith(lb, []*Array{p1, p2, p3}, Float64)
		if err != nil {
			t.Fatal(err)
		}
		if d := laMaxDiff(t, f1, f2); d != 0 {
			t.Errorf("%s: factor of parts differs by %g", lb.name, d)
		}
		// A transposed (strided) input and an int input convert on the way in.
		at, _ := laT(a).Transpose(1, 0)
		f3, _ := qrFactorWith(lb, []*Array{at}, Float64)
		if d := laMaxDiff(t, f1, f3); d != 0 {
			t.Errorf("%s: factor of a strided view differs by %g", lb.name, d)
		}
		// R of one dense geqrf agrees up to row signs.
		_, rc, _ := qrWith(lb, a, "complete")
		rt, _ := QRFactorR(f1, 3000, 40)
		for i := range 40 {
			s := math.Copysign(1, rt.AtFlat(i*40+i)) * math.Copysign(1, rc.AtFlat(i*40+i))
			for j := i; j < 40; j++ {
				if d := math.Abs(rt.AtFlat(i*40+j) - s*rc.AtFlat(i*40+j)); d > 1e-11 {
					t.Fatalf("%s: tree R[%d,%d] = %g, geqrf %g", lb.name, i, j, rt.AtFlat(i*40+j), rc.AtFlat(i*40+j))
				}
			}
		}
	}
}

func TestLAPACKBackendsAgree(t *testing.T) {
	bs := laBackends(t)
	if len(bs) < 2 {
		t.Skip("only one LAPACK backend")
	}
	r := rand.New(rand.NewSource(3))
	for _, dt := range []DType{Float64, Float32} {
		tol := 1e-10
		if dt == Float32 {
			tol = 2e-3
		}
		a := laRand(r, dt, 300, 20)
		q1, r1, _ := qrWith(bs[0], a, "reduced")
		q2, r2, _ := qrWith(bs[1], a, "reduced")
		if d := math.Max(laMaxDiff(t, q1, q2), laMaxDiff(t, r1, r2)); d > tol {
			t.Errorf("%v qr: backends differ by %g", dt, d)
		}
		_, s1, _, _ := svdWith(bs[0], a)
		_, s2, _, _ := svdWith(bs[1], a)
		if d := laMaxDiff(t, s1, s2); d > tol {
			t.Errorf("%v svd: singular values differ by %g", dt, d)
		}
		sq := laRand(r, dt, 30, 30)
		i1, _ := invWith(bs[0], sq)
		i2, _ := invWith(bs[1], sq)
		if d := laMaxDiff(t, i1, i2); d > 100*tol {
			t.Errorf("%v inv: backends differ by %g", dt, d)
		}
		d1, _ := detWith(bs[0], sq)
		d2, _ := detWith(bs[1], sq)
		if d := laMaxDiff(t, d1, d2); d > tol*math.Abs(d1.AtFlat(0))+tol {
			t.Errorf("%v det: %v vs %v", dt, d1, d2)
		}
	}
}

// laSPD is a random symmetric positive definite n×n matrix.
func laSPD(t *testing.T, r *rand.Rand, dt DType, n int) *Array {
	a := laRand(r, Float64, n, n)
	s := laMul(t, a, laT(a))
	for i := range n {
		s.SetFlat(i*n+i, s.AtFlat(i*n+i)+float64(n))
	}
	return redConvert(s, dt)
}

func TestLAPACKDense(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, lb := range laBackends(t) {
		for _, dt := range []DType{Float64, Float32} {
			name := strings.Fields(lb.name)[0] + "/" + dt.String()
			t.Run(name, func(t *testing.T) {
				for _, n := range []int{1, 2, 7, 64} {
					tol := laTol(dt, n) * 10
					spd := laSPD(t, r, dt, n)
					l, err := choleskyWith(lb, spd)
					if err != nil {
						t.Fatal(err)
					}
					if d := laMaxDiff(t, laMul(t, l, laT(l)), redConvert(spd, Float64)); d > tol*float64(n) {
						t.Errorf("n=%d: L Lᵀ - A = %g", n, d)
					}
					a := laRand(r, dt, n, n)
					inv, err := invWith(lb, a)
					if err != nil {
						t.Fatal(err)
					}
					if d := laMaxDiff(t, laMul(t, a, inv), laEye(n)); d > tol*100 {
						t.Errorf("n=%d: A A⁻¹ - I = %g", n, d)
					}
					b := laRand(r, dt, n, 3)
					x, err := solveWith(lb, a, b)
					if err != nil {
						t.Fatal(err)
					}
					if d := laMaxDiff(t, laMul(t, a, x), redConvert(b, Float64)); d > tol*100 {
						t.Errorf("n=%d: A x - b = %g", n, d)
					}
					// det and slogdet of A agree, and det(A) det(A⁻¹) = 1.
					det, _ := detWith(lb, a)
					sign, logd, _ := slogdetWith(lb, a)
					dinv, _ := detWith(lb, inv)
					if g := sign.AtFlat(0) * math.Exp(logd.AtFlat(0)); math.Abs(g-det.AtFlat(0)) > tol*100*math.Abs(g) {
						t.Errorf("n=%d: slogdet gives %g, det %g", n, g, det.AtFlat(0))
					}
					if p := det.AtFlat(0) * dinv.AtFlat(0); math.Abs(p-1) > tol*1000 {
						t.Errorf("n=%d: det(A) det(A⁻¹) = %g", n, p)
					}
					// Triangular solves read only their triangle. Their
					// matrix is well conditioned: small off the diagonal.
					ta := redConvert(a, Float64).Copy()
					for i := range n {
						for j := range n {
							v := ta.AtFlat(i*n+j) / float64(n)
							if i == j {
								v = 1 + math.Abs(v)*float64(n)
							}
							ta.SetFlat(i*n+j, v)
						}
					}
					ta = redConvert(ta, dt)
					for _, lower := range []bool{false, true} {
						for _, trans := range []bool{false, true} {
							for _, unit := range []bool{false, true} {
								tri := laTriangle(ta, lower, unit, n)
								x, err := solveTriangularWith(lb, ta, b, lower, trans, unit)
								if err != nil {
									t.Fatal(err)
								}
								op := tri
								if trans {
									op = laT(tri)
								}
								if d := laMaxDiff(t, laMul(t, op, x), redConvert(b, Float64)); d > tol*10 {
									t.Errorf("n=%d lower=%v trans=%v unit=%v: op(A) x - b = %g", n, lower, trans, unit, d)
								}
							}
						}
					}
					u, s, vt, err := svdWith(lb, a)
					if err != nil {
						t.Fatal(err)
					}
					us := redConvert(u, Float64).Copy()
					for i := range n {
						for j := range n {
							us.SetFlat(i*n+j, us.AtFlat(i*n+j)*s.AtFlat(j))
						}
					}
					if d := laMaxDiff(t, laMul(t, us, vt), redConvert(a, Float64)); d > tol*10 {
						t.Errorf("n=%d: U S Vᵀ - A = %g", n, d)
					}
					for i := 1; i < n; i++ {
						if s.AtFlat(i) > s.AtFlat(i-1) {
							t.Errorf("n=%d: singular values not descending: %v", n, s)
						}
					}
				}
			})
		}
	}
}

// laTriangle is the triangle of a that a triangular solve reads, as a
// float64 matrix (ones on the diagonal if unit).
func laTriangle(a *Array, lower, unit bool, n int) *Array {
	t := newArray(Float64, []int{n, n})
	for i := range n {
		for j := range n {
			if (lower && j <= i) || (!lower && j >= i) {
				t.SetFlat(i*n+j, a.AtFlat(i*n+j))
			}
		}
		if unit {
			t.SetFlat(i*n+i, 1)
		}
	}
	return t
}

func TestLAPACKLstsq(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, lb := range laBackends(t) {
		for _, dt := range []DType{Float64, Float32} {
			for _, sh := range [][2]int{{50, 5}, {5, 50}, {7, 7}, {3000, 20}} {
				m, n := sh[0], sh[1]
				a := laRand(r, dt, m, n)
				b := laRand(r, dt, m, 2)
				x, res, rank, s, err := lstsqWith(lb, a, b, LstsqRcondDefault(m, n, dt))
				if err != nil {
					t.Fatal(err)
				}
				if rank.AtFlat(0) != float64(min(m, n)) || s.shape[0] != min(m, n) {
					t.Errorf("%v %v: rank %v, s %v", dt, sh, rank, s.shape)
				}
				// Normal equations: Aᵀ (A x - b) = 0; wide: A x = b exactly.
				ax := laMul(t, a, x)
				resid := ax.Copy()
				bf := redConvert(b, Float64)
				for i := range resid.Size() {
					resid.SetFlat(i, ax.AtFlat(i)-bf.AtFlat(i))
				}
				tol := laTol(dt, max(m, n)) * 100
				if d := laMaxDiff(t, laMul(t, laT(a), resid), newArray(Float64, []int{n, 2})); d > tol {
					t.Errorf("%v %v: Aᵀ(Ax - b) = %g", dt, sh, d)
				}
				if m > n {
					for j := range 2 {
						want := 0.0
						for i := range m {
							want += resid.AtFlat(i*2+j) * resid.AtFlat(i*2+j)
						}
						if math.Abs(res.AtFlat(j)-want) > tol*want+tol {
							t.Errorf("%v %v: residual %d = %g, want %g", dt, sh, j, res.AtFlat(j), want)
						}
					}
				} else if res.Size() != 0 {
					t.Errorf("%v %v: residuals %v, want none", dt, sh, res.shape)
				}
			}
			// Rank deficient: the solution of least norm, as the
			// pseudo-inverse gives it.
			a := laRand(r, Float64, 40, 6)
			for i := range 40 {
				a.SetFlat(i*6+5, a.AtFlat(i*6+1)+a.AtFlat(i*6+2)) // column 5 = 1 + 2
			}
			a = redConvert(a, dt)
			b := laRand(r, dt, 40, 1)
			x, _, rank, _, err := lstsqWith(lb, a, b, LstsqRcondDefault(40, 6, dt)*10)
			if err != nil {
				t.Fatal(err)
			}
			if rank.AtFlat(0) != 5 {
				t.Errorf("%v: rank %v, want 5", dt, rank)
			}
			// Least norm: x is orthogonal to the null vector (0,1,1,0,0,-1).
			if d := x.AtFlat(1) + x.AtFlat(2) - x.AtFlat(5); math.Abs(d) > laTol(dt, 40)*100 {
				t.Errorf("%v: x %v is not of least norm (x·null = %g)", dt, x, d)
			}
		}
	}
}

func TestLAPACKErrors(t *testing.T) {
	sing, _ := FromFloat64s([]int{2, 2}, []float64{1, 2, 2, 4})
	notPD, _ := FromFloat64s([]int{2, 2}, []float64{1, 2, 2, 1})
	vec, _ := FromFloat64s([]int{3}, []float64{1, 2, 3})
	rect := newArray(Float64, []int{2, 3})
	upperZero, _ := FromFloat64s([]int{2, 2}, []float64{1, 1, 0, 0})
	b2 := newArray(Float64, []int{2})
	b3 := newArray(Float64, []int{3})
	for _, lb := range laBackends(t) {
		for _, c := range []struct {
			name, want string
			err        error
		}{
			{"inv singular", "inv: Singular matrix", second(invWith(lb, sing))},
			{"solve singular", "solve: Singular matrix", second(solveWith(lb, sing, b2))},
			{"cholesky not PD", "cholesky: Matrix is not positive definite", second(choleskyWith(lb, notPD))},
			{"inv 1-D", "1-dimensional array given. Array must be at least two-dimensional", second(invWith(lb, vec))},
			{"det not square", "Last 2 dimensions of the array must be square", second(detWith(lb, rect))},
			{"solve bad b", "b must be (2,) or (2, K)", second(solveWith(lb, sing, b3))},
			{"triangular zero diagonal", "singular matrix: resolution failed at diagonal 1", second(solveTriangularWith(lb, upperZero, b2, false, false, false))},
			{"qr mode", "unrecognized mode", third(qrWith(lb, rect, "raw"))},
		} {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("%s: %s: error %v, want %q", lb.name, c.name, c.err, c.want)
			}
		}
		var le *LinAlgError
		if _, err := invWith(lb, sing); !errors.As(err, &le) {
			t.Errorf("inv of a singular matrix: %T is not a LinAlgError", err)
		}
		// det and slogdet of a singular matrix are 0 and (0, -inf), not errors.
		d, _ := detWith(lb, sing)
		s, l, _ := slogdetWith(lb, sing)
		if d.AtFlat(0) != 0 || s.AtFlat(0) != 0 || !math.IsInf(l.AtFlat(0), -1) {
			t.Errorf("singular: det %v, slogdet %v %v", d, s, l)
		}
	}
}

func second[A any](_ A, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }
func TestLAPACKBackendName(t *testing.T) {
	name := LAPACKBackend()
	if !strings.HasPrefix(name, "openblas") && name != "gonum (pure Go)" {
		t.Errorf("LAPACKBackend() = %q", name)
	}
	t.Logf("LAPACK: %s", name)
}

// Stacks of matrices: each is factored on its own.
func TestLAPACKStacks(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	a := newArray(Float64, []int{2, 3, 4, 4})
	for i := range a.Size() {
		a.SetFlat(i, r.Float64())
	}
	det, err := Det(a)
	if err != nil || !SameShape(det.shape, []int{2, 3}) {
		t.Fatalf("det of a stack: %v %v", det, err)
	}
	inv, _ := Inv(a)
	for i := range 6 {
		m, _ := a.Slice([]Range{{i / 3, 1, 1}, {i % 3, 1, 1}, {0, 1, 4}, {0, 1, 4}})
		m, _ = m.Reshape(4, 4)
		d1, _ := Det(m.Copy())
		if math.Abs(d1.AtFlat(0)-det.AtFlat(i)) > 1e-12 {
			t.Errorf("matrix %d: det %g in the stack, %g alone", i, det.AtFlat(i), d1.AtFlat(0))
		}
		mi, _ := inv.Slice([]Range{{i / 3, 1, 1}, {i % 3, 1, 1}, {0, 1, 4}, {0, 1, 4}})
		mi, _ = mi.Reshape(4, 4)
		if d := laMaxDiff(t, laMul(t, m.Copy(), mi.Copy()), laEye(4)); d > 1e-10 {
			t.Errorf("matrix %d: A A⁻¹ - I = %g", i, d)
		}
	}
}

// BenchmarkQRChunk is the work of one W6 chunk: factor a 1e5×50 block and
// form its Q (times a 50×50 matrix from the tree above).
func BenchmarkQRChunk(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	a := laRand(r, Float64, 100_000, 50)
	y := laRand(r, Float64, 50, 50)
	for _, step := range []string{"factor", "apply"} {
		b.Run(step, func(b *testing.B) {
			f, _ := QRFactor([]*Array{a}, Float64)
			for b.Loop() {
				if step == "factor" {
					f, _ = QRFactor([]*Array{a}, Float64)
				} else {
					QRFactorApply(f, 100_000, 50, y, 50)
				}
			}
		})
	}
}

// QRFactorSize counts what newQRPlan lays out, without laying it out.
func TestQRFactorSize(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 50, 255, 256, 257, 300, 1000, 5000} {
		for _, m := range []int{0, 1, 2, 5, 49, 50, 51, 1000, 1310, 1311, 2621, 65535, 65536, 100_000, 1_000_003, 3_000_000} {
			if got, want := QRFactorSize(m, n), newQRPlan(m, n).size; got != want {
				t.Fatalf("QRFactorSize(%d, %d) = %d, plan says %d", m, n, got, want)
			}
		}
	}
	if QRFactorSize(1<<40, 1<<30) != -1 || QRFactorSize(-1, 3) != -1 {
		t.Error("a size that does not fit an int is not -1")
	}
}

// TestQRTreeRankDeficient factors the row blocks of a rank-deficient
// matrix, stacks their R factors and forms Q top-down as the distributed
// TSQR does: Q stays orthonormal on both backends. (gonum's Dlarft gets T
// wrong for such reflectors, which end in zeros; larftForward replaces it.)
func TestQRTreeRankDeficient(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	m := 300
	a := newArray(Float64, []int{m, 5})
	for i := range m {
		c := r.Float64()
		a.SetFlat(i*5+0, c)
		a.SetFlat(i*5+1, c)
		a.SetFlat(i*5+2, 2*c)
		a.SetFlat(i*5+3, r.Float64())
		a.SetFlat(i*5+4, r.Float64())
	}
	for _, lb := range laBackends(t) {
		var rs, fs []*Array
		for i := 0; i < m; i += 50 {
			blk, _ := a.Slice([]Range{{i, 1, 50}, {0, 1, 5}})
			f, _ := qrFactorWith(lb, []*Array{blk}, Float64)
			rr, _ := QRFactorR(f, 50, 5)
			rs, fs = append(rs, rr), append(fs, f)
		}
		f, _ := qrFactorWith(lb, rs, Float64)
		z, _ := qrApplyWith(lb, f, 30, 5, nil, 5)
		q := newArray(Float64, []int{m, 5})
		for i, fi := range fs {
			y, _ := z.Slice([]Range{{i * 5, 1, 5}, {0, 1, 5}})
			qi, _ := qrApplyWith(lb, fi, 50, 5, y, 5)
			for j := range 250 {
				q.SetFlat(i*250+j, qi.AtFlat(j))
			}
		}
		rr, _ := QRFactorR(f, 30, 5)
		if d := laMaxDiff(t, laMul(t, laT(q), q), laEye(5)); d > 1e-14 {
			t.Errorf("%s: QᵀQ - I = %g", lb.name, d)
		}
		if d := laMaxDiff(t, laMul(t, q, rr), a); d > 1e-13 {
			t.Errorf("%s: QR - A = %g", lb.name, d)
		}
	}
}
