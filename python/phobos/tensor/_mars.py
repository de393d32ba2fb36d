"""Mars's names that NumPy lacks or spells otherwise, so that Mars programs
run with only their import line changed: chunk_size= beside chunks= on
every function that takes chunks (install), and mt.scalar, tree_add,
tree_multiply, ascontiguousarray and asfortranarray (mt.innerproduct,
mt.argtopk and mt.ExecutableTuple are with inner, topk and the session)."""

import functools
import inspect
import types

import numpy as np

from ._core import Tensor, astensor, from_numpy, takes_chunk_size

NAMES = ["scalar", "tree_add", "tree_multiply", "ascontiguousarray", "asfortranarray"]


def _mt():
    from phobos import tensor
    return tensor


def scalar(data, dtype=None, gpu=None):
    """Mars's mt.scalar: a 0-d tensor of a Python or NumPy scalar."""
    _cpu_only(gpu)
    arr = np.array(data, dtype=dtype)
    if arr.ndim != 0:
        raise ValueError(f"phobos: scalar takes a scalar, not an array of shape {arr.shape}")
    return from_numpy(arr)


def _tree(name, args):
    if not args:
        raise TypeError(f"{name}() takes at least one tensor")
    f = getattr(_mt(), "add" if name == "tree_add" else "multiply")
    terms = list(args)
    # pairwise, as a balanced tree: the sum of n terms is log2(n) deep
    while len(terms) > 1:
        terms = [f(terms[i], terms[i + 1]) if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
    return terms[0] if isinstance(terms[0], Tensor) else astensor(terms[0])


def tree_add(*args, combine_size=None, out=None, **kw):
    """Mars's mt.tree_add: the elementwise sum of its arguments (broadcast
    together), added pairwise."""
    _no_out("tree_add", out, kw)
    return _tree("tree_add", args)


def tree_multiply(*args, combine_size=None, out=None, **kw):
    """Mars's mt.tree_multiply: the elementwise product of its arguments."""
    _no_out("tree_multiply", out, kw)
    return _tree("tree_multiply", args)


def ascontiguousarray(a, dtype=None, like=None):
    """numpy.ascontiguousarray: a tensor has no memory layout of its own,
    so this is asarray (with at least one axis, as NumPy gives)."""
    t = _mt().asarray(a, dtype=dtype)
    return t.reshape(1) if t.ndim == 0 else t


def asfortranarray(a, dtype=None, like=None):
    """numpy.asfortranarray: as ascontiguousarray."""
    return ascontiguousarray(a, dtype=dtype)


def _no_out(name, out, kw):
    if out is not None:
        raise NotImplementedError(f"phobos: {name}(out=...): tensors are immutable; use the result")
    if kw:
        raise TypeError(f"{name}() got unexpected keyword arguments {sorted(kw)}")


def _cpu_only(gpu):
    if gpu:
        raise NotImplementedError("phobos: gpu=True: Phobos computes on CPUs only")


def _takes_chunks(f):
    if not callable(f) or isinstance(f, type) or getattr(f, "_takes_chunk_size", False):
        return False
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False
    return "chunks" in params and "chunk_size" not in params


def install(ns):
    """Gives every function of the namespace ns (a module's globals) that
    takes chunks= Mars's chunk_size= too: those wrapped after their
    definition (the Array API's asarray and full) included."""
    for name, f in list(ns.items()):
        if not name.startswith("_") and isinstance(f, (types.FunctionType, functools.partial)) and _takes_chunks(f):
            ns[name] = takes_chunk_size(f)


def missing_chunk_size(modules):
    """The public functions of modules (and of their classes) that take
    chunks= but not chunk_size=: none, when install has run (a test checks)."""
    out = []
    for m in modules:
        for name in dir(m):
            if name.startswith("_"):
                continue
            f = getattr(m, name)
            if isinstance(f, type):
                for meth in dir(f):
                    g = getattr(f, meth, None)
                    if not meth.startswith("_") and _takes_chunks(g):
                        out.append(f"{m.__name__}.{name}.{meth}")
            elif _takes_chunks(f):
                out.append(f"{m.__name__}.{name}")
    return out

