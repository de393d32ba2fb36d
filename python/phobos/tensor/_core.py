"""Lazy tensors: each is a call of a function of the cluster's registry
(GET /api/functions) on earlier tensors and plain values. Shapes and dtypes
come from the cluster, which checks every call when it is made, so the
client holds no rules of its own about promotion or shapes."""

import base64
import contextvars
import functools
import inspect
import io
import math
import operator
import sys
import weakref

import numpy as np

from .. import session as _session
from .. import _held
from . import _infer

SUPPORTED_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64", "complex64", "complex128")
_SUPPORTED = ", ".join(SUPPORTED_DTYPES)
# np.dtype(name) of each, without parsing the name again for every tensor
_DTYPE_OF = {name: np.dtype(name) for name in SUPPORTED_DTYPES}

# Whether a length known only once computed (a boolean mask's selection,
# nonzero, unique_*) is computed when the shape is read, for code written
# for eager arrays (the Array API standard lets a lazy array say None):
# True within phobos.tensor.resolve_shapes(), False within
# resolve_shapes(False), and None (the default) for "while scikit-learn's
# array_api_dispatch is on", so that scikit-learn's natural code, which
# compares such lengths with numbers, runs unchanged.
RESOLVE_SHAPES = contextvars.ContextVar("phobos_resolve_shapes", default=None)


def _resolving():
    mode = RESOLVE_SHAPES.get()
    if mode is not None:
        return mode
    sk = sys.modules.get("sklearn")
    if sk is None:
        return False
    try:
        return bool(sk.get_config().get("array_api_dispatch"))
    except Exception:  # an odd or half-imported scikit-learn: no opinion
        return False


def _default_session():
    return _session.get_default_session()


def _dtype_name(dt):
    if dt is None:
        return None
    if isinstance(dt, str) and dt in SUPPORTED_DTYPES:
        return dt
    try:
        name = np.dtype(dt).name
    except TypeError as e:
        raise TypeError(f"phobos: {dt!r} is not a dtype") from e
    if name not in SUPPORTED_DTYPES:
        raise TypeError(f"phobos: dtype {name} is not supported ({_SUPPORTED} are)")
    return name


def _chunks(chunks):
    """chunks as the cluster takes them: None, an integer, a list per axis
    (-1: whole axis), a list of lists of sizes, or {"bytes": N}."""
    if chunks is None or chunks == "auto":
        return None
    if isinstance(chunks, (int, np.integer)):
        return int(chunks)
    if isinstance(chunks, dict):
        return {"bytes": int(chunks["bytes"])}
    out = []
    for c in chunks:
        if isinstance(c, (tuple, list)):
            out.append([int(x) for x in c])
        elif c is None:
            out.append(-1)
        else:
            out.append(int(c))
    return out


def takes_chunk_size(f):
    """f, which takes chunks=, also takes chunk_size=: Mars's name for the
    same argument (chunks= is Dask's and NumPy-style code's), with the
    same meaning and the same errors. Giving both is a TypeError, as an
    argument given twice is."""
    if getattr(f, "_takes_chunk_size", False):
        return f
    sig = inspect.signature(f)
    if "chunks" not in sig.parameters:
        raise TypeError(f"phobos: {f.__name__} takes no chunks argument")
    if "chunk_size" in sig.parameters:
        return f
    kind = sig.parameters["chunks"].kind
    # chunks given positionally: the number of positional arguments that reaches it
    pos = list(sig.parameters).index("chunks") + 1 \
        if kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) else None
    name = f.__name__

    @functools.wraps(f)
    def g(*args, **kw):
        if "chunk_size" in kw:
            value = kw.pop("chunk_size")
            if "chunks" in kw or (pos is not None and len(args) >= pos):
                raise TypeError(f"{name}() got both chunks and chunk_size, two names of one argument "
                                "(Dask's and Mars's): give one")
            kw["chunks"] = value
        return f(*args, **kw)

    # help() and inspect show both names
    params = list(sig.parameters.values())
    at = len(params) - (params[-1].kind == inspect.Parameter.VAR_KEYWORD if params else 0)
    params.insert(at, inspect.Parameter("chunk_size", inspect.Parameter.KEYWORD_ONLY, default=None))
    g.__signature__ = sig.replace(parameters=params)
    g._takes_chunk_size = True
    return g


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [operator.index(d) for d in shape]


