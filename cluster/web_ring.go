package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/web"
)

// ringRouter is the web service's view of a ring of schedulers: it
// implements the graph and scheduler services by sending each session's
// calls to the scheduler the ring maps the session to (a scheduler makes
// only ids it owns), and the calls about no session to any scheduler.
type ringRouter struct {
	members *ha.Members
	http    *http.Client
	secure  bool
	next    atomic.Uint64 // round robin of CreateSession alone, so other calls cannot skew it

	mu      sync.Mutex
	clients map[string]*schedClients // by address
}

type schedClients struct {
	graphs phobosv1connect.GraphServiceClient
	sched  phobosv1connect.SchedulerServiceClient
	dash   phobosv1connect.DashboardServiceClient
}

var (
	_ phobosv1connect.GraphServiceClient     = (*ringRouter)(nil)
	_ phobosv1connect.SchedulerServiceClient = ringSched{}
)

func (ro *ringRouter) clientsOf(rec ha.SchedulerRecord) *schedClients {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	c := ro.clients[rec.Address]
	if c == nil {
		u, err := baseURL(rec.Address, ro.secure)
		if err != nil {
			u = rec.Address // the call fails, naming it
		}
		c = &schedClients{
			graphs: phobosv1connect.NewGraphServiceClient(ro.http, u, rpc.ClientOptions()...),
			sched:  phobosv1connect.NewSchedulerServiceClient(ro.http, u, rpc.ClientOptions()...),
			dash:   phobosv1connect.NewDashboardServiceClient(ro.http, u, rpc.ClientOptions()...),
		}
		ro.clients[rec.Address] = c
	}
	return c
}

// ordered is the ring's members, the owner of key first (key "": in ring
// order), then the schedulers seen before that are
// out of the ring now (etcd unreachable, or their leases lapsed: they may
// still hold sessions), or an Unavailable error when there are none.
func (ro *ringRouter) ordered(key string) ([]ha.SchedulerRecord, error) {
	r, by, _ := ro.members.Snapshot()
	ids := r.Members()
	out := make([]ha.SchedulerRecord, 0, len(ids))
	if len(ids) > 0 {
		first := 0
		if key != "" {
			first = slices.Index(ids, r.Owner(key))
		}
		for i := range ids {
			out = append(out, by[ids[(first+i)%len(ids)]])
		}
	}
	out = append(out, ro.members.Formerly()...)
	if len(out) == 0 {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("no scheduler is registered in etcd: start one with `phobos scheduler --etcd ...`"))
	}
	return out, nil
}

// ring lists the members for web.Config.Ring: the ring's, then those
// seen before.
func (ro *ringRouter) ring() []web.RingMember {
	recs, _ := ro.ordered("")
	slices.SortFunc(recs, func(a, b ha.SchedulerRecord) int { return strings.Compare(a.ID, b.ID) })
	var out []web.RingMember
	for _, rec := range recs {
		out = append(out, web.RingMember{ID: rec.ID, Address: rec.Address, PID: rec.PID, Graphs: ro.clientsOf(rec).graphs})
	}
	return out
}

// isNoSession: the scheduler asked does not hold the session.
func isNoSession(err error) bool {
	var ce *connect.Error
	return errors.As(err, &ce) && ce.Code() == connect.CodeNotFound && strings.HasPrefix(ce.Message(), "no session ")
}

// bySession calls the owner of sid's graph service (see onSession).
func bySession[Req, Resp any](ro *ringRouter, ctx context.Context, sid string, msg *Req,
	call func(phobosv1connect.GraphServiceClient, context.Context, *connect.Request[Req]) (*connect.Response[Resp], error)) (*connect.Response[Resp], error) {
	return onSession(ro, ctx, sid, func(c *schedClients) (*connect.Response[Resp], error) {
		return call(c.graphs, ctx, connect.NewRequest(msg))
	})
}

// onSession calls the owner of sid. A session stays on the scheduler that
// made it while the ring changes around it (a scheduler joining takes
// ids from then on), so when the owner does not hold it the others are
// asked.
func onSession[T any](ro *ringRouter, ctx context.Context, sid string, call func(*schedClients) (T, error)) (T, error) {
	var zero T
	recs, err := ro.ordered(sid)
	if err != nil {
		return zero, err
	}
	// The first answer that is not "no such session" counts; an
	// unreachable scheduler passes to the next, and is the answer if
	// none holds the session.
	var noSession, unreachable error
	for _, rec := range recs {
		resp, err := call(ro.clientsOf(rec))
		switch {
		case isNoSession(err):
			if noSession == nil {
				noSession = err
			}
		case isTransport(err):
			// Down, or died while answering (a reset long-poll): a
			// pause for the client (failover moves the session), not
			// the scheduler's answer.
			if unreachable == nil {
				unreachable = connect.NewError(connect.CodeUnavailable, fmt.Errorf("scheduler %s at %s: %w", rec.ID, rec.Address, err))
			}
		default:
			return resp, err
		}
	}
	if unreachable != nil {
		return zero, unreachable
	}
	return zero, noSession
}

