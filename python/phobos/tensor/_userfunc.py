"""Users' own functions on chunks, as Dask and Mars spell them:
map_blocks, blockwise, map_overlap, Tensor.map_chunk and vectorize
(apply_gufunc is in _gufunc.py, from_array and store in _store.py, all on
this module's _blockwise). The function is pickled with cloudpickle and runs on the
workers, in the Python executors beside each one (docs/user-functions.md);
everything here only plans: the inputs' chunks are lined up with rechunks,
the output's chunks and dtype computed, and one `user_blocks` call made.
"""

import base64
import inspect
import math
import numbers
import operator

import numpy as np

from .._blockfn import BlockFn, Lengths
from ._core import Tensor, call, astensor

# The cluster's bound on a pickled function (ops.MaxUserPayload).
MAX_PAYLOAD = 4 << 20


def _has_keyword(func, name):
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _label(func):
    name = getattr(func, "__name__", None) or type(func).__name__
    return name if name != "<lambda>" else "lambda"


def _payload(fn):
    try:
        import cloudpickle
    except ImportError as e:  # pragma: no cover - Debian's python3-cloudpickle
        raise ImportError("phobos: user functions need cloudpickle (apt-get install python3-cloudpickle)") from e
    b = cloudpickle.dumps((fn, (), {}, True, True))
    if len(b) > MAX_PAYLOAD:
        raise ValueError(f"phobos: the pickled function is {len(b)} bytes, over the limit of {MAX_PAYLOAD}: "
                         "pass large data as arrays, not in the function's closure")
    return base64.b64encode(b).decode()


def _boundaries(splits):
    out, pos = [0], 0
    for c in splits:
        pos += c
        out.append(pos)
    return out


def _unify(arrays, inds):
    """Dask's unify_chunks: each index's chunks become the common
    refinement of the arrays' chunks along it (arrays of length 1 there
    broadcast); returns the chunks per index and the rechunked arrays."""
    lengths, bounds = {}, {}
    for a, ind in zip(arrays, inds):
        for ax, i in enumerate(ind):
            n = a.shape[ax]
            if n == 1 and len(a.nsplits[ax]) == 1:
                lengths.setdefault(i, 1)
                continue
            if lengths.get(i, 1) not in (1, n):
                raise ValueError(f"Shapes do not align: {dict((k, v) for k, v in lengths.items())} vs {i}: {n}")
            lengths[i] = n
            bounds.setdefault(i, set()).update(_boundaries(a.nsplits[ax]))
    chunks = {}
    for i, n in lengths.items():
        b = sorted(bounds.get(i, {0, n}))
        chunks[i] = tuple(b[k + 1] - b[k] for k in range(len(b) - 1)) or (n,)
    out = []
    for a, ind in zip(arrays, inds):
        want = []
        for ax, i in enumerate(ind):
            if a.shape[ax] == 1 and lengths[i] != 1:
                want.append((1,))
            else:
                want.append(chunks[i])
        want = tuple(want)
        out.append(a if tuple(a.nsplits) == want else a.rechunk(want))
    return chunks, out


def _infer_dtype(func, arrays, spec, kwargs, fname):
    """Dask's apply_infer_dtype: the function called on tiny arrays of the
    inputs' dtypes in the client."""
    blocks = [np.ones((1,) * a.ndim, dtype=a.dtype) for a in arrays]
    bit = iter(blocks)
    full = [next(bit) if is_block else v for is_block, v in spec]
    try:
        res = func(*full, **kwargs)
    except Exception as e:
        import traceback
        tb = "".join(traceback.format_exception_only(type(e), e)).strip()
        raise ValueError(f"`dtype` inference failed in `{fname}`.\n\n"
                         "Please specify the dtype explicitly using the `dtype` kwarg.\n\n"
                         f"Original error is below:\n------------------------\n{tb}") from None
    return np.asarray(res).dtype


def _dtype_name(dt):
    return np.dtype(dt).name


