package scheduler

import "testing"

func TestTransitionTable(t *testing.T) {
	type row struct {
		from State
		ev   Event
		to   State
		ok   bool
	}
	rows := []row{
		{Unscheduled, EvInputsReady, Ready, true},
		{Ready, EvStart, Running, true},
		{Running, EvSucceed, Finished, true},
		{Ready, EvSucceed, Finished, true},
		{Finished, EvRelease, Freed, true},
		{Running, EvFailRetry, Ready, true},
		{Running, EvFailFinal, Fatal, true},
		{Unscheduled, EvUpstreamFatal, Fatal, true},
		{Ready, EvUpstreamFatal, Fatal, true},
		{Unscheduled, EvCancel, Cancelled, true},
		{Ready, EvCancel, Cancelled, true},
		{Running, EvCancel, Cancelling, true},
		{Cancelling, EvStopped, Cancelled, true},
		{Cancelling, EvSucceed, Cancelled, true},
		{Cancelling, EvFailFinal, Cancelled, true},
		{Cancelled, EvStopped, Cancelled, true},
		{Cancelled, EvStart, Cancelled, true},
		{Finished, EvCancel, Finished, true},
		{Freed, EvCancel, Freed, true},
		{Fatal, EvCancel, Fatal, true},
		{Finished, EvLost, Unscheduled, true},
		{Freed, EvLost, Unscheduled, true},
		{Running, EvInputLost, Unscheduled, true},
		{Ready, EvInputLost, Unscheduled, true},
		{Running, EvWorkerLost, Unscheduled, true},
		{Ready, EvWorkerLost, Unscheduled, true},
		{Finished, EvWorkerLost, Finished, false},
		{Unscheduled, EvWorkerLost, Unscheduled, false},
		{Cancelling, EvWorkerLost, Cancelling, false},
		// impossible events are errors and leave the state alone
		{Running, EvLost, Running, false},
		{Unscheduled, EvLost, Unscheduled, false},
		{Finished, EvInputLost, Finished, false},
		{Unscheduled, EvStart, Unscheduled, false},
		{Unscheduled, EvSucceed, Unscheduled, false},
		{Ready, EvInputsReady, Ready, false},
		{Finished, EvSucceed, Finished, false},
		{Freed, EvRelease, Freed, false},
		{Running, EvRelease, Running, false},
		{Fatal, EvSucceed, Fatal, false},
		{Finished, EvUpstreamFatal, Finished, false},
	}
	for _, r := range rows {
		got, err := Transition(r.from, r.ev)
		if (err == nil) != r.ok || got != r.to {
			t.Errorf("%v + %v = %v, %v; want %v, ok=%v", r.from, r.ev, got, err, r.to, r.ok)
		}
	}
}

func TestTerminalStates(t *testing.T) {
	for s := Unscheduled; s <= Cancelled; s++ {
		want := s == Finished || s == Freed || s == Fatal || s == Cancelled
		if s.Terminal() != want {
			t.Errorf("%v.Terminal() = %v", s, s.Terminal())
		}
	}
}
