"""The Python client's share of a small graph's round trip
(docs/interactive.md): inline results read without NumPy's header
tokenizer, and a request's head and small body in one write."""

import http.client
import http.server
import io
import os
import socket
import subprocess
import threading

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos import _http
from phobos import session as ps

_ARRAYS = [
    np.float64(3.5), np.int64(-7), np.bool_(True), np.complex64(1 - 2j),
    np.arange(5), np.arange(1), np.zeros((0, 3)), np.zeros(0, dtype=np.int8),
    np.arange(12, dtype=np.float32).reshape(3, 4), np.arange(24, dtype=np.uint16).reshape(2, 3, 4),
    np.array([True, False, True]), np.array([1 + 2j, -3j]), np.arange(100_000, dtype=np.int32),
    np.arange(6, dtype=">f8"),  # big-endian: a header the pattern reads too
]


@pytest.mark.parametrize("a", _ARRAYS, ids=lambda a: f"{np.asarray(a).dtype.str}{np.shape(a)}")
def test_npy_bytes_matches_numpy(a):
    a = np.asarray(a)
    b = io.BytesIO()
    np.save(b, a, allow_pickle=False)
    got = ps._npy_bytes(b.getvalue())
    want = np.load(io.BytesIO(b.getvalue()), allow_pickle=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    # the array is the caller's to change
    assert got.flags.writeable and got.flags.owndata or got.base is not None and got.flags.writeable
    if got.size:
        got.reshape(-1)[0] = got.reshape(-1)[-1]


@pytest.mark.parametrize("a", [np.asfortranarray(np.arange(6.0).reshape(2, 3)),
                               np.array(["2020-01-01"], dtype="datetime64[D]")])
def test_npy_bytes_falls_back_to_numpy(a):
    b = io.BytesIO()
    np.save(b, a, allow_pickle=False)
    got = ps._npy_bytes(b.getvalue())
    np.testing.assert_array_equal(got, a)
    assert got.dtype == a.dtype


def test_npy_bytes_refuses_short_data():
    b = io.BytesIO()
    np.save(b, np.arange(4))
    with pytest.raises(ValueError):
        ps._npy_bytes(b.getvalue()[:-3])


def test_results_inline_match_numpy(session):
    for n in (1, 7, 100, 1001):
        x = mt.arange(n, chunks=max(1, n // 3))
        assert int((x * 2).sum()) == int((np.arange(n) * 2).sum())
        np.testing.assert_array_equal((x * 3).fetch(), np.arange(n) * 3)
        assert float(x.mean()) == pytest.approx(np.arange(n).mean(), rel=1e-15)


class _Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        if self.path == "/close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def echo():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv.server_address
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def sends(monkeypatch):
    """The sizes of the writes this thread makes on its sockets."""
    sent = []
    real = socket.socket.sendall
    me = threading.get_ident()

    def recording(self, data, *a):
        if threading.get_ident() == me:
            sent.append(len(data))
        return real(self, data, *a)

    monkeypatch.setattr(socket.socket, "sendall", recording)
    return sent


def _conn(addr):
    return _http.Connection(addr[0], addr[1], f"{addr[0]}:{addr[1]}", timeout=10)


@pytest.mark.parametrize("size,writes", [(0, 1), (100, 1), (_http.ONE_SEND, 1), (_http.ONE_SEND + 1, 2)])
def test_small_request_is_one_write(echo, sends, size, writes):
    c = _conn(echo)
    try:
        body = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        for _ in range(2):  # and again on the kept-alive connection
            sends.clear()
            r = c.request("POST", "/p", body=body, headers={"Content-Type": "application/octet-stream"})
            assert r.status == 200 and r.read() == body
            assert len(sends) == writes, sends
    finally:
        c.close()


def test_session_requests_use_one_write(session, sends):
    s = phobos.new_session(session.url, default=False)
    try:
        sends.clear()
        assert int((mt.arange(10) * 2).sum().execute(session=s)) == 90
        assert len(sends) == 1, sends
    finally:
        s.close()


def test_connection_is_kept_alive_and_remade(echo, monkeypatch):
    made = []
    real = _http.Connection.connect

    def counting(self):
        made.append(1)
        return real(self)

    monkeypatch.setattr(_http.Connection, "connect", counting)
    c = _conn(echo)
    try:
        for i in range(3):
            assert c.request("POST", "/p", body=b"%d" % i).read() == b"%d" % i
        assert len(made) == 1
        # a body left unread: the next request goes on a new connection
        r = c.request("POST", "/p", body=b"left")
        assert r.read(2) == b"le"
        assert c.request("POST", "/p", body=b"next").read() == b"next"
        assert len(made) == 2
        # read to its end in parts, the connection is kept
        r = c.request("POST", "/p", body=b"0123456789")
        buf = bytearray(4)
        got = b""
        while n := r.readinto(buf):
            got += bytes(buf[:n])
        assert got == b"0123456789" and r.read() == b""
        assert c.request("POST", "/p", body=b"x").read() == b"x"
        assert len(made) == 2
        # the server ends the connection: the next request makes another
        assert c.request("POST", "/close", body=b"bye").read() == b"bye"
        assert c.sock is None
        assert c.request("POST", "/p", body=b"again").read() == b"again"
        assert len(made) == 3
    finally:
        c.close()


@pytest.mark.parametrize("path,headers,body,exc", [
    ("/p\r\nX-Injected: 1", {}, b"", ValueError),
    ("/p", {"X-A": "1\r\nX-Injected: 1"}, b"", ValueError),
    ("/p", {"X-A\n": "1"}, b"", ValueError),
    ("/p", {"X-A": "nul\0"}, b"", ValueError),
    ("/p", {}, "text", TypeError),
    ("/p", {}, io.BytesIO(b"file"), TypeError),
])
def test_request_refuses_what_would_break_its_head(echo, path, headers, body, exc):
    c = _conn(echo)
    try:
        with pytest.raises(exc):
            c.request("POST", path, body=body, headers=headers)
        assert c.request("POST", "/p", body=b"still").read() == b"still"
    finally:
        c.close()


class _Canned:
    """A socket whose response is canned bytes."""

    def __init__(self, raw):
        self.raw = raw

    def makefile(self, mode):
        return io.BytesIO(self.raw)


_RESPONSES = [
    b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nLocation: /x\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
    b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 204 No Content\r\nX-A: 1\r\nX-A: 2\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 3\r\ncontent-type: text/plain\r\n\r\nno!",
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: -4\r\nConnection: keep-alive\r\n\r\nbusy",
    b"HTTP/1.1 200 OK\nContent-Length: 1\n\nz",  # bare newlines
    b"HTTP/1.1 200 OK\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nwxyz\r\n1\r\n!\r\n0\r\nTrailer: t\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 40000\r\n\r\n" + bytes(range(200)) * 200,
]


@pytest.mark.parametrize("raw", _RESPONSES, ids=range(len(_RESPONSES)))
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_response_reads_as_http_client_does(raw, method):
    want = http.client.HTTPResponse(_Canned(raw), method=method)
    got = _http.Response(io.BytesIO(raw), method=method)
    want.begin()
    got.begin()
    for a in ("status", "reason", "version", "chunked", "will_close", "length"):
        assert getattr(got, a) == getattr(want, a), a
    assert got.getheaders() == want.getheaders()
    assert got.getheader("content-length") == want.getheader("content-length")
    assert got.read() == want.read()


@pytest.mark.parametrize("raw,exc", [
    (b"", http.client.RemoteDisconnected),
    (b"garbage\r\n\r\n", http.client.BadStatusLine),
    (b"HTTP/1.1 2000 OK\r\n\r\n", http.client.BadStatusLine),
    (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n", http.client.HTTPException),
    (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000 + b"\r\n\r\n", http.client.LineTooLong),
])
def test_response_refuses_what_http_client_refuses(raw, exc):
    with pytest.raises(exc):
        http.client.HTTPResponse(_Canned(raw), method="GET").begin()
    with pytest.raises(exc):
        _http.Response(io.BytesIO(raw), method="GET").begin()


def test_response_refuses_a_header_without_colon():
    # (http.client lets the email parser record it as a defect)
    with pytest.raises(http.client.HTTPException):
        _http.Response(io.BytesIO(b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n"), method="GET").begin()


@pytest.mark.parametrize("raw", _RESPONSES, ids=range(len(_RESPONSES)))
@pytest.mark.parametrize("piece", [1, 3, 4096])
def test_body_read_in_pieces(raw, piece):
    want = http.client.HTTPResponse(_Canned(raw), method="GET")
    want.begin()
    whole = want.read()
    got = _http.Response(io.BytesIO(raw), method="GET")
    got.begin()
    parts = []
    if piece == 3:
        while b := got.read(piece):
            parts.append(b)
    else:
        buf = bytearray(piece)
        while n := got.readinto(buf):
            parts.append(bytes(buf[:n]))
    assert b"".join(parts) == whole
    assert got.read() == b"" and got.closed


@pytest.mark.parametrize("raw", [
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc",
    b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
])
def test_truncated_or_malformed_body_is_an_error(raw):
    want = http.client.HTTPResponse(_Canned(raw), method="GET")
    want.begin()
    with pytest.raises(http.client.HTTPException):
        want.read()
    r = _http.Response(io.BytesIO(raw), method="GET")
    r.begin()
    with pytest.raises(http.client.HTTPException):
        r.read()


def test_https_cluster_is_verified(session, tmp_path, monkeypatch):
    """Over TLS the session checks the cluster's certificate: against its
    CA it computes (a result inline and one streamed), without it it
    refuses to talk."""
    certs = tmp_path / "certs"
    subprocess.run([os.environ["PHOBOS_BIN"], "certs", "-dir", str(certs)], check=True, capture_output=True)
    args = [f"--tls-cert={certs / 'cert.pem'}", f"--tls-key={certs / 'key.pem'}", f"--tls-ca={certs / 'ca.pem'}"]
    monkeypatch.setenv("SSL_CERT_FILE", str(certs / "ca.pem"))
    s = phobos.new_session(cluster_args=args, default=False)
    try:
        assert s.url.startswith("https://")
        assert int((mt.arange(100) * 2).sum().execute(session=s)) == 9900
        x = np.arange(300_000.0)
        np.testing.assert_array_equal((mt.tensor(x, chunks=100_000) * 2).execute(session=s).fetch(session=s), x * 2)
        monkeypatch.delenv("SSL_CERT_FILE")
        with pytest.raises(ConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            phobos.Session(s.url, token=s._token)
    finally:
        s.close()
