package rpc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// Bounds of a chunk inventory (ListChunks): graphs asked about in one
// request, chunks in one answer.
const (
	MaxListGraphs = 1 << 12
	MaxListChunks = 1 << 16
)

// HeldChunk is a chunk a worker holds and its size.
type HeldChunk struct {
	Key    protocol.ChunkKey
	Nbytes int64
}

// ChunkQuery is a checked ListChunks request.
type ChunkQuery struct {
	Fence  protocol.Fence // raised on the worker before it answers
	Graphs []protocol.GraphID
	After  *protocol.ChunkKey // answer only keys after it
	Max    int
}

// DecodeChunkQuery checks a ListChunks request from the network.
func DecodeChunkQuery(m *pb.ListChunksRequest) (ChunkQuery, error) {
	var q ChunkQuery
	switch {
	case len(m.Graphs) == 0:
		return q, errors.New("rpc: list chunks: no graphs named")
	case len(m.Graphs) > MaxListGraphs:
		return q, fmt.Errorf("rpc: list chunks: %d graphs, more than %d", len(m.Graphs), MaxListGraphs)
	case m.MaxChunks < 0:
		return q, fmt.Errorf("rpc: list chunks: max_chunks %d", m.MaxChunks)
	case m.HasAfter && m.AfterNode < 0:
		return q, fmt.Errorf("rpc: list chunks: after chunk g%d/c%d", m.AfterGraph, m.AfterNode)
	case len(m.FenceScope) > MaxFenceScopeBytes:
		return q, fmt.Errorf("rpc: list chunks: fencing scope of %d bytes, more than %d", len(m.FenceScope), MaxFenceScopeBytes)
	}
	q.Fence = protocol.Fence{Scope: m.FenceScope, Token: m.Fence}
	q.Graphs = make([]protocol.GraphID, len(m.Graphs))
	for i, g := range m.Graphs {
		q.Graphs[i] = protocol.GraphID(g)
	}
	if m.HasAfter {
		q.After = &protocol.ChunkKey{Graph: protocol.GraphID(m.AfterGraph), Node: m.AfterNode}
	}
	q.Max = MaxListChunks
	if m.MaxChunks > 0 {
		q.Max = min(q.Max, int(m.MaxChunks))
	}
	return q, nil
}

func compareKeys(a, b protocol.ChunkKey) int {
	return cmp.Or(cmp.Compare(a.Graph, b.Graph), cmp.Compare(a.Node, b.Node))
}

// EncodeChunkPage answers a query from what the worker holds (in key
// order): the chunks after q.After, at most q.Max of them.
func EncodeChunkPage(q ChunkQuery, held []HeldChunk) *pb.ListChunksResponse {
	start := 0
	if q.After != nil {
		start, _ = slices.BinarySearchFunc(held, *q.After, func(h HeldChunk, k protocol.ChunkKey) int {
			if c := compareKeys(h.Key, k); c != 0 {
				return c
			}
			return -1 // the key itself counts as before: answer after it
		})
	}
	page := held[start:]
	resp := &pb.ListChunksResponse{}
	if len(page) > q.Max {
		page, resp.More = page[:q.Max], true
	}
	resp.Graphs = make([]uint64, len(page))
	resp.Nodes = make([]int32, len(page))
	resp.Nbytes = make([]int64, len(page))
	for i, h := range page {
		resp.Graphs[i], resp.Nodes[i], resp.Nbytes[i] = uint64(h.Key.Graph), h.Key.Node, h.Nbytes
	}
	return resp
}

// DecodeChunkPage checks a worker's answer to q: equal lists, at most
// q.Max chunks, of the graphs asked, in increasing key order after
// q.After, with sizes that are not negative.
func DecodeChunkPage(q ChunkQuery, m *pb.ListChunksResponse) ([]HeldChunk, error) {
	n := len(m.Graphs)
	if len(m.Nodes) != n || len(m.Nbytes) != n {
		return nil, errors.New("rpc: chunk list of lists of different lengths")
	}
	if n > q.Max {
		return nil, fmt.Errorf("rpc: chunk list of %d chunks, asked for at most %d", n, q.Max)
	}
	asked := make(map[protocol.GraphID]bool, len(q.Graphs))
	for _, g := range q.Graphs {
		asked[g] = true
	}
	out := make([]HeldChunk, n)
	for i := range n {
		h := HeldChunk{Key: protocol.ChunkKey{Graph: protocol.GraphID(m.Graphs[i]), Node: m.Nodes[i]}, Nbytes: m.Nbytes[i]}
		switch {
		case !asked[h.Key.Graph]:
			return nil, fmt.Errorf("rpc: chunk list names %v, of a graph not asked about", h.Key)
		case h.Key.Node < 0 || h.Nbytes < 0:
			return nil, fmt.Errorf("rpc: chunk list names %v of %d bytes", h.Key, h.Nbytes)
		case i > 0 && compareKeys(out[i-1].Key, h.Key) >= 0, i == 0 && q.After != nil && compareKeys(*q.After, h.Key) >= 0:
			return nil, fmt.Errorf("rpc: chunk list out of order at %v", h.Key)
		}
		out[i] = h
	}
	return out, nil
}

