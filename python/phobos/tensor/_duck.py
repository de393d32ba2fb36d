"""NumPy functions that duck-array libraries (xarray) call on a tensor
through __array_function__ beyond phobos.tensor's NumPy names, each kept on
the cluster: result_type (by dtype, never by value), sliding_window_view
(as shifted slices stacked on a new last axis: xarray's rolling),
gradient (weighted slices: xarray's differentiate), and the guard that
makes a library's hidden conversion of a tensor to NumPy loud. Also what
phobos.tensor's own functions do for xarray's calls: einsum's '...'
spelled out, and long client index arrays sent in pieces.

xarray 2023.01 reaches a tensor through __array_namespace__ (where,
concat, stack, astype, isnan, reductions) and __array_function__ (the
rest); docs/xarray.md lists what stays on the cluster."""

import math
import operator
import sys
import warnings

import numpy as np

from ._core import Tensor, astensor, call, from_numpy


def _mt():
    from .. import tensor
    return tensor


class ComputeWarning(UserWarning):
    """A library converted a tensor to NumPy on its own: the tensor was
    computed and fetched whole into the client."""


def result_type(*arrays_and_dtypes):
    """numpy.result_type with tensors counted by their dtype (as arrays of
    that dtype with dimensions: a tensor's value is not known, so NumPy
    1.24's value-based rule for 0-d arrays does not apply to it); NumPy
    arrays, scalars and dtypes as NumPy counts them."""
    args = [np.empty((0,), dtype=x.dtype) if isinstance(x, Tensor) else x for x in arrays_and_dtypes]
    return np.result_type(*args)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """numpy.lib.stride_tricks.sliding_window_view: for each axis in axis,
    the windows of its length along it, as a new last axis. A view in
    NumPy; here each window offset i is the slice x[i:n-w+1+i] along the
    axis, the w slices stacked: w times x's data, on the cluster."""
    x = astensor(x)
    shapes = (window_shape,) if isinstance(window_shape, (int, np.integer)) else tuple(window_shape)
    shapes = tuple(operator.index(w) for w in shapes)
    if axis is None:
        axes = tuple(range(x.ndim))
        if len(shapes) != x.ndim:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                             f"got {len(shapes)} window_shape elements and `x.ndim` is {x.ndim}.")
    else:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        axes = tuple(np.core.numeric.normalize_axis_index(operator.index(a), x.ndim) for a in axes)
        if len(shapes) != len(axes):
            raise ValueError(f"Must provide matching length window_shape and axis; got {len(shapes)} "
                             f"window_shape elements and {len(axes)} axes elements.")
    if any(w < 0 for w in shapes):
        raise ValueError("`window_shape` cannot contain negative values")
    mt = _mt()
    out = x
    for ax, w in zip(axes, shapes):
        n = out.shape[ax]
        if n < w:
            raise ValueError("window shape cannot be larger than input array shape")
        m = n - w + 1
        lead = [{"slice": [None, None, None]}] * ax
        parts = [call("getitem", out, lead + [{"slice": [i, i + m, None]}]) for i in range(w)]
        out = mt.stack(parts, axis=out.ndim)
    return out


def _along(x, axis, start, stop):
    lead = [{"slice": [None, None, None]}] * axis
    return call("getitem", x, lead + [{"slice": [start, stop, None]}])


def _spacing_shape(ndim, axis, n):
    shape = [1] * ndim
    shape[axis] = n
    return shape


