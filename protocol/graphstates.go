package protocol

// A graph's states as the REST API, the scheduler process and the
// dashboard name them (one home, so a local session's dashboard and the
// cluster's show the same words).
const (
	GraphPreparing  = "PREPARING"
	GraphRunning    = "RUNNING"
	GraphSucceeded  = "SUCCEEDED"
	GraphFailed     = "FAILED"
	GraphCancelling = "CANCELLING"
	GraphCancelled  = "CANCELLED"
)

// GraphTerminal reports whether a graph in state has ended.
func GraphTerminal(state string) bool {
	return state == GraphSucceeded || state == GraphFailed || state == GraphCancelled
}
