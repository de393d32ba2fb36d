"""Sessions, data in and out, errors and the registry, against a real cluster."""

import io
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos.tensor import _core

HERE = pathlib.Path(__file__).resolve().parent


def test_registry_matches_the_cluster(session):
    # The client is checked against the server's registry: a function on
    # one side only fails here.
    fns = session.functions()
    server = {f["name"] for f in fns["functions"]}
    client = set(mt.REGISTRY)
    assert server - client == set(), "functions of the cluster the client does not call"
    assert client - server == set(), "functions the client calls that the cluster does not have"
    for name, where in mt.REGISTRY.items():
        obj = mt
        for part in where.split("."):
            obj = getattr(obj, part)
        assert callable(obj), f"{name}: {where} is not callable"
    assert tuple(fns["ufuncs"]["unary"]) == mt.UNARY_UFUNCS
    assert tuple(fns["ufuncs"]["binary"]) == mt.BINARY_UFUNCS
    for name in mt.UNARY_UFUNCS + mt.BINARY_UFUNCS:
        assert callable(getattr(mt, name))


def test_every_call_names_its_parameters_as_the_cluster_does(session):
    params = {f["name"]: f["params"] for f in session.functions()["functions"]}
    x = mt.ones((4, 3), chunks=2)
    made = [x.sum(axis=0, keepdims=True, dtype="float32"), x.var(ddof=1), mt.cumsum(x, axis=1),
            mt.full((2,), 3), mt.arange(1, 9, 2), mt.eye(3, k=1), mt.random.randint(5, size=3),
            mt.to_npy(x, os.path.join(session.data_root, "p.npy")), mt.tensordot(x, x.T, 1)]
    for t in made:
        assert set(t._kwargs) <= set(params[t._fn]), t._fn


def test_seeds_example_verbatim():
    src = "import phobos.tensor as mt\na = mt.random.rand(100, chunks=100)\nb = mt.random.rand(100, chunks=100)\nc = (a + b).sum()\nprint(c.execute())\n"
    out = subprocess.run([sys.executable, "-c", src], env=dict(os.environ, PYTHONPATH=str(HERE.parent)),
                         capture_output=True, text=True, timeout=120, check=True)
    assert 0 < float(out.stdout) < 200


def test_mars_readme_pi():
    out = subprocess.run([sys.executable, str(HERE.parent / "examples" / "pi.py"), "2e6"],
                         env=dict(os.environ, PYTHONPATH=str(HERE.parent)),
                         capture_output=True, text=True, timeout=120, check=True)
    assert abs(float(out.stdout) - np.pi) < 0.01


def test_execute_several_shares_one_graph(session):
    a = mt.arange(10, chunks=3)
    b = a * 2
    c = b.sum()
    rb, rc = session.execute(b, c)
    assert rb is b and rc is c
    np.testing.assert_array_equal(b.fetch(), np.arange(10) * 2)
    assert c.fetch() == 90
    assert "90" == str(c)


def test_a_second_session_on_the_same_cluster(session):
    s2 = phobos.new_session(session.url, default=False)
    try:
        t = mt.ones((3, 3), chunks=2) * 3
        s2.execute(t)
        np.testing.assert_array_equal(t.fetch(), np.full((3, 3), 3.0))
    finally:
        s2.close()


def test_local_cluster_has_a_token_of_its_own(session):
    # The local cluster made a token at its start: a request without it,
    # or from a page of another site, is refused; the token is on no
    # command line.
    import urllib.error
    import urllib.request
    assert session._local is not None and len(session._local.token) >= 32
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(session.url + "/api", timeout=10)
    assert e.value.code == 401
    req = urllib.request.Request(session.url + "/api/sessions", method="POST", data=b"{}",
                                 headers={"Origin": "http://evil.example",
                                          "Authorization": "Bearer " + session._local.token})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 403
    ps = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout
    assert session._local.token not in ps
    with pytest.raises(PermissionError, match="token"):
        phobos.new_session(session.url, token="wrong", default=False)