def blockwise(func, out_ind, *args, name=None, token=None, dtype=None, adjust_chunks=None, new_axes=None,
              align_arrays=True, concatenate=None, meta=None, **kwargs):
    """dask.array.blockwise: func on the blocks of arrays lined up by index
    letters; an index absent from out_ind is contracted (its blocks
    concatenated, as Dask's concatenate=True does)."""
    if len(args) % 2:
        raise ValueError("blockwise takes (array, index) pairs after out_ind")
    pairs = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
    return _blockwise(func, tuple(out_ind), pairs, dtype=dtype, adjust_chunks=adjust_chunks, new_axes=new_axes,
                      kwargs=kwargs, fname="blockwise", meta=meta, aligned=not align_arrays)


def _blockwise(func, out_ind, pairs, dtype=None, adjust_chunks=None, new_axes=None, kwargs=None,
               fname="blockwise", meta=None, trim=None, out_chunks=None, index_first=False, aligned=False):
    kwargs = dict(kwargs or {})
    new_axes = dict(new_axes or {})
    spec, arrays, inds = [], [], []
    for a, ind in pairs:
        if ind is None:
            spec.append((False, a))
            continue
        a = astensor(a)
        ind = tuple(ind)
        if len(ind) != a.ndim:
            raise ValueError(f"Index string {ind} does not match array dimension {a.ndim}")
        spec.append((True, None))
        arrays.append(a)
        inds.append(ind)
    if not arrays:
        raise ValueError(f"phobos: {fname} needs at least one array")
    if aligned:
        # The caller lined the blocks up (map_overlap's arrays, each
        # extended by its own depth): same grids, blocks as they are.
        chunks = {}
        for a, ind in zip(arrays, inds):
            for ax, i in enumerate(ind):
                if i not in chunks or (len(chunks[i]) == 1 and len(a.nsplits[ax]) > 1):
                    chunks[i] = tuple(a.nsplits[ax])
    else:
        chunks, arrays = _unify(arrays, inds)
    # Contracted indices: the function sees them whole (one chunk).
    for k, (a, ind) in enumerate(zip(arrays, inds)):
        if any(i not in out_ind for i in ind):
            want = tuple((a.shape[ax],) if i not in out_ind else tuple(a.nsplits[ax]) for ax, i in enumerate(ind))
            if tuple(a.nsplits) != want:
                arrays[k] = a.rechunk(want)
    for i in out_ind:
        if i not in chunks and i not in new_axes:
            raise ValueError(f"phobos: output index {i!r} is neither an input's nor in new_axes")
    nsplits = []
    for i in out_ind:
        if i in new_axes:
            n = new_axes[i]
            nsplits.append(tuple(n) if isinstance(n, (tuple, list)) else (operator.index(n),))
        else:
            nsplits.append(tuple(chunks[i]))
    if adjust_chunks:
        for i, adj in adjust_chunks.items():
            if i not in out_ind:
                continue
            k = out_ind.index(i)
            if callable(adj):
                nsplits[k] = tuple(adj(c) for c in nsplits[k])
            elif isinstance(adj, numbers.Integral):
                nsplits[k] = (int(adj),) * len(nsplits[k])
            else:
                adj = tuple(adj)
                if len(adj) != len(nsplits[k]):
                    raise ValueError("Dimension {0} has {1} blocks, adjust_chunks specified with {2} blocks".format(
                        i, len(nsplits[k]), len(adj)))
                nsplits[k] = adj
    unknown = None
    if out_chunks is not None:
        nsplits, unknown = _bounded(out_chunks, out_ind, chunks, fname)
    for a, ind in zip(arrays, inds):
        if None in a._shape:
            # An input of unknown length (a filter's result): the output
            # axis it lines up with is of unknown length too, bounded as
            # the input's blocks are.
            k = a._shape.index(None)
            if ind[k] in out_ind:
                u = out_ind.index(ind[k])
                if unknown not in (None, u):
                    raise NotImplementedError(f"phobos: {fname} with chunks of unknown length along more than one "
                                              f"axis (axes {unknown} and {u}): Phobos tracks one such axis")
                unknown = u
    want = tuple(k for k in ("block_id", "block_info") if _has_keyword(func, k))
    if dtype is None:
        if meta is not None:
            dtype = getattr(meta, "dtype", None)
        if dtype is None:
            dtype = _infer_dtype(func, arrays, spec, kwargs, fname)
    wrapped = BlockFn(func, spec, kwargs, want, trim=trim, index_first=index_first)
    in_axes = [[out_ind.index(i) if i in out_ind else -1 for i in ind] for ind in inds]
    return call("user_blocks", arrays, _payload(wrapped), _label(func), _dtype_name(dtype),
                [list(s) for s in nsplits], in_axes,
                block_id=bool(want) or trim is not None or index_first, block_info="block_info" in want,
                unknown=unknown)


