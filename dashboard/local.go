package dashboard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/web"
	"github.com/phobos-tensor/phobos/worker"
)

// LocalSessionID is the session the dashboard of a local session shows its
// executions in.
const LocalSessionID = "local"

// A local execution's states are protocol's graph states, as the REST
// API names a graph's, so the pages show both alike.
const (
	stateRunning    = protocol.GraphRunning
	stateSucceeded  = protocol.GraphSucceeded
	stateFailed     = protocol.GraphFailed
	stateCancelling = protocol.GraphCancelling
	stateCancelled  = protocol.GraphCancelled
)

// maxLocalGraphs bounds the executions a local dashboard remembers.
const maxLocalGraphs = 200

// LocalSource is the dashboard's source (Source) for an in-process
// cluster: its workers, and the graphs a local session executes, as graphs
// g1, g2, ... of session LocalSessionID. It shows what the cluster's
// dashboard shows, from the same scheduler data.
type LocalSource struct {
	sched   *scheduler.Scheduler
	workers []*worker.Worker

	mu     sync.Mutex
	graphs []*localGraph // oldest first, at most maxLocalGraphs
	next   int
}

// localGraph is one execution of a local session.
type localGraph struct {
	id        string
	tile      *pb.Dag
	chunkOps  int
	submitted time.Time
	prepare   time.Duration

	mu       sync.Mutex
	run      *scheduler.Run // nil once ended (the figures below are kept)
	state    string
	err      error
	runStart time.Time
	runTime  time.Duration
	types    []*pb.TypeCount
	chunks   *pb.Dag
	progress map[string]int64
	moved    int64
	recomp   int64
	skelMu   sync.Mutex // guards skel (see ChunkDag)
	skel     *pb.Dag
}

// NewLocalSource shows the work of an in-process cluster: its scheduler
// and workers.
func NewLocalSource(sched *scheduler.Scheduler, workers []*worker.Worker) *LocalSource {
	return &LocalSource{sched: sched, workers: workers}
}

// Started records an execution that began running (tg as built, prepared
// in prepare); the returned func records its end with the run's error.
func (d *LocalSource) Started(tg *graph.TileableGraph, run *scheduler.Run, submitted time.Time, prepare time.Duration) (ended func(error)) {
	g := &localGraph{tile: TileableDag(tg), chunkOps: len(run.Graph().Nodes), submitted: submitted, prepare: prepare,
		run: run, state: stateRunning, runStart: time.Now()}
	d.mu.Lock()
	d.next++
	g.id = "g" + strconv.Itoa(d.next)
	d.graphs = append(d.graphs, g)
	if len(d.graphs) > maxLocalGraphs {
		d.graphs = d.graphs[len(d.graphs)-maxLocalGraphs:]
	}
	d.mu.Unlock()
	return func(err error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.runTime = time.Since(g.runStart)
		switch {
		case err == nil:
			g.state = stateSucceeded
		case errors.Is(err, context.Canceled):
			g.state = stateCancelled
		default:
			g.state, g.err = stateFailed, err
		}
		g.types, g.chunks = TypeCounts(g.run), ChunkDag(g.run, nil)
		g.progress = map[string]int64{}
		for st, n := range g.run.Counts() {
			g.progress[st.String()] = n
		}
		g.moved, g.recomp = g.run.MovedBytes(), g.run.Recomputed()
		g.run = nil
	}
}

func (d *LocalSource) lookup(sid, gid string) (*localGraph, error) {
	if sid != LocalSessionID {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no session %q: a local session's graphs are in session %q", sid, LocalSessionID))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range d.graphs {
		if g.id == gid {
			return g, nil
		}
	}
	return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no graph %q in the local session (it keeps the last %d)", gid, maxLocalGraphs))
}

// status is the graph's REST state.
func (g *localGraph) status() *pb.GraphStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := &pb.GraphStatus{SessionId: LocalSessionID, GraphId: g.id, State: g.state, ChunkOps: int64(g.chunkOps),
		Progress: map[string]int64{}, PrepareMs: g.prepare.Milliseconds(), RunMs: g.runTime.Milliseconds()}
	if g.err != nil {
		st.Error = g.err.Error()
	}
	if g.run != nil {
		st.RunMs = time.Since(g.runStart).Milliseconds()
		for s, n := range g.run.Counts() {
			st.Progress[s.String()] = n
		}
		st.MovedBytes, st.Recomputed = g.run.MovedBytes(), g.run.Recomputed()
	} else {
		for k, n := range g.progress {
			st.Progress[k] = n
		}
		st.MovedBytes, st.Recomputed = g.moved, g.recomp
	}
	return st
}

