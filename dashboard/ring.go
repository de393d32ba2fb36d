package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/scheduler"
)

// MaxListedGraphs bounds the graphs an overview lists.
const MaxListedGraphs = 200

// RingScheduler is one scheduler of a ring, as the ring's dashboard
// reaches it.
type RingScheduler struct {
	ID, Address string
	Sched       phobosv1connect.SchedulerServiceClient
	Dash        phobosv1connect.DashboardServiceClient
}

// Ring is what the ring's dashboard needs of the web service's routing
// over a ring of schedulers (package cluster implements it).
type Ring interface {
	// Schedulers are the schedulers to merge: the ring's, then those
	// seen before that may still hold sessions.
	Schedulers() ([]RingScheduler, error)
	// OnSession calls call with the scheduler holding session sid,
	// trying the ring's schedulers in turn as the web service routes
	// the session's requests, and returns the answer that counts.
	OnSession(ctx context.Context, sid string, call func(RingScheduler) error) error
	// Canonical is the scheduler whose worker numbering the web service
	// shows on its pages.
	Canonical(ctx context.Context) (phobosv1connect.SchedulerServiceClient, error)
}

// NewRingService is the dashboard service of a ring of schedulers for
// the web service.
func NewRingService(r Ring) phobosv1connect.DashboardServiceClient { return ringDash{r} }

// ringDash is the dashboard service of a ring of schedulers for the web
// service. Each scheduler knows only its own sessions' graphs and the
// tasks it dispatched, and numbers the shared workers its own way, so:
// the overview merges every scheduler's; a graph's views come from the
// scheduler holding its session, with worker numbers translated into the
// numbering GET /api/workers shows (Ring.Canonical's); a worker's tasks
// are every scheduler's tasks on that worker (known by its address),
// merged.
type ringDash struct{ ro Ring }

var _ phobosv1connect.DashboardServiceClient = ringDash{}

// members are the schedulers to merge: the ring's, then those seen
// before that may still hold sessions.
func (rd ringDash) members() ([]RingScheduler, error) {
	recs, err := rd.ro.Schedulers()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(recs, func(a, b RingScheduler) int { return strings.Compare(a.ID, b.ID) })
	return recs, nil
}

// Overview merges the schedulers' overviews: ops done and graphs held
// summed, the running graphs first, then the ended ones, at most
// MaxListedGraphs, each scheduler's ended graphs cut oldest first. A
// scheduler that does not answer is left out; none answering is the
// error.
func (rd ringDash) Overview(ctx context.Context, req *connect.Request[pb.OverviewRequest]) (*connect.Response[pb.OverviewResponse], error) {
	recs, err := rd.members()
	if err != nil {
		return nil, err
	}
	out := &pb.OverviewResponse{}
	var running []*pb.GraphSummary
	var ended [][]*pb.GraphSummary // per scheduler, oldest first
	var errs []error
	for _, rec := range recs {
		resp, err := rec.Dash.Overview(ctx, connect.NewRequest(req.Msg))
		if err != nil {
			errs = append(errs, fmt.Errorf("scheduler %s at %s: %w", rec.ID, rec.Address, err))
			continue
		}
		m := resp.Msg
		out.OpsDone += m.OpsDone
		out.GraphsTotal += m.GraphsTotal
		var e []*pb.GraphSummary
		for _, g := range m.Graphs {
			if protocol.GraphTerminal(g.GetStatus().GetState()) {
				e = append(e, g)
			} else {
				running = append(running, g)
			}
		}
		ended = append(ended, e)
	}
	if len(errs) == len(recs) {
		return nil, connect.NewError(connect.CodeUnavailable, errors.Join(errs...))
	}
	n := len(running)
	for _, e := range ended {
		n += len(e)
	}
	for n > MaxListedGraphs {
		i := 0
		for j, e := range ended {
			if len(e) > len(ended[i]) {
				i = j
			}
		}
		if len(ended[i]) == 0 {
			break // running graphs alone exceed the bound: keep them
		}
		ended[i] = ended[i][1:]
		n--
	}
	out.Graphs = append(out.Graphs, running...)
	for _, e := range ended {
		out.Graphs = append(out.Graphs, e...)
	}
	if len(out.Graphs) > MaxListedGraphs {
		out.Graphs = out.Graphs[:MaxListedGraphs]
	}
	return connect.NewResponse(out), nil
}

