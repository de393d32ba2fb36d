"""Wrappers around users' functions, pickled with them (by reference, so
an executor imports this small module, not the client): the arrays' blocks
are put back among the other positional arguments, keywords the function
does not take are dropped, and map_overlap's borders are trimmed from each
result block."""


class BlockFn:
    """func called on one block: spec lists each positional argument as
    (True, None) for the next block or (False, value); want names the
    block keywords func takes; trim is map_overlap's (depth, trim outer
    edges?, blocks) per axis, or None."""

    def __init__(self, func, spec, kwargs=None, want=(), trim=None, index_first=False):
        self.func = func
        self.spec = spec
        self.kwargs = dict(kwargs or {})
        self.want = tuple(want)
        self.trim = trim
        self.index_first = index_first

    def __call__(self, *blocks, **kw):
        it = iter(blocks)
        full = [next(it) if is_block else v for is_block, v in self.spec]
        block_id = kw.get("block_id")
        extra = {k: v for k, v in kw.items() if k in self.want}
        if self.index_first:
            full.insert(0, block_id)
        res = self.func(*full, **self.kwargs, **extra)
        if self.trim is None:
            return res
        sl = []
        for ax, (d, outer, n) in enumerate(self.trim):
            b = block_id[ax]
            lo = d if (outer or b > 0) else 0
            hi = d if (outer or b < n - 1) else 0
            sl.append(slice(lo, res.shape[ax] - hi))
        return res[tuple(sl)]


class Slicer:
    """from_array's function: the block of obj at the output block's
    location (obj sliced on the worker, so the data never pass through the
    client)."""

    def __init__(self, obj, dtype):
        self.obj = obj
        self.dtype = dtype

    def __call__(self, block_info=None):
        import numpy as np
        loc = block_info[None]["array-location"]
        return np.asarray(self.obj[tuple(slice(a, b) for a, b in loc)], dtype=self.dtype)


_h5_files = {}


class H5Dataset:
    """An h5py dataset by file name and path, reopened (read-only) in the
    executor that slices it: h5py objects do not pickle."""

    def __init__(self, filename, name):
        self.filename = filename
        self.name = name

    def __getitem__(self, key):
        import h5py
        f = _h5_files.get(self.filename)
        if f is None:
            f = _h5_files[self.filename] = h5py.File(self.filename, "r")
        return f[self.name][key]


class Writer:
    """store's function: writes the block into target at its location
    (within region, a tuple of slice starts and ints, when given), under
    lock when given, and returns the block (return_stored) or how many
    elements it wrote (one per block)."""

    def __init__(self, target, region=None, lock=None, return_stored=False):
        self.target = target
        self.region = region
        self.lock = lock
        self.return_stored = return_stored

    def _index(self, loc):
        if self.region is None:
            return tuple(slice(a, b) for a, b in loc)
        out, it = [], iter(loc)
        for r in self.region:
            if isinstance(r, int):
                out.append(r)
            else:
                a, b = next(it)
                out.append(slice(r.start + a, r.start + b))
        out.extend(slice(a, b) for a, b in it)
        return tuple(out)

    def __call__(self, block, block_info=None):
        import numpy as np
        idx = self._index(block_info[0]["array-location"])
        if self.lock is not None:
            self.lock.acquire()
        try:
            self.target[idx] = block
        finally:
            if self.lock is not None:
                self.lock.release()
        if self.return_stored:
            return block
        return np.full((1,) * block.ndim, block.size, dtype="int64")


class FileLock:
    """store's lock=True: one lock for the writes into one target, shared
    by the executors of a machine (an advisory lock on a file in the
    temporary directory); it pickles by its name."""

    def __init__(self, name):
        self.name = name
        self._fd = None

    def __getstate__(self):
        return {"name": self.name}

    def __setstate__(self, state):
        self.name = state["name"]
        self._fd = None

    def acquire(self):
        import fcntl
        import os
        import tempfile
        if self._fd is None:
            self._fd = os.open(os.path.join(tempfile.gettempdir(), self.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return True

    def release(self):
        import fcntl
        fcntl.flock(self._fd, fcntl.LOCK_UN)


class Lengths:
    """compute_chunk_sizes's function: the length of fn's block along one
    axis, as a block of one element."""

    def __init__(self, fn, ax, ndim):
        self.fn = fn
        self.ax = ax
        self.ndim = ndim

    def __call__(self, *blocks, **kw):
        import numpy as np
        res = self.fn(*blocks, **kw)
        return np.full((1,) * self.ndim, np.shape(res)[self.ax], dtype="int64")


class Packed:
    """apply_gufunc's function of several outputs, run once per block: its
    outputs' core values for each loop element, as bytes side by side
    along a last axis (Unpack takes each back out). cores is each output's
    (core shape, dtype name)."""

    def __init__(self, fn, cores):
        self.fn = fn
        self.cores = cores
        name = getattr(fn, "__name__", None) or type(fn).__name__
        self.__name__ = "lambda" if name == "<lambda>" else name

    def __call__(self, *args, **kw):
        import numpy as np
        res = self.fn(*args, **kw)
        if not isinstance(res, (tuple, list)) or len(res) != len(self.cores):
            raise TypeError("the function returned %s, not a tuple of %d outputs as its signature says"
                            % (type(res).__name__, len(self.cores)))
        parts = []
        for k, (r, (core, dt)) in enumerate(zip(res, self.cores)):
            r = np.asarray(r)
            if r.dtype != np.dtype(dt):
                raise TypeError("output %d is %s, but %s was declared (output_dtypes)" % (k, r.dtype, dt))
            loop = r.shape[:r.ndim - len(core)]
            n = 1
            for d in core:
                n *= d
            parts.append(np.ascontiguousarray(r).reshape(loop + (n,)).view(np.uint8))
        return np.concatenate(parts, axis=-1)


class Unpack:
    """One output of a Packed block: its bytes, viewed as its dtype and
    shaped as its core dimensions after the loop ones."""

    def __init__(self, start, stop, core, dtype):
        self.start = start
        self.stop = stop
        self.core = tuple(core)
        self.dtype = dtype
        self.__name__ = "apply_gufunc_output"

    def __call__(self, block):
        import numpy as np
        part = np.ascontiguousarray(block[..., self.start:self.stop])
        return part.view(np.dtype(self.dtype)).reshape(block.shape[:-1] + self.core)