def _is_unknown(c):
    return c is None or (isinstance(c, float) and math.isnan(c))


def _bounded(out_chunks, out_ind, chunks, fname):
    """The output's chunks, where Dask's NaN lengths (or None) become
    bounds: the lengths of the input blocks along the same index, which a
    block's actual length may fall short of; and the one axis of unknown
    length, or None."""
    nsplits, unknown = [], None
    for k, c in enumerate(out_chunks):
        c = tuple(c)
        if not any(_is_unknown(v) for v in c):
            nsplits.append(tuple(int(v) for v in c))
            continue
        if unknown is not None:
            raise NotImplementedError(f"phobos: {fname} with chunks of unknown length along more than one axis "
                                      f"(axes {unknown} and {k}): Phobos tracks one such axis")
        unknown = k
        src = chunks.get(out_ind[k])
        if src is None or len(src) != len(c):
            raise ValueError(f"phobos: {fname}: chunks of unknown length along output axis {k} must line up with an "
                             f"input's blocks along it (their lengths bound the function's blocks); got chunks={c}")
        nsplits.append(tuple(int(b) if _is_unknown(v) else int(v) for v, b in zip(c, src)))
    return nsplits, unknown



def map_blocks(func, *args, name=None, token=None, dtype=None, chunks=None, drop_axis=None, new_axis=None,
               enforce_ndim=False, meta=None, **kwargs):
    """dask.array.map_blocks: func on each block of the arrays among args
    (lined up from their last axes, chunks unified by rechunking: Dask
    2022.12 hands blocks of other lengths over as they are); other
    arguments are passed as they are."""
    if not callable(func):
        raise TypeError("First argument must be callable function, not {}\n"
                        "Usage:   da.map_blocks(function, x)\n"
                        "   or:   da.map_blocks(function, x, y, z)".format(type(func).__name__))
    arrs = [a for a in args if isinstance(a, Tensor)]
    if not arrs:
        raise ValueError("phobos: map_blocks needs at least one tensor among its arguments")
    nd = max(a.ndim for a in arrs)
    if drop_axis is None:
        drop_axis = []
    elif isinstance(drop_axis, numbers.Integral):
        drop_axis = [drop_axis]
    drop_axis = sorted(int(d) % nd if nd else int(d) for d in drop_axis)
    if new_axis is None:
        new_axis = []
    elif isinstance(new_axis, numbers.Integral):
        new_axis = [new_axis]
    out_ind = [i for i in range(nd) if i not in drop_axis]
    n_out = len(out_ind) + len(new_axis)
    new_labels = {}
    for k, ax in enumerate(sorted(int(a) % n_out for a in new_axis)):
        label = nd + k
        out_ind.insert(ax, label)
        new_labels[label] = 1
    pairs = [(a, tuple(range(nd - a.ndim, nd))) if isinstance(a, Tensor) else (a, None) for a in args]
    out_chunks = None
    if chunks is not None:
        if len(chunks) != len(out_ind):
            raise ValueError(f"Provided chunks have {len(chunks)} dims; expected {len(out_ind)} dims")
        # The grid is the inputs'; chunks says each block's length.
        base = _blockwise_grid(pairs, out_ind, new_labels)
        out_chunks = []
        for c, nb in zip(chunks, base):
            if isinstance(c, numbers.Integral) or _is_unknown(c):
                out_chunks.append((c,) * nb)
            else:
                c = tuple(c)
                if len(c) != nb and nb != 1:
                    raise ValueError(f"Provided chunks {c} do not match the {nb} blocks of that axis")
                out_chunks.append(c)
        for label in new_labels:
            k = out_ind.index(label)
            new_labels[label] = out_chunks[k]
    return _blockwise(func, tuple(out_ind), pairs, dtype=dtype, new_axes=new_labels, kwargs=kwargs,
                      fname="map_blocks", meta=meta, out_chunks=out_chunks)


