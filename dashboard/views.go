package dashboard

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/scheduler"
)

// What the dashboard shows of a scheduler's runs, made from the runs
// themselves: the scheduler process's DashboardService and a local
// session's source both answer with these.

// MaxDrawnOps is the most ops a DAG is drawn with op by op; a larger one is
// summarised by op type.
const MaxDrawnOps = 300

// MaxOpsAsked bounds the op indexes one GraphOps request may name.
const MaxOpsAsked = scheduler.MaxOpInfos

// TypeCounts is a run's TypeCounts as protobuf.
func TypeCounts(run *scheduler.Run) []*pb.TypeCount {
	var out []*pb.TypeCount
	for _, tc := range run.TypeCounts() {
		out = append(out, &pb.TypeCount{Type: tc.Type, Counts: slices.Clone(tc.Counts[:])})
	}
	return out
}

// Summarise makes a DAG of n ops: op by op when n <= MaxDrawnOps, else one
// node per type with the edges between types (edges within a type left
// out). counts(i) is op i's per-state counts (nil: not tracked); byType
// are the per-type counts a summary's nodes show.
func Summarise(n int, typeOf func(int) string, inputs func(int) []int, counts func(int) []int64, byType []*pb.TypeCount) *pb.Dag {
	d := &pb.Dag{Ops: int64(n)}
	if n <= MaxDrawnOps {
		for i := range n {
			nd := &pb.DagNode{Id: int32(i), Type: typeOf(i)}
			if counts != nil {
				nd.Counts = counts(i)
			}
			d.Nodes = append(d.Nodes, nd)
			for _, in := range inputs(i) {
				d.Edges = append(d.Edges, &pb.DagEdge{From: int32(in), To: int32(i), Count: 1})
			}
		}
		return d
	}
	d.Summarised = true
	index := map[string]int32{}
	of := make([]int32, n)
	for i := range n {
		t := typeOf(i)
		k, ok := index[t]
		if !ok {
			k = int32(len(d.Nodes))
			index[t] = k
			d.Nodes = append(d.Nodes, &pb.DagNode{Id: k, Type: t})
		}
		of[i] = k
	}
	for _, tc := range byType {
		if k, ok := index[tc.Type]; ok {
			d.Nodes[k].Counts = tc.Counts
		}
	}
	type pair struct{ from, to int32 }
	edges := map[pair]int64{}
	for i := range n {
		for _, in := range inputs(i) {
			if of[in] != of[i] {
				edges[pair{of[in], of[i]}]++
			}
		}
	}
	for e, c := range edges {
		d.Edges = append(d.Edges, &pb.DagEdge{From: e.from, To: e.to, Count: c})
	}
	slices.SortFunc(d.Edges, func(a, b *pb.DagEdge) int {
		if a.From != b.From {
			return int(a.From - b.From)
		}
		return int(a.To - b.To)
	})
	return d
}

// TileableDag is the DAG of the tensor ops a client submitted.
func TileableDag(tg *graph.TileableGraph) *pb.Dag {
	return Summarise(len(tg.Nodes),
		func(i int) string { return tg.Nodes[i].Op.Type() },
		func(i int) []int { return tg.Nodes[i].Inputs }, nil, nil)
}

// ChunkDag is the DAG of a run's chunk ops with their states. A summary's
// shape is computed once (O(ops + edges)) and kept in *skel; later calls
// only refresh its counts.
func ChunkDag(run *scheduler.Run, skel **pb.Dag) *pb.Dag {
	g := run.Graph()
	n := len(g.Nodes)
	if n > MaxDrawnOps && skel != nil && *skel != nil {
		d := proto.Clone(*skel).(*pb.Dag)
		index := make(map[string]*pb.DagNode, len(d.Nodes))
		for _, nd := range d.Nodes {
			index[nd.Type] = nd
		}
		for _, tc := range TypeCounts(run) {
			if nd := index[tc.Type]; nd != nil {
				nd.Counts = tc.Counts
			}
		}
		return d
	}
	var states []scheduler.State
	if n <= MaxDrawnOps {
		var err error
		if states, err = run.States(); err != nil {
			states = nil // the scheduler is closing: no states to show
		}
	}
	var counts func(int) []int64
	if states != nil {
		counts = func(i int) []int64 {
			c := make([]int64, len(stateNames))
			c[states[i]] = 1
			return c
		}
	}
	d := Summarise(n, run.OpType,
		func(i int) []int {
			in := make([]int, len(g.Nodes[i].Inputs))
			for j, x := range g.Nodes[i].Inputs {
				in[j] = int(x)
			}
			return in
		}, counts, TypeCounts(run))
	if d.Summarised && skel != nil {
		*skel = proto.Clone(d).(*pb.Dag)
	}
	return d
}

