package cluster

import "time"

// preparers run the scheduler's per-graph work (compile, submit, follow:
// SchedulerProc.prepare) on goroutines kept between graphs. A fresh
// goroutine per graph starts on a small stack, which the compile grows by
// copying it several times; in a run of small graphs that copying and the
// goroutine's start cost more than the compile. A graph taken by no idle
// preparer gets a new one, so graphs never wait for each other; a
// preparer idle for preparerIdle, or whose scheduler stopped, ends.
type preparers struct {
	jobs chan func()
	stop <-chan struct{}
}

// preparerIdle is how long a preparer waits for another graph.
const preparerIdle = 5 * time.Second

func newPreparers(stop <-chan struct{}) *preparers {
	return &preparers{jobs: make(chan func()), stop: stop}
}

// run runs job on an idle preparer, or a new one.
func (ps *preparers) run(job func()) {
	select {
	case ps.jobs <- job:
	default:
		go ps.loop(job)
	}
}

func (ps *preparers) loop(job func()) {
	idle := time.NewTimer(preparerIdle)
	defer idle.Stop()
	for {
		job()
		idle.Reset(preparerIdle)
		select {
		case job = <-ps.jobs:
		case <-idle.C:
			return
		case <-ps.stop:
			return
		}
	}
}