def _blockwise_grid(pairs, out_ind, new_labels):
    grid = {}
    for a, ind in pairs:
        if ind is None:
            continue
        for ax, i in enumerate(ind):
            grid[i] = max(grid.get(i, 1), len(_unify_splits(a, ax)))
    return [grid.get(i, 1) if i not in new_labels else 1 for i in out_ind]


def _unify_splits(a, ax):
    return a.nsplits[ax]


def _coerce_depth(ndim, depth):
    if isinstance(depth, numbers.Integral):
        depth = (depth,) * ndim
    if isinstance(depth, tuple):
        depth = dict(zip(range(ndim), depth))
    out = {}
    for ax in range(ndim):
        d = depth.get(ax, 0) if isinstance(depth, dict) else 0
        if isinstance(d, tuple):
            raise NotImplementedError("phobos: map_overlap with asymmetric depths")
        out[ax] = int(d)
    return out


def _coerce_boundary(ndim, boundary):
    if boundary is None:
        boundary = "none"
    if not isinstance(boundary, (tuple, dict)):
        boundary = (boundary,) * ndim
    if isinstance(boundary, tuple):
        boundary = dict(zip(range(ndim), boundary))
    return {ax: boundary.get(ax, "none") for ax in range(ndim)}


def _min_chunks(size, chunks):
    """Chunks of at least size each, the blocks Dask's overlap makes when
    it may rechunk (so that functions see the same blocks): a chunk
    shorter than size joins the run of chunks before it, or, when that run
    can spare it, takes what it lacks from the run's end."""
    if size <= min(chunks):
        return tuple(chunks)
    out, run = [], 0
    for c in chunks:
        if c < size:
            lack = size - c
            if run > size + lack:
                out.append(run - lack)
                run = size
            else:
                run += c
        if run >= size:
            out.append(run)
            run = 0
        if c >= size:
            run += c
    if run >= size:
        out.append(run)
    elif out:
        out[-1] += run
    else:
        raise ValueError(f"The overlapping depth {size} is larger than your array {sum(chunks)}.")
    return tuple(out)


def _extend(x, ax, d, bnd):
    """x with each chunk along ax extended by d elements of its neighbours,
    or of the boundary at the array's ends (Dask's 'reflect' mirrors the
    edge element too, 'periodic' wraps, 'nearest' repeats the edge, a
    number is a constant; 'none' extends nothing there), and the extended
    chunks' lengths along ax. The pieces are views and one concatenate
    lines them up; the caller's one rechunk, over every extended axis at
    once, joins each block with its borders (one copy per block, which
    the worker writes straight into its executor's shared memory), so
    only borders move between workers."""
    from . import concatenate, flip, full
    splits = x.nsplits[ax]
    starts = _boundaries(splits)
    n = x.shape[ax]

    def part(lo, hi):
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(lo, hi)
        return x[tuple(idx)]

    def edge(left):
        if bnd == "reflect":
            return flip(part(0, d) if left else part(n - d, n), axis=ax)
        if bnd == "periodic":
            return part(n - d, n) if left else part(0, d)
        if bnd == "nearest":
            e = part(0, 1) if left else part(n - 1, n)
            return concatenate([e] * d, axis=ax)
        shape = list(x.shape)
        shape[ax] = d
        return full(tuple(shape), bnd, dtype=x.dtype)

    pieces, chunks = [], []
    last = len(splits) - 1
    for b in range(len(splits)):
        lo, hi = starts[b], starts[b + 1]
        size = hi - lo
        if b > 0:
            pieces.append(part(lo - d, lo))
            size += d
        elif bnd != "none":
            pieces.append(edge(True))
            size += d
        pieces.append(part(lo, hi))
        if b < last:
            pieces.append(part(hi, hi + d))
            size += d
        elif bnd != "none":
            pieces.append(edge(False))
            size += d
        chunks.append(size)
    return concatenate(pieces, axis=ax), tuple(chunks)


