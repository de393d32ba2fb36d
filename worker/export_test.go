package worker

// LaneOrder is a priority order in the i-th block of laneBlock orders:
// tasks of consecutive blocks go to consecutive lanes.
func LaneOrder(i int) int32 { return int32(i) << laneBlock }
