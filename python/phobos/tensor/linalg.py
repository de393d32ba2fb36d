"""mt.linalg: what the engine's kernels give (norms, products)."""

import math
import operator

import numpy as np

from . import _core


def norm(x, ord=None, axis=None, keepdims=False):
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
