package scheduler

import (
	"runtime/debug"

	"github.com/phobos-tensor/phobos/protocol"
)

// A worker reports its results in batches (protocol.BatchReporter). The
// event loop applies such a batch as one step: each result is handled in
// order, as applyResult would, but the step's tail (held sources drained,
// more sources released) runs once after the whole batch instead of after
// every result. The consumers the batch made ready are still sent before
// any held source, and the sources then fill the room the whole batch
// freed on its worker, as they would have filled it one result at a time.

// applyResults applies a batch of results in order and ends the step once.
func (c *core) applyResults(rs []protocol.Result) {
	for i := range rs {
		c.handleGuarded(&rs[i])
	}
	c.endStep()
}

// handleGuarded is handle with applyResult's recovery: a panic fails the
// run being worked on, and a refused transition fails its run before the
// next result is applied.
func (c *core) handleGuarded(res *protocol.Result) {
	defer func() {
		if p := recover(); p != nil {
			c.recoverPanic(p, debug.Stack())
		}
		c.cur = nil
	}()
	c.handle(res)
	c.checkBugs()
}

// endStep is the tail of a step: held sources to workers with room, then
// more sources of the runs still feeding.
func (c *core) endStep() {
	defer func() {
		if p := recover(); p != nil {
			c.recoverPanic(p, debug.Stack())
		}
		c.cur = nil
	}()
	c.drainHeld()
	c.feed()
}
