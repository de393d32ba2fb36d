"""A Phobos worker's Python executor: runs users' functions on chunks.

Started by the worker (package pyexec) as ``python3 -m phobos.executor``,
one per slot. Requests come on fd 3 and answers go on fd 4, each a 4-byte
little-endian length and a JSON document (the pickled function, when asked
for, as raw bytes). A request holds one or more calls of one function (the
worker batches small ready calls); the answer holds a result for each.
Input blocks are NumPy arrays over a shared-memory arena the worker filled
(no copy here); the results stay in this process's memory until the next
request, and the worker reads them from there (process_vm_readv), or from
shared files when ``vm`` is false; a large result (where the request gives
its call an ``out`` offset) is copied into the arena instead. The arena's
first 8 bytes count the calls of the request started, for the worker's
time limit per call.
"""

import json
import mmap
import os
import struct
import sys
import traceback

import numpy as np

_MAX_CACHED = 64


def _read_exact(f, n):
    buf = bytearray()
    while len(buf) < n:
        b = f.read(n - len(buf))
        if not b:
            raise EOFError
        buf += b
    return bytes(buf)


def _read_frame(f):
    (n,) = struct.unpack("<I", _read_exact(f, 4))
    return _read_exact(f, n)


def _write_frame(f, obj):
    b = json.dumps(obj).encode()
    f.write(struct.pack("<I", len(b)) + b)
    f.flush()


def _tuples(x):
    return tuple(x)


def _block_extra(info, out_dtype, want_id, want_info):
    """Dask's block_id= and block_info= from the op's JSON."""
    kw = {}
    if info is None:
        return kw
    if want_id:
        kw["block_id"] = tuple(info.get("block_id", ()))
    if want_info:
        bi = {}
        for i, loc in enumerate(info.get("inputs") or ()):
            bi[i] = {
                "shape": tuple(loc["shape"]),
                "num-chunks": tuple(loc["num-chunks"]),
                "chunk-location": tuple(loc["chunk-location"]),
                "array-location": [tuple(a) for a in loc["array-location"]],
            }
        out = info.get("output")
        if out is not None:
            bi[None] = {
                "shape": tuple(out["shape"]),
                "num-chunks": tuple(out["num-chunks"]),
                "chunk-location": tuple(out["chunk-location"]),
                "array-location": [tuple(a) for a in out["array-location"]],
                "chunk-shape": tuple(b - a for a, b in out["array-location"]),
                "dtype": out_dtype,
            }
        kw["block_info"] = bi
    return kw


class _Arena:
    def __init__(self):
        self.path = None
        self.mm = None

    def view(self, path, size):
        if path != self.path:
            old = self.mm
            fd = os.open(path, os.O_RDWR)
            try:
                self.mm = mmap.mmap(fd, size)
            finally:
                os.close(fd)
            self.path = path
            if old is not None:
                try:
                    old.close()
                except BufferError:
                    pass  # a user function kept a block: the mapping lives on with it
        return self.mm


