"""compute(a, b, ...): several pending values read in one graph, as
Dask's dask.compute spells it. float(a.sum()), float(b.mean()) is a
graph each, since float() must answer at once; compute(a.sum(), b.mean())
is one graph for both (their shared parts once) and one round trip."""

from ._core import Tensor
from .. import session as _session


def _gather(x, out):
    if isinstance(x, Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for y in x:
            _gather(y, out)
    elif isinstance(x, dict):
        for y in x.values():
            _gather(y, out)


def _value(v):
    # A 0-d result comes back as a NumPy scalar, as Dask's does.
    return v[()] if v.ndim == 0 else v


def _replace(x, values):
    if isinstance(x, Tensor):
        return _value(values[id(x)])
    if isinstance(x, tuple) and hasattr(x, "_fields") and x._fields is not None:
        return type(x)(*(_replace(y, values) for y in x))
    if isinstance(x, (list, tuple, set, frozenset)):
        return type(x)(_replace(y, values) for y in x)
    if isinstance(x, dict):
        return {k: _replace(v, values) for k, v in x.items()}
    return x


def compute(*args, session=None, **kw):
    """The values of the tensors among args, computed together in one graph
    (those computed before are not computed again), as a tuple with one
    entry per argument: a tensor becomes its NumPy value (a NumPy scalar
    for a 0-d one), lists, tuples and dicts are walked, anything else
    passes as it is (dask.compute's rules). Keyword arguments go to
    Session.execute (fuse=, show_progress=)."""
    ts = []
    _gather(args, ts)
    todo, seen = [], set()
    for t in ts:
        if t._value is None and id(t) not in seen:
            seen.add(id(t))
            todo.append(t)
    if todo:
        (session or _session.get_default_session()).execute(*todo, **kw)
    values = {id(t): t._value for t in ts}
    return tuple(_replace(a, values) for a in args)
