package scheduler

import "fmt"

// ReadyResultLocations is ResultLocations without the wait: the worker
// holding each result chunk computed so far, -1 for one not yet computed
// (or lost and being recomputed). A client that streams a result while
// its graph runs asks it again and again, and takes the chunks as they
// come.
func (r *Run) ReadyResultLocations(nodes []int32) ([]int, error) {
	var locs []int
	var err error
	if derr := r.s.do(func(c *core) {
		locs, err = r.readyResultLocations(c, nodes)
	}); derr != nil {
		return nil, derr
	}
	return locs, err
}

func (r *Run) readyResultLocations(c *core, nodes []int32) ([]int, error) {
	switch {
	case r.err != nil:
		return nil, fmt.Errorf("scheduler: results of graph %d are gone: %w", r.id, r.err)
	case r.cancelled:
		return nil, fmt.Errorf("scheduler: graph %d was cancelled", r.id)
	case r.released:
		return nil, fmt.Errorf("scheduler: the results of graph %d were released", r.id)
	}
	locs := make([]int, len(nodes))
	for i, v := range nodes {
		if v < 0 || int(v) >= len(r.state) || !r.isResult[v] {
			return nil, fmt.Errorf("scheduler: chunk op %d is not a result of graph %d", v, r.id)
		}
		locs[i] = -1
		if c.available(r, v) {
			locs[i] = int(r.location[v])
		}
	}
	return locs, nil
}
