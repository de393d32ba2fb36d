package cluster

import (
	"context"
	"fmt"
	"slices"
)

// RestartScheduler starts again, under the same ring id and etcd, a
// scheduler of a ring that was killed or stopped ("scheduler-1"), as an
// operator restarting it would; it returns once the child is serving (its
// place in the ring follows within a lease renewal).
func (c *ProcCluster) RestartScheduler(ctx context.Context, name string) error {
	if c.Etcd == nil {
		return fmt.Errorf("restarting %s: not a ring of schedulers", name)
	}
	i := slices.IndexFunc(c.children, func(ch *child) bool { return ch.name == name })
	if i < 0 {
		return fmt.Errorf("no child %q", name)
	}
	select {
	case <-c.children[i].done:
	default:
		return fmt.Errorf("restarting %s: it is still running", name)
	}
	c.children = slices.Delete(c.children, i, i+1)
	u, err := c.start(ctx, c.cfg, name, "scheduler", "--listen", "127.0.0.1:0", "--etcd", c.Etcd.Endpoint(), "--id", name)
	if err != nil {
		return err
	}
	var idx int
	if _, err := fmt.Sscanf(name, "scheduler-%d", &idx); err == nil && idx >= 0 && idx < len(c.SchedulerURLs) {
		c.SchedulerURLs[idx] = u
	}
	return nil
}