// isTransport: the call did not reach the scheduler (it is down), as
// opposed to the scheduler answering Unavailable itself.
func isTransport(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}

func (ro *ringRouter) CreateSession(ctx context.Context, req *connect.Request[pb.CreateSessionRequest]) (*connect.Response[pb.CreateSessionResponse], error) {
	recs, err := ro.ordered("")
	if err != nil {
		return nil, err
	}
	// New sessions go round the ring's members (those seen before stay
	// last: they serve only sessions they already hold).
	r, _, _ := ro.members.Snapshot()
	if n := min(r.Len(), len(recs)); n > 1 {
		k := int(ro.next.Add(1) % uint64(n))
		recs = slices.Concat(recs[k:n], recs[:k], recs[n:])
	}
	// Any scheduler that serves makes a session it owns; one that does
	// not (no lease) passes to the next.
	var errs []error
	for _, rec := range recs {
		resp, err := ro.clientsOf(rec).graphs.CreateSession(ctx, connect.NewRequest(req.Msg))
		if err == nil {
			return resp, nil
		}
		if connect.CodeOf(err) != connect.CodeUnavailable {
			return nil, err
		}
		errs = append(errs, fmt.Errorf("%s: %w", rec.ID, err))
	}
	return nil, connect.NewError(connect.CodeUnavailable, errors.Join(errs...))
}

func (ro *ringRouter) DeleteSession(ctx context.Context, req *connect.Request[pb.DeleteSessionRequest]) (*connect.Response[pb.DeleteSessionResponse], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.DeleteSession)
}

func (ro *ringRouter) GetSession(ctx context.Context, req *connect.Request[pb.GetSessionRequest]) (*connect.Response[pb.GetSessionResponse], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.GetSession)
}

func (ro *ringRouter) SubmitGraph(ctx context.Context, req *connect.Request[pb.SubmitGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.SubmitGraph)
}

func (ro *ringRouter) GetGraph(ctx context.Context, req *connect.Request[pb.GetGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.GetGraph)
}

func (ro *ringRouter) CancelGraph(ctx context.Context, req *connect.Request[pb.CancelGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.CancelGraph)
}

func (ro *ringRouter) GetResult(ctx context.Context, req *connect.Request[pb.GetResultRequest]) (*connect.Response[pb.ResultLayout], error) {
	return bySession(ro, ctx, req.Msg.SessionId, req.Msg, phobosv1connect.GraphServiceClient.GetResult)
}

// Status sums the schedulers' counts; live workers is the fewest any
// scheduler sees (the cluster is ready when every scheduler has workers).
func (ro *ringRouter) Status(ctx context.Context, req *connect.Request[pb.StatusRequest]) (*connect.Response[pb.StatusResponse], error) {
	recs, err := ro.ordered("")
	if err != nil {
		return nil, err
	}
	out := &pb.StatusResponse{Results: &pb.ResultStats{}}
	// A scheduler that does not answer is left out (it is dead, or gone
	// from the ring); none answering is the error.
	answered := 0
	var unreachable error
	for _, rec := range recs {
		resp, err := ro.clientsOf(rec).graphs.Status(ctx, connect.NewRequest(req.Msg))
		if err != nil {
			if unreachable == nil {
				unreachable = fmt.Errorf("scheduler %s at %s: %w", rec.ID, rec.Address, err)
			}
			continue
		}
		m := resp.Msg
		if answered == 0 || m.LiveWorkers < out.LiveWorkers {
			out.LiveWorkers = m.LiveWorkers
		}
		answered++
		out.Sessions += m.Sessions
		out.Graphs += m.Graphs
		if r := m.Results; r != nil {
			o := out.Results
			o.Received += r.Received
			o.Duplicates += r.Duplicates
			o.Stale += r.Stale
			o.FromDead += r.FromDead
			o.Unknown += r.Unknown
			o.Invalid += r.Invalid
			o.StalledGraphs += r.StalledGraphs
			o.FailedOnBugs += r.FailedOnBugs
		}
	}
	if answered == 0 {
		return nil, unreachable
	}
	return connect.NewResponse(out), nil
}