def _gradient_axis(f, axis, h, edge_order):
    """The derivative of f along axis by central differences inside and
    one-sided ones at the two ends (of first or second order), for sample
    spacing h: a number, or the coordinates (a NumPy array) of the
    samples. The weights are computed in the client from the spacing;
    the sums of weighted slices of f are the cluster's."""
    mt = _mt()
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                         "elements are required.")
    if np.ndim(h) == 0:
        d = np.full(n - 1, float(h))
        uniform = True
    else:
        coords = np.asarray(h, dtype=np.float64)
        if coords.shape != (n,):
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        d = np.diff(coords)
        uniform = bool(np.all(d == d[0]))

    def w(v):
        return mt.asarray(np.asarray(v, dtype=np.float64).reshape(_spacing_shape(f.ndim, axis, np.size(v))))

    s = lambda a, b: _along(f, axis, a, b)  # noqa: E731
    parts = []
    if uniform:
        lo_end = (s(1, 2) - s(0, 1)) / d[0] if edge_order == 1 else             (-1.5 / d[0]) * s(0, 1) + (2.0 / d[0]) * s(1, 2) + (-0.5 / d[0]) * s(2, 3)
        parts.append(lo_end)
        if n > 2:
            parts.append((s(2, None) - s(None, -2)) / (2.0 * d[0]))
        hi_end = (s(n - 1, n) - s(n - 2, n - 1)) / d[-1] if edge_order == 1 else             (0.5 / d[-1]) * s(n - 3, n - 2) + (-2.0 / d[-1]) * s(n - 2, n - 1) + (1.5 / d[-1]) * s(n - 1, n)
        parts.append(hi_end)
    else:
        if edge_order == 1:
            parts.append((s(1, 2) - s(0, 1)) / d[0])
        else:
            h1, h2 = d[0], d[1]
            parts.append(-(2.0 * h1 + h2) / (h1 * (h1 + h2)) * s(0, 1) + (h1 + h2) / (h1 * h2) * s(1, 2)
                         - h1 / (h2 * (h1 + h2)) * s(2, 3))
        if n > 2:
            h1, h2 = d[:-1], d[1:]
            a = -h2 / (h1 * (h1 + h2))
            b = (h2 - h1) / (h1 * h2)
            c = h1 / (h2 * (h1 + h2))
            parts.append(w(a) * s(None, -2) + w(b) * s(1, -1) + w(c) * s(2, None))
        if edge_order == 1:
            parts.append((s(n - 1, n) - s(n - 2, n - 1)) / d[-1])
        else:
            h1, h2 = d[-2], d[-1]
            parts.append(h2 / (h1 * (h1 + h2)) * s(n - 3, n - 2) - (h2 + h1) / (h1 * h2) * s(n - 2, n - 1)
                         + (2.0 * h2 + h1) / (h2 * (h1 + h2)) * s(n - 1, n))
    return mt.concatenate(parts, axis=axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """numpy.gradient on the cluster: spacing a number or the coordinates
    of the samples (NumPy arrays in the client) per axis; the result has
    f's floating dtype (float64 for integers), one tensor per axis (a list
    for several)."""
    f = astensor(f)
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if axis is None:
        axes = list(range(f.ndim))
    else:
        axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        axes = [np.core.numeric.normalize_axis_index(operator.index(a), f.ndim) for a in axes]
    if not varargs:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if any(isinstance(h, Tensor) for h in spacing):
        raise NotImplementedError("phobos: gradient with tensor spacing; give the coordinates as NumPy arrays")
    x = f if f.dtype.kind in "fc" else f.astype("float64")
    out = []
    for ax, h in zip(axes, spacing):
        g = _gradient_axis(x, ax, h, edge_order)
        out.append(g if g.dtype == x.dtype else g.astype(x.dtype))
    return out[0] if len(out) == 1 else out



# einsum's ellipsis (xarray's dot and weighted reductions write it) -------------------------------


def einsum_ellipsis(subscripts, ops):
    """subscripts with each '...' replaced by letters the subscripts do not
    use (the last ones of the broadcast ellipsis shape, right-aligned as
    NumPy aligns them), and ops broadcast to that shape over them."""
    ins, arrow, outs = subscripts.partition("->")
    terms = ins.split(",")
    if len(terms) != len(ops):
        raise ValueError(f"einsum: {len(terms)} operands in the subscripts, {len(ops)} given")
    shapes = []
    for term, x in zip(terms, ops):
        if term.count("...") > 1:
            raise ValueError("einsum: an operand with more than one ellipsis")
        n = x.ndim - len(term.replace("...", "")) if "..." in term else 0
        if n < 0:
            raise ValueError(f"einsum: operand of {x.ndim} dimensions for subscripts {term!r}")
        shapes.append(tuple(x.shape[term.index("..."):term.index("...") + n]) if "..." in term else ())
    ell = np.broadcast_shapes(*shapes)
    used = set(subscripts)
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
    if len(free) < len(ell):
        raise ValueError("einsum: too many dimensions under the ellipsis")
    letters = "".join(free[:len(ell)])
    new_terms, new_ops = [], []
    for term, x, sh in zip(terms, ops, shapes):
        if "..." not in term:
            new_terms.append(term)
            new_ops.append(x)
            continue
        i = term.index("...")
        mine = letters[len(ell) - len(sh):] if sh else ""
        if sh != ell[len(ell) - len(sh):]:
            # size-1 axes broadcast to the ellipsis shape's lengths
            target = tuple(x.shape[:i]) + ell[len(ell) - len(sh):] + tuple(x.shape[i + len(sh):])
            x = _mt().broadcast_to(x, target)
        new_terms.append(term.replace("...", mine))
        new_ops.append(x)
    if arrow:
        out = outs.replace("...", letters)
    else:
        # implicit output: the ellipsis, then the letters used once, sorted
        flat = "".join(t.replace("...", "") for t in terms)
        out = letters + "".join(sorted(c for c in set(flat) if flat.count(c) == 1))
    return ",".join(new_terms) + "->" + out, new_ops


# gathers ------------------------------------------------------------------------------------


# A client index array gathering more than this many bytes of a tensor is
# sent in pieces, so that the gather's result is in as many chunks (each
# worker gathers a part) rather than one.
_GATHER_CHUNK_BYTES = 8 << 20


def chunk_index(x, items):
    """items with a large client index array (1-d integers, the only array
    of the key, no Ellipsis before it) chunked to about _GATHER_CHUNK_BYTES
    of x's rows each; the value of x[key] is the same."""
    arrays = [i for i, it in enumerate(items) if isinstance(it, Tensor)]
    if len(arrays) != 1 or "..." in items[:arrays[0]] or None in x._shape:
        return items
    k = arrays[0]
    ind = items[k]
    if ind._fn is not None or ind._chunks is not None or ind.ndim != 1 or ind.dtype.kind not in "iu":
        return items
    axis = sum(1 for it in items[:k] if it is not None)
    if axis >= x.ndim:
        return items
    row = x.dtype.itemsize * math.prod(d for i, d in enumerate(x._shape) if i != axis)
    per = max(1, _GATHER_CHUNK_BYTES // max(row, 1))
    if ind._shape[0] <= per:
        return items
    out = list(items)
    out[k] = from_numpy(ind._data, chunks=per)
    return out


def dispatch_table():
    """The NumPy functions above, keyed by NumPy's function objects."""
    return {np.result_type: result_type, np.lib.stride_tricks.sliding_window_view: sliding_window_view,
            np.gradient: gradient}


# conversions to NumPy ------------------------------------------------------------------------

# The xarray functions through which a user asks for NumPy values
# (DataArray.values, .to_numpy(), np.asarray(da), the repr): a tensor
# fetched there is what was asked for. Any other xarray function that
# converts a tensor does it for an operation that cannot stay lazy.
_ASKED = {"_as_array_or_item", "to_numpy", "values", "__array__", "data", "item", "tolist", "__float__",
          "__int__", "__bool__", "__complex__", "__index__"}


def hidden_conversion(t):
    """Warns (ComputeWarning) when a tensor is converted to NumPy by xarray
    for an operation of its own rather than by the user asking for values:
    the operation computed in the client."""
    f = sys._getframe(2)
    depth = 0
    while f is not None and depth < 40:
        mod = f.f_globals.get("__name__", "")
        if mod.startswith("xarray."):
            if f.f_code.co_name in _ASKED or mod == "xarray.core.formatting":
                return
            warnings.warn(f"phobos: xarray's {f.f_code.co_name} ({mod}) converts a tensor of shape {t._shape} to "
                          "NumPy: it is computed and fetched whole into the client", ComputeWarning, stacklevel=3)
            return
        f = f.f_back
        depth += 1