def main():
    import cloudpickle

    rf = os.fdopen(3, "rb", buffering=1 << 16)
    wf = os.fdopen(4, "wb", buffering=0)
    probe = np.frombuffer(b"phobos-executor-probe", dtype=np.uint8).copy()
    _write_frame(wf, {"pid": os.getpid(), "probe_addr": probe.ctypes.data,
                      "probe": probe.tobytes().decode()})
    cache = {}
    arena = _Arena()
    held = []  # the last request's results, read by the worker before the next request
    out_files = []
    pid = os.getpid()
    while True:
        try:
            req = json.loads(_read_frame(rf))
        except EOFError:
            return
        held = []
        for path in out_files:
            try:
                os.unlink(path)
            except OSError:
                pass
        out_files = []
        calls = req["calls"]
        # Mapped before any answer: the worker unlinks the arena's name
        # once it has one.
        mm = arena.view(req["arena"], req["arena_size"])
        key = req["key"]
        entry = cache.get(key)
        if entry is None:
            _write_frame(wf, {"need": True})
            payload = _read_frame(rf)
            try:
                entry = cloudpickle.loads(payload)
            except BaseException as e:  # noqa: BLE001 - reported to the client
                _write_frame(wf, _error(e))
                continue
            if len(cache) >= _MAX_CACHED:
                cache.pop(next(iter(cache)))
            cache[key] = entry
        vm = req.get("vm")
        out_dir = os.path.dirname(req["arena"]) or "/dev/shm"
        results = []
        for i, call in enumerate(calls):
            # The calls started, in the arena's header: the worker's time
            # limit is per call.
            struct.pack_into("<Q", mm, 0, i + 1)
            ans, res = _call(entry, call, mm)
            if res is not None:
                out = call.get("out")
                if out and res.nbytes:
                    # A large result goes into the arena where the worker
                    # reserved room for it: a copy is cheaper than its
                    # read of this process's memory page by page.
                    try:
                        np.copyto(np.ndarray(res.shape, dtype=res.dtype, buffer=mm, offset=out), res)
                        ans["arena"] = True
                    except Exception as e:  # noqa: BLE001 - reported to the client
                        ans = _error(e)
                elif vm:
                    # A view of long rows (map_overlap's trimmed block) is
                    # read by the worker row by row where it lies: no copy.
                    rows = _row_strides(res)
                    if rows is None:
                        res = np.ascontiguousarray(res)
                    else:
                        ans["strides"] = rows
                    held.append(res)
                    ans["addr"] = res.__array_interface__["data"][0] if res.nbytes else 0
                else:
                    res = np.ascontiguousarray(res)
                    path = os.path.join(out_dir, "phobos-out-%d-%d" % (pid, i))
                    with open(path, "wb") as f:
                        f.write(res.data)
                    out_files.append(path)
                    ans["file"] = path
            results.append(ans)
        _write_frame(wf, {"results": results})


def _call(entry, call, mm):
    """Runs the function on one call's blocks: its answer, and the result
    to hand over (None on an error or a mismatch)."""
    fn, args, kwargs, want_id, want_info = entry
    want_dtype = np.dtype(call["dtype"])
    want_shape = tuple(call["shape"])
    try:
        blocks = []
        for d in call["inputs"] or ():
            dt = np.dtype(d["dtype"])
            shape = tuple(d["shape"])
            blocks.append(np.ndarray(shape, dtype=dt, buffer=mm, offset=d["off"]))
        extra = _block_extra(call.get("info"), want_dtype, want_id, want_info)
        res = fn(*blocks, *args, **kwargs, **extra)
        del blocks
        if isinstance(res, np.generic):
            res = np.asarray(res)
        if not isinstance(res, np.ndarray):
            raise TypeError("%s returned %s, not a NumPy array" % (call["op"], type(res).__name__))
    except BaseException as e:  # noqa: BLE001 - reported to the client
        return _error(e), None
    if res.dtype != want_dtype or not _fits(res.shape, want_shape, call.get("unknown", 0) - 1):
        return {"mismatch": {"dtype": str(res.dtype), "shape": list(res.shape)}}, None
    return {"ok": True, "nbytes": res.nbytes, "shape": list(res.shape)}, res


_MIN_ROW = 4096


def _row_strides(res):
    """res's strides when it is not C-contiguous but its rows (its last
    axes, as far as they are contiguous) are at least _MIN_ROW bytes each,
    so the worker reads it row by row; None otherwise (copied first)."""
    if res.flags.c_contiguous or res.ndim < 2 or res.nbytes == 0:
        return None
    row = res.itemsize
    k = res.ndim
    while k > 0 and res.strides[k - 1] == row:
        row *= res.shape[k - 1]
        k -= 1
    if k == res.ndim or row < _MIN_ROW:
        return None
    return list(res.strides)


def _fits(shape, want, unknown):
    """shape is the declared one, but along the axis of unknown length
    (unknown >= 0), where it may fall short of the declared bound."""
    if len(shape) != len(want):
        return False
    return all(d == w or (ax == unknown and d <= w) for ax, (d, w) in enumerate(zip(shape, want)))


def _error(e):
    cls = type(e)
    mod = cls.__module__
    name = cls.__qualname__ if mod == "builtins" else "%s.%s" % (mod, cls.__qualname__)
    tb = e.__traceback__
    if tb is not None and tb.tb_frame.f_code in (main.__code__, _call.__code__):
        tb = tb.tb_next  # the executor's own frame is no help to the user
    tb = "".join(traceback.format_exception(cls, e, tb))
    return {"error": {"type": name, "message": str(e), "traceback": tb}}


if __name__ == "__main__":
    sys.exit(main())