// ListSessions of the ring is each scheduler's; the web service asks each
// (web.Config.Ring), so this one asks any.
func (ro *ringRouter) ListSessions(ctx context.Context, req *connect.Request[pb.ListSessionsRequest]) (*connect.Response[pb.ListSessionsResponse], error) {
	recs, err := ro.ordered("")
	if err != nil {
		return nil, err
	}
	return ro.clientsOf(recs[0]).graphs.ListSessions(ctx, connect.NewRequest(req.Msg))
}

// ringSched is the scheduler service of the ring for the web service:
// ListWorkers goes to the scheduler of the request's session (uploads
// name workers in its numbering), or to any.
type ringSched struct{ ro *ringRouter }

func (rs ringSched) any(ctx context.Context) (phobosv1connect.SchedulerServiceClient, error) {
	recs, err := rs.ro.ordered(web.SessionOf(ctx))
	if err != nil {
		return nil, err
	}
	if sid := web.SessionOf(ctx); sid != "" {
		// The session's holder, which may predate a ring change.
		for _, rec := range recs {
			_, err := rs.ro.clientsOf(rec).graphs.GetSession(ctx, connect.NewRequest(&pb.GetSessionRequest{SessionId: sid}))
			if err == nil {
				return rs.ro.clientsOf(rec).sched, nil
			}
			if !isNoSession(err) {
				break
			}
		}
	}
	// No session: always the same scheduler (the first by id), so GET
	// /api/workers shows one numbering of the workers from call to call.
	// ordered lists the ring's members before those seen before.
	r, _, _ := rs.ro.members.Snapshot()
	if n := r.Len(); n > 0 && n <= len(recs) {
		recs = recs[:n]
	}
	first := slices.MinFunc(recs, func(a, b ha.SchedulerRecord) int { return strings.Compare(a.ID, b.ID) })
	return rs.ro.clientsOf(first).sched, nil
}

func (rs ringSched) RegisterWorker(ctx context.Context, req *connect.Request[pb.RegisterWorkerRequest]) (*connect.Response[pb.RegisterWorkerResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("workers register with each scheduler of the ring, not through the web service"))
}

func (rs ringSched) Heartbeat(ctx context.Context, req *connect.Request[pb.HeartbeatRequest]) (*connect.Response[pb.HeartbeatResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("workers beat to each scheduler of the ring, not through the web service"))
}

func (rs ringSched) ReportResults(ctx context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("workers report to the scheduler of each graph, not through the web service"))
}

func (rs ringSched) DeregisterWorker(ctx context.Context, req *connect.Request[pb.DeregisterWorkerRequest]) (*connect.Response[pb.DeregisterWorkerResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("workers leave each scheduler of the ring, not through the web service"))
}

func (rs ringSched) ListWorkers(ctx context.Context, req *connect.Request[pb.ListWorkersRequest]) (*connect.Response[pb.ListWorkersResponse], error) {
	c, err := rs.any(ctx)
	if err != nil {
		return nil, err
	}
	return c.ListWorkers(ctx, connect.NewRequest(req.Msg))
}

// ringDashboard is the web service's routing over a ring as the ring's
// dashboard (dashboard.NewRingService) sees it.
type ringDashboard struct{ ro *ringRouter }

var _ dashboard.Ring = ringDashboard{}

func (rd ringDashboard) scheduler(rec ha.SchedulerRecord, c *schedClients) dashboard.RingScheduler {
	return dashboard.RingScheduler{ID: rec.ID, Address: rec.Address, Sched: c.sched, Dash: c.dash}
}

func (rd ringDashboard) Schedulers() ([]dashboard.RingScheduler, error) {
	recs, err := rd.ro.ordered("")
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.RingScheduler, len(recs))
	for i, rec := range recs {
		out[i] = rd.scheduler(rec, rd.ro.clientsOf(rec))
	}
	return out, nil
}

func (rd ringDashboard) OnSession(ctx context.Context, sid string, call func(dashboard.RingScheduler) error) error {
	_, err := onSession(rd.ro, ctx, sid, func(c *schedClients) (struct{}, error) {
		return struct{}{}, call(dashboard.RingScheduler{Sched: c.sched, Dash: c.dash})
	})
	return err
}

// Canonical is the scheduler ringSched answers with for no session.
func (rd ringDashboard) Canonical(ctx context.Context) (phobosv1connect.SchedulerServiceClient, error) {
	return ringSched{rd.ro}.any(web.WithSession(ctx, ""))
}