class Tensor:
    """A lazy n-dimensional array on a Phobos cluster. Operations build new
    tensors; execute() computes, fetch() and np.asarray() return NumPy arrays."""

    __slots__ = ("_fn", "_args", "_kwargs", "_data", "_chunks", "_inputs", "_shape", "_dtype",
                 "_value", "_nsplits", "_held", "_users", "_digest", "__weakref__")
    __array_priority__ = 100

    def __init__(self):
        raise TypeError("phobos: make tensors with phobos.tensor functions (mt.tensor, mt.ones, ...)")

    @classmethod
    def _make(cls, fn=None, args=(), kwargs=None, data=None, chunks=None, meta=None):
        t = object.__new__(cls)
        t._fn, t._args, t._kwargs = fn, tuple(args), dict(kwargs or {})
        t._data, t._chunks = data, chunks
        t._digest = None
        t._value = None
        t._nsplits = None
        t._held = None
        ins = []
        _collect(t._args, ins)
        if t._kwargs:
            _collect(t._kwargs.values(), ins)
        t._inputs = ins
        t._users = None
        if meta is None:
            try:
                meta = _describe_new(t)
            except ValueError as e:
                # the op needs a length known only once computed (the
                # cluster's UnknownShapeError): when resolving, the
                # inputs get known shapes and the op is described again
                if "axis of unknown length" not in str(e) or not _resolving() or \
                        not any(None in x._shape for x in ins):
                    raise
                for x in ins:
                    _resolve(x)
                meta = _describe_new(t)
        for x in ins:
            _add_user(x, t)
        # -1: an axis whose length is known only once computed (a boolean
        # mask's selection); the Array API spells it None
        shape = meta["shape"]
        t._shape = tuple(None if d == -1 else d for d in shape) if -1 in shape else tuple(shape)
        dt = meta["dtype"]
        t._dtype = _DTYPE_OF.get(dt) or np.dtype(dt)
        return t

    # metadata -------------------------------------------------------------
    @property
    def shape(self):
        """The shape; None for an axis whose length is known only once the
        tensor is computed (it is known after execute())."""
        if None in self._shape:
            if self._value is not None:
                return self._value.shape
            if _resolving():
                _resolve(self)
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        """The number of elements; None while a length is unknown."""
        shape = self.shape
        return None if None in shape else math.prod(shape)

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        n = self.size
        return None if n is None else n * self._dtype.itemsize

    @property
    def nsplits(self):
        """The chunk sizes along each axis."""
        if self._nsplits is None:
            nodes, roots = _program([self], None, like=True)
            m = _default_session()._json("POST", "/api/describe",
                                         {"program": {"nodes": nodes}, "nodes": roots, "nsplits": True})
            self._nsplits = tuple(tuple(s) for s in m["nodes"][0].get("nsplits") or ())
        return self._nsplits

    @property
    def chunk_shape(self):
        return tuple(len(s) for s in self.nsplits)

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of unsized object")
        if shape[0] is None:
            raise TypeError("len() of a tensor whose length is known only once computed; execute() it first")
        return shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        n = self.shape[0]
        if n is None:
            raise TypeError("iteration over a tensor whose length is known only once computed; execute() it first")
        for i in range(n):
            yield self[i]

    # computing ------------------------------------------------------------
    def execute(self, session=None, **kw):
        """Computes the tensor; returns it, its value kept (print shows it)."""
        return (session or _session.get_default_session()).execute(self, **kw)

    def persist(self, session=None, **kw):
        """Computes the tensor and keeps its chunks on the cluster (Dask's
        persist): graphs built on it start from them. Returns the tensor;
        its chunks are released when it is collected, or by release()."""
        return (session or _default_session()).persist(self, **kw)

    def release(self):
        """Lets the cluster free the chunks this tensor holds (persist,
        execute)."""
        _held.release([self])

    def fetch(self, session=None, **kw):
        """The value as a NumPy array, computed when it was not yet (Mars
        fetches only computed tensors)."""
        if self._value is None:
            self.execute(session, **kw)
        return self._value

    def to_numpy(self, session=None, **kw):
        """Mars's t.to_numpy(), t.execute().fetch(): the value as a NumPy
        array, computed when it was not yet."""
        return self.fetch(session, **kw)

    def __array__(self, dtype=None, copy=None):
        if self._value is None and "xarray" in sys.modules:
            from ._duck import hidden_conversion
            hidden_conversion(self)
        v = self.fetch()
        return v if dtype is None else v.astype(dtype)

    def tolist(self):
        return self.fetch().tolist()

    def _scalar(self, conv):
        if self.size != 1:
            if conv is bool:
                raise ValueError("The truth value of an array with more than one element is ambiguous. "
                                 "Use a.any() or a.all()")
            raise TypeError(f"only size-1 arrays can be converted to Python scalars (shape {self._shape})")
        if self._value is None:
            extra = _small_boundary(self)
            hold = _held_on_way(self)
            if extra or hold:
                _default_session().execute(self, *extra, _hold=hold)
        return conv(self.fetch().reshape(()))

    def __bool__(self):
        return self._scalar(bool)

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __index__(self):
        if not np.issubdtype(self._dtype, np.integer):
            raise TypeError("only integer tensors can be used as an index")
        return self._scalar(int)

    def __repr__(self):
        if self._value is not None:
            return repr(self._value[()] if self._value.ndim == 0 else self._value)
        what = self._fn or "data"
        return f"Tensor <{what}, shape={self._shape}, dtype={self._dtype.name}>"

    def __str__(self):
        if self._value is not None:
            return str(self._value[()] if self._value.ndim == 0 else self._value)
        return repr(self)

    __hash__ = object.__hash__

    def __copy__(self):
        return _new_handle(self)

    def __deepcopy__(self, memo):
        """A new handle on the same node: a tensor's value never changes
        (in-place syntax rebinds a handle), so a deep copy shares its data
        and its inputs, as copy.copy does; copying the client data of a
        tensor made from NumPy would upload it again."""
        return _new_handle(self)

    # NumPy interoperability -------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from . import _ufunc_dispatch
        return _ufunc_dispatch(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from . import _function_dispatch
        return _function_dispatch(func, args, kwargs)


# The fields that make a tensor's node (what it computes); _rebind moves them.
_NODE = ("_fn", "_args", "_kwargs", "_data", "_chunks", "_inputs", "_shape", "_dtype", "_value", "_nsplits", "_held",
         "_digest")


def _new_handle(t):
    """A handle of its own on t's node (same value, same inputs)."""
    h = object.__new__(Tensor)
    for f in _NODE:
        setattr(h, f, getattr(t, f))
    h._users = None
    for x in h._inputs:
        _add_user(x, h)
    return h


def _swap(v, old, new):
    if v is old:
        return new
    if isinstance(v, list):
        return [_swap(x, old, new) for x in v]
    if isinstance(v, tuple):
        return tuple(_swap(x, old, new) for x in v)
    return v


def _add_user(x, t):
    # Weak references keyed by id: a WeakSet would compare tensors with ==,
    # which is elementwise here.
    if x._users is None:
        x._users = {}
    x._users[id(t)] = weakref.ref(t)


def _users_of(x):
    out = []
    for r in list((x._users or {}).values()):
        u = r()
        if u is not None:
            out.append(u)
    return out


def _drop_user(x, t):
    if x._users is not None:
        r = x._users.get(id(t))
        if r is not None and r() is t:
            del x._users[id(t)]


def _rebind(t, new):
    """In-place syntax on immutable tensors (x[k] = v, x += 1, np.put):
    the handle t takes new's node, so every name bound to t sees the new
    value, while tensors built from t before keep the value they were
    built on (NumPy evaluates them before the assignment): they are moved
    onto a copy of t's old node."""
    if new._shape != t._shape:
        raise ValueError(f"phobos: in-place result has shape {new._shape}, not the tensor's {t._shape}")
    old = object.__new__(Tensor)
    for f in _NODE:
        setattr(old, f, getattr(t, f))
    old._users = None
    for u in _users_of(t):
        u._args = _swap(u._args, t, old)
        u._kwargs = {k: _swap(v, t, old) for k, v in u._kwargs.items()}
        u._inputs = [old if x is t else x for x in u._inputs]
        if u is not new:
            _add_user(old, u)
    for x in old._inputs:  # old now uses t's inputs in t's place
        _drop_user(x, t)
        _add_user(x, old)
    for f in _NODE:
        setattr(t, f, getattr(new, f))
    t._users = None
    for x in t._inputs:
        _drop_user(x, new)
        _add_user(x, t)
    return t


def _resolve(t):
    """Gives t, a tensor with an axis of unknown length, a known shape in
    place, without changing its value: its data stays on the cluster
    where it can. A boolean mask's selection x[m] becomes the selection of
    the rows that count_nonzero(m) (one number fetched) says there are;
    a tensor built on such inputs is built again on them once resolved;
    any other (nonzero, unique_*) is computed and takes its value."""
    if None not in t._shape:
        return
    if t._value is not None:
        new = from_numpy(t._value)
    elif any(None in x._shape for x in t._inputs):
        for x in t._inputs:
            _resolve(x)
        new = Tensor._make(t._fn, t._args, t._kwargs)
        _resolve(new)  # an op of data-dependent length of its own
    else:
        new = _known_selection(t)
        if new is None:
            from ._userfunc import _known_blocks
            new = _known_blocks(t)
        if new is None:
            new = from_numpy(t.fetch())
    _become(t, new)


def _known_selection(t):
    """x[m, ...] (m boolean, on x's leading axes) as x's rows at the
    positions of m's True elements, now that their number n is known: the
    k-th of them is where the running count of m first reaches k
    (searchsorted of 1..n in cumsum(m)). None for any other tensor."""
    if t._fn != "getitem" or len(t._args) != 2:
        return None
    x, items = t._args
    if not isinstance(items, (list, tuple)) or not items:
        return None
    m, rest = items[0], list(items[1:])
    if not isinstance(m, Tensor) or m._dtype != np.bool_ or not isinstance(x, Tensor) or m.ndim > x.ndim:
        return None
    if any(not isinstance(r, (int, dict)) for r in rest):  # ints and slices after the mask only
        return None
    from . import count_nonzero, cumsum, searchsorted, arange, take, reshape
    n = int(count_nonzero(m).fetch())
    k = m.ndim
    flat = m if k == 1 else reshape(m, (-1,))
    idx = searchsorted(cumsum(flat, dtype="int64"), arange(1, n + 1, dtype="int64"), side="left")
    rows = x if k == 1 else reshape(x, (-1,) + tuple(x._shape[k:]))
    sel = take(rows, idx, axis=0)
    if rest:
        sel = call("getitem", sel, [{"slice": [None, None, None]}] + rest)
    return sel


def _become(t, new):
    """t takes new's node (the same value, a known shape); tensors built
    on t keep t."""
    for x in t._inputs:
        _drop_user(x, t)
    for f in _NODE:
        setattr(t, f, getattr(new, f))
    for x in t._inputs:
        _drop_user(x, new)
        _add_user(x, t)


def _collect(vals, out):
    for v in vals:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            _collect(v, out)


def _encode(v, ref):
    """A call argument as JSON: tensors by reference."""
    if isinstance(v, Tensor):
        return {"ref": ref(v)}
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, (complex, np.complexfloating)):
        # the graph JSON's complex number
        z = complex(v)
        return {"real": _encode(z.real, ref), "imag": _encode(z.imag, ref)}
    if isinstance(v, (list, tuple)):
        return _encode_all(v, ref)
    if v is None or isinstance(v, (str, dict)):
        return v
    raise TypeError(f"phobos: cannot pass {type(v).__name__} {v!r} to the cluster")


