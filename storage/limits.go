package storage

import (
	"math"
	"sync"

	"github.com/phobos-tensor/phobos/internal/cgroup"
	"github.com/phobos-tensor/phobos/internal/gctune"
	"github.com/phobos-tensor/phobos/ndarray"
)

// PhysicalMemory is the memory this process may use: the machine's RAM, or
// the cgroup limit of its container when that is lower. 0 if unknown.
func PhysicalMemory() int64 {
	ram := physicalRAM()
	if c := cgroup.MemoryLimit(); c > 0 && (ram == 0 || c < ram) {
		return c
	}
	return ram
}

// DefaultLimit is the memory budget of a machine's workers taken together
// when none is set: half of PhysicalMemory, leaving the rest to the page
// cache, the Go runtime's own overhead and the rest of the machine. It falls
// back to 4 GiB when the machine's memory is unknown.
func DefaultLimit() int64 {
	if m := PhysicalMemory(); m > 0 {
		return m / 2
	}
	return 4 << 30
}

// GoHeapLimit is the Go runtime memory limit that suits workers whose budgets
// add up to budget: the budget (which already covers running kernels'
// estimated temporaries) plus headroom, a sixteenth and at least 128 MiB, for
// graphs, scheduler state and estimates that fall short. Garbage is collected
// before the heap goes beyond it.
func GoHeapLimit(budget int64) int64 {
	if budget <= 0 {
		return math.MaxInt64
	}
	return budget + max(128<<20, budget/16)
}

// HoldGoMemoryLimit sets the Go runtime's soft memory limit
// (debug.SetMemoryLimit) so the garbage collector works harder before the
// heap outgrows the workers' budget, instead of letting it double. Limits of
// concurrent holders add up; a lower limit set by the user (GOMEMLIMIT) is
// kept. The returned func undoes the hold; the last release restores the
// original limit. internal/gctune owns the limit: it combines these holds
// with the user's limit and its own.
//
// The buffer pool's bound follows the held limits (a quarter of them, at
// most ndarray.DefaultPoolLimit): its free buffers are memory the
// workers' budgets do not count.
func HoldGoMemoryLimit(limit int64) (release func()) {
	poolLimit.Lock()
	defer poolLimit.Unlock()
	undo := gctune.HoldMemoryLimit(limit)
	setPoolLimitLocked()
	return func() {
		poolLimit.Lock()
		defer poolLimit.Unlock()
		undo()
		setPoolLimitLocked()
	}
}

// poolLimit orders holds and their releases with the pool bound they set,
// so that the bound follows the last total.
var poolLimit sync.Mutex

func setPoolLimitLocked() {
	n := int64(ndarray.DefaultPoolLimit)
	if held := gctune.HeldMemoryLimit(); held > 0 {
		n = min(n, held/4)
	}
	ndarray.SetBufferPoolLimit(n)
}

// poolRecheck is how often (in reservations) the store asks the buffer
// pool its bound even when the bound it last saw says no trim is needed.
const poolRecheck = 64

// poolMayExceedLocked reports whether the buffer pool's free buffers could
// take memory in use over limit: false when even a pool full to its bound
// (the larger of the last bound seen and the default, which is the most
// HoldGoMemoryLimit sets) fits beside it. Asking the pool takes its lock,
// which the kernels of every slot take too; a store far below its limit
// skips it, but asks every poolRecheck reservations in case the bound was
// raised.
func (s *Store) poolMayExceedLocked(limit int64) bool {
	s.mu.poolChecks++
	if s.mu.poolChecks%poolRecheck == 0 {
		return true
	}
	used := s.mu.resident - s.mu.evicting + s.mu.reserved + s.externalLocked()
	return used+max(s.mu.poolLimit, ndarray.DefaultPoolLimit) > limit
}
