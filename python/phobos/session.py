"""Sessions: a connection to a Phobos cluster, or a local one this process
starts and stops."""

import atexit
import binascii
import collections
import concurrent.futures
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import numpy as np

from . import _errors, _held, _http, _shmresult
from ._executable import ExecutableTuple

__all__ = ["Session", "new_session", "get_default_session", "execute", "fetch", "ExecutableTuple"]

_default = None
_default_lock = threading.Lock()

# The tokens of the local clusters this process started, by URL, so that
# another session on one of them (new_session(url)) needs no token passed.
_local_tokens = {}

# Client arrays above this many bytes are uploaded chunk by chunk, once per
# session and content, instead of travelling inside every program that
# uses them (the server's default request limit is 64 MiB).
INLINE_LIMIT = 1 << 16
_UPLOAD_STREAMS = 4
# Results of at most this many bytes come in the answer to their graph's
# submission instead of a request of their own.
INLINE_RESULT = 1 << 16
# Calls whose meaning depends on a file: never answered from the describe cache.
_FILE_CALLS = frozenset(("from_npy", "from_zarr", "to_npy", "to_zarr"))
_TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}
# A JSON request's own header; _request adds the token's to it once per
# session, not at every request.
_JSON_HEADERS = {"Content-Type": "application/json"}
# json.dumps(payload, allow_nan=False) without a new encoder at every request.
_json_encode = json.JSONEncoder(allow_nan=False).encode


def _find_binary():
    path = os.environ.get("PHOBOS_BIN") or shutil.which("phobos")
    if not path:
        raise FileNotFoundError(
            "phobos: no local cluster can start: the phobos binary is neither in $PHOBOS_BIN nor on PATH "
            "(go build -o ~/bin/phobos ./cmd/phobos in the repository), or pass new_session(url)")
    return path