# The types whose values _encode returns as they are.
_AS_IS = frozenset((int, bool, str, type(None)))


def _encode_all(vals, ref):
    """[_encode(v, ref) for v in vals], tensors and plain values done here."""
    out = []
    for v in vals:
        if isinstance(v, Tensor):
            out.append({"ref": ref(v)})
        elif type(v) in _AS_IS:
            out.append(v)
        else:
            out.append(_encode(v, ref))
    return out


# A scalar read (bool(t), int(t), t as an index) computes along with t the
# small tensors on its way that are computed from large ones: code that
# reads scalars step by step (scikit-learn's ranks, in a fit that goes on
# from them) then builds on their values, sent as data, instead of
# computing the large part again for each read.
_SMALL = 1 << 16
_MAX_EXTRA = 64


def _small(x):
    return None not in x._shape and math.prod(x._shape) * x._dtype.itemsize <= _SMALL


def _known_small(t):
    """t was computed and is small: a program sends its value."""
    return t._fn is not None and t._value is not None and t._value.nbytes <= _SMALL


def _small_boundary(root):
    """The uncomputed small tensors among root's ancestors that have a
    large (or not yet sized) input, at most _MAX_EXTRA of them."""
    out, seen, stack = [], {id(root)}, [root]
    while stack and len(out) < _MAX_EXTRA:
        t = stack.pop()
        for x in t._inputs:
            if id(x) in seen or x._value is not None or x._held is not None:
                continue
            seen.add(id(x))
            if x._fn is not None and _small(x) and any(not _small(y) for y in x._inputs):
                out.append(x)
                # the call's other small outputs (a decomposition's Vt
                # beside its S): later reads take them too
                if "out" in x._kwargs:
                    for u in _users_of(x._inputs[0]):
                        if id(u) not in seen and u._value is None and u._held is None and _small(u) and _same_call(u, x):
                            seen.add(id(u))
                            out.append(u)
            stack.append(x)
    return out[:_MAX_EXTRA]


