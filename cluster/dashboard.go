package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/scheduler"
)

// dashboardService serves the dashboard's data to the web role.
type dashboardService struct{ p *SchedulerProc }

// allGraphs lists the graphs of every session.
func (p *SchedulerProc) allGraphs() []*graphRec {
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []*graphRec
	for _, ss := range p.mu.sessions {
		for _, g := range ss.graphs {
			all = append(all, g)
		}
	}
	return all
}

// dashboardView is what the dashboard shows of a graph, read under g.mu.
func (g *graphRec) dashboardView(withDags bool) (types []*pb.TypeCount, tile, chunks *pb.Dag) {
	g.mu.Lock()
	run := g.run
	types, tile, chunks = g.types, g.tile, g.chunkDag
	g.mu.Unlock()
	if run != nil {
		types, chunks = dashboard.LiveView(run, withDags, &g.skelMu, &g.skel, chunks)
	}
	return types, tile, chunks
}

func (s *dashboardService) Overview(ctx context.Context, req *connect.Request[pb.OverviewRequest]) (*connect.Response[pb.OverviewResponse], error) {
	p := s.p
	all := p.allGraphs()
	type item struct {
		g       *graphRec
		st      *pb.GraphStatus
		ended   bool
		started time.Time
	}
	items := make([]item, len(all))
	for i, g := range all {
		st := g.status()
		g.mu.Lock()
		items[i] = item{g: g, st: st, ended: terminal(g.state), started: g.submitted}
		g.mu.Unlock()
	}
	// Running first, then the newest ended; each group oldest first once cut.
	slices.SortFunc(items, func(a, b item) int {
		if a.ended != b.ended {
			if a.ended {
				return 1
			}
			return -1
		}
		return b.started.Compare(a.started)
	})
	items = items[:min(len(items), dashboard.MaxListedGraphs)]
	slices.SortFunc(items, func(a, b item) int { return a.started.Compare(b.started) })
	out := &pb.OverviewResponse{OpsDone: p.sched.OpsDone(), GraphsTotal: int32(len(all))}
	for _, it := range items {
		types, _, _ := it.g.dashboardView(false)
		out.Graphs = append(out.Graphs, &pb.GraphSummary{Status: it.st, Types: types})
	}
	return connect.NewResponse(out), nil
}

func (s *dashboardService) GraphDetail(ctx context.Context, req *connect.Request[pb.GraphDetailRequest]) (*connect.Response[pb.GraphDetailResponse], error) {
	g, err := s.p.lookup(ctx, req.Msg.SessionId, req.Msg.GraphId)
	if err != nil {
		return nil, err
	}
	types, tile, chunks := g.dashboardView(true)
	return connect.NewResponse(&pb.GraphDetailResponse{Status: g.status(), Types: types, Tileable: tile, Chunks: chunks}), nil
}

func (s *dashboardService) GraphOps(ctx context.Context, req *connect.Request[pb.GraphOpsRequest]) (*connect.Response[pb.GraphOpsResponse], error) {
	m := req.Msg
	if len(m.Nodes) > dashboard.MaxOpsAsked {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("%d ops asked for: at most %d at once", len(m.Nodes), dashboard.MaxOpsAsked))
	}
	g, err := s.p.lookup(ctx, m.SessionId, m.GraphId)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	run := g.run
	g.mu.Unlock()
	if run == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %q of session %q holds no ops: it is preparing, or it ended without success, or its results were released", m.GraphId, m.SessionId))
	}
	resp, err := dashboard.OpsOf(run, m)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(resp), nil
}

func (s *dashboardService) WorkerTasks(ctx context.Context, req *connect.Request[pb.WorkerTasksRequest]) (*connect.Response[pb.WorkerTasksResponse], error) {
	p := s.p
	act, err := p.sched.Tasks(int(req.Msg.Worker))
	if err != nil {
		if errors.Is(err, scheduler.ErrClosed) {
			return nil, connect.NewError(connect.CodeUnavailable, err)
		}
		return nil, connect.NewError(connect.CodeNotFound, err)
	}
	names := map[protocol.GraphID]dashboard.GraphName{}
	// g.mu is taken without p.mu held: GetResult takes them the other way.
	for _, g := range p.allGraphs() {
		g.mu.Lock()
		if g.runID != 0 {
			names[g.runID] = dashboard.GraphName{Session: g.sid, Graph: g.id}
		}
		g.mu.Unlock()
	}
	return connect.NewResponse(dashboard.TasksOf(act, names)), nil
}