class _LocalCluster:
    """A `phobos cluster` child process, stopped when the session closes or
    when this interpreter exits (it also stops by itself when its stdin, a
    pipe from this process, closes).

    The cluster makes a new random token at every start and hands it over
    on its stdout, a pipe only this process reads: it never appears on a
    command line or in an environment. A token given by the caller goes to
    the child in its environment instead."""

    def __init__(self, workers=None, args=(), token=None):
        cmd = [_find_binary(), "cluster", "--stop-on-eof"]
        if workers:
            cmd += ["--workers", str(workers)]
        if not any(a.lstrip("-").startswith("log-level") for a in args):
            # Its log is drained and dropped (below): at the info level a
            # line for each graph's start and end would cross two pipes
            # and wake this process, twice per graph.
            cmd += ["--log-level", "warn"]
        flags = [a.lstrip("-").split("=")[0] for a in args]
        one_process = any(a.lstrip("-") in ("one-process", "one-process=true") for a in args)
        if not any(f in ("one-process", "schedulers", "tls-cert") for f in flags):
            # The roles in one process: their requests to each other do
            # not cross TCP (docs/interactive.md). A ring of schedulers,
            # or TLS, needs processes of their own.
            cmd += ["--one-process"]
            one_process = True
        # This session's requests go over a Unix socket of its own, in a
        # directory only this user can enter: no TCP stack on their way.
        self.socket = self._sockdir = None
        if one_process and "unix-socket" not in flags:
            self._sockdir = tempfile.mkdtemp(prefix="phobos-")
            path = os.path.join(self._sockdir, "web.sock")
            if len(os.fsencode(path)) < 100:  # sun_path's room
                self.socket = path
                cmd += ["--unix-socket", path]
        cmd += list(args)
        env = {k: v for k, v in os.environ.items() if k != "PHOBOS_TOKEN"}
        # The workers' Python executors (user functions) import this package.
        env.setdefault("PHOBOS_PYTHONPATH", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        if token is not None:
            env["PHOBOS_TOKEN"] = token
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline().strip()
        self.token = token
        # With a token file of its own, or none accepted, it makes none.
        makes_token = token is None and not any(
            a.lstrip("-").startswith(("token-file", "insecure-no-token")) for a in args)
        if line.startswith("http") and makes_token:
            kind, _, value = self.proc.stdout.readline().strip().partition(" ")
            if kind != "token" or not value:
                line = f"no token after the URL ({kind!r})"
            self.token = value
        if not line.startswith("http"):
            err = self.proc.stderr.read() if self.proc.poll() is not None else ""
            self.stop()
            raise ConnectionError(f"phobos: the local cluster ({' '.join(cmd)}) did not start: {line} {err}".strip())
        self.url = line
        if self.token:
            _local_tokens[self.url] = self.token
        # Keep draining its logs so the child never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for _ in self.proc.stderr:
            pass

    def stop(self):
        _local_tokens.pop(getattr(self, "url", None), None)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self._sockdir is not None:
            shutil.rmtree(self._sockdir, ignore_errors=True)


class Session:
    """A session on a Phobos cluster: it computes tensors and holds the
    client arrays it uploaded. Use new_session() to make one."""

    # Seconds a request that finds the cluster between owners (HTTP 503, or
    # no answer at all) is retried, with backoff: when the scheduler that
    # owns the session dies, another of the ring takes the session over
    # (a lease TTL and the adoption), and a computation only pauses.
    FAILOVER_WAIT = 120.0

    # Seconds the request that submits a graph waits for it to end (a
    # longer graph is then followed by long-polls, which show progress and
    # can be interrupted).
    FIRST_WAIT = 1.0

    # Answers of /api/describe kept, the least recently used dropped first.
    DESCRIBE_CACHE = 4096

    def __init__(self, url=None, token=None, workers=None, cluster_args=()):
        self._local = None
        if url is None:
            self._local = _LocalCluster(workers, cluster_args, token)
            url, token = self._local.url, self._local.token
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.netloc:
            raise ValueError(f"phobos: {url!r} is not an http(s) URL")
        self.url = url.rstrip("/")
        self._netloc = u.netloc
        self._host, self._port = u.hostname, u.port or (443 if u.scheme == "https" else 80)
        self._tls_context = _http.https_context() if u.scheme == "https" else None
        # A cluster this session started is reached over its Unix socket.
        self._unix = self._local.socket if self._local else None
        if token is None:
            token = _local_tokens.get(self.url, os.environ.get("PHOBOS_TOKEN"))
        self._token = token
        # The headers of a request without headers of its own, and of a
        # JSON request; the connection only reads them.
        self._plain_headers = {"Authorization": "Bearer " + token} if token else {}
        self._json_headers = {**_JSON_HEADERS, **self._plain_headers}
        self._tls = threading.local()
        self._uploads = {}
        self._described = collections.OrderedDict()
        self._upload_lock = threading.Lock()
        self._closed = False
        self._pool = None
        try:
            self.session_id = self._json("POST", "/api/sessions", want=201)["session_id"]
        except BaseException:
            if self._local:
                self._local.stop()
            raise
        atexit.register(self.close)

    # HTTP ---------------------------------------------------------------

    def _conn(self):
        c = getattr(self._tls, "conn", None)
        if c is None:
            c = _http.Connection(self._host, self._port, self._netloc, timeout=300, context=self._tls_context, unix=self._unix)
            self._tls.conn = c
        return c

    def _drop_conn(self):
        c = getattr(self._tls, "conn", None)
        self._tls.conn = None
        if c is not None:
            c.close()

    def _request(self, method, path, body=None, headers=None):
        """One request on this thread's keep-alive connection; the response,
        whose body the caller reads."""
        if headers is _JSON_HEADERS:
            h = self._json_headers
        elif headers:
            h = dict(headers)
            h.update(self._plain_headers)
        else:
            h = self._plain_headers
        for attempt in range(2):
            c = self._conn()
            try:
                return c.request(method, path, body=body, headers=h)
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                c.close()
                self._tls.conn = None
                # A kept-alive connection the server closed: one fresh try.
                if attempt == 1 or isinstance(e, TimeoutError):
                    raise ConnectionError(f"phobos: {method} {self.url}{path}: {e}") from e

    def _json(self, method, path, payload=None, want=200, what=None):
        if payload is None:
            r = self._request(method, path)
        else:
            r = self._request(method, path, _json_encode(payload).encode(), _JSON_HEADERS)
        data = r.read()
        if r.status != want:
            raise self._error(r.status, data, what or f"{method} {path}")
        return json.loads(data) if data else None

    def _retrying(self, call, *args, **kw):
        """call(*args, **kw), retried on a 503 or a connection error for up
        to FAILOVER_WAIT seconds."""
        deadline = time.monotonic() + self.FAILOVER_WAIT
        delay = 0.05
        while True:
            try:
                return call(*args, **kw)
            except (_errors.Unavailable, ConnectionError):
                if time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)
            delay = min(2 * delay, 0.5)

    def _error(self, status, data, what):
        try:
            body = json.loads(data)
        except ValueError:
            body = {"error": data.decode(errors="replace").strip() or what}
        return _errors.from_response(status, body, what)

    # Programs -----------------------------------------------------------

    def _describe(self, program, nsplits=False):
        """What the last node of program makes (its shape and dtype, and
        with nsplits its chunk sizes), as the cluster says. What a program
        makes depends on nothing but the program, except where it reads a
        file: the answers to others are kept (DESCRIBE_CACHE of them), so
        code that builds the same calls again (a loop, a fit) asks once."""
        payload = {"program": {"nodes": program}}
        if nsplits:
            payload["nsplits"] = True
        key = None
        if not any(isinstance(n, dict) and n.get("fn") in _FILE_CALLS for n in program):
            try:
                key = json.dumps(payload, sort_keys=True, allow_nan=False)
            except (TypeError, ValueError):
                key = None
        if key is not None:
            with self._upload_lock:
                hit = self._described.get(key)
                if hit is not None:
                    self._described.move_to_end(key)
                    return dict(hit)
        meta = self._json("POST", "/api/describe", payload)["nodes"][0]
        if key is not None:
            with self._upload_lock:
                self._described[key] = dict(meta)
                while len(self._described) > self.DESCRIBE_CACHE:
                    self._described.popitem(last=False)
        return meta

    def functions(self):
        """The functions the cluster builds, and its ufuncs."""
        return self._json("GET", "/api/functions")

    def _tensors_arg(self, tensors, what):
        """The tensors execute or persist was given: one list or tuple of
        them counts as the tensors. A tensor knows how to write itself and
        what it needs as a program (phobos.tensor); the session only sends
        programs."""
        if self._closed:
            raise RuntimeError("phobos: the session is closed")
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        for t in tensors:
            if not hasattr(t, "_phobos_program"):
                raise TypeError(f"phobos: {what} takes phobos tensors")
        return list(tensors)

    def execute(self, *tensors, show_progress=None, fuse=True, wait=True, _hold=()):
        """Computes the tensors together (shared parts once) and keeps their
        values on them; returns the tensor, or an ExecutableTuple of them
        (as Mars does; one list or tuple of tensors is taken as the
        tensors). With wait=False it returns at once a
        concurrent.futures.Future of that result."""
        ts = self._tensors_arg(tensors, "execute")
        if not wait:
            return self._background().submit(self.execute, *ts, show_progress=False, fuse=fuse, _hold=_hold)
        if not ts:
            return ExecutableTuple()
        # _hold: tensors computed along and kept on the cluster, their
        # values not fetched unless they came inline (a scalar read's
        # intermediates, _core._held_on_way)
        hold = [t for t in _hold if _held.node(t, self) is None and t._value is None] if _hold else []
        nodes, roots, hold = self._program(ts, hold)
        # Results too big to travel inside later programs stay on the
        # cluster, held by their tensors (Mars's execute): later graphs
        # start from their chunks (_held).
        keep = [t if _held_worthy(t) and _held.node(t, self) is None else None for t in ts] + hold
        kept = any(k is not None for k in keep)
        # Shared-memory files made before the graph runs, for results
        # the cluster may write into while it computes them (_shmresult).
        pre = [_shmresult.prepare(self.url, t) for t in ts]
        try:
            return self._execute(ts, hold, nodes, roots, keep, kept, pre, show_progress, fuse)
        finally:
            for p in pre:
                if p is not None:
                    p.discard()

    def _program(self, ts, hold):
        """The program computing ts and hold, its roots, and the tensors
        it holds: hold, and the client arrays it reads that an earlier
        graph read too. Such an array stays on the workers from this
        graph on (as a persisted tensor), so later graphs name its chunks
        instead of reading the upload's files again; it is let go with
        its tensor, as results are."""
        again = []
        nodes, roots = ts[0]._phobos_program(ts + hold, self, again)
        if not again:
            return nodes, roots, hold
        have = {id(t) for t in ts}
        have.update(id(t) for t in hold)
        for t, i in again:
            if id(t) not in have:
                have.add(id(t))
                hold = hold + [t]
                roots = roots + [i]
        return nodes, roots, hold

    def _execute(self, ts, hold, nodes, roots, keep, kept, pre, show_progress, fuse):
        """execute's submission and wait, with pre the result files made
        (or None) for ts."""
        into = {}
        if any(p is not None for p in pre):
            into = {"into": [p.path if p is not None else "" for p in pre] + [""] * len(hold)}
        # One request for a small graph: the cluster answers once the graph
        # ended (or after FIRST_WAIT), with small results inline, and frees
        # the graph when they all came (unless it keeps some). A 503 is a
        # refusal (nothing started): retried like a pause.
        try:
            while True:
                try:
                    st = self._retrying(
                        self._json, "POST", f"/api/sessions/{self.session_id}/programs",
                        {"program": {"nodes": nodes}, "results": roots, "fuse": fuse,
                         "wait": self.FIRST_WAIT, "inline": INLINE_RESULT, "release": not kept, **into}, want=201)
                    break
                except ValueError as e:
                    # A held graph the cluster no longer has (released as
                    # the oldest of its session's finished graphs): its
                    # tensors are computed from their expressions again.
                    if not _held.forget_gone(str(e), nodes, self):
                        raise
                    nodes, roots = ts[0]._phobos_program(ts + hold, self)
        except KeyboardInterrupt:
            # Interrupted while the cluster waits for the graph: closing
            # the connection tells it the client left, and it cancels
            # the graph (whose id never came back).
            self._drop_conn()
            raise
        self.last_graph = st
        if st.get("released") and st["state"] == "SUCCEEDED":
            for t, res, p in zip(ts, st["results"], pre):
                t._value = self._take_result(res, p)
            return ts[0] if len(ts) == 1 else ExecutableTuple(ts)
        path = st["url"]
        held = False
        try:
            st = self._wait(st, show_progress)
            self.last_graph = st
            if st["state"] != "SUCCEEDED":
                raise _errors.graph_error(f"phobos: graph {st['graph_id']} {st['state']}: {st.get('error', '')}".rstrip(": "))
            for t, res, p in zip(ts, st["results"], pre):
                t._value = self._take_result(res, p)
            for t, res in zip(hold, st["results"][len(ts):]):
                if res.get("data"):
                    t._value = self._take_result(res)
            if kept:
                _held.keep(self, st["graph_id"], keep, nodes)
                held = True
        finally:
            if not held:
                try:
                    r = self._request("DELETE", path)
                    r.read()
                except ConnectionError:
                    pass
        return ts[0] if len(ts) == 1 else ExecutableTuple(ts)

    def persist(self, *tensors, show_progress=None, fuse=True):
        """Dask's persist: computes the tensors together and keeps their
        chunks on the cluster, without fetching their values; graphs built
        on them start from those chunks. Returns the tensor (or an
        ExecutableTuple of them), held until collected or released."""
        ts = self._tensors_arg(tensors, "persist")
        if not ts:
            return ExecutableTuple()
        nodes, roots = ts[0]._phobos_program(ts, self)
        st = self._retrying(lambda: self._json(
            "POST", f"/api/sessions/{self.session_id}/programs",
            {"program": {"nodes": nodes}, "results": roots, "fuse": fuse,
             "wait": self.FIRST_WAIT, "inline": 0}, want=201))
        self.last_graph = st
        try:
            st = self._wait(st, show_progress)
        except BaseException:
            self.release_graphs([st["graph_id"]])
            raise
        self.last_graph = st
        if st["state"] != "SUCCEEDED":
            self.release_graphs([st["graph_id"]])
            raise _errors.graph_error(f"phobos: graph {st['graph_id']} {st['state']}: {st.get('error', '')}".rstrip(": "))
        _held.keep(self, st["graph_id"], ts, nodes)
        return ts[0] if len(ts) == 1 else ExecutableTuple(ts)

    def release(self, *tensors):
        """Lets the cluster free the chunks the tensors hold (persist,
        execute) now; the other tensors of their graphs lose them too."""
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        _held.release(tensors)
        _held._Releaser.of(self).flush()

    def release_graphs(self, gids):
        """Releases graphs of this session by id, in one request."""
        return self._json("POST", f"/api/sessions/{self.session_id}/release", {"graphs": list(gids)})

    def fetch(self, *tensors, **kw):
        """Mars's session.fetch: the values of tensors as NumPy arrays, the
        value of one or a list of them (one list or tuple of tensors is
        taken as the tensors); those not yet computed are computed here,
        together."""
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        todo = [t for t in tensors if getattr(t, "_value", None) is None]
        if todo:
            self.execute(*todo, **kw)
        vals = [t._value for t in tensors]
        return vals[0] if len(vals) == 1 else vals

    def run(self, *tensors, **kw):
        """Older Mars's session.run: computes the tensors together and
        returns their values (fetch)."""
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        self.execute(*tensors, **kw)
        return self.fetch(*tensors)

    def _background(self):
        """The thread that runs execute(wait=False); one, so that
        background executions run in the order they were asked for."""
        with self._upload_lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="phobos-execute")
            return self._pool

    def _wait(self, st, show_progress):
        path = st["url"]
        start = time.monotonic()
        bar = None
        tty = sys.stderr.isatty() if show_progress is None else show_progress
        try:
            while st["state"] not in _TERMINAL:
                wait = "0.25" if tty else "5"
                st = self._retrying(self._json, "GET", f"{path}?wait_timeout={wait}")
                if tty and time.monotonic() - start > 1:
                    bar = _progress(st, bar)
        except KeyboardInterrupt:
            try:
                r = self._request("DELETE", path)
                r.read()
            finally:
                if bar is not None:
                    sys.stderr.write("\n")
            raise
        if bar is not None:
            _progress(st, bar)
            sys.stderr.write("\n")
        return st

    def _take_result(self, res, pre=None):
        """The value of a result of a graph's state: inline, or fetched
        (into pre, its shared-memory file made before the graph ran, if
        any: used once, then discarded)."""
        data = res.get("data")
        if data:
            # (base64.b64decode's own decoding, without its wrapper)
            return _npy_bytes(binascii.a2b_base64(data))
        if _shmresult.usable(self.url, res):
            got = self._retrying(lambda: _shmresult.fetch(self, res, pre))
            if got is not None:
                return got
        return self._retrying(lambda: self._fetch_result(res["url"]))

    def _fetch_result(self, path):
        """A result streamed into its array: nothing is held twice."""
        r = self._request("GET", path)
        if r.status != 200:
            raise self._error(r.status, r.read(), f"GET {path}")
        version = np.lib.format.read_magic(r)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(r)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(r)
        out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
        view = memoryview(out.reshape(-1, order="A")).cast("B") if out.size else memoryview(b"")
        got = 0
        while got < len(view):
            n = r.readinto(view[got:])
            if not n:
                raise ConnectionError(f"phobos: result {self.url}{path} ended after {got} of {len(view)} bytes")
            got += n
        r.read()
        return out

    def _upload(self, arr, chunks, content=None):
        """Sends a client array chunk by chunk, unless this session holds
        one of the same content, dtype, shape and chunks already; the node
        that names it. content is arr's _content_key when the caller
        knows it (a tensor's data never changes and is hashed once);
        without it the array is hashed here."""
        key = (content or _content_key(arr), json.dumps(chunks))
        with self._upload_lock:
            hit = self._uploads.get(key)
        if hit is not None:
            return hit
        like = {"like": {"shape": list(arr.shape), "dtype": arr.dtype.name, "chunks": chunks}}
        splits = self._describe([like], nsplits=True)["nsplits"]
        up = self._json("POST", f"/api/sessions/{self.session_id}/uploads", want=201)
        boxes = []
        grid = [len(s) for s in splits]
        offs = [np.concatenate([[0], np.cumsum(s)]).astype(int) for s in splits]
        for idx in np.ndindex(*grid):
            boxes.append(tuple(slice(offs[ax][j], offs[ax][j + 1]) for ax, j in enumerate(idx)))
        if not boxes:  # a 0-d array is one chunk
            boxes = [()]
        workers = [0] * len(boxes)

        def put(i):
            buf = io.BytesIO()
            np.save(buf, np.ascontiguousarray(arr[boxes[i]]), allow_pickle=False)
            body = buf.getvalue()
            r = self._request("PUT", f"{up['url']}/chunks/{i}", body,
                              {"Content-Type": "application/octet-stream"})
            data = r.read()
            if r.status != 201:
                raise self._error(r.status, data, f"upload chunk {i}")
            workers[i] = json.loads(data)["worker"]

        with concurrent.futures.ThreadPoolExecutor(min(_UPLOAD_STREAMS, len(boxes))) as ex:
            for f in [ex.submit(put, i) for i in range(len(boxes))]:
                f.result()
        node = {"uploaded": {"session": self.session_id, "upload": up["upload_id"],
                             "meta": {"shape": list(arr.shape), "dtype": arr.dtype.name},
                             "splits": splits, "workers": workers}}
        with self._upload_lock:
            self._uploads[key] = node
        return node

    def dashboard_url(self):
        """A one-time link to the cluster's dashboard: opened once in a
        browser, it sets the token cookie there (and is useless after), so
        the token itself is never shown or typed."""
        return self.url + self._json("POST", "/api/login-links", want=201)["path"]

    def close(self):
        """Ends the session (its results and uploads are freed) and stops
        the local cluster, if this session started one."""
        global _default
        if self._closed:
            return
        if self._pool is not None:
            # background executions finish first (their results are freed with the session)
            self._pool.shutdown(wait=True)
        self._closed = True
        try:
            r = self._request("DELETE", f"/api/sessions/{self.session_id}")
            r.read()
        except ConnectionError:
            pass
        finally:
            c = getattr(self._tls, "conn", None)
            if c is not None:
                c.close()
            if self._local:
                self._local.stop()
            with _default_lock:
                if _default is self:
                    _default = None
            atexit.unregister(self.close)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def as_default(self):
        global _default
        with _default_lock:
            _default = self
        return self

    def __repr__(self):
        return f"<phobos.Session {self.url} {self.session_id}{' (local)' if self._local else ''}>"