# Summaries of unknown length (unique's values and counts, a
# decomposition's factors of a tall matrix) that a scalar read computes
# from a large input are kept on the cluster along with the read, with
# the other outputs of the same call: the code reading scalars step by
# step (scikit-learn's priors checks, then its class means) goes on from
# them, and a later graph reads their chunks instead of computing them
# again. Selections by a mask are not kept: they can be as large as
# their input.
_SUMMARY_FNS = ("unique", "linalg.")


def _summary(x):
    return x._fn is not None and x._fn.startswith(_SUMMARY_FNS) and None in x._shape


def _same_call(a, b):
    """a and b are outputs of one call (its out= apart)."""
    if a._fn != b._fn or len(a._args) != len(b._args):
        return False
    if any(x is not y and (isinstance(x, Tensor) or isinstance(y, Tensor) or x != y) for x, y in zip(a._args, b._args)):
        return False
    ka = {k: v for k, v in a._kwargs.items() if k != "out"}
    kb = {k: v for k, v in b._kwargs.items() if k != "out"}
    return ka.keys() == kb.keys() and all(not isinstance(v, Tensor) and v == kb[k] for k, v in ka.items())


def _held_on_way(root):
    """The uncomputed summaries of unknown length among root's ancestors
    that have a large input, with their sibling outputs, at most
    _MAX_EXTRA of them."""
    out, seen, stack = [], {id(root)}, [root]
    while stack and len(out) < _MAX_EXTRA:
        t = stack.pop()
        for x in t._inputs:
            if id(x) in seen or x._value is not None or x._held is not None:
                continue
            seen.add(id(x))
            stack.append(x)
            if not _summary(x) or not any(None not in y._shape and not _small(y) for y in x._inputs):
                continue
            out.append(x)
            for u in _users_of(x._inputs[0]):
                if id(u) not in seen and u._value is None and u._held is None and _same_call(u, x):
                    seen.add(id(u))
                    out.append(u)
    return out[:_MAX_EXTRA]