// ListChunks raises the worker's fence for the graphs' session to fence,
// then asks it for every chunk of the graphs it holds, page by page; each
// page is checked, and keys only increase, so the paging ends. A worker
// that has seen a higher token refuses (connect.CodeFailedPrecondition):
// another scheduler owns the session now.
func ListChunks(ctx context.Context, client phobosv1connect.WorkerServiceClient, fence protocol.Fence, graphs []protocol.GraphID) ([]HeldChunk, error) {
	if len(graphs) == 0 || len(graphs) > MaxListGraphs {
		return nil, fmt.Errorf("rpc: list chunks of %d graphs (1 to %d)", len(graphs), MaxListGraphs)
	}
	req := &pb.ListChunksRequest{Graphs: make([]uint64, len(graphs)), FenceScope: fence.Scope, Fence: fence.Token}
	for i, g := range graphs {
		req.Graphs[i] = uint64(g)
	}
	q := ChunkQuery{Graphs: graphs, Max: MaxListChunks}
	var all []HeldChunk
	for {
		resp, err := client.ListChunks(ctx, connect.NewRequest(req))
		if err != nil {
			return nil, fmt.Errorf("rpc: list chunks: %w", err)
		}
		page, err := DecodeChunkPage(q, resp.Msg)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if !resp.Msg.More || len(page) == 0 {
			return all, nil
		}
		last := page[len(page)-1].Key
		q.After = &last
		req.HasAfter, req.AfterGraph, req.AfterNode = true, uint64(last.Graph), last.Node
	}
}

// Inventory is what a set of workers hold of some graphs, gathered by
// GatherInventory: per graph, per worker index, the chunks.
type Inventory struct {
	Held map[protocol.GraphID]map[int][]HeldChunk
	// Unreachable are the workers that could not be asked (an error other
	// than a refusal): they were not fenced either, and hold nothing as
	// far as the adopter knows. The caller decides whether to wait for
	// their death or go on without them.
	Unreachable map[int]error
}

// StaleFenceError is a worker refusing to be fenced: it has seen a higher
// token for the session, so another scheduler owns it now and the adoption
// must stop.
type StaleFenceError struct {
	Worker int
	Err    error
}

func (e *StaleFenceError) Error() string {
	return fmt.Sprintf("rpc: worker %d refused the fence: %v", e.Worker, e.Err)
}

func (e *StaleFenceError) Unwrap() error { return e.Err }

// GatherInventory fences every worker (by its index) with fence and lists
// what it holds of graphs, all workers at once. A worker refusing the
// fence stops the gathering with a *StaleFenceError; one that cannot be
// reached is reported in Unreachable.
func GatherInventory(ctx context.Context, workers map[int]phobosv1connect.WorkerServiceClient, fence protocol.Fence, graphs []protocol.GraphID) (*Inventory, error) {
	type answer struct {
		w    int
		held []HeldChunk
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan answer, len(workers))
	for w, client := range workers {
		go func() {
			held, err := ListChunks(ctx, client, fence, graphs)
			answers <- answer{w, held, err}
		}()
	}
	inv := &Inventory{Held: map[protocol.GraphID]map[int][]HeldChunk{}, Unreachable: map[int]error{}}
	var refused error
	for range workers {
		a := <-answers
		switch {
		case a.err != nil && connect.CodeOf(a.err) == connect.CodeFailedPrecondition:
			if refused == nil {
				refused = &StaleFenceError{Worker: a.w, Err: a.err}
				cancel() // the others' answers no longer matter
			}
		case a.err != nil:
			inv.Unreachable[a.w] = a.err
		default:
			for _, h := range a.held {
				m := inv.Held[h.Key.Graph]
				if m == nil {
					m = map[int][]HeldChunk{}
					inv.Held[h.Key.Graph] = m
				}
				m[a.w] = append(m[a.w], h)
			}
		}
	}
	if refused != nil {
		return nil, refused
	}
	return inv, nil
}
