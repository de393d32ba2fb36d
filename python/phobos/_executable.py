"""ExecutableTuple: Mars's tuple of tensors that execute together (the
outputs of svd, qr, unique(..., return_counts=True), ... and what
execute(a, b) returns), and named ones for the Array API's result tuples."""

import collections
import concurrent.futures
import operator
import sys

from . import session as _session


def _is_tensor(x):
    return hasattr(x, "_phobos_program")


class ExecutableTuple(tuple):
    """A tuple whose tensors execute() computes together, in one graph
    (their shared parts once), and fetch() returns as NumPy arrays; other
    elements (linspace's step) pass as they are."""

    __slots__ = ()
    _fields = None  # the names of a named one (executable_namedtuple)

    def __new__(cls, items=()):
        return super().__new__(cls, items)

    def __getnewargs__(self):
        return (tuple(self),)

    def _tensors(self):
        return [x for x in self if _is_tensor(x)]

    def execute(self, session=None, **kw):
        """Computes the tensors together; returns this tuple (its tensors
        keep their values), or with wait=False a Future of it."""
        ts = self._tensors()
        if not ts:
            return self
        r = _session.execute(*ts, session=session, **kw)
        if kw.get("wait", True):
            return self
        out = concurrent.futures.Future()  # of this tuple, once computed

        def done(f):
            if f.exception() is not None:
                out.set_exception(f.exception())
            else:
                out.set_result(self)
        r.add_done_callback(done)
        return out

    def fetch(self, session=None, **kw):
        """The values: NumPy arrays for the tensors (computed here, together,
        when they were not yet), the other elements as they are; a list, as
        Mars's fetch gives (a named tuple of them for a named one)."""
        todo = [x for x in self._tensors() if x._value is None]
        if todo:
            _session.execute(*todo, session=session, **kw)
        vals = [x._value if _is_tensor(x) else x for x in self]
        return vals if self._fields is None else self._values(*vals)


def executable_namedtuple(typename, field_names):
    """An ExecutableTuple class with named fields, as collections.namedtuple
    makes one (the Array API's SVDResult, UniqueAllResult, ...); its fetch()
    gives a collections.namedtuple of the values."""
    values = collections.namedtuple(typename, field_names)

    def __new__(cls, *args, **kw):
        return tuple.__new__(cls, values(*args, **kw))

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self):
        return f"{typename}({', '.join(f'{k}={v!r}' for k, v in zip(values._fields, self))})"

    ns = {"__slots__": (), "__new__": __new__, "__getnewargs__": __getnewargs__, "__repr__": __repr__,
          "_fields": values._fields, "_values": values, "__doc__": f"{typename}{values._fields}, executable."}
    for i, name in enumerate(values._fields):
        ns[name] = property(operator.itemgetter(i), doc=f"Element {i}.")
    # the defining module's, as namedtuple does, so that pickle finds the class
    ns["__module__"] = values.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    values.__qualname__ = f"{typename}._values"
    return type(typename, (ExecutableTuple,), ns)
