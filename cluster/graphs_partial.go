package cluster

import (
	"fmt"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// partialResult answers GetResult asked with rpc.PartialResultHeader: the
// layout of result i of a running (or ended) graph with the chunks
// computed so far; a chunk not yet computed has worker -1 and no URL. A
// graph still in preparation answers FailedPrecondition (ask again); one
// failed, cancelled or released answers its error. Only results of known
// shape are streamed.
func (p *SchedulerProc) partialResult(g *graphRec, i int) (*connect.Response[pb.ResultLayout], error) {
	g.mu.Lock()
	state, released, run, results := g.state, g.released, g.run, g.results
	g.mu.Unlock()
	switch {
	case state == StatePreparing:
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %s is %s", g.id, state))
	case state != StateRunning && state != StateSucceeded:
		return nil, connect.NewError(connect.CodeAborted, fmt.Errorf("graph %s is %s", g.id, state))
	case released || run == nil:
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("the results of graph %s were released", g.id))
	case i < 0 || i >= len(results):
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("graph %s has no result %d (it has %d)", g.id, i, len(results)))
	case results[i].Meta.Unknown != 0:
		return nil, connect.NewError(connect.CodeUnimplemented, fmt.Errorf("result %d of graph %s has chunks of unknown length", i, g.id))
	}
	t := results[i]
	l, err := execution.ResultLayout(run, t)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("result %d: %w", i, err))
	}
	locs, err := run.ReadyResultLocations(l.Nodes)
	if err != nil {
		return nil, connect.NewError(connect.CodeAborted, fmt.Errorf("result %d: %w", i, err))
	}
	out := layoutHead(t, l)
	for j, node := range l.Nodes {
		key := resultKey(run, node)
		loc := &pb.ChunkLocation{Graph: uint64(key.Graph), Node: node, Worker: -1}
		if w := locs[j]; w >= 0 {
			url, err := p.memberURL(w)
			if err == nil {
				loc.Worker, loc.Url = int32(w), url+rpc.ChunkPath(key)
			}
		}
		for _, d := range l.ChunkShapes[j] {
			loc.Shape = append(loc.Shape, int64(d))
		}
		out.Chunks = append(out.Chunks, loc)
	}
	return connect.NewResponse(out), nil
}

// layoutHead is a result's layout without its chunks: shape, dtype and
// chunk sizes.
func layoutHead(t *ops.Tiled, l *execution.Layout) *pb.ResultLayout {
	out := &pb.ResultLayout{Dtype: t.Meta.DType.String()}
	for _, d := range l.Shape {
		out.Shape = append(out.Shape, int64(d))
	}
	for _, sp := range l.NSplits {
		s := &pb.Splits{}
		for _, n := range sp {
			s.Sizes = append(s.Sizes, int64(n))
		}
		out.Nsplits = append(out.Nsplits, s)
	}
	return out
}