def test_dashboard_link_logs_in_once(session):
    import urllib.error
    import urllib.request
    link = session.dashboard_url()
    assert link.startswith(session.url + "/login?once=")
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(link, timeout=10) as r:
        assert r.status == 200 and b"Phobos dashboard" in r.read()
    with opener.open(session.url + "/api/dashboard/cluster", timeout=10) as r:
        assert r.status == 200
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(link, timeout=10)
    assert e.value.code == 403


def test_local_cluster_stops_with_its_session():
    s = phobos.new_session(default=False, workers=1)
    proc = s._local.proc
    t = mt.arange(5)
    s.execute(t)
    np.testing.assert_array_equal(t.fetch(), np.arange(5))
    s.close()
    assert proc.poll() is not None


def test_unreachable_cluster_names_the_url():
    with pytest.raises(ConnectionError, match="127.0.0.1:9"):
        phobos.new_session("http://127.0.0.1:9", default=False)


def test_bad_url():
    with pytest.raises(ValueError):
        phobos.new_session("ftp://example.org", default=False)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "float32"])
def test_big_arrays_travel_as_uploads(session, dtype):
    rng = np.random.default_rng(3)
    data = (rng.random((1100, 301)) * 100).astype(dtype)  # over the 1 MiB inline limit for 4+ byte types
    if data.nbytes <= phobos.session.INLINE_LIMIT:
        data = np.concatenate([data] * 8)
    t = mt.tensor(data, chunks=(257, 100))
    nodes, _ = _core._program([t], session)
    assert "uploaded" in nodes[0]
    r = (t[::3] == t[::3]).all()
    u = t.sum(axis=0)
    session.execute(t, r, u)
    np.testing.assert_array_equal(t.fetch(), data)
    assert bool(r.fetch())
    np.testing.assert_allclose(u.fetch(), data.sum(axis=0), rtol=1e-5 if dtype == "float32" else 1e-12)


def test_client_arrays_are_sent_once_per_content(session, monkeypatch):
    posts = []
    real = phobos.Session._json

    def counting(self, method, path, payload=None, want=200, what=None):
        if method == "POST" and path.endswith("/uploads"):
            posts.append(path)
        return real(self, method, path, payload, want, what)

    monkeypatch.setattr(phobos.Session, "_json", counting)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(20_000)  # 160 KB, above the inline limit
    assert x.nbytes > phobos.session.INLINE_LIMIT
    t = mt.tensor(x)
    for _ in range(3):
        assert float(t.mean()) == pytest.approx(x.mean(), rel=1e-12)
    # another tensor of an equal copy refers to the same upload
    assert float(mt.tensor(x.copy()).sum()) == pytest.approx(x.sum(), rel=1e-12)
    assert len(posts) == 1, posts
    # the tensor holds x's value when it was made: x changed in place
    # later is not seen by it (nothing is sent again), and a tensor made
    # of the changed array is new content, sent once
    before = x.mean()
    x[:10] = 1000.0
    assert float(t.mean()) == pytest.approx(before, rel=1e-12)
    assert len(posts) == 1, posts
    assert float(mt.tensor(x).mean()) == pytest.approx(x.mean(), rel=1e-12)
    assert len(posts) == 2, posts
    # other chunks of the same content are another upload
    assert float(mt.tensor(x, chunks=7_000).max()) == 1000.0
    assert len(posts) == 3, posts


def test_client_array_hashed_once(session, monkeypatch):
    """A tensor's client data is a read-only copy hashed at its first
    upload only; hashing it again (as for any array passed in) would
    find the same key."""
    hashed = []
    real = phobos.session._content_key

    def counting(arr):
        hashed.append(arr.nbytes)
        return real(arr)

    monkeypatch.setattr(phobos.session, "_content_key", counting)
    x = np.random.default_rng(8).standard_normal(30_000)
    assert x.nbytes > phobos.session.INLINE_LIMIT
    t = mt.tensor(x)
    assert not hashed  # nothing hashed before a graph needs it
    for _ in range(4):
        assert float(t.sum()) == pytest.approx(x.sum(), rel=1e-12)
    assert hashed == [x.nbytes]
    assert t._digest == real(x)
    # the copy cannot be changed through the tensor, nor through x
    assert not t._data.flags.writeable
    with pytest.raises(ValueError):
        t._data[0] = 1.0
    x[0] = 1e9
    assert t._data[0] != x[0]
    assert float(t[0]) == pytest.approx(t._data[0])


