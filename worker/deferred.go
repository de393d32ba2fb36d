package worker

// A lane's releases are deleted from its store by the lane's own slot,
// not by the goroutine that sends them. In a local session or a
// one-process cluster that goroutine is the scheduler's event loop, which
// every slot waits on for its next tasks; on it, deleting a graph of tiny
// ops' chunks (entries another core made and holds in its cache) was as
// much work as routing that graph's tasks. The release only notes the keys;
// the slot deletes them in one batch when it next takes a task, before
// running it (the task may make a released key again), or, if it waits for
// work, at once: the release wakes it. So a lane's chunks are made, read
// and deleted on one goroutine, and the event loop is sooner back to the
// results the other lanes sent.

// defersDeletesLocked reports whether released keys wait for w's slot:
// w is a lane, not closed.
func (w *Worker) defersDeletesLocked() bool {
	return w.home != nil && !w.mu.closed
}

// takeDeferredLocked moves the keys waiting for deletion to st, giving
// the worker st's emptied room for the next ones; st's slot deletes them
// (reap).
func (w *Worker) takeDeferredLocked(st *slotState) {
	if len(w.mu.deferred) == 0 {
		return
	}
	st.deleting, w.mu.deferred = w.mu.deferred, st.deleting[:0]
	w.mu.reaping = true
}

// reap deletes the keys takeDeferredLocked gave st (w.mu not held), then
// ends the deletion for those waiting in settle.
func (w *Worker) reap(st *slotState) {
	w.store.Delete(st.deleting)
	clear(st.deleting)
	st.deleting = st.deleting[:0]
	w.mu.Lock()
	w.mu.reaping = false
	if w.mu.settlers > 0 {
		w.reaped.Broadcast()
	}
	w.mu.Unlock()
}

// settle deletes the released keys lane w has not yet deleted, once its
// slot has deleted those it took: what reads a lane's store from outside
// (Chunks, StoreStats, Get, Borrow) finds a released chunk gone, as it
// would in the worker's own store. Deleting under the lock keeps the
// order with the slot's next task.
func (w *Worker) settle() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.mu.reaping {
		w.mu.settlers++
		w.reaped.Wait()
		w.mu.settlers--
	}
	if len(w.mu.deferred) > 0 {
		w.store.Delete(w.mu.deferred)
		clear(w.mu.deferred)
		w.mu.deferred = w.mu.deferred[:0]
	}
}

// settleLanes settles every lane of w.
func (w *Worker) settleLanes() {
	for _, l := range w.lanes {
		l.settle()
	}
}
