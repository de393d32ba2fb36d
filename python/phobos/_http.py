"""The session's HTTP/1.1 client: one kept-alive connection, a request
written in one send, a response read from one buffered reader that lives
as long as the connection.

http.client costs more than the rest of a small graph's round trip on the
client's side (docs/interactive.md, round 11): it checks every header
with regular expressions, sends the head and the body in two writes (the
server wakes twice), makes a new buffered reader for every response and
files the response's headers through the email package. What the cluster
and its clients exchange needs none of that: the client writes its own
few headers, and the cluster's responses are plain HTTP/1.1 with a
Content-Length, chunked, or closed at their end.

The responses are read as http.client reads them (status, reason,
version, headers, the body's framing, keep-alive), and what it refuses
is refused with its exceptions (tests/test_roundtrip_client.py holds the
two side by side)."""

import http.client
import re
import socket
import ssl

# A body up to this size goes in the same write as the head.
ONE_SEND = 1 << 16

_MAXLINE = http.client._MAXLINE
_MAX_HEADERS = 100
_BREAKS = re.compile("[\r\n\0]")
_NO_BODY = (http.client.NO_CONTENT, http.client.NOT_MODIFIED)
# The headers (lower-cased) that say how a response's body ends.
_FRAMING = frozenset(("transfer-encoding", "connection", "keep-alive", "content-length"))
# Distinct request heads a connection keeps, validated and encoded.
_HEADS_KEPT = 64


class Response:
    """A response on fp, its head read by begin(); its body by read and
    readinto, whole or in parts."""

    def __init__(self, fp, method="GET", done=None):
        self.fp = fp
        self._method = method
        self._done = done  # called once with (self) when the body ends
        self.headers = None
        self.status = self.reason = self.version = None
        self.length = None
        self.chunked = False
        self.chunk_left = None
        self.will_close = True
        self.closed = False

    def begin(self):
        """Reads the status line and the headers (skipping 1xx answers)."""
        while True:
            line = self._line("status line")
            if not line:
                raise http.client.RemoteDisconnected("Remote end closed connection without response")
            version, _, rest = line.decode("iso-8859-1").partition(" ")
            code, _, reason = rest.partition(" ")
            if not version.startswith("HTTP/") or len(code) != 3 or not code.isdigit():
                self.close()
                raise http.client.BadStatusLine(line)
            headers = []
            # the values of the headers that frame the body, joined as
            # getheader joins them: found in the one pass over the lines
            framing = {}
            for h in self._fields("header line"):
                k, sep, v = h.decode("iso-8859-1").partition(":")
                if not sep or k != k.strip():
                    raise http.client.HTTPException(f"malformed header line {h!r}")
                v = v.strip()
                headers.append((k, v))
                name = k.lower()
                if name in _FRAMING:
                    framing[name] = f"{framing[name]}, {v}" if name in framing else v
            if int(code) != http.client.CONTINUE:
                break
        self.status = int(code)
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        self.headers = headers
        te = framing.get("transfer-encoding")
        self.chunked = bool(te) and te.lower() == "chunked"
        conn = (framing.get("connection") or "").lower()
        if self.version == 11:
            self.will_close = "close" in conn
        else:
            self.will_close = "keep-alive" not in conn and not framing.get("keep-alive")
        self.length = None
        n = framing.get("content-length")
        if n and not self.chunked:
            try:
                self.length = int(n)
            except ValueError:
                self.length = None
            else:
                if self.length < 0:
                    self.length = None
        no_body = self.status in _NO_BODY or 100 <= self.status < 200 or self._method == "HEAD"
        if no_body:
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True
        if no_body or self.length == 0 and not self.chunked:
            self._end()

    def _line(self, what):
        line = self.fp.readline(_MAXLINE + 1)
        if len(line) > _MAXLINE:
            raise http.client.LineTooLong(what)
        return line

    def _fields(self, what):
        """The lines up to a blank one (or the end): the headers, or a
        chunked body's trailers."""
        lines = []
        readline = self.fp.readline
        for _ in range(_MAX_HEADERS + 1):
            line = readline(_MAXLINE + 1)
            if len(line) > _MAXLINE:
                raise http.client.LineTooLong(what)
            if line in (b"\r\n", b"\n", b""):
                return lines
            lines.append(line)
        raise http.client.HTTPException(f"got more than {_MAX_HEADERS} headers")

    def getheader(self, name, default=None):
        """The header's values joined by ", " (as http.client), or default."""
        name = name.lower()
        vals = [v for k, v in self.headers if k.lower() == name]
        return ", ".join(vals) if vals else default

    def getheaders(self):
        return list(self.headers)

    def read(self, amt=None):
        """The rest of the body, or up to amt bytes of it."""
        if self.closed:
            return b""
        if amt is not None and amt >= 0:
            b = bytearray(amt)
            n = self.readinto(b)
            del b[n:]
            return bytes(b)
        parts = []
        if self.chunked:
            while True:
                left = self._chunk()
                if left == 0:
                    break
                parts.append(self._exact(left))
                self.chunk_left = 0
        elif self.length is None:
            parts.append(self.fp.read())
            self._end()
        else:
            parts.append(self._exact(self.length))
            self.length = 0
            self._end()
        return b"".join(parts)

    def readinto(self, b):
        """Reads into the buffer b; the bytes read, 0 at the body's end."""
        if self.closed:
            return 0
        view = memoryview(b).cast("B")
        if not len(view):
            return 0
        if self.chunked:
            left = self._chunk()
            if left == 0:
                return 0
            n = self.fp.readinto(view[:min(len(view), left)])
            if not n:
                raise http.client.IncompleteRead(b"", left)
            self.chunk_left = left - n
            return n
        if self.length is None:
            n = self.fp.readinto(view)
            if not n:
                self._end()
            return n
        want = min(len(view), self.length)
        n = self.fp.readinto(view[:want]) if want else 0
        if want and not n:
            raise http.client.IncompleteRead(b"", self.length)
        self.length -= n
        if self.length == 0:
            self._end()
        return n

    def _exact(self, n):
        data = self.fp.read(n) if n else b""
        if len(data) < n:
            raise http.client.IncompleteRead(data, n - len(data))
        return data

    def _chunk(self):
        """Bytes left in the current chunk, reading the next chunk's size
        when the last is done; 0 at the end (trailers read)."""
        if self.chunk_left:
            return self.chunk_left
        if self.chunk_left == 0:
            # the CRLF after the chunk just read
            self._exact(2)
        line = self._line("chunk size")
        try:
            n = int(line.split(b";", 1)[0], 16)
        except ValueError:
            self.close()
            raise http.client.IncompleteRead(b"") from None
        if n < 0:
            self.close()
            raise http.client.IncompleteRead(b"")
        if n == 0:
            self._fields("trailer line")
            self.chunked = False
            self.length = 0
            self._end()
            return 0
        self.chunk_left = n
        return n

    def _end(self):
        """The body has been read."""
        done, self._done = self._done, None
        self.closed = True
        if done is not None:
            done(self)

    def close(self):
        if not self.closed:
            self.closed = True
            self._done = None