def _held_worthy(t):
    """Whether an executed tensor's result is kept on the cluster: one
    whose value is too big to travel inside later programs (as data)."""
    shape = getattr(t, "_shape", None)
    if shape is None or None in shape:
        return False
    n = t._dtype.itemsize
    for d in shape:
        n *= d
    return n > INLINE_RESULT


def _content_key(arr):
    """What identifies a client array's upload: its dtype, shape and a
    BLAKE2b digest of its bytes in C order."""
    c = np.ascontiguousarray(arr)
    h = hashlib.blake2b(digest_size=20)
    h.update(memoryview(c).cast("B") if c.size else b"")
    return (c.dtype.str, c.shape, h.hexdigest())


def _read_npy(f):
    """An array from a .npy stream."""
    return np.lib.format.read_array(f, allow_pickle=False)


# The header the cluster writes (np.save's, version 1.0): a dict of a plain
# dtype, C order and a shape. NumPy's own reader runs the header through
# Python's tokenizer, which costs more than the rest of a small result.
_NPY_HEADER = re.compile(r"\{'descr': '([<>|][a-zA-Z]\d+)', 'fortran_order': False, "
                         r"'shape': \(((?:\d+, )*\d+,?)?\), \} *\n")
# Such headers read, as (dtype, shape, bytes of data): results of the same
# dtype and shape (a loop's) come again and again.
_npy_headers = {}
_NPY_HEADERS_KEPT = 256


