"""mt.linalg: what the engine's kernels give (norms, products). Functions
of several outputs return them as an ExecutableTuple (Mars's), whose
execute() computes them together."""

import math
import operator

import numpy as np

from . import _core
from .._executable import ExecutableTuple


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: vector orders and the matrix orders fro, nuc, 1,
    -1, inf, -inf, 2, -2 (the cluster's linalg.norm)."""
    x = _core.astensor(x)
    if not keepdims:
        o = ord
        if isinstance(o, float) and math.isinf(o):
            o = "inf" if o > 0 else "-inf"
        ax = None if axis is None else ([operator.index(axis)] if isinstance(axis, (int, np.integer))
                                        else [operator.index(a) for a in axis])
        return _call("norm", x, ord=o, axis=ax)
    return _norm_composed(x, ord, axis, keepdims)


def _norm_composed(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm for vectors (ord None, 2, 1, inf, -inf, 0 or any
    p) along one axis, and the Frobenius norm over two axes or of a whole
    tensor (ord None or 'fro')."""
    from . import sqrt, square, absolute, sum, max, min, count_nonzero, power  # noqa: A004
    x = _core.astensor(x)
    if x.dtype.kind in "biu":
        x = x.astype("float64")
    if axis is None:
        if ord is None or (ord == "fro" and x.ndim == 2):
            return sqrt(sum(square(x), keepdims=keepdims))
        if x.ndim == 1:
            axis = 0
        else:
            raise NotImplementedError(f"phobos: linalg.norm(ord={ord!r}) of a {x.ndim}-d tensor over all axes")
    if isinstance(axis, (tuple, list)):
        if len(axis) == 1:
            axis = axis[0]
        elif len(axis) == 2 and ord in (None, "fro"):
            return sqrt(sum(square(x), axis=tuple(axis), keepdims=keepdims))
        else:
            raise NotImplementedError(f"phobos: linalg.norm(ord={ord!r}, axis={axis!r}): matrix norms other than 'fro'")
    axis = operator.index(axis)
    if ord is None or ord == 2:
        return sqrt(sum(square(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == math.inf:
        return max(absolute(x), axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return min(absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return count_nonzero(x, axis=axis, keepdims=keepdims).astype(x.dtype)
    if ord == 1:
        return sum(absolute(x), axis=axis, keepdims=keepdims)
    s = sum(power(absolute(x), ord), axis=axis, keepdims=keepdims)
    # NumPy raises to 1/ord in the sum's own type
    return power(s, _core.from_numpy(np.asarray(1.0 / ord, dtype=s.dtype)))


def matmul(x1, x2):
    from . import matmul as mm
    return mm(x1, x2)


# The cluster's linear algebra (package linalg): TSQR for tall-skinny QR,
# SVD and least squares; the others on matrices that fit one chunk.

def _call(fn, *args, **kw):
    return _core.call("linalg." + fn, *args, **kw)


def qr(a, mode="reduced"):
    """numpy.linalg.qr: (q, r), or r alone with mode='r'."""
    a = _core.astensor(a)
    if mode == "r":
        return _call("qr", a, mode="r", out=0)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    return ExecutableTuple((_call("qr", a, mode=mode, out=0), _call("qr", a, mode=mode, out=1)))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd: (u, s, vh), or s alone with compute_uv=False."""
    a = _core.astensor(a)
    if not compute_uv:
        return _call("svdvals", a)
    return ExecutableTuple(_call("svd", a, full_matrices=bool(full_matrices), out=i) for i in range(3))


def cholesky(a):
    return _call("cholesky", _core.astensor(a))


def inv(a):
    return _call("inv", _core.astensor(a))


def det(a):
    return _call("det", _core.astensor(a))


def slogdet(a):
    a = _core.astensor(a)
    return ExecutableTuple((_call("slogdet", a, 0), _call("slogdet", a, 1)))


def solve(a, b):
    return _call("solve", _core.astensor(a), _core.astensor(b))


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False):
    """scipy.linalg.solve_triangular's solve of a x = b (aᵀ x = b with trans)."""
    return _call("solve_triangular", _core.astensor(a), _core.astensor(b), lower=bool(lower),
                 trans=bool(trans), unit_diagonal=bool(unit_diagonal))


def lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq: (x, residuals, rank, s); rcond None is NumPy's
    default (machine precision times the larger dimension)."""
    a, b = _core.astensor(a), _core.astensor(b)
    kw = {} if rcond is None else {"rcond": float(rcond)}
    return ExecutableTuple(_call("lstsq", a, b, out=i, **kw) for i in range(4))


def matrix_power(a, n):
    from . import matmul as mm, eye
    a = _core.astensor(a)
    n = operator.index(n)
    if n < 0:
        a, n = inv(a), -n
    if n == 0:
        return eye(a.shape[-1], dtype=a.dtype)
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else mm(result, base)
        n >>= 1
        if n:
            base = mm(base, base)
    return result


def pinv(a, rcond=1e-15, hermitian=False):
    return _call("pinv", _core.astensor(a), rcond=float(rcond))


def matrix_rank(A, tol=None, hermitian=False):
    A = _core.astensor(A)
    return _call("matrix_rank", A) if tol is None else _call("matrix_rank", A, tol=float(tol))


def cond(x, p=None):
    if isinstance(p, float) and math.isinf(p):
        p = "inf" if p > 0 else "-inf"
    return _call("cond", _core.astensor(x), p=p)


def multi_dot(arrays, *, out=None):
    if out is not None:
        raise NotImplementedError("phobos: multi_dot(out=...): tensors are immutable; use the result")
    return _call("multi_dot", *[_core.astensor(a) for a in arrays])


def lu(a, permute_l=False):
    """scipy.linalg.lu (NumPy has none; Mars's mt.linalg.lu): (p, l, u)
    with a = p @ l @ u, or (p @ l, u) with permute_l=True."""
    a = _core.astensor(a)
    n = 2 if permute_l else 3
    return ExecutableTuple(_call("lu", a, permute_l=bool(permute_l), out=i) for i in range(n))


def randomized_svd(M, n_components, *, n_oversamples=10, n_iter="auto", power_iteration_normalizer="auto",
                   transpose="auto", flip_sign=True, random_state=None):
    """scikit-learn's randomized_svd (Mars's mt.linalg.randomized_svd):
    (u, s, vt) of the n_components leading singular triplets, by Halko et
    al.'s randomised range finder over TSQR. random_state is an integer
    seed; None means seed 0, so results repeat (scikit-learn draws a fresh
    one). Power iterations are always normalised by QR, and a wide M is
    always decomposed through its transpose."""
    if power_iteration_normalizer not in ("auto", "QR"):
        raise ValueError(f"phobos: power_iteration_normalizer={power_iteration_normalizer!r}: only 'QR' (and 'auto', which is QR here)")
    if transpose != "auto":
        raise ValueError(f"phobos: transpose={transpose!r}: only 'auto' (a wide matrix is always transposed)")
    if random_state is not None and not isinstance(random_state, (int, np.integer)):
        raise TypeError("phobos: random_state must be an integer seed or None")
    M = _core.astensor(M)
    kw = dict(n_oversamples=int(n_oversamples), flip_sign=bool(flip_sign),
              random_state=None if random_state is None else int(random_state))
    kw["n_iter"] = n_iter if isinstance(n_iter, str) else int(n_iter)
    return ExecutableTuple(_call("randomized_svd", M, int(n_components), out=i, **kw) for i in range(3))


def trace(x, /, *, offset=0, dtype=None):
    """numpy.linalg.trace (NumPy 2, the Array API): over the last two axes."""
    if offset != 0 or dtype is not None:
        from . import trace as _trace
        return _trace(_core.astensor(x), offset=offset, axis1=-2, axis2=-1, dtype=dtype)
    return _call("trace", _core.astensor(x))


def diagonal(x, /, *, offset=0):
    """numpy.linalg.diagonal (NumPy 2, the Array API): over the last two axes."""
    if offset != 0:
        from . import diagonal as _diagonal
        return _diagonal(_core.astensor(x), offset=offset, axis1=-2, axis2=-1)
    return _call("diagonal", _core.astensor(x))
