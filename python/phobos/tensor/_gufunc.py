"""dask.array.apply_gufunc on the users'-function call (_userfunc's
_blockwise): signatures, axes=/axis=/keepdims= as Dask checks them, and
functions of several outputs run once per block (their outputs packed as
bytes, then taken apart)."""

import math
import numbers

import numpy as np

from .._blockfn import Packed, Unpack
from ._core import astensor
from ._userfunc import _blockwise

_DIM = r"\w+"
_ARG = r"\((?:{0}(?:,{0})*)?\)".format(_DIM)
_ARGS = r"{0}(?:,{0})*".format(_ARG)
_SIGNATURE = r"^{0}->{0},?$".format(_ARGS)  # a trailing comma: a tuple of one output


def _parse_signature(signature):
    """The core dimensions of each input, and of the output (a tuple) or of
    each output (a list, for a function returning a tuple)."""
    import re
    if not isinstance(signature, str):
        raise TypeError("`signature` has to be of type string")
    sig = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, sig):
        raise ValueError(f"Not a valid gufunc signature: {sig}")
    left, right = sig.split("->")
    ins = [tuple(re.findall(_DIM, a)) for a in re.findall(r"\([^()]*\)", left)]
    outs = [tuple(re.findall(_DIM, a)) for a in re.findall(r"\([^()]*\)", right)]
    if len(outs) == 1 and not right.endswith(","):
        return ins, outs[0]
    return ins, outs


def _gufunc_axes(axes, axis, keepdims, core_in, core_out):
    """Where each input's core dimensions are, and where each output's go
    (axes=, axis=, keepdims=), checked as Dask checks them; core_out is a
    list (one entry per output)."""
    nin, nout = len(core_in), len(core_out)
    if axes is not None and axis is not None:
        raise ValueError("Only one of `axis` or `axes` keyword arguments should be given")
    if axes and not isinstance(axes, list):
        raise ValueError("`axes` has to be of type list")
    with_core = [c for c in core_in if c]
    if keepdims:
        if any(core_out):
            raise ValueError("`keepdims` can only be used for scalar outputs")
        core_out = [with_core[0] if with_core else ()] * nout
    every = list(core_in) + list(core_out)
    if axis is not None:
        if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
            raise ValueError("`axis` argument has to be an integer value")
        if with_core:
            if len(with_core[0]) != 1:
                raise ValueError("`axis` can be used only, if one core dimension is present")
            if any(c != with_core[0] for c in with_core):
                raise ValueError("To use `axis`, all core dimensions have to be equal")
    if axes is None:
        axes = [(axis,) if c else () for c in every] if axis is not None else \
            [tuple(range(-len(c), 0)) for c in every]
    elif not isinstance(axes, list):
        raise ValueError("`axes` argument has to be a list")
    axes = [(a,) if isinstance(a, numbers.Integral) else tuple(a) for a in axes]
    if len(axes) != nin + nout and (any(core_out) or len(axes) != nin):
        raise ValueError("The number of `axes` entries is not equal the number of input and output arguments")
    in_axes = axes[:nin]
    out_axes = axes[nin:] or [tuple(range(-len(c), 0)) for c in core_out]
    for k, (ax, c) in enumerate(zip(in_axes, core_in)):
        if len(ax) != len(c):
            raise ValueError(f"The number of `axes` entries for argument #{k} is not equal the number of respective "
                             "input core dimensions in signature")
    if keepdims:
        if any(c != core_in[0] for c in core_in):
            raise ValueError("To use `keepdims`, all core dimensions have to be equal")
        out_axes = [in_axes[0]] * nout
    else:
        for k, (ax, c) in enumerate(zip(out_axes, core_out)):
            if len(ax) != len(c):
                raise ValueError(f"The number of `axes` entries for argument #{k} is not equal the number of "
                                 "respective output core dimensions in signature")
    return in_axes, out_axes, core_out


def _gufunc_dtypes(func, arrays, core_in, nout, kwargs):
    """apply_gufunc's output dtypes found as Dask finds them: the function
    called in the client on arrays of one element per axis."""
    blocks = [np.ones((1,) * a.ndim, dtype=a.dtype) for a in arrays]
    try:
        res = func(*blocks, **kwargs)
    except Exception as e:
        import traceback
        tb = "".join(traceback.format_exception_only(type(e), e)).strip()
        raise ValueError("`dtype` inference failed in `apply_gufunc`.\n\n"
                         "Please specify the dtype explicitly using the `output_dtypes` kwarg.\n\n"
                         f"Original error is below:\n------------------------\n{tb}") from None
    if nout is None:
        return np.asarray(res).dtype
    return [np.asarray(r).dtype for r in res]