// view is what the dashboard shows of the graph beside its status.
func (g *localGraph) view(withDags bool) (run *scheduler.Run, types []*pb.TypeCount, chunks *pb.Dag) {
	g.mu.Lock()
	run, types, chunks = g.run, g.types, g.chunks
	g.mu.Unlock()
	if run != nil {
		types, chunks = LiveView(run, withDags, &g.skelMu, &g.skel, chunks)
	}
	return run, types, chunks
}

// ListWorkers implements dashboard.Source.
func (d *LocalSource) ListWorkers(ctx context.Context) (*pb.ListWorkersResponse, error) {
	out := &pb.ListWorkersResponse{}
	for i, w := range d.workers {
		st := w.StoreStats()
		load := &pb.WorkerLoad{StoreBytes: st.Bytes, PeakStoreBytes: st.PeakBytes, StoreChunks: int32(st.Chunks),
			LimitBytes: st.Limit, DiskBytes: st.DiskBytes, SpilledBytes: st.SpilledBytes, LoadedBytes: st.LoadedBytes}
		if act, err := d.sched.Tasks(i); err == nil {
			load.Running, load.Queued = int32(len(act.Running)), int32(act.Queued)
		}
		out.Workers = append(out.Workers, &pb.WorkerInfo{Id: int32(i), Url: "in-process", Slots: int32(w.Slots()), MemoryBytes: st.Limit, Alive: true, Load: load})
	}
	return out, nil
}

// Overview implements dashboard.Source.
func (d *LocalSource) Overview(ctx context.Context) (*pb.OverviewResponse, error) {
	d.mu.Lock()
	gs := append([]*localGraph(nil), d.graphs...)
	d.mu.Unlock()
	out := &pb.OverviewResponse{OpsDone: d.sched.OpsDone(), GraphsTotal: int32(len(gs))}
	for _, g := range gs {
		_, types, _ := g.view(false)
		out.Graphs = append(out.Graphs, &pb.GraphSummary{Status: g.status(), Types: types})
	}
	return out, nil
}

// GraphDetail implements dashboard.Source.
func (d *LocalSource) GraphDetail(ctx context.Context, req *pb.GraphDetailRequest) (*pb.GraphDetailResponse, error) {
	g, err := d.lookup(req.SessionId, req.GraphId)
	if err != nil {
		return nil, err
	}
	_, types, chunks := g.view(true)
	return &pb.GraphDetailResponse{Status: g.status(), Types: types, Tileable: g.tile, Chunks: chunks}, nil
}

// GraphOps implements dashboard.Source.
func (d *LocalSource) GraphOps(ctx context.Context, req *pb.GraphOpsRequest) (*pb.GraphOpsResponse, error) {
	g, err := d.lookup(req.SessionId, req.GraphId)
	if err != nil {
		return nil, err
	}
	run, _, _ := g.view(false)
	if run == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %q has ended: a local session keeps no ops of ended graphs", req.GraphId))
	}
	return OpsOf(run, req)
}

// WorkerTasks implements dashboard.Source.
func (d *LocalSource) WorkerTasks(ctx context.Context, req *pb.WorkerTasksRequest) (*pb.WorkerTasksResponse, error) {
	act, err := d.sched.Tasks(int(req.Worker))
	if err != nil {
		return nil, connect.NewError(connect.CodeNotFound, err)
	}
	names := map[protocol.GraphID]GraphName{}
	d.mu.Lock()
	gs := append([]*localGraph(nil), d.graphs...)
	d.mu.Unlock()
	for _, g := range gs {
		g.mu.Lock()
		if g.run != nil {
			names[g.run.ID()] = GraphName{Session: LocalSessionID, Graph: g.id}
		}
		g.mu.Unlock()
	}
	return TasksOf(act, names), nil
}

// CancelGraph implements dashboard.Source: the execution returns cancelled.
func (d *LocalSource) CancelGraph(ctx context.Context, req *pb.CancelGraphRequest) (*pb.GraphStatus, error) {
	g, err := d.lookup(req.SessionId, req.GraphId)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	run := g.run
	if run != nil {
		g.state = stateCancelling
	}
	g.mu.Unlock()
	if run != nil {
		run.Cancel()
	}
	return g.status(), nil
}

// Schedulers implements web.SchedulerLister: a local session has one
// scheduler, in this process.
func (d *LocalSource) Schedulers(ctx context.Context) []web.SchedulerStateJSON {
	d.mu.Lock()
	graphs := len(d.graphs)
	d.mu.Unlock()
	return []web.SchedulerStateJSON{{
		SchedulerJSON: web.SchedulerJSON{ID: LocalSessionID, Address: "in-process", PID: os.Getpid()},
		State:         "serving", RingMembers: 1, LiveWorkers: len(d.workers), Sessions: 1, Graphs: graphs,
	}}
}
