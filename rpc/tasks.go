package rpc

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// PreEncoded is a chunk op that carries its wire encoding. The scheduler
// process wraps a graph's ops in it while preparing the graph, off the event
// loop, so sending a batch of tasks costs no encoding on the hot path. It
// runs and names itself as the op it wraps.
type PreEncoded struct {
	ops.ChunkOp
	JSON []byte
}

// Unwrap implements ops.Wrapper.
func (p PreEncoded) Unwrap() ops.ChunkOp { return p.ChunkOp }

// PreEncode wraps op with its encoding (without a shared payload, which a
// dispatch message carries once).
func PreEncode(op ops.ChunkOp) (PreEncoded, error) {
	if p, ok := op.(PreEncoded); ok {
		return p, nil
	}
	b, err := marshalStripped(op)
	if err != nil {
		return PreEncoded{}, err
	}
	return PreEncoded{ChunkOp: op, JSON: b}, nil
}

func encodedOp(op ops.ChunkOp) ([]byte, error) {
	if p, ok := op.(PreEncoded); ok {
		return p.JSON, nil
	}
	return marshalStripped(op)
}

// DispatchBatch is what the scheduler sends one worker in one message.
type DispatchBatch struct {
	Tasks    []protocol.Task
	Releases []protocol.ChunkKey
	Cancels  []protocol.GraphID
	// ReleaseFences and CancelFences are the sender's fencing tokens of
	// the releases' and cancels' graphs, parallel to them (nil: all 0).
	ReleaseFences []uint64
	CancelFences  []uint64
}

// EncodeDispatch builds the wire message of a batch. Equal ops are sent
// once (a graph of 20,000 identical chunk kernels costs one op on the wire),
// and so is each distinct payload of ops that share one (ops.SharedPayload).
func EncodeDispatch(b DispatchBatch) (*pb.DispatchRequest, error) {
	req := &pb.DispatchRequest{Tasks: make([]*pb.Task, len(b.Tasks))}
	index := make(map[string]int32)
	var payloads [][]byte // entries, each distinct payload once
	var sent map[string]bool
	scopes := make(map[string]int32)
	tasks := make([]pb.Task, len(b.Tasks))
	prios := make([]pb.Priority, len(b.Tasks))
	for i := range b.Tasks {
		t := &b.Tasks[i]
		raw, err := encodedOp(t.Op)
		if err != nil {
			return nil, fmt.Errorf("rpc: task %v (%s): %w", t.Key, t.Op.Type(), err)
		}
		k, ok := index[string(raw)]
		if !ok {
			k = int32(len(req.Ops))
			index[string(raw)] = k
			req.Ops = append(req.Ops, raw)
			if d, p, ok := sharedPayload(t.Op); ok && !sent[d] {
				if sent == nil {
					sent = map[string]bool{}
				}
				sent[d] = true
				payloads = append(payloads, payloadEntry(d, p))
			}
		}
		pt := &tasks[i]
		pt.Graph, pt.Node, pt.Op = uint64(t.Key.Graph), t.Key.Node, k
		pt.Attempt = int32(t.Attempt)
		pt.Fence = t.Fence.Token
		if sc := t.Fence.Scope; sc != "" {
			k, ok := scopes[sc]
			if !ok {
				if len(req.FenceScopes) == 0 {
					// Index 0 is the empty scope once the list exists.
					req.FenceScopes = append(req.FenceScopes, "")
				}
				k = int32(len(req.FenceScopes))
				scopes[sc] = k
				req.FenceScopes = append(req.FenceScopes, sc)
			}
			pt.FenceScope = k
		}
		pt.Dtype = t.Meta.DType.String()
		pt.Unknown = int32(t.Meta.Unknown)
		pt.Shape = make([]int64, len(t.Meta.Shape))
		for d, n := range t.Meta.Shape {
			pt.Shape[d] = int64(n)
		}
		p := &prios[i]
		p.Depth, p.Order, p.Bytes, p.Succ = t.Priority.Depth, t.Priority.Order, t.Priority.Bytes, t.Priority.Succ
		pt.Priority = p
		if n := len(t.Inputs); n > 0 {
			pt.InputNodes = make([]int32, n)
			pt.InputWorkers = make([]int32, n)
			pt.InputNbytes = make([]int64, n)
			for j, in := range t.Inputs {
				pt.InputNodes[j] = in.Key.Node
				pt.InputWorkers[j] = int32(in.Worker)
				pt.InputNbytes[j] = in.Nbytes
				if in.Key.Graph != t.Key.Graph && pt.InputGraphs == nil {
					pt.InputGraphs = make([]uint64, n)
					for q := range j {
						pt.InputGraphs[q] = uint64(t.Key.Graph)
					}
				}
				if pt.InputGraphs != nil {
					pt.InputGraphs[j] = uint64(in.Key.Graph)
				}
			}
		}
		req.Tasks[i] = pt
	}
	req.Ops = append(req.Ops, payloads...)
	for _, k := range b.Releases {
		req.ReleaseGraphs = append(req.ReleaseGraphs, uint64(k.Graph))
		req.ReleaseNodes = append(req.ReleaseNodes, k.Node)
	}
	for _, g := range b.Cancels {
		req.CancelGraphs = append(req.CancelGraphs, uint64(g))
	}
	if slices.ContainsFunc(b.ReleaseFences, nonzero) {
		if len(b.ReleaseFences) != len(b.Releases) {
			return nil, fmt.Errorf("rpc: %d release fences for %d releases", len(b.ReleaseFences), len(b.Releases))
		}
		req.ReleaseFences = b.ReleaseFences
	}
	if slices.ContainsFunc(b.CancelFences, nonzero) {
		if len(b.CancelFences) != len(b.Cancels) {
			return nil, fmt.Errorf("rpc: %d cancel fences for %d cancels", len(b.CancelFences), len(b.Cancels))
		}
		req.CancelFences = b.CancelFences
	}
	return req, nil
}