// stateNames are the operand states in the order of TypeCount.counts.
var stateNames = func() []string {
	var out []string
	for s := scheduler.Unscheduled; s <= scheduler.Cancelled; s++ {
		out = append(out, s.String())
	}
	return out
}()

// LiveView is what the dashboard shows of a run still held, for the
// scheduler's graphs and a local session's alike: its op types and, with
// withDags, its chunk DAG (the summary's shape made once into *skel, under
// skelMu); else chunks as kept.
func LiveView(run *scheduler.Run, withDags bool, skelMu *sync.Mutex, skel **pb.Dag, chunks *pb.Dag) ([]*pb.TypeCount, *pb.Dag) {
	types := TypeCounts(run)
	if withDags {
		skelMu.Lock()
		chunks = ChunkDag(run, skel)
		skelMu.Unlock()
	}
	return types, chunks
}

// OpsOf answers a GraphOps request from a run.
func OpsOf(run *scheduler.Run, m *pb.GraphOpsRequest) (*pb.GraphOpsResponse, error) {
	if len(m.Nodes) > MaxOpsAsked {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("%d ops asked for: at most %d at once", len(m.Nodes), MaxOpsAsked))
	}
	var nodes []int32
	if len(m.Nodes) > 0 {
		nodes = m.Nodes
	}
	infos, err := run.Ops(nodes, m.Type)
	if err != nil {
		if errors.Is(err, scheduler.ErrClosed) {
			return nil, connect.NewError(connect.CodeUnavailable, err)
		}
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	out := &pb.GraphOpsResponse{}
	gr := run.Graph()
	for _, oi := range infos {
		meta := gr.Nodes[oi.Node].Meta
		op := &pb.OpInfo{Node: oi.Node, Type: oi.Type, State: oi.State.String(), Worker: int32(oi.Worker), Holder: int32(oi.Holder),
			Attempt: int32(oi.Attempt), Nbytes: oi.Nbytes, Inputs: oi.Inputs, StartedUs: unixMicro(oi.Started), EndedUs: unixMicro(oi.Ended),
			Dtype: meta.DType.String()}
		for _, d := range meta.Shape {
			op.Shape = append(op.Shape, int64(d))
		}
		out.Ops = append(out.Ops, op)
	}
	return out, nil
}

func unixMicro(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// GraphName is a run's session and graph id.
type GraphName struct{ Session, Graph string }

// TasksOf is a worker's task activity as protobuf, runs named by names.
func TasksOf(act scheduler.TaskActivity, names map[protocol.GraphID]GraphName) *pb.WorkerTasksResponse {
	conv := func(e scheduler.TaskEvent) *pb.TaskEvent {
		n := names[e.Graph]
		te := &pb.TaskEvent{SessionId: n.Session, GraphId: n.Graph, Node: e.Node, Type: e.Type, StartedUs: unixMicro(e.Started), EndedUs: unixMicro(e.Ended), Outcome: "RUNNING"}
		switch e.Outcome {
		case protocol.Succeeded:
			te.Outcome = "SUCCEEDED"
		case protocol.Failed:
			te.Outcome = "FAILED"
		case protocol.Cancelled:
			te.Outcome = "CANCELLED"
		}
		return te
	}
	out := &pb.WorkerTasksResponse{Queued: int32(act.Queued)}
	for _, e := range act.Recent {
		out.Recent = append(out.Recent, conv(e))
	}
	for _, e := range act.Running {
		out.Running = append(out.Running, conv(e))
	}
	return out
}