def apply_gufunc(func, signature, *args, axes=None, axis=None, keepdims=False, output_dtypes=None,
                 output_sizes=None, vectorize=None, allow_rechunk=False, meta=None, **kwargs):
    """dask.array.apply_gufunc: a generalized ufunc, the core dimensions
    whole in each block (a chunked core dimension is refused unless
    allow_rechunk), the loop dimensions blockwise; a tuple of tensors for
    a signature of several outputs (each computed by its own call of the
    function per block); axes=, axis= and keepdims= move the core
    dimensions as Dask does."""
    core_in, core_out = _parse_signature(signature)
    nout = len(core_out) if isinstance(core_out, list) else None
    outs = core_out if nout is not None else [core_out]
    if meta is not None and output_dtypes is not None:
        raise ValueError("Only one of `meta` and `output_dtypes` should be given (`meta` is preferred).")
    if meta is not None:
        output_dtypes = [m.dtype for m in meta] if isinstance(meta, (list, tuple)) else meta.dtype
    if len(core_in) != len(args):
        raise ValueError("According to `signature`, `func` requires %d arguments, but %s given"
                         % (len(core_in), len(args)))
    arrays = [astensor(a) for a in args]
    in_axes, out_axes, outs = _gufunc_axes(axes, axis, keepdims, core_in, outs)
    # The core dimensions last, where the function finds them.
    for k, (a, ax) in enumerate(zip(arrays, in_axes)):
        nd = a.ndim
        norm = tuple(x % nd if nd else x for x in ax)
        order = tuple(i for i in range(nd) if i not in norm) + norm
        if order != tuple(range(nd)):
            arrays[k] = a.transpose(order)
    if output_dtypes is None:
        probe = np.vectorize(func, signature=signature) if vectorize else func
        output_dtypes = _gufunc_dtypes(probe, arrays, core_in, nout, kwargs)
    if nout is None:
        if isinstance(output_dtypes, (list, tuple)):
            if len(output_dtypes) != 1:
                raise ValueError("For a function with one output, must give a single item for "
                                 "`output_dtypes`/`meta`, not a tuple or list.")
            output_dtypes = output_dtypes[0]
        dtypes = [np.dtype(output_dtypes)]
    else:
        if not isinstance(output_dtypes, (list, tuple)):
            raise ValueError(f"For a function with {nout} outputs, must give a tuple or list for "
                             "`output_dtypes`/`meta`, not a single item.")
        if len(output_dtypes) != nout:
            raise ValueError(f"For a function with {nout} outputs, must give a tuple or list of {nout} items for "
                             f"`output_dtypes`/`meta`, not {len(output_dtypes)}.")
        dtypes = [np.dtype(d) for d in output_dtypes]
    if vectorize:
        func = np.vectorize(func, signature=signature, otypes=dtypes)
    sizes = dict(output_sizes or {})
    lengths = {}
    for a, c in zip(arrays, core_in):
        nl = a.ndim - len(c)
        for ax, name in enumerate(c):
            n = a.shape[nl + ax]
            if lengths.get(name, n) != n and 1 not in (n, lengths[name]):
                raise ValueError(f"Dimension `'{name}'` with different lengths in arrays")
            lengths[name] = max(lengths.get(name, n), n)
            if len(a.nsplits[nl + ax]) > 1 and not allow_rechunk:
                raise ValueError(f"Core dimension `'{name}'` consists of multiple chunks. To fix, rechunk into a single "
                                 f"chunk along this dimension or set `allow_rechunk=True`, but beware that this may "
                                 f"increase memory usage significantly.")
    loop_nd = max((a.ndim - len(c) for a, c in zip(arrays, core_in)), default=0)
    loop = tuple(f"__loop{i}" for i in range(loop_nd))
    pairs = [(a, loop[loop_nd - (a.ndim - len(c)):] + c) for a, c in zip(arrays, core_in)]
    cores = outs if not keepdims else [()] * len(outs)
    core_len = {}
    for ocd in cores:
        for name in ocd:
            if name in lengths:
                core_len[name] = lengths[name]  # whole in each block
            elif name in sizes:
                n = sizes[name]
                core_len[name] = int(n if isinstance(n, numbers.Integral) else sum(n))
            else:
                raise ValueError(f"Dimension `'{name}'` in the output signature is not an input's: "
                                 "give its length in `output_sizes`")
    packed, offsets = None, [0]
    if nout is not None:
        # Several outputs: the function runs once per block, its outputs
        # packed as bytes along a last axis, then each taken out.
        shapes = [tuple(core_len[n] for n in ocd) for ocd in cores]
        for shape, dt in zip(shapes, dtypes):
            offsets.append(offsets[-1] + math.prod(shape) * dt.itemsize)
        packed = _blockwise(Packed(func, [(shape, dt.name) for shape, dt in zip(shapes, dtypes)]),
                            loop + ("__packed",), pairs, dtype="uint8", new_axes={"__packed": (offsets[-1],)},
                            kwargs=kwargs, fname="apply_gufunc")
    results = []
    for k, (ocd, oax, dt) in enumerate(zip(cores, out_axes, dtypes)):
        new_axes = {name: (core_len[name],) for name in ocd}
        if packed is None:
            r = _blockwise(func, loop + ocd, pairs, dtype=dt, new_axes=new_axes, kwargs=kwargs, fname="apply_gufunc")
        else:
            r = _blockwise(Unpack(offsets[k], offsets[k + 1], [core_len[n] for n in ocd], dt.name), loop + ocd,
                           [(packed, loop + ("__packed",))], dtype=dt, new_axes=new_axes, fname="apply_gufunc")
        if keepdims:
            r = r[(Ellipsis,) + (None,) * len(oax)]
        nd = r.ndim
        # The output's core dimensions (last) moved to out_axes.
        order = [None] * nd
        for last, ax in zip(range(nd - len(oax), nd), oax):
            order[ax % nd] = last
        rest = iter(range(nd - len(oax)))
        order = [next(rest) if o is None else o for o in order]
        if order != list(range(nd)):
            r = r.transpose(order)
        results.append(r)
    return tuple(results) if nout is not None else results[0]