func nonzero(t uint64) bool { return t != 0 }

// DecodeDispatch reads a batch, decoding each distinct op once.
func DecodeDispatch(req *pb.DispatchRequest) (DispatchBatch, error) {
	return decodeDispatch(req, nil)
}

func decodeDispatch(req *pb.DispatchRequest, cache *OpCache) (DispatchBatch, error) {
	var b DispatchBatch
	if len(req.FenceScopes) > MaxFenceScopes {
		return b, fmt.Errorf("rpc: %d fencing scopes in one batch, more than %d", len(req.FenceScopes), MaxFenceScopes)
	}
	for i, sc := range req.FenceScopes {
		if len(sc) > MaxFenceScopeBytes {
			return b, fmt.Errorf("rpc: fencing scope %d is %d bytes, more than %d", i, len(sc), MaxFenceScopeBytes)
		}
	}
	decoded := make([]ops.ChunkOp, len(req.Ops))
	var payloads map[string][]byte
	for i, raw := range req.Ops {
		if d, p, ok, err := parsePayloadEntry(raw); ok {
			if err != nil {
				return b, fmt.Errorf("rpc: entry %d of the batch: %w", i, err)
			}
			if payloads == nil {
				payloads = map[string][]byte{}
			}
			payloads[d] = p
			continue
		}
		op, err := cache.decode(raw)
		if err != nil {
			return b, fmt.Errorf("rpc: op %d of the batch: %w", i, err)
		}
		decoded[i] = op
	}
	if err := restorePayloads(decoded, payloads); err != nil {
		return b, err
	}
	b.Tasks = make([]protocol.Task, len(req.Tasks))
	for i, pt := range req.Tasks {
		if pt == nil {
			return b, fmt.Errorf("rpc: task %d of the batch is empty", i)
		}
		if err := checkTask(pt, len(decoded), len(req.FenceScopes)); err != nil {
			return b, fmt.Errorf("rpc: task g%d/c%d: %w", pt.Graph, pt.Node, err)
		}
		n := len(pt.InputNodes)
		var dt ndarray.DType
		if err := dt.UnmarshalText([]byte(pt.Dtype)); err != nil {
			return b, fmt.Errorf("rpc: task g%d/c%d: %w", pt.Graph, pt.Node, err)
		}
		t := &b.Tasks[i]
		t.Key = protocol.ChunkKey{Graph: protocol.GraphID(pt.Graph), Node: pt.Node}
		t.Op = decoded[pt.Op]
		if t.Op == nil {
			return b, fmt.Errorf("rpc: task g%d/c%d names entry %d of the batch, a payload, not an op", pt.Graph, pt.Node, pt.Op)
		}
		t.Attempt = int(pt.Attempt)
		t.Fence.Token = pt.Fence
		if len(req.FenceScopes) > 0 {
			t.Fence.Scope = req.FenceScopes[pt.FenceScope]
		}
		t.Meta = ops.Meta{DType: dt, Shape: make([]int, len(pt.Shape)), Unknown: int8(pt.Unknown)} // at most 64 axes (checkTask)
		for d, s := range pt.Shape {
			t.Meta.Shape[d] = int(s)
		}
		if p := pt.Priority; p != nil {
			t.Priority = protocol.Priority{Depth: p.Depth, Order: p.Order, Bytes: p.Bytes, Succ: p.Succ}
		}
		if n > 0 {
			t.Inputs = make([]protocol.Input, n)
			for j := range n {
				g := t.Key.Graph
				if pt.InputGraphs != nil {
					g = protocol.GraphID(pt.InputGraphs[j])
				}
				t.Inputs[j] = protocol.Input{
					Key:    protocol.ChunkKey{Graph: g, Node: pt.InputNodes[j]},
					Worker: int(pt.InputWorkers[j]),
					Nbytes: pt.InputNbytes[j],
				}
			}
		}
	}
	if len(req.ReleaseGraphs) != len(req.ReleaseNodes) {
		return b, errors.New("rpc: release lists of different lengths")
	}
	for i, n := range req.ReleaseNodes {
		if n < 0 {
			return b, fmt.Errorf("rpc: release %d names chunk g%d/c%d", i, req.ReleaseGraphs[i], n)
		}
	}
	for i, g := range req.ReleaseGraphs {
		b.Releases = append(b.Releases, protocol.ChunkKey{Graph: protocol.GraphID(g), Node: req.ReleaseNodes[i]})
	}
	for _, g := range req.CancelGraphs {
		b.Cancels = append(b.Cancels, protocol.GraphID(g))
	}
	if n := len(req.ReleaseFences); n > 0 && n != len(req.ReleaseNodes) {
		return b, fmt.Errorf("rpc: %d release fences for %d releases", n, len(req.ReleaseNodes))
	}
	if n := len(req.CancelFences); n > 0 && n != len(req.CancelGraphs) {
		return b, fmt.Errorf("rpc: %d cancel fences for %d cancels", n, len(req.CancelGraphs))
	}
	b.ReleaseFences, b.CancelFences = req.ReleaseFences, req.CancelFences
	return b, nil
}