def _npy_header(header):
    """(dtype, shape, bytes of data) of a .npy version 1.0 header the
    cluster writes (the bytes after its length), None for any other;
    kept in _npy_headers."""
    m = _NPY_HEADER.fullmatch(header.decode("latin-1"))
    if m is None:
        return None
    dt = np.dtype(m[1])
    if dt.kind not in "biufc":
        return None
    shape = tuple(int(d) for d in m[2].split(",") if d) if m[2] else ()
    n = dt.itemsize
    for d in shape:
        n *= d
    if len(_npy_headers) >= _NPY_HEADERS_KEPT:
        _npy_headers.clear()
    got = _npy_headers[header] = (dt, shape, n)
    return got


def _npy_bytes(b):
    """An array (writable, its own) from the bytes of a .npy file: the
    header the cluster writes read by a pattern, any other by NumPy."""
    if b[:8] == b"\x93NUMPY\x01\x00" and len(b) >= 10:
        end = 10 + int.from_bytes(b[8:10], "little")
        header = b[10:end]
        got = _npy_headers.get(header) or _npy_header(header)
        if got is not None and len(b) - end == got[2]:
            dt, shape, _ = got
            # one array, made in its shape (frombuffer's, reshaped, is two)
            return np.ndarray(shape, dt, bytearray(b[end:]))
    return _read_npy(io.BytesIO(b))