@pytest.mark.parametrize("n", [10, 30_000])
def test_tensor_value_is_taken_when_made(session, n):
    """Small arrays (inside the program) and large ones (uploaded) follow
    one rule: the value when the tensor was made, as np.array(x)."""
    x = np.arange(n, dtype=np.float64)
    want = x.sum()
    t = mt.tensor(x)
    x += 1.0
    assert float(t.sum()) == want
    assert float(mt.tensor(x).sum()) == want + n
    # non-native byte order is converted (a copy as well)
    y = np.arange(n, dtype=">i4")
    u = mt.tensor(y)
    y[:] = 0
    assert int(u.sum()) == n * (n - 1) // 2


def test_large_result_streams(session):
    t = mt.arange(6_000_000, chunks=1_000_000).astype("float64") * 0.5
    v = t.fetch()
    assert v.shape == (6_000_000,) and v.dtype == np.float64
    np.testing.assert_array_equal(v[-3:], np.arange(5_999_997, 6_000_000) * 0.5)


def test_ctrl_c_cancels_the_graph(session, monkeypatch):
    seen = {}
    real = phobos.Session._json

    def interrupting(self, method, path, payload=None, want=200, what=None):
        out = real(self, method, path, payload, want, what)
        if method == "POST" and path.endswith("/programs"):
            seen["url"] = out["url"]
            out = dict(out, state="RUNNING")
        elif method == "GET" and "wait_timeout" in path:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(phobos.Session, "_json", interrupting)
    # the submission answers at once, so the client follows the graph
    monkeypatch.setattr(session, "FIRST_WAIT", 0)
    t = mt.random.rand(2000, 2000, chunks=100).sum()
    with pytest.raises(KeyboardInterrupt):
        session.execute(t)
    monkeypatch.undo()
    # the graph was deleted on the cluster
    r = session._request("GET", seen["url"])
    body = json.loads(r.read())
    assert r.status == 404, body


def test_ctrl_c_while_submitting_cancels_the_graph(session, monkeypatch):
    # a session of its own: its first graph is g1
    s2 = phobos.new_session(session.url, token=session._token, default=False)
    real = phobos.Session._request

    def interrupting(self, method, path, body=None, headers=None):
        if method == "POST" and path.endswith("/programs"):
            # sent, then Ctrl-C while the cluster holds the answer
            c = self._conn()
            h = dict(headers or {})
            if self._token:
                h["Authorization"] = "Bearer " + self._token
            c.send(method, path, body=body, headers=h)
            raise KeyboardInterrupt
        return real(self, method, path, body, headers)

    try:
        monkeypatch.setattr(phobos.Session, "_request", interrupting)
        t = mt.random.rand(4000, 4000, chunks=100).sum()
        with pytest.raises(KeyboardInterrupt):
            s2.execute(t)
        monkeypatch.undo()
        r = s2._request("GET", f"/api/sessions/{s2.session_id}/graphs/g1?wait_timeout=60")
        body = json.loads(r.read())
        # cancelled (or, once it stopped, deleted), never computed to the end
        assert r.status == 404 or body["state"] == "CANCELLED", body
    finally:
        monkeypatch.undo()
        s2.close()


def test_files_on_the_workers(session):
    path = os.path.join(session.data_root, "x.npy")
    x = mt.arange(24, chunks=5).reshape(4, 6) * 1.5
    mt.to_npy(x, path).execute()
    np.testing.assert_array_equal(np.load(path), np.arange(24).reshape(4, 6) * 1.5)
    y = mt.from_npy(path, chunks=3)
    assert y.shape == (4, 6) and y.dtype == np.float64
    np.testing.assert_array_equal((y + 1).fetch(), np.load(path) + 1)
    zpath = os.path.join(session.data_root, "x.zarr")
    x.to_zarr(zpath, chunks=(2, 4)).execute()
    np.testing.assert_array_equal(mt.from_zarr(zpath).fetch(), np.load(path))
    z3 = os.path.join(session.data_root, "x3.zarr")
    x.to_zarr(z3, chunks=(3, 5), compressor="zstd", zarr_format=3).execute()
    assert os.path.exists(os.path.join(z3, "zarr.json"))
    y3 = mt.from_zarr(z3)
    assert y3.nsplits == ((3, 1), (5, 1))
    np.testing.assert_array_equal(y3.fetch(), np.load(path))


