package dashboard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/scheduler"
)

// SchedulerGraphs is what a scheduler process's dashboard service needs
// of it (package cluster implements it over its sessions' graphs).
type SchedulerGraphs interface {
	// Graphs are the graphs of every session.
	Graphs() []SchedulerGraph
	// Lookup is graph gid of session sid, or the error the graph service
	// answers a request for it with.
	Lookup(ctx context.Context, sid, gid string) (SchedulerGraph, error)
	// Scheduler is the process's scheduler: ops done, workers' tasks.
	Scheduler() *scheduler.Scheduler
}

// SchedulerGraph is one graph of a scheduler process.
type SchedulerGraph interface {
	// Status is the graph's status as GET graph answers it.
	Status() *pb.GraphStatus
	// Ended reports whether it ended, and when it was submitted.
	Ended() (ended bool, submitted time.Time)
	// View is what the dashboard shows of it: its op types, and with
	// withDags its tensor and chunk DAGs (LiveView while it has a run).
	View(withDags bool) (types []*pb.TypeCount, tile, chunks *pb.Dag)
	// Run is its run, nil while it prepares or once released.
	Run() *scheduler.Run
	// Name is its name, and the id of its run on the workers (0: none).
	Name() (protocol.GraphID, GraphName)
}

// NewSchedulerService is the dashboard service a scheduler process
// serves to the web service.
func NewSchedulerService(p SchedulerGraphs) phobosv1connect.DashboardServiceHandler {
	return &schedulerService{p}
}

// schedulerService serves a scheduler's dashboard data to the web role.
type schedulerService struct{ p SchedulerGraphs }

func (s *schedulerService) Overview(ctx context.Context, req *connect.Request[pb.OverviewRequest]) (*connect.Response[pb.OverviewResponse], error) {
	p := s.p
	all := p.Graphs()
	type item struct {
		g       SchedulerGraph
		st      *pb.GraphStatus
		ended   bool
		started time.Time
	}
	items := make([]item, len(all))
	for i, g := range all {
		st := g.Status()
		ended, started := g.Ended()
		items[i] = item{g: g, st: st, ended: ended, started: started}
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
	items = items[:min(len(items), MaxListedGraphs)]
	slices.SortFunc(items, func(a, b item) int { return a.started.Compare(b.started) })
	out := &pb.OverviewResponse{OpsDone: p.Scheduler().OpsDone(), GraphsTotal: int32(len(all))}
	for _, it := range items {
		types, _, _ := it.g.View(false)
		out.Graphs = append(out.Graphs, &pb.GraphSummary{Status: it.st, Types: types})
	}
	return connect.NewResponse(out), nil
}

func (s *schedulerService) GraphDetail(ctx context.Context, req *connect.Request[pb.GraphDetailRequest]) (*connect.Response[pb.GraphDetailResponse], error) {
	g, err := s.p.Lookup(ctx, req.Msg.SessionId, req.Msg.GraphId)
	if err != nil {
		return nil, err
	}
	types, tile, chunks := g.View(true)
	return connect.NewResponse(&pb.GraphDetailResponse{Status: g.Status(), Types: types, Tileable: tile, Chunks: chunks}), nil
}

func (s *schedulerService) GraphOps(ctx context.Context, req *connect.Request[pb.GraphOpsRequest]) (*connect.Response[pb.GraphOpsResponse], error) {
	m := req.Msg
	if len(m.Nodes) > MaxOpsAsked {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("%d ops asked for: at most %d at once", len(m.Nodes), MaxOpsAsked))
	}
	g, err := s.p.Lookup(ctx, m.SessionId, m.GraphId)
	if err != nil {
		return nil, err
	}
	run := g.Run()
	if run == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %q of session %q holds no ops: it is preparing, or it ended without success, or its results were released", m.GraphId, m.SessionId))
	}
	resp, err := OpsOf(run, m)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(resp), nil
}

func (s *schedulerService) WorkerTasks(ctx context.Context, req *connect.Request[pb.WorkerTasksRequest]) (*connect.Response[pb.WorkerTasksResponse], error) {
	act, err := s.p.Scheduler().Tasks(int(req.Msg.Worker))
	if err != nil {
		if errors.Is(err, scheduler.ErrClosed) {
			return nil, connect.NewError(connect.CodeUnavailable, err)
		}
		return nil, connect.NewError(connect.CodeNotFound, err)
	}
	names := map[protocol.GraphID]GraphName{}
	for _, g := range s.p.Graphs() {
		if id, name := g.Name(); id != 0 {
			names[id] = name
		}
	}
	return connect.NewResponse(TasksOf(act, names)), nil
}
