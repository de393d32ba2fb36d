"""Results handed over in shared memory when the client runs on the
cluster's own host: the client makes a file in /dev/shm the size of the
result, the workers copy their chunks straight into it (POST
.../results/{i}/into), and the client maps it as its array; no socket
carries the data. Anywhere else (or if anything refuses) the caller
fetches the result as .npy instead.

A client that knows a result's shape before it runs makes the file first
and names it in the submission ("into"): the cluster then writes each
result chunk into it as soon as the chunk is computed, and the fetch at
the end copies only the rest. A large file is allocated ahead by a thread
of the client's, and given back by another once no array maps it."""

import ipaddress
import json
import mmap
import math
import os
import queue
import tempfile
import threading
import urllib.parse
import weakref

import numpy as np

# Below this a result costs more to set up in shared memory than to stream.
MIN_BYTES = 1 << 20
_DIR = "/dev/shm"
_PREFIX = "phobos-result-"
# From this size a result's shared memory is given back by a background
# thread once the caller's array is gone: the kernel frees a file's pages
# one by one (about a fifth of a second per 512 MB), and the caller drops
# an array typically when it takes the next one. Smaller files are let go
# at once, so that few descriptors stay open.
FREE_LATER_BYTES = 64 << 20
# A file made before its graph runs is allocated (fallocate) by a thread
# of the client's from this size, PREFAULT_STEP at a time, while the
# graph is prepared and its first chunks computed: the workers' writes
# then only copy, instead of each also allocating and clearing the
# file's pages, a fresh page per 4 KiB, while the executors wait for
# the cores.
# PHOBOS_NO_PREFAULT in the environment turns it off (to measure it).
PREFAULT_BYTES = 64 << 20
PREFAULT_STEP = 32 << 20


def _loopback(url):
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def usable(session_url, res):
    """Whether res (a graph's result) may come through shared memory."""
    shape = res.get("shape")
    if shape is None or any(d is None or d < 0 for d in shape) or len(shape) == 0:
        return False
    try:
        dt = np.dtype(res["dtype"])
    except (KeyError, TypeError):
        return False
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    return n >= MIN_BYTES and _loopback(session_url) and os.path.isdir(_DIR)


class Pending:
    """A result file made before its graph is submitted: the cluster writes
    the result's chunks into it as they are computed, and the fetch at the
    end copies only what is not there yet. Closed (and its file removed)
    by fetch, or by discard when the graph fails."""

    def __init__(self, shape, dtype, prefault=False):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self._fill = None
        self.fd, self.path = tempfile.mkstemp(prefix=_PREFIX, dir=_DIR)
        try:
            os.ftruncate(self.fd, self.nbytes)
        except BaseException:
            self.discard()
            raise
        if prefault and self.nbytes >= PREFAULT_BYTES and hasattr(os, "posix_fallocate") \
                and not os.environ.get("PHOBOS_NO_PREFAULT"):
            self._stop = threading.Event()
            self._fill = threading.Thread(target=self._allocate, args=(self.fd,), name="phobos-result-prefault", daemon=True)
            self._fill.start()

    def _allocate(self, fd):
        # By steps, so that the workers' writes into the file (which
        # take its lock as fallocate does) are not held up for long.
        for off in range(0, self.nbytes, PREFAULT_STEP):
            if self._stop.is_set():
                return
            try:
                os.posix_fallocate(fd, off, min(PREFAULT_STEP, self.nbytes - off))
            except OSError:
                return  # /dev/shm full, say: the writes will say so

    def _join(self):
        if self._fill is not None:
            self._stop.set()
            self._fill.join()
            self._fill = None

    def matches(self, res):
        return (tuple(res.get("shape") or ()) == self.shape
                and np.dtype(res["dtype"]) == self.dtype)

    def discard(self):
        self._join()
        if self.fd is not None:
            os.close(self.fd)
            os.unlink(self.path)
            self.fd = None

    def map(self):
        """The file mapped as the result's array, its name removed. A
        large file's last reference is the descriptor kept until the
        mapping is gone, closed then by the background freer."""
        self._join()
        mm = mmap.mmap(self.fd, self.nbytes)
        if self.nbytes >= FREE_LATER_BYTES:
            _freer.start()
            os.unlink(self.path)
            fd, self.fd = self.fd, None
            weakref.finalize(mm, _freer.close, fd).atexit = False
        return np.frombuffer(mm, dtype=self.dtype).reshape(self.shape)


class _Freer:
    """Closes the descriptors of large result files in a daemon thread:
    the close that drops a file's last reference frees its pages, off the
    thread that let go of the array. close is called from the mapping's
    finalizer, so it only queues (SimpleQueue.put is safe there)."""

    def __init__(self):
        self._q = queue.SimpleQueue()
        self._mu = threading.Lock()
        self._t = None

    def start(self):
        with self._mu:
            if self._t is None or not self._t.is_alive():  # not yet, or lost in a fork
                self._t = threading.Thread(target=self._run, name="phobos-result-freer", daemon=True)
                self._t.start()

    def close(self, fd):
        self._q.put(fd)

    def sync(self, timeout=None):
        """Waits until the descriptors queued so far are closed."""
        self.start()
        done = threading.Event()
        self._q.put(done)
        return done.wait(timeout)

    def _run(self):
        while True:
            item = self._q.get()
            if isinstance(item, threading.Event):
                item.set()
                continue
            try:
                os.close(item)
            except OSError:
                pass


_freer = _Freer()


def prepare(session_url, t):
    """A Pending file for tensor t's result when it will come through
    shared memory (its shape and dtype known before it runs), else None."""
    shape, dtype = getattr(t, "_shape", None), getattr(t, "_dtype", None)
    # a scalar or a small result (most of an interactive session's) never
    # comes through shared memory: said before anything is built for it
    if not shape or dtype is None or any(not isinstance(d, (int, np.integer)) for d in shape):
        return None
    size = getattr(dtype, "itemsize", None)
    if size is not None and math.prod(int(d) for d in shape) * size < MIN_BYTES:
        return None
    try:
        res = {"shape": [int(d) for d in shape], "dtype": np.dtype(dtype).name}
    except TypeError:
        return None
    if not usable(session_url, res):
        return None
    try:
        return Pending(res["shape"], res["dtype"], prefault=True)
    except OSError:
        return None


def fetch(session, res, pre=None):
    """The result's array, or None when the cluster would not write it.
    pre: the Pending file made for it before the graph ran (consumed)."""
    if pre is None or pre.fd is None or not pre.matches(res):
        if pre is not None:
            pre.discard()
        pre = Pending(res["shape"], res["dtype"])
    try:
        r = session._request("POST", res["url"] + "/into",
                             json.dumps({"path": pre.path}).encode(), {"Content-Type": "application/json"})
        r.read()
        if r.status != 204:
            return None
        return pre.map()
    finally:
        pre.discard()