// maxElems bounds a planned chunk's elements: its bytes must fit an int64
// with room to spare.
const maxElems = 1 << 56

// Bounds of a batch's fencing scopes (session ids): how many, how long.
const (
	MaxFenceScopes     = 1 << 16
	MaxFenceScopeBytes = 256
)

// checkTask validates a task's fields from the network before any is used.
func checkTask(pt *pb.Task, ops, scopes int) error {
	if pt.Node < 0 {
		return errors.New("negative node")
	}
	if pt.Op < 0 || int(pt.Op) >= ops {
		return fmt.Errorf("names op %d of %d", pt.Op, ops)
	}
	if pt.Attempt < 0 {
		return fmt.Errorf("attempt %d", pt.Attempt)
	}
	if pt.FenceScope < 0 || (pt.FenceScope > 0 && int(pt.FenceScope) >= scopes) {
		return fmt.Errorf("names fencing scope %d of %d", pt.FenceScope, scopes)
	}
	if pt.Priority == nil {
		return errors.New("no priority")
	}
	n := len(pt.InputNodes)
	if len(pt.InputWorkers) != n || len(pt.InputNbytes) != n || (pt.InputGraphs != nil && len(pt.InputGraphs) != n) {
		return errors.New("input lists of different lengths")
	}
	for j := range n {
		switch {
		case pt.InputNodes[j] < 0:
			return fmt.Errorf("input %d: node %d", j, pt.InputNodes[j])
		case pt.InputWorkers[j] < -1:
			return fmt.Errorf("input %d: worker %d", j, pt.InputWorkers[j])
		case pt.InputNbytes[j] < 0:
			return fmt.Errorf("input %d: %d bytes", j, pt.InputNbytes[j])
		}
	}
	elems := int64(1)
	for d, s := range pt.Shape {
		if s < 0 || s > maxElems {
			return fmt.Errorf("shape %v: axis %d", pt.Shape, d)
		}
		if s > 0 && elems > maxElems/s {
			return fmt.Errorf("shape %v has too many elements", pt.Shape)
		}
		elems *= s
	}
	if len(pt.Shape) > 64 {
		return fmt.Errorf("shape of %d axes", len(pt.Shape))
	}
	if pt.Unknown < 0 || int(pt.Unknown) > len(pt.Shape) {
		return fmt.Errorf("unknown axis %d of a %d-D shape", pt.Unknown-1, len(pt.Shape))
	}
	return nil
}