func (rd ringDash) GraphDetail(ctx context.Context, req *connect.Request[pb.GraphDetailRequest]) (*connect.Response[pb.GraphDetailResponse], error) {
	var resp *connect.Response[pb.GraphDetailResponse]
	err := rd.ro.OnSession(ctx, req.Msg.SessionId, func(c RingScheduler) error {
		var err error
		resp, err = c.Dash.GraphDetail(ctx, connect.NewRequest(req.Msg))
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// GraphOps answers from the session's scheduler, its worker numbers
// translated into the web service's numbering.
func (rd ringDash) GraphOps(ctx context.Context, req *connect.Request[pb.GraphOpsRequest]) (*connect.Response[pb.GraphOpsResponse], error) {
	var holder RingScheduler
	var resp *connect.Response[pb.GraphOpsResponse]
	err := rd.ro.OnSession(ctx, req.Msg.SessionId, func(c RingScheduler) error {
		holder = c
		var err error
		resp, err = c.Dash.GraphOps(ctx, connect.NewRequest(req.Msg))
		return err
	})
	if err != nil {
		return nil, err
	}
	canon, err := rd.canonical(ctx)
	if err != nil {
		return nil, err
	}
	if canon == holder.Sched {
		return resp, nil
	}
	from, err := workerAddrs(ctx, holder.Sched)
	if err != nil {
		return nil, err
	}
	to, err := workerAddrs(ctx, canon)
	if err != nil {
		return nil, err
	}
	byAddr := make(map[string]int32, len(to))
	for id, addr := range to {
		byAddr[addr] = id
	}
	tr := func(id int32) int32 {
		if id < 0 {
			return id
		}
		if n, ok := byAddr[from[id]]; ok {
			return n
		}
		return -1 // a worker the web service's numbering does not know
	}
	for _, op := range resp.Msg.Ops {
		op.Worker, op.Holder = tr(op.Worker), tr(op.Holder)
	}
	return resp, nil
}

// WorkerTasks merges every scheduler's tasks on the worker that has id
// in the web service's numbering: the recent ones by start time, the
// newest kept; the running ones; the queued counts summed.
func (rd ringDash) WorkerTasks(ctx context.Context, req *connect.Request[pb.WorkerTasksRequest]) (*connect.Response[pb.WorkerTasksResponse], error) {
	canon, err := rd.canonical(ctx)
	if err != nil {
		return nil, err
	}
	addrs, err := workerAddrs(ctx, canon)
	if err != nil {
		return nil, err
	}
	addr, ok := addrs[req.Msg.Worker]
	if !ok {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no worker %d", req.Msg.Worker))
	}
	recs, err := rd.members()
	if err != nil {
		return nil, err
	}
	out := &pb.WorkerTasksResponse{}
	var errs []error
	for _, rec := range recs {
		ids, err := workerAddrs(ctx, rec.Sched)
		if err != nil {
			errs = append(errs, fmt.Errorf("scheduler %s at %s: %w", rec.ID, rec.Address, err))
			continue
		}
		id := int32(-1)
		for i, a := range ids {
			if a == addr {
				id = i
			}
		}
		if id < 0 {
			continue // this worker has not registered with it (yet)
		}
		resp, err := rec.Dash.WorkerTasks(ctx, connect.NewRequest(&pb.WorkerTasksRequest{Worker: id}))
		if err != nil {
			errs = append(errs, fmt.Errorf("scheduler %s at %s: %w", rec.ID, rec.Address, err))
			continue
		}
		out.Recent = append(out.Recent, resp.Msg.Recent...)
		out.Running = append(out.Running, resp.Msg.Running...)
		out.Queued += resp.Msg.Queued
	}
	if len(errs) == len(recs) {
		return nil, connect.NewError(connect.CodeUnavailable, errors.Join(errs...))
	}
	byStart := func(a, b *pb.TaskEvent) int { return cmp.Compare(a.StartedUs, b.StartedUs) }
	slices.SortStableFunc(out.Recent, byStart)
	slices.SortStableFunc(out.Running, byStart)
	// The bounds one scheduler answers with, kept for the merge.
	if n := len(out.Recent) - scheduler.TaskRing; n > 0 {
		out.Recent = out.Recent[n:]
	}
	if len(out.Running) > scheduler.MaxOpInfos {
		out.Running = out.Running[:scheduler.MaxOpInfos]
	}
	return connect.NewResponse(out), nil
}

// canonical is the scheduler whose worker numbering the web service
// shows on its pages.
func (rd ringDash) canonical(ctx context.Context) (phobosv1connect.SchedulerServiceClient, error) {
	return rd.ro.Canonical(ctx)
}

// workerAddrs maps a scheduler's worker ids to the workers' addresses.
func workerAddrs(ctx context.Context, c phobosv1connect.SchedulerServiceClient) (map[int32]string, error) {
	resp, err := c.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return nil, err
	}
	out := make(map[int32]string, len(resp.Msg.Workers))
	for _, w := range resp.Msg.Workers {
		out[w.Id] = w.Url
	}
	return out, nil
}
