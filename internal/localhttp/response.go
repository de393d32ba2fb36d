package localhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// checkHeader refuses the names and values net/http's server refuses.
func checkHeader(h http.Header) error {
	for k, vv := range h {
		if !httpguts.ValidHeaderFieldName(k) {
			return badRequest("invalid header name")
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return badRequest("invalid header value")
			}
		}
	}
	return nil
}

// holdMax is how much of a body is held before the head is sent: a
// response that ends within it goes with its Content-Length, a longer one
// (or one flushed) chunked.
const holdMax = 16 << 10

// response is a request's http.ResponseWriter (and http.Flusher).
type response struct {
	c      *conn
	req    *http.Request
	header http.Header

	status  int   // 0 until the status is set
	clen    int64 // the Content-Length the handler set, -1 for none
	written int64 // body bytes taken
	noBody  bool  // HEAD, 204, 304: what is written is not sent
	sent    bool  // the head is on its way
	chunked bool
	held    []byte // the body until the head is sent
	close   bool   // the connection closes after this response
	failed  error  // writing to the connection failed
}

// answer runs the handler on req and completes its response; whether the
// connection serves another request.
func (c *conn) answer(connCtx context.Context, req *http.Request) (keep bool) {
	ctx, cancel := context.WithCancel(connCtx)
	defer cancel()
	w := &response{c: c, req: req, header: make(http.Header), clen: -1, close: req.Close}
	body := &bodyReader{r: req.Body, left: req.ContentLength}
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
		body.eof = true
	}
	if req.Header.Get("Expect") != "" {
		if !strings.EqualFold(req.Header.Get("Expect"), "100-continue") || !req.ProtoAtLeast(1, 1) {
			w.close = true
			w.WriteHeader(http.StatusExpectationFailed)
			w.finish()
			return false
		}
		if !body.eof {
			body.cont = c
		}
	}
	req.Body = body
	body.w = &c.watch
	req = req.WithContext(ctx)
	c.watch.arm(c, cancel, body.eof)
	ok := c.run(w, req)
	left := c.watch.stop()
	if !ok {
		return false
	}
	if left {
		// The stream ended: a client that only closed its side still
		// reads the answer, as net/http's server sends it; the
		// connection closes after it.
		w.close = true
	} else if !body.eof {
		// A body the handler left unread is read past (up to
		// maxDiscard) so that the next request starts where it should.
		n, err := io.CopyN(io.Discard, body, maxDiscard+1)
		if n > maxDiscard || err != io.EOF && err != nil || !body.eof {
			w.close = true
		}
	}
	w.finish()
	return !w.close && w.failed == nil
}

// run calls the handler; false when it panicked (the connection then
// closes without an answer, as net/http's server does).
func (c *conn) run(w *response, req *http.Request) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler && c.srv.Log != nil {
				c.srv.Log.Error("handler panic", "method", req.Method, "path", req.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			ok = false
		}
	}()
	c.srv.Handler.ServeHTTP(w, req)
	return true
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	if code < 100 || code > 999 {
		// net/http's server panics here; a handler's mistake is a 500.
		code = http.StatusInternalServerError
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		// An informational answer goes at once; the final one follows.
		w.c.bw.WriteString("HTTP/1.1 " + statusLine(code) + "\r\n")
		w.header.Write(w.c.bw)
		w.c.bw.WriteString("\r\n")
		w.c.bw.Flush()
		return
	}
	w.status = code
	if v := w.header.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			w.clen = n
		} else {
			w.header.Del("Content-Length")
		}
	}
	w.noBody = w.req.Method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified
	if strings.EqualFold(w.header.Get("Connection"), "close") {
		w.close = true
	}
}