def test_file_outside_the_data_root_is_refused(session, tmp_path):
    # refused when the graph is submitted (403), before anything runs
    with pytest.raises(PermissionError, match="data-root"):
        mt.to_npy(mt.ones(3), "/tmp/phobos-not-allowed.npy").execute()
    with pytest.raises(PermissionError, match="data-root"):
        mt.to_zarr(mt.ones(3), os.path.join(session.data_root, "..", "z.zarr")).execute()
    assert not os.path.exists("/tmp/phobos-not-allowed.npy")
    outside = tmp_path / "secret.npy"
    np.save(outside, np.arange(3))
    # the header is read by a worker, under its data roots: the web service
    # reads no file, and says nothing of one a worker may not read
    with pytest.raises(PermissionError, match="data-root"):
        mt.from_npy(str(outside))
    link = os.path.join(session.data_root, "link.npy")
    os.symlink(outside, link)
    with pytest.raises(PermissionError):
        mt.from_npy(link)
    with pytest.raises(PermissionError):
        mt.from_npy(os.path.join(session.data_root, "..", "x.npy"))
    with pytest.raises(FileNotFoundError):
        mt.from_npy(os.path.join(session.data_root, "missing.npy"))


def test_result_repr_and_scalars(session):
    t = mt.ones((2, 2)).sum()
    assert "Tensor <sum" in repr(t)
    assert float(t) == 4.0 and int(t) == 4
    assert repr(t) == repr(np.float64(4.0))


def test_progress_bar_on_request(session, capsys):
    t = mt.arange(10).sum()
    session.execute(t, show_progress=True)
    assert t.fetch() == 45


def test_scalar_read_keeps_small_results(session):
    """int(r) computes, along with r, the small tensors on its way that come
    from large ones; programs built on them afterwards send their values
    instead of computing the large part again."""
    a = np.random.default_rng(3).standard_normal((20000, 5))
    x = mt.asarray(a, chunks=(5000, 5))
    v = mt.mean(x, axis=0)  # small, from a large x
    r = mt.sum(v > 0)
    assert int(r) == int(np.sum(a.mean(axis=0) > 0))
    assert v._value is not None
    np.testing.assert_allclose(v._value, a.mean(axis=0), rtol=1e-12)
    w = v * 2
    nodes, _ = _core._program([w], None)
    assert len(nodes) == 2 and "data" in nodes[0]  # v's value, and the product
    np.testing.assert_allclose(w.fetch(), 2 * a.mean(axis=0), rtol=1e-12)
    # a large tensor is never kept so
    big = x + 1
    assert int(mt.sum(big > 100)) == 0
    assert big._value is None


def test_local_cluster_logs_warnings_only_unless_asked():
    s = phobos.new_session(default=False)
    try:
        args = s._local.proc.args
        assert args[args.index("--log-level") + 1] == "warn", args
    finally:
        s.close()
    s = phobos.new_session(default=False, cluster_args=["--log-level", "debug"])
    try:
        args = s._local.proc.args
        assert args.count("--log-level") == 1 and args[args.index("--log-level") + 1] == "debug", args
        assert float(mt.arange(4).sum()) == 6.0
    finally:
        s.close()


def test_client_array_handles_share_the_digest(session):
    """Copies of a tensor's handle, and the node in-place syntax moves
    aside, are the same client data: they compute, hashed once."""
    import copy

    x = np.random.default_rng(9).standard_normal(20_000)
    t = mt.tensor(x)
    assert float(t.sum()) == pytest.approx(x.sum(), rel=1e-12)
    digest = t._digest
    assert digest is not None
    for h in (copy.copy(t), copy.deepcopy(t)):
        assert h._digest == digest
        assert float(h.max()) == x.max()
    u = mt.tensor(x)
    before = u * 1  # built on u's node before the rebind
    u += 1.0
    np.testing.assert_array_equal(before.fetch(), x)
    np.testing.assert_array_equal(u.fetch(), x + 1.0)
