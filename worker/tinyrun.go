package worker

import (
	"time"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// A graph of a million tiny ops (partials and combines over chunks of a
// few hundred bytes) costs the worker more in admission than in kernels,
// and every admission holds the worker's lock, which the other slots and
// the scheduler's sends wait on. So a slot that ran a quiet task of a few
// bytes takes the tasks like it at the head of the queue behind it, up to
// tinyRun, leaving the other slots their share, admits them under one
// hold of the lock and runs them one after another. They are admitted as
// any task is (a reservation each, in priority order) and each keeps its
// result, report and ending; the run holds the one slot it started on.
const (
	// tinyRun bounds the tasks taken at once, the first included.
	tinyRun = 16
	// tinyBytes bounds what one such task reads and writes.
	tinyBytes = 64 << 10
)

// tiny reports whether t, which reads and writes n bytes (touched), may be
// taken in a run of tiny tasks.
func tiny(t *protocol.Task, n int64) bool {
	return n <= tinyBytes && ops.BatchKey(t.Op) == ""
}

// takeTiny returns the tasks to run after p, which ran quietly (see
// reportsStart and allLocal), admitted with the slot's spare
// reservations: the quiet tiny tasks of p's graph at the head of the
// queue, at most the slot's share of it and no more than its held
// results have room for (a report stays a batch of at most heldResults).
// It takes none unless p is tiny.
func (w *Worker) takeTiny(st *slotState, p pick) []pick {
	if !tiny(p.t, touched(p.t)) {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := min(tinyRun-1, w.mu.queue.Len()/max(w.cfg.Slots, 1), heldResults-len(st.held))
	if limit <= 0 || w.mu.closed || p.g.cancelled || w.fenceLocked(p.t, false) != nil {
		return nil
	}
	extra := st.tiny[:0]
	for len(extra) < limit {
		t, ok := w.mu.queue.Peek()
		if !ok || graphOf(t) != graphOf(p.t) || w.mu.head == t {
			break
		}
		// p's fence passed just now, under this hold of the lock: a task
		// sent under the same one passes too.
		if n := touched(t); !tiny(t, n) || w.loud(t, n) || !w.allLocal(t) || (t.Fence != p.t.Fence && w.fenceLocked(t, false) != nil) {
			break
		}
		req := w.request(t, w.mu.reqInputs)
		if n := len(st.spares); n > 0 {
			req.Reuse = st.spares[n-1]
		}
		w.mu.reqInputs = req.Inputs[:0]
		res, err := w.store.Reserve(req)
		if res == nil || err != nil {
			break // left for a slot to take, or fail, alone
		}
		if n := len(st.spares); n > 0 && res == st.spares[n-1] {
			st.spares = st.spares[:n-1]
		}
		w.mu.queue.Pop()
		w.dequeuedLocked(t)
		extra = append(extra, pick{t: t, g: p.g, res: res, threads: 1})
	}
	st.tiny = extra
	return extra
}

// runTiny runs the tasks takeTiny took after p, in order, each as the
// slot runs a task, from the monotonic time start at which p ended. It
// holds their results and endings in st and reports whether all
// succeeded and when the last ended. The clock is read once, after the
// last: each task is given an equal share of the run's time (tasks of
// microseconds, for which a clock read each is a noticeable share).
func (w *Worker) runTiny(st *slotState, p pick, start time.Time) (bool, time.Time) {
	extra := w.takeTiny(st, p)
	if len(extra) == 0 {
		return true, start
	}
	ok := true
	base := len(st.held)
	for i := range extra {
		x := &extra[i]
		res := w.runIn(x.g.ctx, x.t, x.res, &st.ins)
		if res.Outcome != protocol.Succeeded {
			x.res.Close() // else run closed it
			ok = false
		}
		st.spares = append(st.spares, x.res)
		st.held = append(st.held, res)
		st.endings = append(st.endings, ending{t: x.t, g: x.g})
	}
	d := time.Since(start)
	each := d / time.Duration(len(extra))
	for i := range extra {
		res := &st.held[base+i]
		res.Elapsed = each
		w.observeExtra(extra[i], *res)
		extra[i] = pick{}
	}
	return ok, start.Add(d)
}

// endExtra ends a task the slot ran besides the one it took (a batch's or
// a run's, holding no slot of its own): observed, logged if it failed,
// its result held and its ending noted in st.
func (w *Worker) endExtra(st *slotState, x pick, res protocol.Result) {
	w.observeExtra(x, res)
	st.held = append(st.held, res)
	st.endings = append(st.endings, ending{t: x.t, g: x.g})
}

// observeExtra shows the observer, and the debug log if it failed, the end
// of a task the slot ran besides the one it took.
func (w *Worker) observeExtra(x pick, res protocol.Result) {
	if w.cfg.Observer != nil {
		w.cfg.Observer.TaskEnded(x.t, res, res.Elapsed)
	}
	if res.Outcome == protocol.Failed {
		w.log.Debug("op failed", "worker", w.cfg.ID, "run", uint64(x.t.Key.Graph), "op", x.t.Key.Node, "op_type", ops.Label(x.t.Op), "attempt", x.t.Attempt, "retryable", res.Retryable, "err", res.Err)
	}
}