func (w *response) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.failed != nil {
		return 0, w.failed
	}
	if w.noBody {
		if w.req.Method == http.MethodHead {
			return len(p), nil
		}
		return 0, http.ErrBodyNotAllowed
	}
	if w.clen >= 0 && w.written+int64(len(p)) > w.clen {
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	if !w.sent {
		if len(w.held)+len(p) <= holdMax {
			w.held = append(w.held, p...)
			return len(p), nil
		}
		w.sendHead(false)
	}
	w.put(p)
	return len(p), w.failed
}

// Flush sends what was written (the head first).
func (w *response) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent {
		w.sendHead(false)
	}
	w.flushOut()
}

// put writes p to the connection in the response's framing.
func (w *response) put(p []byte) {
	if len(p) == 0 || w.failed != nil {
		return
	}
	bw := w.c.bw
	if w.chunked {
		bw.WriteString(strconv.FormatInt(int64(len(p)), 16))
		bw.WriteString("\r\n")
		bw.Write(p)
		bw.WriteString("\r\n")
	} else {
		bw.Write(p)
	}
}

func (w *response) flushOut() {
	if w.failed == nil {
		if err := w.c.bw.Flush(); err != nil {
			w.failed = err
		}
	}
}

// sendHead writes the status line and headers; final when the handler has
// returned, so that a body held whole goes with its length.
func (w *response) sendHead(final bool) {
	w.sent = true
	h := w.header
	switch {
	case w.noBody:
		h.Del("Transfer-Encoding")
	case w.clen >= 0:
		h.Del("Transfer-Encoding")
	case final:
		h.Set("Content-Length", strconv.Itoa(len(w.held)))
		h.Del("Transfer-Encoding")
	case w.req.ProtoAtLeast(1, 1):
		w.chunked = true
		h.Del("Content-Length")
		h.Set("Transfer-Encoding", "chunked")
	default:
		// An HTTP/1.0 client: the body ends with the connection.
		w.close = true
	}
	if len(w.held) > 0 && !w.noBody {
		if _, ok := h["Content-Type"]; !ok {
			h.Set("Content-Type", http.DetectContentType(w.held))
		}
	}
	if _, ok := h["Date"]; !ok {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	if w.close {
		h.Set("Connection", "close")
	} else if !w.req.ProtoAtLeast(1, 1) {
		h.Set("Connection", "keep-alive")
	}
	bw := w.c.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(statusLine(w.status))
	bw.WriteString("\r\n")
	h.Write(bw)
	bw.WriteString("\r\n")
	held := w.held
	w.held = nil
	if !w.noBody {
		w.put(held)
	}
}

// finish ends the response once the handler returned: the head if not
// sent, the body's end, all flushed.
func (w *response) finish() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.clen >= 0 && w.written != w.clen && !w.noBody {
		// Fewer bytes than the Content-Length said: the client can only
		// tell from the connection closing.
		w.close = true
	}
	if !w.sent {
		w.sendHead(true)
	}
	if w.chunked && w.failed == nil {
		w.c.bw.WriteString("0\r\n\r\n")
	}
	w.flushOut()
}

// statusLine is "code text" of a status line.
func statusLine(code int) string {
	text := http.StatusText(code)
	if text == "" {
		text = "status code " + strconv.Itoa(code)
	}
	return strconv.Itoa(code) + " " + text
}

// bodyReader is a request's body, telling when it was read to its end and
// answering an Expect: 100-continue when it is first read.
type bodyReader struct {
	r    io.ReadCloser
	left int64 // bytes to come when the length is known, else -1
	eof  bool
	cont *conn // to send "100 Continue" to before the first read
	w    *watch
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.cont != nil {
		c := b.cont
		b.cont = nil
		c.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
		if err := c.bw.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := b.r.Read(p)
	if b.left >= 0 {
		b.left -= int64(n)
	}
	if err == io.EOF || b.left == 0 && err == nil {
		b.eof = true
		if b.w != nil {
			b.w.bodyDone()
		}
	}
	return n, err
}

func (b *bodyReader) Close() error { return nil }

var _ http.Flusher = (*response)(nil)
