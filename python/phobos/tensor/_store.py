"""dask.array.from_array and store on the users'-function call
(_userfunc's _blockwise): blocks read from, and written into, sliceable
objects by the workers' executors."""

import numbers

import numpy as np

from .._blockfn import BlockFn, FileLock, Writer
from ._core import Tensor, astensor, call
from ._userfunc import _blockwise, _payload

def _normalize_chunks(chunks, shape, itemsize):
    if chunks is None or chunks == "auto":
        # Blocks of about 64 MiB, whole along every axis but the first.
        row = max(int(np.prod(shape[1:], dtype=np.int64)) * itemsize, 1)
        chunks = (max(1, (64 << 20) // row),) + tuple(shape[1:])
    if isinstance(chunks, numbers.Integral):
        chunks = (int(chunks),) * len(shape)
    chunks = tuple(chunks)
    if len(chunks) != len(shape):
        raise ValueError(f"Chunks and shape must be of the same length/dimension. Got chunks={chunks}, shape={shape}")
    out = []
    for c, n in zip(chunks, shape):
        if isinstance(c, numbers.Integral) or c is None:
            c = n if c is None or c == -1 else int(c)
            c = max(min(c, n), 1) if n else 1
            out.append(tuple([c] * (n // c) + ([n % c] if n % c else [])) or (0,))
        else:
            c = tuple(int(v) for v in c)
            if sum(c) != n:
                raise ValueError(f"Chunks do not add up to shape. Got chunks={chunks}, shape={shape}")
            out.append(c)
    return out


def from_array(x, chunks="auto", name=None, lock=False, asarray=None, fancy=True, getitem=None, meta=None,
               inline_array=False):
    """dask.array.from_array over any object with shape, dtype and slicing
    that pickles (an h5py dataset travels as its file name and path and is
    reopened by the workers, whose --data-root must hold the file): each
    chunk is sliced from it on a worker."""
    if isinstance(x, np.ndarray):
        from ._core import from_numpy
        return from_numpy(x, chunks=None if chunks == "auto" else chunks)
    shape = tuple(int(n) for n in x.shape)
    dtype = np.dtype(x.dtype)
    paths = []
    obj = x
    mod = type(x).__module__ or ""
    if mod.startswith("h5py"):
        import os
        from .._blockfn import H5Dataset
        fname = os.path.abspath(x.file.filename)
        obj = H5Dataset(fname, x.name)
        paths = [fname]
    from .._blockfn import Slicer
    nsplits = _normalize_chunks(chunks, shape, dtype.itemsize)
    fn = Slicer(obj, dtype)
    return call("user_blocks", [], _payload(BlockFn(fn, [], {}, ("block_info",))), "from_array(" + type(x).__name__ + ")",
                dtype.name, [list(s) for s in nsplits], [], block_id=True, block_info=True, paths=paths or None)


def _region(region, ndim):
    """A store region as (start or int index) per target axis it names:
    Dask's tuple of slices (ints drop an axis); steps other than 1 are not
    taken."""
    if region is None:
        return None
    out = []
    for r in region:
        if isinstance(r, numbers.Integral):
            out.append(int(r))
        elif isinstance(r, slice):
            if r.step not in (None, 1):
                raise NotImplementedError(f"phobos: store regions with a step ({r}): give slices of step 1")
            if r.start is not None and r.start < 0:
                raise NotImplementedError(f"phobos: store regions counted from the end ({r}): give non-negative starts")
            out.append(slice(r.start or 0, r.stop))
        else:
            raise TypeError(f"regions: a region is a tuple of slices and integers, not {type(r).__name__}")
    return tuple(out)


class StoreTask:
    """What store(..., compute=False) returns, as Dask's Delayed: nothing
    is written until compute() (or execute()) runs it on the cluster."""

    def __init__(self, tensors):
        self._tensors = tensors

    def compute(self, session=None, **kw):
        """Writes every block of the sources into the targets; returns None."""
        from ._core import _default_session
        (session or _default_session()).execute(*self._tensors, **kw)
        return None

    execute = compute

    def __repr__(self):
        return f"StoreTask <{len(self._tensors)} source(s), not yet stored>"


def store(sources, targets, lock=True, regions=None, compute=True, return_stored=False, **kwargs):
    """dask.array.store: each source written block by block into its
    target (any sliceable object that pickles and takes writes from several
    processes, as a Zarr array does), from the workers. regions= places
    each source in a part of its target; lock=True serialises the writes
    into one target on each machine (a file lock the executors share),
    False writes at once, or any lock object that pickles (acquire and
    release). compute=False returns a StoreTask that writes when computed;
    return_stored=True returns tensors of the stored data (computed when
    compute is true), which write the blocks when they are computed."""
    if isinstance(sources, Tensor):
        sources, targets = [sources], [targets]
    sources = list(sources)
    targets = list(targets)
    if any(not isinstance(s, Tensor) for s in sources):
        raise ValueError("All sources must be dask array objects")
    if len(sources) != len(targets):
        raise ValueError("Different number of sources [%d] and targets [%d]" % (len(sources), len(targets)))
    if isinstance(regions, tuple) or regions is None:
        regions = [regions] * len(sources)
    else:
        regions = list(regions)
        if len(sources) != len(regions):
            raise ValueError(f"Different number of sources [{len(sources)}] and targets [{len(targets)}] "
                             f"than regions [{len(regions)}]")
    locks = [None] * len(targets)
    if lock is True:
        # One file lock per target, named by the target's pickle (a Zarr
        # array pickles as its store and path): the executors that write
        # into one target on a machine take turns.
        import cloudpickle
        import hashlib
        locks = [FileLock("phobos-store-" + hashlib.sha256(cloudpickle.dumps(t)).hexdigest()[:24]) for t in targets]
        lock = None
    elif lock is False or lock is None:
        lock = None
    elif not (hasattr(lock, "acquire") and hasattr(lock, "release")):
        raise TypeError(f"lock: want True, False or a lock with acquire and release, not {type(lock).__name__}")
    else:
        try:
            import cloudpickle
            cloudpickle.dumps(lock)
        except Exception as e:
            raise TypeError(f"lock: the lock travels to the workers and must pickle ({type(lock).__name__} does not: "
                            f"{e}); pass True for Phobos's own file lock") from None
    outs = []
    for s, t, r, lk in zip(sources, targets, regions, locks):
        ind = tuple(range(s.ndim))
        w = Writer(t, region=_region(r, s.ndim), lock=lk or lock, return_stored=return_stored)
        if return_stored:
            outs.append(_blockwise(w, ind, [(s, ind)], dtype=s.dtype, fname="store"))
        else:
            ones = [(1,) * len(sp) for sp in s.nsplits]
            outs.append(_blockwise(w, ind, [(s, ind)], dtype="int64", fname="store", out_chunks=ones))
    if return_stored:
        if compute:
            from ._core import _default_session
            _default_session().execute(*outs, **kwargs)
        return tuple(outs)
    if not compute:
        return StoreTask(outs)
    from ._core import _default_session
    _default_session().execute(*outs, **kwargs)
    return None