def map_overlap(func, *args, depth=None, boundary=None, trim=True, align_arrays=True, allow_rechunk=True,
                **kwargs):
    """dask.array.map_overlap: func on each block extended by depth
    elements of its neighbours (boundary 'reflect', 'periodic', 'nearest',
    'none' or a constant at the array's edges), the extension trimmed from
    each result block when trim."""
    if isinstance(func, Tensor):
        func, args = args[0], (func,) + tuple(args[1:])
    if not callable(func):
        raise TypeError("First argument must be callable function, not {}\n"
                        "Usage:   da.map_overlap(function, x)\n"
                        "   or:   da.map_overlap(function, x, y, z)".format(type(func).__name__))
    if not all(isinstance(x, Tensor) for x in args):
        raise TypeError("All variadic arguments must be arrays, not {}\n"
                        "Usage:   da.map_overlap(function, x)\n"
                        "   or:   da.map_overlap(function, x, y, z)".format([type(x).__name__ for x in args]))
    xs = list(args)

    def per_array(arg, coerce):
        # One setting for every array, or a list of one per array (Dask's).
        if not isinstance(arg, list):
            arg = [arg] * len(xs)
        return [coerce(x.ndim, a) for x, a in zip(xs, arg)]

    depths = per_array(depth if depth is not None else 0, _coerce_depth)
    bnds = per_array(boundary, _coerce_boundary)
    nd = max(x.ndim for x in xs)
    inds = [tuple(range(nd - x.ndim, nd)) for x in xs]  # lined up from their last axes
    if align_arrays and len(xs) > 1:
        _, xs = _unify(xs, inds)
    if all(d == 0 for ds in depths for d in ds.values()):
        return map_blocks(func, *xs, **kwargs)
    # Chunks at least as long as the deepest overlap along each index, for
    # every array that is not broadcast along it.
    need = {}
    for x, ind, ds in zip(xs, inds, depths):
        for ax, i in enumerate(ind):
            if ds[ax] and min(x.nsplits[ax]) < ds[ax]:
                if not allow_rechunk:
                    raise ValueError("Overlap depth is larger than smallest chunksize.\n"
                                     "Please set allow_rechunk=True to rechunk automatically.\n"
                                     f"Overlap depths required: {list(ds.values())}\n"
                                     f"Input chunks: {tuple(x.nsplits)}\n")
                need[i] = max(need.get(i, 0), ds[ax])
    for k, (x, ind) in enumerate(zip(xs, inds)):
        splits = [tuple(s) if i not in need or (x.shape[ax] == 1 and len(xs) > 1) else _min_chunks(need[i], s)
                  for ax, (i, s) in enumerate(zip(ind, x.nsplits))]
        if tuple(splits) != tuple(x.nsplits):
            xs[k] = x.rechunk(tuple(splits))
    ys = []
    for x, ds, bs in zip(xs, depths, bnds):
        y, want = x, [tuple(s) for s in x.nsplits]
        for ax, d in ds.items():
            if d:
                y, want[ax] = _extend(y, ax, d, bs[ax])
        ys.append(y.rechunk(tuple(want)) if y is not x else y)
    # The output is trimmed by the depth and boundary of the array of the
    # highest rank (the first of them), as Dask's is.
    top = max(range(len(xs)), key=lambda k: (xs[k].ndim, -k))
    x = xs[top]
    if trim:
        tr = [(depths[top][ax], bnds[top][ax] != "none", len(x.nsplits[ax])) for ax in range(x.ndim)]
        out_chunks = [tuple(s) for s in x.nsplits]
    else:
        tr, out_chunks = None, [tuple(s) for s in ys[top].nsplits]
    ind = tuple(range(nd))
    return _blockwise(func, ind, list(zip(ys, inds)), dtype=kwargs.pop("dtype", None), kwargs=kwargs,
                      fname="map_overlap", meta=kwargs.pop("meta", None), trim=tr, out_chunks=out_chunks,
                      aligned=True)


