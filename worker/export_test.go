package worker

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
