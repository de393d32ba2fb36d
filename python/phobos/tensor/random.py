"""mt.random: NumPy's and Mars's random functions, with chunks= (or
Mars's chunk_size=).

Numbers come from counter-based streams: a RandomState of a seed numbers the
tensors it makes 0, 1, 2, ..., and a tensor's values depend only on (seed,
number), never on its chunks or on the workers, so a seeded program gives
the same numbers every time, the same as tensor.NewGenerator(seed) in Go."""

import itertools
import operator
import os
import threading

import numpy as np

from ._core import call, _chunks, _dtype_name, takes_chunk_size as _chunk_size


def _size(size, args=()):
    if args:
        if size is not None:
            raise TypeError("give the shape as arguments or as size=, not both")
        return [operator.index(d) for d in args]
    if size is None:
        return []
    if isinstance(size, (int, np.integer)):
        return [int(size)]
    return [operator.index(d) for d in size]


class RandomState:
    """A seeded source of random tensors (numpy.random.RandomState's methods)."""

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        seed = operator.index(seed)
        if not 0 <= seed < 2**64:
            raise ValueError("Seed must be between 0 and 2**64 - 1")
        self._seed = seed
        self._streams = itertools.count()
        self._lock = threading.Lock()

    def _random(self, dist, p1, p2, shape, dtype, chunks):
        with self._lock:
            stream = next(self._streams)
        return call("random", self._seed, stream, dist, p1, p2, shape, dtype=_dtype_name(dtype), chunks=_chunks(chunks))

    @_chunk_size
    def rand(self, *shape, chunks=None, dtype=None):
        """Uniform on [0, 1), of the given shape."""
        return self._random("uniform", 0.0, 1.0, _size(None, shape), dtype, chunks)

    @_chunk_size
    def randn(self, *shape, chunks=None, dtype=None):
        """Standard normal, of the given shape."""
        return self._random("normal", 0.0, 1.0, _size(None, shape), dtype, chunks)

    @_chunk_size
    def random_sample(self, size=None, chunks=None, dtype=None):
        return self._random("uniform", 0.0, 1.0, _size(size), dtype, chunks)

    random = ranf = sample = random_sample

    @_chunk_size
    def uniform(self, low=0.0, high=1.0, size=None, chunks=None, dtype=None):
        return self._random("uniform", float(low), float(high), _size(size), dtype, chunks)

    @_chunk_size
    def normal(self, loc=0.0, scale=1.0, size=None, chunks=None, dtype=None):
        return self._random("normal", float(loc), float(scale), _size(size), dtype, chunks)

    @_chunk_size
    def standard_normal(self, size=None, chunks=None, dtype=None):
        return self._random("normal", 0.0, 1.0, _size(size), dtype, chunks)

    @_chunk_size
    def randint(self, low, high=None, size=None, dtype="int64", chunks=None):
        """Integers uniform on [low, high) (on [0, low) without high)."""
        if high is None:
            low, high = 0, low
        return self._random("randint", operator.index(low), operator.index(high), _size(size), dtype, chunks)

    @_chunk_size
    def random_integers(self, low, high=None, size=None, chunks=None):
        if high is None:
            low, high = 1, low
        return self.randint(low, operator.index(high) + 1, size, chunks=chunks)


_state = RandomState()


def seed(seed=None):
    """Seeds the module's RandomState: the tensors made after it are numbered from 0 again."""
    _state.seed(seed)


def __getattr__(name):
    # the module's functions are its RandomState's methods
    if not name.startswith("_") and hasattr(RandomState, name) and name != "seed":
        return getattr(_state, name)
    raise AttributeError(f"module 'phobos.tensor.random' has no attribute {name!r}")


rand = lambda *shape, **kw: _state.rand(*shape, **kw)  # noqa: E731
randn = lambda *shape, **kw: _state.randn(*shape, **kw)  # noqa: E731
for _n in ("random_sample", "random", "ranf", "sample", "uniform", "normal", "standard_normal", "randint",
           "random_integers"):
    globals()[_n] = (lambda n: lambda *a, **kw: getattr(_state, n)(*a, **kw))(_n)
del _n
