"""NumPy functions that are compositions of the cluster's functions: shape
helpers, splitting, triangles and diagonals, grids, and a few products. Each follows NumPy 1.24's definition, so the
results, dtypes and errors are NumPy's; nothing here computes on the client."""

import builtins
import operator

import numpy as np

from ._core import Tensor, astensor, from_numpy, _dtype_name


def _mt():
    from .. import tensor
    return tensor


def _norm_axis(axis, ndim):
    from .._errors import AxisError
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _take_slice(a, axis, sl):
    key = [slice(None)] * a.ndim
    key[axis] = sl
    return a[tuple(key)]


# aliases ---------------------------------------------------------------------


def copy(a, order="K"):
    """A tensor equal to a (tensors are immutable, so a itself)."""
    return astensor(a)


def asfarray(a, dtype=np.float64):
    a = astensor(a)
    dt = np.dtype(dtype)
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    return a if a.dtype == dt else a.astype(dt)


# differences and integrals -------------------------------------------------------


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    mt = _mt()
    a = astensor(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _norm_axis(axis, a.ndim)
    parts = []
    for v, at_end in ((prepend, False), (append, True)):
        if v is np._NoValue:
            continue
        v = astensor(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = mt.broadcast_to(v, shape)
        parts.append((v, at_end))
    if parts:
        before = [v for v, e in parts if not e]
        after = [v for v, e in parts if e]
        a = mt.concatenate(before + [a] + after, axis=axis)
    for _ in range(n):
        hi, lo = _take_slice(a, axis, slice(1, None)), _take_slice(a, axis, slice(None, -1))
        a = mt.not_equal(hi, lo) if a.dtype == np.bool_ else mt.subtract(hi, lo)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    mt = _mt()
    a = astensor(ary).ravel()
    d = a[1:] - a[:-1]
    parts = []
    if to_begin is not None:
        parts.append(astensor(np.asarray(to_begin, dtype=a.dtype) if not isinstance(to_begin, Tensor) else to_begin).ravel())
    parts.append(d)
    if to_end is not None:
        parts.append(astensor(np.asarray(to_end, dtype=a.dtype) if not isinstance(to_end, Tensor) else to_end).ravel())
    return mt.concatenate(parts) if len(parts) > 1 else d


def trapz(y, x=None, dx=1.0, axis=-1):
    mt = _mt()
    y = astensor(y)
    axis = _norm_axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = astensor(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    hi, lo = _take_slice(y, axis, slice(1, None)), _take_slice(y, axis, slice(None, -1))
    return mt.sum(d * (hi + lo) / 2.0, axis=axis)


# axes and stacking --------------------------------------------------------------


def moveaxis(a, source, destination):
    a = astensor(a)
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    src = [_norm_axis(s, a.ndim) for s in src]
    dst = [_norm_axis(d, a.ndim) for d in dst]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def swapaxes(a, axis1, axis2):
    a = astensor(a)
    i, j = _norm_axis(axis1, a.ndim), _norm_axis(axis2, a.ndim)
    order = list(range(a.ndim))
    order[i], order[j] = order[j], order[i]
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    a = astensor(a)
    n = a.ndim
    axis = _norm_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        from .._errors import AxisError
        raise AxisError(f"start arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a
    order = list(range(n))
    order.remove(axis)
    order.insert(start, axis)
    return a.transpose(order)


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = astensor(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, a.shape[0], 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape[0], a.shape[1], 1)
        res.append(a)
    return res[0] if len(res) == 1 else res


def column_stack(tup):
    mt = _mt()
    ts = []
    for a in tup:
        a = astensor(a)
        if a.ndim < 2:
            a = a.reshape(-1, 1)
        ts.append(a)
    return mt.concatenate(ts, axis=1)


def dstack(tup):
    mt = _mt()
    ts = atleast_3d(*tup)
    if isinstance(ts, Tensor):
        ts = [ts]
    return mt.concatenate(ts, axis=2)


def append(arr, values, axis=None):
    mt = _mt()
    arr, values = astensor(arr), astensor(values)
    if axis is None:
        return mt.concatenate([arr.ravel(), values.ravel()], axis=0)
    return mt.concatenate([arr, values], axis=axis)


def tile(A, reps):
    A = astensor(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    d = builtins.max(A.ndim, len(reps))
    shape = (1,) * (d - A.ndim) + A.shape
    reps = (1,) * (d - len(reps)) + tuple(operator.index(r) for r in reps)
    if builtins.any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    inter, big = [], []
    for r, s in zip(reps, shape):
        inter += [1, s]
        big += [r, s]
    out = [r * s for r, s in zip(reps, shape)]
    return _mt().broadcast_to(A.reshape(inter), big).reshape(out)


def repeat(a, repeats, axis=None):
    a = astensor(a)
    if not isinstance(repeats, (int, np.integer)):
        if np.ndim(repeats) == 0:
            repeats = int(np.asarray(repeats))
        else:
            raise NotImplementedError("phobos: repeat with a repeat count per element is not supported; give one count")
    r = operator.index(repeats)
    if r < 0:
        raise ValueError("negative dimensions are not allowed")
    if axis is None:
        a, axis = a.ravel(), 0
    axis = _norm_axis(axis, a.ndim)
    shape = list(a.shape)
    inter = shape[:axis + 1] + [1] + shape[axis + 1:]
    big = shape[:axis + 1] + [r] + shape[axis + 1:]
    out = shape[:axis] + [shape[axis] * r] + shape[axis + 1:]
    return _mt().broadcast_to(a.reshape(inter), big).reshape(out)


def roll(a, shift, axis=None):
    mt = _mt()
    a = astensor(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts = (shift,) * len(axes) if isinstance(shift, (int, np.integer)) else tuple(shift)
    if len(shifts) != len(axes):
        if len(axes) == 1:
            axes = axes * len(shifts)
        elif len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = {}
    for s, ax in zip(shifts, axes):
        ax = _norm_axis(ax, a.ndim)
        total[ax] = total.get(ax, 0) + operator.index(s)
    for ax, s in total.items():
        n = a.shape[ax]
        if n == 0:
            continue
        s %= n
        if s:
            a = mt.concatenate([_take_slice(a, ax, slice(n - s, None)), _take_slice(a, ax, slice(0, n - s))], axis=ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    mt = _mt()
    m = astensor(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return mt.flip(mt.flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return mt.transpose(mt.flip(m, axes[1]), order)
    return mt.flip(mt.transpose(m, order), axes[1])


# splitting -------------------------------------------------------------------------


def array_split(ary, indices_or_sections, axis=0):
    a = astensor(ary)
    axis = _norm_axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extras = divmod(n, sections)
        sizes = [each + 1] * extras + [each] * (sections - extras)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    return [_take_slice(a, axis, slice(bounds[i], bounds[i + 1])) for i in range(len(bounds) - 1)]


def split(ary, indices_or_sections, axis=0):
    a = astensor(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        n = a.shape[_norm_axis(axis, a.ndim)]
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


# triangles, diagonals, grids ---------------------------------------------------------


def _tri_mask(N, M, k):
    mt = _mt()
    i = mt.arange(N).reshape(N, 1)
    j = mt.arange(M).reshape(1, M)
    return mt.greater_equal(i + operator.index(k), j)


def tri(N, M=None, k=0, dtype=float):
    M = N if M is None else M
    return _tri_mask(operator.index(N), operator.index(M), k).astype(_dtype_name(dtype))


def tril(m, k=0):
    mt = _mt()
    m = astensor(m)
    if m.ndim < 2:
        raise NotImplementedError("phobos: tril of a tensor of fewer than 2 dimensions")
    mask = _tri_mask(m.shape[-2], m.shape[-1], k)
    return mt.where(mask, m, mt.zeros((), dtype=m.dtype))


def triu(m, k=0):
    mt = _mt()
    m = astensor(m)
    if m.ndim < 2:
        raise NotImplementedError("phobos: triu of a tensor of fewer than 2 dimensions")
    mask = _tri_mask(m.shape[-2], m.shape[-1], k - 1)
    return mt.where(mask, mt.zeros((), dtype=m.dtype), m)


def diagonal(a, offset=0, axis1=0, axis2=1):
    mt = _mt()
    a = astensor(a)
    if a.ndim != 2 or {_norm_axis(axis1, 2), _norm_axis(axis2, 2)} != {0, 1}:
        raise NotImplementedError("phobos: diagonal of a 2-d tensor over its two axes only")
    if _norm_axis(axis1, 2) == 1:
        a, offset = a.T, -offset
    R, C = a.shape
    k = operator.index(offset)
    eye = mt.eye(R, C, k=k, dtype="bool")
    picked = mt.where(eye, a, mt.zeros((), dtype=a.dtype))
    if k >= 0:
        n = builtins.max(0, builtins.min(R, C - k))
        s = mt.sum(picked, axis=1)[:n]
    else:
        n = builtins.max(0, builtins.min(C, R + k))
        s = mt.sum(picked, axis=0)[:n]
    return s.astype(a.dtype)


def diag(v, k=0):
    mt = _mt()
    v = astensor(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    k = operator.index(k)
    n = v.shape[0] + abs(k)
    pad = mt.zeros((abs(k),), dtype=v.dtype)
    vj = mt.concatenate([pad, v] if k >= 0 else [v, pad])
    return mt.where(mt.eye(n, n, k=k, dtype="bool"), vj.reshape(1, n), mt.zeros((), dtype=v.dtype))


def diagflat(v, k=0):
    return diag(astensor(v).ravel(), k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    a = astensor(a)
    return _mt().sum(diagonal(a, offset, axis1, axis2), dtype=dtype, out=out)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    mt = _mt()
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [astensor(x).ravel() for x in xi]
    ndim = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * ndim
        shape[i] = x.shape[0]
        out.append(x.reshape(shape))
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape([1, -1] + [1] * (ndim - 2)) if ndim >= 2 else out[0]
        out[1] = out[1].reshape([-1, 1] + [1] * (ndim - 2))
    if not sparse:
        shape = np.broadcast_shapes(*[o.shape for o in out])
        out = [mt.broadcast_to(o, shape) for o in out]
    return out


def indices(dimensions, dtype=int, sparse=False):
    mt = _mt()
    dims = tuple(operator.index(d) for d in dimensions)
    n = len(dims)
    dt = _dtype_name(dtype)
    res = []
    for i, d in enumerate(dims):
        shape = [1] * n
        shape[i] = d
        idx = mt.arange(d, dtype=dt).reshape(shape)
        res.append(idx if sparse else mt.broadcast_to(idx, dims))
    if sparse:
        return tuple(res)
    return mt.stack(res, axis=0) if res else mt.zeros((0,), dtype=dt)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    mt = _mt()
    if axis != 0:
        raise NotImplementedError("phobos: logspace(axis != 0)")
    y = mt.linspace(start, stop, num=num, endpoint=endpoint)
    r = mt.power(float(base), y)
    return r if dtype is None else r.astype(dtype)


def broadcast_arrays(*args, subok=False):
    mt = _mt()
    ts = [astensor(a) for a in args]
    shape = np.broadcast_shapes(*[t.shape for t in ts])
    return [t if t.shape == shape else mt.broadcast_to(t, shape) for t in ts]


broadcast_shapes = np.broadcast_shapes


# products and statistics ------------------------------------------------------------


def inner(a, b):
    mt = _mt()
    a, b = astensor(a), astensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return mt.multiply(a, b)
    return mt.tensordot(a, b, axes=([-1], [-1]))


def vdot(a, b):
    return _mt().dot(astensor(a).ravel(), astensor(b).ravel())


def kron(a, b):
    mt = _mt()
    a, b = astensor(a), astensor(b)
    nd = builtins.max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    inter_a, inter_b, out = [], [], []
    for sa, sb in zip(a.shape, b.shape):
        inter_a += [sa, 1]
        inter_b += [1, sb]
        out.append(sa * sb)
    return mt.multiply(a.reshape(inter_a), b.reshape(inter_b)).reshape(out)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    mt = _mt()
    a, b = astensor(a), astensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        if a.shape[-1] in (2, 3) and b.shape[-1] in (2, 3):
            raise NotImplementedError("phobos: cross of 2-vectors")
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = mt.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


def sinc(x):
    mt = _mt()
    x = astensor(x)
    y = np.pi * mt.where(x == 0, 1.0e-20, x)
    return mt.sin(y) / y


def select(condlist, choicelist, default=0):
    mt = _mt()
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [astensor(c) for c in choicelist]
    rt = np.result_type(*[c.dtype for c in choices], np.asarray(default).dtype if not isinstance(default, Tensor) else default.dtype)
    result = mt.full((), default, dtype=rt.name) if not isinstance(default, Tensor) else default.astype(rt.name)
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        cond = astensor(cond)
        if cond.dtype != np.bool_:
            raise TypeError(f"invalid entry in condlist: should be boolean ndarray")
        result = mt.where(cond, choice.astype(rt.name), result)
    return result


NAMES = [
    "copy", "asfarray", "diff", "ediff1d", "trapz", "moveaxis", "swapaxes", "rollaxis",
    "atleast_3d", "column_stack", "dstack", "append", "tile", "repeat", "roll", "rot90", "array_split",
    "split", "hsplit", "vsplit", "dsplit", "tri", "tril", "triu", "diagonal", "diag", "diagflat", "trace",
    "meshgrid", "indices", "logspace", "broadcast_arrays", "broadcast_shapes", "inner", "vdot", "kron",
    "cross", "sinc", "select",
]