class Connection:
    """One kept-alive connection to host:port (through the Unix socket at
    unix when given), over TLS with context. Not for several threads at
    once (the session keeps one per thread)."""

    def __init__(self, host, port, netloc, timeout=300.0, context=None, unix=None):
        self.host, self.port = host, port
        self.unix = unix  # a Unix socket's path to reach host:port's server by
        self.netloc = netloc  # the Host header: as the URL names the cluster
        self.timeout = timeout
        self.context = context
        self.sock = None
        self._fp = None
        self._open = None  # the response whose body is still being read
        self._heads = {}  # request heads without their Content-Length: encoded

    def connect(self):
        if self.unix is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(self.timeout)
                sock.connect(self.unix)
            except BaseException:
                sock.close()
                raise
        else:
            sock = socket.create_connection((self.host, self.port), self.timeout)
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.context is not None:
                    sock = self.context.wrap_socket(sock, server_hostname=self.host)
            except BaseException:
                sock.close()
                raise
        self.sock = sock
        self._fp = sock.makefile("rb")

    def close(self):
        self._open = None
        fp, sock = self._fp, self.sock
        self._fp = self.sock = None
        if fp is not None:
            fp.close()
        if sock is not None:
            sock.close()

    def request(self, method, path, body=None, headers=None):
        """Sends a request and reads the head of its response: the
        Response, whose body the caller reads (all of it, for the
        connection to be used again)."""
        self.send(method, path, body, headers)
        return self.response(method)

    def send(self, method, path, body=None, headers=None):
        """Writes a request: its head and a small body in one write."""
        if self._open is not None:
            # A body left unread: the stream is not at a response's start.
            self.close()
        if body is not None and not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"phobos: a request body is bytes, not {type(body).__name__}")
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.netloc}\r\nAccept-Encoding: identity\r\n"
        n = 0
        if headers:
            n = len(headers)
            for k, v in headers.items():
                head += f"{k}: {v}\r\n"
        # A head seen before was checked and encoded then (the session's
        # requests repeat a few heads, their lengths apart). A line break
        # inside a value or the path adds a line: with the number of
        # headers in the key, such a head never matches a checked one.
        encoded = self._heads.get((head, n))
        if encoded is None:
            encoded = self._check(method, path, headers, (head, n))
        if body is not None:
            head = encoded + b"Content-Length: %d\r\n\r\n" % len(body)
        elif method in ("POST", "PUT", "PATCH"):
            head = encoded + b"Content-Length: 0\r\n\r\n"
        else:
            head = encoded + b"\r\n"
        if self.sock is None:
            self.connect()
        try:
            if body is None or not len(body):
                self.sock.sendall(head)
            elif len(body) <= ONE_SEND:
                self.sock.sendall(head + bytes(body))
            else:
                self.sock.sendall(head)
                self.sock.sendall(body)
        except BaseException:
            self.close()
            raise

    def _check(self, method, path, headers, key):
        """The head in key (the request line and headers, each line
        ended; the number of headers) encoded, once no line holds a line
        break or NUL; kept for the next request with the same head."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.netloc}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        for line in lines:
            if _BREAKS.search(line):
                raise ValueError(f"phobos: a line break or NUL in a request's line or headers: {line!r}")
        encoded = key[0].encode("latin-1")
        if len(self._heads) >= _HEADS_KEPT:
            del self._heads[next(iter(self._heads))]
        self._heads[key] = encoded
        return encoded

    def response(self, method):
        """The response to the request sent last, its head read."""
        if self.sock is None:
            raise http.client.ResponseNotReady("phobos: no request was sent on this connection")
        r = Response(self._fp, method, self._ended)
        try:
            r.begin()
        except BaseException:
            self.close()
            raise
        if not r.closed:
            self._open = r
        return r

    def _ended(self, r):
        if self._open is r:
            self._open = None
        if r.will_close:
            self.close()


def https_context():
    """The context a session's https connections verify the cluster with
    (the system's CAs, or SSL_CERT_FILE's, as http.client's default)."""
    return ssl.create_default_context()