var outcomes = [...]pb.Outcome{
	protocol.Started:   pb.Outcome_OUTCOME_STARTED,
	protocol.Succeeded: pb.Outcome_OUTCOME_SUCCEEDED,
	protocol.Failed:    pb.Outcome_OUTCOME_FAILED,
	protocol.Cancelled: pb.Outcome_OUTCOME_CANCELLED,
}

// EncodeResult is the wire form of a task's outcome.
func EncodeResult(r protocol.Result) *pb.Result {
	m := &pb.Result{Graph: uint64(r.Key.Graph), Node: r.Key.Node, Attempt: int32(r.Attempt), Nbytes: r.Nbytes, Retryable: r.Retryable, Fence: r.Fence, ElapsedUs: r.Elapsed.Microseconds()}
	var fe *protocol.FencedError
	if errors.As(r.Err, &fe) {
		m.FencedBy = fe.Current
	}
	if int(r.Outcome) < len(outcomes) {
		m.Outcome = outcomes[r.Outcome]
	}
	if r.Err != nil {
		m.Error = r.Err.Error()
	}
	for _, k := range r.Lost {
		m.LostNodes = append(m.LostNodes, k.Node)
	}
	return m
}

// maxElapsedUs bounds a task's reported time (a year): more is a bad message.
const maxElapsedUs = 365 * 24 * 3600 * 1e6

// DecodeResult reads an outcome reported by worker w.
func DecodeResult(m *pb.Result, w int) (protocol.Result, error) {
	if m == nil {
		return protocol.Result{}, errors.New("rpc: empty result")
	}
	switch {
	case m.Node < 0:
		return protocol.Result{}, fmt.Errorf("rpc: result g%d/c%d names a negative node", m.Graph, m.Node)
	case m.Attempt < 0:
		return protocol.Result{}, fmt.Errorf("rpc: result g%d/c%d: attempt %d", m.Graph, m.Node, m.Attempt)
	case m.Nbytes < 0:
		return protocol.Result{}, fmt.Errorf("rpc: result g%d/c%d: %d bytes", m.Graph, m.Node, m.Nbytes)
	case m.ElapsedUs < 0 || m.ElapsedUs > maxElapsedUs:
		return protocol.Result{}, fmt.Errorf("rpc: result g%d/c%d: elapsed %d µs", m.Graph, m.Node, m.ElapsedUs)
	}
	for _, n := range m.LostNodes {
		if n < 0 {
			return protocol.Result{}, fmt.Errorf("rpc: result g%d/c%d: lost node %d", m.Graph, m.Node, n)
		}
	}
	r := protocol.Result{
		Key:       protocol.ChunkKey{Graph: protocol.GraphID(m.Graph), Node: m.Node},
		Attempt:   int(m.Attempt),
		Worker:    w,
		Nbytes:    m.Nbytes,
		Retryable: m.Retryable,
		Fence:     m.Fence,
		Elapsed:   time.Duration(m.ElapsedUs) * time.Microsecond,
	}
	for _, n := range m.LostNodes {
		r.Lost = append(r.Lost, protocol.ChunkKey{Graph: protocol.GraphID(m.Graph), Node: n})
	}
	for o, po := range outcomes {
		if po == m.Outcome && o != 0 {
			r.Outcome = protocol.Outcome(o)
		}
	}
	if r.Outcome == 0 {
		return r, fmt.Errorf("rpc: result %v has no outcome", r.Key)
	}
	switch {
	case m.FencedBy != 0:
		// Typed again, so the stale scheduler can tell it lost the
		// session; the scope is the worker's to know.
		if r.Outcome != protocol.Failed || m.FencedBy <= m.Fence {
			return r, fmt.Errorf("rpc: result %v: a refusal for token %d by token %d with outcome %v", r.Key, m.Fence, m.FencedBy, m.Outcome)
		}
		r.Err = &protocol.FencedError{Key: r.Key, Token: m.Fence, Current: m.FencedBy}
		r.Retryable = false
	case m.Error != "":
		r.Err = errors.New(m.Error)
	case r.Outcome == protocol.Failed:
		r.Err = errors.New("failed without an error message")
	}
	return r, nil
}
