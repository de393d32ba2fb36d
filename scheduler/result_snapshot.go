package scheduler

import (
	"slices"
	"sync/atomic"
)

// Where a finished run's result chunks are is asked once per result read
// (ResultLocations), from a request's goroutine. Asked of the event loop,
// that is a round trip through its queue on the way of every small graph's
// answer. So at the end of each step that changed a run, the loop publishes
// where its results are while the run has succeeded and they all stand on
// live workers, and withdraws it when they do not: a reader takes the
// published answer, and asks the loop only when there is none (a result
// being recomputed, released, or one of a run still going). Anything that
// changes a run withdraws its places at once (Run.touched), on the loop
// before the command or report that changed it returns, and the step's end
// publishes them again if they still hold.

// maxPublishedResults bounds the result chunks a run publishes: a larger
// result's read costs far more than a round trip to the loop.
const maxPublishedResults = 1024

// resultPlaces is a run's result chunks and their workers, sorted by chunk.
type resultPlaces struct {
	nodes   []int32
	workers []int
}

// places holds a run's published resultPlaces, nil when there are none.
type places = atomic.Pointer[resultPlaces]

// publishResults publishes or withdraws run r's result places, on the
// event loop at the end of a step that changed r.
func (c *core) publishResults(r *Run) {
	if !r.ended || r.err != nil || r.cancelled || r.released || len(r.result) > maxPublishedResults {
		r.withdrawPlaces()
		return
	}
	p := &resultPlaces{nodes: slices.Clone(r.result)}
	slices.Sort(p.nodes)
	p.nodes = slices.Compact(p.nodes)
	p.workers = make([]int, len(p.nodes))
	for i, v := range p.nodes {
		if v < 0 || int(v) >= len(r.state) || !c.available(r, v) {
			r.withdrawPlaces()
			return
		}
		p.workers[i] = int(r.location[v])
	}
	r.places.Store(p)
}

// lookup returns the workers of nodes, or false if one is not a published
// result chunk.
func (p *resultPlaces) lookup(nodes []int32) ([]int, bool) {
	locs := make([]int, len(nodes))
	for j, v := range nodes {
		i, ok := slices.BinarySearch(p.nodes, v)
		if !ok {
			return nil, false
		}
		locs[j] = p.workers[i]
	}
	return locs, true
}

// withdrawPlaces takes back run r's published result places, if any.
func (r *Run) withdrawPlaces() {
	if r.places.Load() != nil {
		r.places.Store(nil)
	}
}
