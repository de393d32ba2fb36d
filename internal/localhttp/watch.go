package localhttp

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// watch sees a client leave while a handler runs: once the handler has run
// for the server's WatchAfter and has read its request's body to the end,
// a goroutine peeks at the connection. The end of the stream (or a reset)
// means the client left: the request's context is cancelled. Bytes mean
// the client sent its next request already, and are left for it. When the
// handler returns, a read deadline in the past ends the peek.
//
// Its state belongs to the connection's goroutine and the timer's and
// peek's callbacks together, under mu.
type watch struct {
	mu      sync.Mutex
	gen     uint64 // the request being watched
	active  bool   // between arm and stop
	fired   bool   // the handler ran WatchAfter
	bodyEOF bool   // the request's body was read to its end
	peeking bool   // a peek is running (done closes when it ends)
	left    bool   // the client left
	cancel  context.CancelFunc
	timer   *time.Timer
	done    chan struct{}
	c       *conn
}

// arm starts watching a request: bodyEOF when it has no body to read.
func (w *watch) arm(c *conn, cancel context.CancelFunc, bodyEOF bool) {
	w.mu.Lock()
	w.gen++
	gen := w.gen
	w.c, w.cancel = c, cancel
	w.active, w.fired, w.bodyEOF, w.left = true, false, bodyEOF, false
	w.timer = time.AfterFunc(c.srv.watchAfter(), func() { w.fire(gen) })
	w.mu.Unlock()
}

func (w *watch) fire(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.active || gen != w.gen {
		return
	}
	w.fired = true
	if w.bodyEOF {
		w.startLocked()
	}
}

// bodyDone: the handler read its body to the end.
func (w *watch) bodyDone() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bodyEOF = true
	if w.active && w.fired {
		w.startLocked()
	}
}

func (w *watch) startLocked() {
	if w.peeking {
		return
	}
	w.peeking = true
	w.done = make(chan struct{})
	go w.peek(w.c, w.cancel, w.done)
}

func (w *watch) peek(c *conn, cancel context.CancelFunc, done chan struct{}) {
	defer close(done)
	_, err := c.br.Peek(1)
	if f := c.srv.peeked; f != nil {
		f(err)
	}
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		// the next request, or stop's deadline
		return
	}
	w.mu.Lock()
	w.left = true
	w.mu.Unlock()
	cancel()
}

// stop ends the watch of the request when its handler returned; whether
// the client left meanwhile. After it, the connection's reader is the
// connection goroutine's alone again.
func (w *watch) stop() (left bool) {
	w.mu.Lock()
	if !w.active {
		left = w.left
		w.mu.Unlock()
		return left
	}
	w.active = false
	t, peeking, done := w.timer, w.peeking, w.done
	w.timer = nil
	w.mu.Unlock()
	t.Stop()
	if peeking {
		c := w.c
		c.rwc.SetReadDeadline(aLongTimeAgo)
		<-done
		c.rwc.SetReadDeadline(time.Time{})
	}
	w.mu.Lock()
	w.peeking = false
	left = w.left
	w.c, w.cancel, w.done = nil, nil, nil
	w.mu.Unlock()
	return left
}

// aLongTimeAgo is a read deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)