def map_chunk(t, func, args=(), kwargs=None, elementwise=None, dtype=None, with_chunk_index=False):
    """Mars's Tensor.map_chunk: func(chunk, *args, **kwargs) on each chunk
    (with_chunk_index: func(chunk_index, chunk, ...)). With elementwise,
    each output chunk has its input chunk's shape; without, the output's
    length along the first axis is known only once computed (Mars's
    unknown shape; Phobos tracks one such axis, so the other axes keep
    the input chunk's lengths), and a chunk may be at most as long as its
    input chunk along it."""
    t = astensor(t)
    spec = [(True, None)] + [(False, a) for a in args]
    ind = tuple(range(t.ndim))
    if dtype is None:
        dtype = _infer_dtype(func if not with_chunk_index else (lambda *a, **k: func(ind, *a, **k)),
                             [t], spec, kwargs or {}, "map_chunk")
    out_chunks = None
    if not elementwise and t.ndim:
        out_chunks = [(math.nan,) * len(t.nsplits[0])] + [tuple(s) for s in t.nsplits[1:]]
    return _blockwise(func, ind, [(t, ind)] + [(a, None) for a in args], dtype=dtype, kwargs=kwargs,
                      fname="map_chunk", index_first=with_chunk_index, out_chunks=out_chunks)


def _known_blocks(t):
    """t, a user_blocks call with an output axis of unknown length, as the
    same call with that axis's lengths known: the function runs once on
    the cluster to tell each block's length (one number per block comes
    back; the blocks stay), as Dask's compute_chunk_sizes does; it runs
    again when the value is computed. None for any other tensor."""
    if t._fn != "user_blocks" or t._kwargs.get("unknown") is None:
        return None
    import cloudpickle
    arrays, payload, label, _, nsplits, in_axes = t._args[:6]
    ax = t._kwargs["unknown"]
    fn = cloudpickle.loads(base64.b64decode(payload))
    ones = [[1] * len(s) for s in nsplits]
    kw = {k: v for k, v in t._kwargs.items() if k in ("block_id", "block_info", "paths")}
    lens = call("user_blocks", arrays, _payload(Lengths(fn[0], ax, len(nsplits))), label, "int64", ones, in_axes,
                **kw).fetch()
    lengths = []
    for b in range(lens.shape[ax]):
        slab = np.take(lens, b, axis=ax)
        if slab.size and (slab != slab.flat[0]).any():
            raise ValueError(f"phobos: {label} returned blocks of lengths {sorted(set(slab.flat))} along axis {ax} "
                             f"in block row {b}: the blocks of one row must agree")
        lengths.append(int(slab.flat[0]) if slab.size else 0)
    known = [list(s) for s in nsplits]
    known[ax] = lengths
    kwargs = {k: v for k, v in t._kwargs.items() if k != "unknown"}
    return call("user_blocks", arrays, payload, label, *t._args[3:4], known, in_axes, *t._args[6:], **kwargs)


def compute_chunk_sizes(t):
    """Dask's compute_chunk_sizes: t's lengths of unknown size computed
    (the function runs once on the cluster to tell them) and given to t in
    place; returns t."""
    from ._core import _resolve
    _resolve(t)
    return t


def vectorize(pyfunc=None, otypes=None, doc=None, excluded=None, cache=False, signature=None):
    """numpy.vectorize over tensors: the vectorized function runs block by
    block on the workers (apply_gufunc with a signature, map_blocks
    without); usable as a decorator."""
    if pyfunc is None:
        return lambda f: vectorize(f, otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
    vf = np.vectorize(pyfunc, otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
    dtype = np.dtype(otypes[0]) if otypes else None

    def apply(*args):
        if signature is not None:
            from ._gufunc import apply_gufunc
            return apply_gufunc(vf, signature, *args, output_dtypes=dtype)
        ts = [astensor(a) if isinstance(a, (Tensor, np.ndarray)) else a for a in args]
        return map_blocks(vf, *ts, dtype=dtype)

    apply.__name__ = getattr(pyfunc, "__name__", "vectorized")
    apply.__doc__ = vf.__doc__
    return apply
