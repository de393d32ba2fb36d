"""Results that stay on the cluster: a graph whose results a client keeps
is not deleted when its values came; each tensor it computed holds a
reference to it (t._held), and programs built on such a tensor name its
chunks ({"held": ...}) instead of computing it again. The graph is released
when the last tensor holding it is collected (a finalizer queues it; a
thread of the session sends the queued releases in one request) or
explicitly (session.release, t.release)."""

import threading
import weakref


class Kept:
    """A graph of the session whose results the cluster keeps."""

    __slots__ = ("gid", "deps", "_fin", "__weakref__")

    def __init__(self, session, gid, deps=()):
        self.gid = gid
        # the kept graphs this one read: its lineage, which recomputes a
        # chunk lost with a worker, runs through theirs
        self.deps = list(deps)
        self._fin = weakref.finalize(self, _Releaser.of(session).queue, gid)
        # at exit the session's end frees everything: no thread to start then
        self._fin.atexit = False

    def release(self):
        """Lets the graph go now, whatever still refers to it."""
        self._fin()

    @property
    def alive(self):
        return self._fin.alive


class _Releaser:
    """Sends a session's queued releases, batched: one request for those
    queued within LINGER seconds of the first."""

    LINGER = 0.01

    def __init__(self, session):
        self._session = weakref.ref(session)
        self._sid = session.session_id
        self._lock = threading.Lock()
        self._pending = []
        self._wake = threading.Event()
        self._thread = None
        self.sent = 0  # release requests sent, for tests
        self.kept = weakref.WeakValueDictionary()  # graph id -> Kept, while alive

    @classmethod
    def of(cls, session):
        r = session.__dict__.get("_releaser")
        if r is None:
            r = session.__dict__.setdefault("_releaser", cls(session))
        return r

    def queue(self, gid):
        # Runs in finalizers, at any point of any thread: append and wake only.
        with self._lock:
            self._pending.append(gid)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="phobos-release", daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self):
        while True:
            self._wake.wait()
            # Let releases that come together (a collected structure of
            # tensors) go in one request.
            self._wake.clear()
            self._wake.wait(self.LINGER)
            self.flush()

    def flush(self):
        with self._lock:
            gids, self._pending = self._pending, []
            self._wake.clear()
        if not gids:
            return
        s = self._session()
        if s is None or s._closed:
            return  # the session's end frees everything
        try:
            s._json("POST", f"/api/sessions/{self._sid}/release", {"graphs": gids})
            self.sent += 1
        except Exception:  # noqa: BLE001 - a failed release leaves the graph to the session's end
            pass


def keep(session, gid, tensors, nodes=()):
    """Marks tensors (result i of graph gid, in order; None for results
    not kept) as held by the graph, which was built from program nodes."""
    k = Kept(session, gid, reads(nodes, session))
    for i, t in enumerate(tensors):
        if t is not None:
            t._held = (k, i, session)
    return k


def reads(nodes, session):
    """The kept graphs a program's nodes name."""
    by_gid = _Releaser.of(session).kept
    out = []
    for n in nodes:
        h = n.get("held") if isinstance(n, dict) else None
        if h is not None:
            k = by_gid.get(h["ref"])
            if k is not None:
                out.append(k)
    return out


def forget_gone(msg, nodes, session):
    """After a program was refused with msg: if msg names a held graph of
    nodes that the cluster no longer has, forgets it (no release: it is
    gone) and reports True, so the program is built again without it."""
    if "held result of graph" not in msg:
        return False
    gone = [k for k in reads(nodes, session) if f"held result of graph {k.gid}:" in msg]
    for k in gone:
        k._fin.detach()
    return bool(gone)


def node(t, session):
    """The program node naming t's held chunks, or None if t holds none in
    session (or its graph was released)."""
    h = t._held
    if h is None:
        return None
    k, i, s = h
    if s is not session or not k.alive:
        return None
    _Releaser.of(session).kept[k.gid] = k
    # an axis of unknown length (a mask's selection) goes as -1: the
    # cluster takes its length from the run that computed it
    meta = {"shape": [-1 if d is None else int(d) for d in t._shape], "dtype": t._dtype.name}
    if None in t._shape:
        meta["unknown"] = t._shape.index(None) + 1
    return {"held": {"ref": k.gid, "result": i, "meta": meta}}


def release(tensors):
    """Releases the graphs holding tensors' chunks now."""
    for t in tensors:
        h = getattr(t, "_held", None)
        if h is not None:
            t._held = None
            h[0].release()