def _node(t, ref, session, like, uploads=None):
    if not like and _known_small(t):
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(t._value), allow_pickle=False)
        return {"data": base64.b64encode(buf.getvalue()).decode(), "chunks": None}
    if not like and t._held is not None:
        n = _held.node(t, session)
        if n is not None:
            return n
    if t._fn is None:
        if like:
            return {"like": {"shape": _like_shape(t), "dtype": _infer.dtype_name(t._dtype), "chunks": t._chunks}}
        arr = t._data
        if session is not None and arr.nbytes > _session.INLINE_LIMIT:
            # the data is the tensor's own and never changes (from_numpy):
            # its content is hashed once, not at every graph
            if t._digest is None:
                t._digest = _session._content_key(arr)
            elif uploads is not None:
                # its second graph: it is read by more than one, so that
                # graph keeps its chunks on the workers (_held) and later
                # graphs name them instead of reading the upload again
                uploads.append(t)
            return session._upload(arr, t._chunks, t._digest)
        buf = io.BytesIO()
        np.save(buf, arr, allow_pickle=False)
        return {"data": base64.b64encode(buf.getvalue()).decode(), "chunks": t._chunks}
    n = {"fn": t._fn}
    if t._args:
        n["args"] = _encode_all(t._args, ref)
    if t._kwargs:
        n["kwargs"] = {k: _encode(v, ref) for k, v in t._kwargs.items()}
    return n


