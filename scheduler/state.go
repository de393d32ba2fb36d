package scheduler

import (
	"fmt"

	"github.com/phobos-tensor/phobos/protocol"
)

// State is an operand's (chunk op's) lifecycle state, as Mars names them.
type State uint8

// Operand states. UNSCHEDULED ops wait for inputs; READY ops are queued on a
// worker; FREED means finished and its data released.
const (
	Unscheduled State = iota
	Ready
	Running
	Finished
	Freed
	Fatal
	Cancelling
	Cancelled
)

func (s State) String() string {
	if int(s) < len(protocol.StateNames) {
		return protocol.StateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Terminal reports whether no further work will happen for the op.
func (s State) Terminal() bool {
	return s == Finished || s == Freed || s == Fatal || s == Cancelled
}

// Event is something that happens to an operand.
type Event uint8

// Operand events.
const (
	// EvInputsReady: all predecessors finished.
	EvInputsReady Event = iota
	// EvStart: a worker started the op.
	EvStart
	// EvSucceed: the op's output is stored.
	EvSucceed
	// EvFailRetry: the op failed and has attempts left.
	EvFailRetry
	// EvFailFinal: the op failed for the last time.
	EvFailFinal
	// EvRelease: every consumer finished; the output can go.
	EvRelease
	// EvUpstreamFatal: a predecessor became FATAL.
	EvUpstreamFatal
	// EvCancel: the graph is being cancelled.
	EvCancel
	// EvStopped: the worker reports a cancelled op stopped.
	EvStopped
	// EvLost: a finished op's output is gone (a lost spill file); it must
	// run again.
	EvLost
	// EvInputLost: a running op found an input gone; it waits for the input
	// to be recomputed.
	EvInputLost
	// EvWorkerLost: the worker an op was queued or running on died; the op
	// waits for its inputs again (some may have died with the worker) and
	// then goes to a live worker.
	EvWorkerLost
)

var eventNames = [...]string{"InputsReady", "Start", "Succeed", "FailRetry", "FailFinal", "Release", "UpstreamFatal", "Cancel", "Stopped", "Lost", "InputLost", "WorkerLost"}

func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Transition is the operand state machine: a pure function of (state, event).
// An event that cannot happen in a state is an error; the caller treats it as
// a bug report, not a crash.
func Transition(s State, e Event) (State, error) {
	switch e {
	case EvInputsReady:
		if s == Unscheduled {
			return Ready, nil
		}
	case EvStart:
		switch s {
		case Ready:
			return Running, nil
		case Cancelling, Cancelled:
			return s, nil
		}
	case EvSucceed:
		switch s {
		case Running, Ready: // Ready: the start notice may be folded into the result
			return Finished, nil
		case Cancelling, Cancelled:
			return Cancelled, nil
		}
	case EvFailRetry:
		switch s {
		case Running, Ready:
			return Ready, nil
		case Cancelling, Cancelled:
			return Cancelled, nil
		}
	case EvFailFinal:
		switch s {
		case Running, Ready:
			return Fatal, nil
		case Cancelling, Cancelled:
			return Cancelled, nil
		}
	case EvRelease:
		if s == Finished {
			return Freed, nil
		}
	case EvUpstreamFatal:
		switch s {
		case Unscheduled, Ready:
			return Fatal, nil
		case Fatal, Cancelled, Cancelling:
			return s, nil
		}
	case EvCancel:
		switch s {
		case Unscheduled, Ready:
			return Cancelled, nil
		case Running:
			return Cancelling, nil
		case Finished, Freed, Fatal, Cancelled, Cancelling:
			return s, nil
		}
	case EvStopped:
		switch s {
		case Ready, Running, Cancelling, Cancelled:
			return Cancelled, nil
		}
	case EvLost:
		switch s {
		case Finished, Freed:
			return Unscheduled, nil
		}
	case EvInputLost, EvWorkerLost:
		switch s {
		case Ready, Running:
			return Unscheduled, nil
		}
	}
	return s, fmt.Errorf("operand in state %v cannot take event %v", s, e)
}
