package worker

import "github.com/phobos-tensor/phobos/storage"

// LaneOrder is a priority order in the i-th block of laneBlock orders:
// tasks of consecutive blocks go to consecutive lanes.
func LaneOrder(i int) int32 { return int32(i) << laneBlock }

// Routed is how many keys w remembers the lane of.
func Routed(w *Worker) int {
	w.routed.Lock()
	defer w.routed.Unlock()
	return w.routed.lanes.Len()
}

// SetRoutedMax bounds how many keys w remembers the lane of.
func SetRoutedMax(w *Worker, n int) {
	w.routed.Lock()
	defer w.routed.Unlock()
	w.routed.max = n
}

// LaneStore is the store of w's i-th lane.
func LaneStore(w *Worker, i int) *storage.Store { return w.lanes[i].store }

// Deferred is how many released keys w's i-th lane has yet to delete.
func Deferred(w *Worker, i int) int {
	l := w.lanes[i]
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.mu.deferred)
}
