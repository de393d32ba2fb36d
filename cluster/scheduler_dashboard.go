package cluster

import (
	"context"
	"time"

	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/scheduler"
)

// dashboardGraphs is the scheduler process as its dashboard service
// (dashboard.NewSchedulerService) sees it.
type dashboardGraphs struct{ p *SchedulerProc }

var _ dashboard.SchedulerGraphs = dashboardGraphs{}

// Graphs lists the graphs of every session.
func (d dashboardGraphs) Graphs() []dashboard.SchedulerGraph {
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []dashboard.SchedulerGraph
	for _, ss := range p.mu.sessions {
		for _, g := range ss.graphs {
			all = append(all, g)
		}
	}
	return all
}

func (d dashboardGraphs) Lookup(ctx context.Context, sid, gid string) (dashboard.SchedulerGraph, error) {
	g, err := d.p.lookup(ctx, sid, gid)
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (d dashboardGraphs) Scheduler() *scheduler.Scheduler { return d.p.sched }

// A graph's own locks are taken without p.mu held (GetResult takes g.mu,
// then p.mu).

func (g *graphRec) Status() *pb.GraphStatus { return g.status() }

func (g *graphRec) Ended() (bool, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return terminal(g.state), g.submitted
}

// View is what the dashboard shows of a graph, read under g.mu.
func (g *graphRec) View(withDags bool) (types []*pb.TypeCount, tile, chunks *pb.Dag) {
	g.mu.Lock()
	run := g.run
	types, tile, chunks = g.types, g.tile, g.chunkDag
	g.mu.Unlock()
	if run != nil {
		types, chunks = dashboard.LiveView(run, withDags, &g.skelMu, &g.skel, chunks)
	}
	return types, tile, chunks
}

func (g *graphRec) Run() *scheduler.Run {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.run
}

func (g *graphRec) Name() (protocol.GraphID, dashboard.GraphName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runID, dashboard.GraphName{Session: g.sid, Graph: g.id}
}