def _program(roots, session, uploads=None, like=False):
    """The program computing roots (each tensor once), and the node of each
    root. Iterative: deep chains of operations are fine. uploads, a list,
    gets the client data tensors read again (see _node) and their nodes,
    as (tensor, node) pairs."""
    index = {}
    nodes = []

    def ref(t):
        return index[id(t)]

    for root in roots:
        if id(root) in index:
            continue
        stack = [(root, 0)]
        seen = {id(root)}
        while stack:
            t, i = stack[-1]
            # a computed small tensor is sent as data, a held one by its
            # chunks: their inputs are not needed
            if i < len(t._inputs) and (like or not (_known_small(t) or _held.node(t, session))):
                stack[-1] = (t, i + 1)
                child = t._inputs[i]
                if id(child) not in index and id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
                continue
            stack.pop()
            if id(t) not in index:
                again = [] if uploads is not None else None
                nodes.append(_node(t, ref, session, like, again))
                index[id(t)] = len(nodes) - 1
                if again:
                    uploads.append((t, len(nodes) - 1))
    return nodes, [index[id(r)] for r in roots]


Tensor._phobos_program = staticmethod(_program)


def _like_shape(t):
    return [-1 if d is None else d for d in t._shape]


def _describe_new(t):
    """The shape and dtype of a new call: inferred here for the common
    calls (_infer), else checked by the cluster, its inputs travelling as
    their metadata alone."""
    meta = _infer.infer(t._fn, t._args, t._kwargs)
    if meta is not None:
        return meta
    nodes = []
    index = {}
    for x in t._inputs:
        if id(x) not in index:
            index[id(x)] = len(nodes)
            nodes.append({"like": {"shape": _like_shape(x), "dtype": _infer.dtype_name(x._dtype)}})
    me = Tensor.__new__(Tensor)
    me._fn, me._args, me._kwargs = t._fn, t._args, t._kwargs
    nodes.append(_node(me, lambda x: index[id(x)], None, True))
    return _default_session()._describe(nodes)


def call(fn, *args, **kwargs):
    """A new tensor: the cluster's function fn on args (None kwargs are left out)."""
    for k, v in tuple(kwargs.items()):  # (kwargs is this call's own dict)
        if v is None:
            del kwargs[k]
    return Tensor._make(fn, args, kwargs)


def from_numpy(arr, chunks=None):
    arr = np.asarray(arr)
    name = arr.dtype.name
    if name not in SUPPORTED_DTYPES:
        raise TypeError(f"phobos: dtype {name} is not supported ({_SUPPORTED} are)")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    else:
        # The tensor's value is the array's value now, as np.array(x)
        # copies: later changes to the caller's array are not seen, and
        # the tensor's read-only copy is hashed once when uploaded.
        arr = arr.copy(order="K")
    arr.flags.writeable = False
    ch = _chunks(chunks)
    t = Tensor._make(data=arr, chunks=ch, meta={"shape": arr.shape, "dtype": arr.dtype.name})
    if ch is not None:
        # the cluster checks the chunks now, as it would any call
        _default_session()._describe([_node(t, None, None, True)])
    return t


_PY_SCALARS = frozenset((bool, int, float, complex))


def operand(x):
    """A call operand: tensors and Python numbers pass as they are (numbers
    keep NumPy's weak promotion), NumPy arrays and lists become tensors."""
    if isinstance(x, Tensor) or type(x) in _PY_SCALARS:
        return x
    # (a NumPy scalar is 0-d, as a Python number is)
    if isinstance(x, (bool, int, float, complex, np.generic)):
        if isinstance(x, np.generic) and x.dtype.name not in SUPPORTED_DTYPES:
            raise TypeError(f"phobos: dtype {x.dtype.name} is not supported")
        return x.item() if isinstance(x, np.generic) else x
    return from_numpy(x)


def astensor(x):
    if isinstance(x, Tensor):
        return x
    return from_numpy(x)