def _progress(st, bar):
    total = max(st.get("chunk_ops") or 0, 1)
    p = st.get("progress", {})
    done = min(p.get("FINISHED", 0) + p.get("FREED", 0), total)
    width = 40
    fill = int(width * done / total)
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} chunk ops")
    sys.stderr.flush()
    return True


def new_session(url=None, token=None, default=True, workers=None, cluster_args=()):
    """A session on the cluster at url; without one, on a local cluster
    this process starts (`phobos cluster`, from $PHOBOS_BIN or PATH) and
    stops when the session closes or the interpreter exits."""
    s = Session(url, token, workers, cluster_args)
    if default:
        s.as_default()
    return s


def get_default_session():
    """The default session, started on a local cluster when there is none."""
    global _default
    s = _default  # (a name is read whole: no lock needed to read it)
    if s is not None:
        return s
    s = Session()
    with _default_lock:
        if _default is None:
            _default = s
            return s
    s.close()
    return _default


def execute(*tensors, session=None, **kw):
    """Mars's mars.execute(a, b): computes the tensors together on session
    (the default one without it); returns the tensor or an ExecutableTuple
    of them (Session.execute)."""
    return (session or get_default_session()).execute(*tensors, **kw)


def fetch(*tensors, session=None, **kw):
    """Mars's mars.fetch(a, b): the values of tensors as NumPy arrays, the
    value of one or a list of them, computing those not yet computed (on
    session, the default one without it)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if all(getattr(t, "_value", None) is not None for t in tensors):
        vals = [t._value for t in tensors]
        return vals[0] if len(vals) == 1 else vals
    return (session or get_default_session()).fetch(*tensors, **kw)
