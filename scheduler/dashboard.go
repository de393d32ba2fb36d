package scheduler

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// What the dashboard sees of a run and of the workers. All of it is
// bounded: a run keeps counts per op type (at most MaxOpTypes of them), two
// timestamps per op, and the core a ring of the last TaskRing tasks per
// worker; lists of ops are cut at MaxOpInfos.

// MaxOpTypes bounds the op types a run counts apart; the rest are counted
// under OtherOpType.
const MaxOpTypes = 32

// OtherOpType names the op types past MaxOpTypes.
const OtherOpType = "other"

// maxTypeLen cuts long labels (a fused kernel names every op it holds).
const maxTypeLen = 60

func cutLabel(t string) string {
	if len(t) > maxTypeLen {
		return t[:maxTypeLen-3] + "..."
	}
	return t
}

// TaskRing is how many ended tasks the scheduler remembers per worker.
const TaskRing = 512

// MaxOpInfos bounds the ops one Ops call describes.
const MaxOpInfos = protocol.MaxOpInfos

// TypeCount is how many ops of one type a run has in each state.
type TypeCount struct {
	Type   string
	Counts [numStates]int64
}

// numStates is the number of operand states (Unscheduled to Cancelled).
const numStates = 8

// typeIndex gives every op of g the index of its type among the run's
// types, by ops.Label, cut to maxTypeLen; past MaxOpTypes types the rest
// share OtherOpType.
func (r *Run) typeIndex() {
	idx := make(map[string]uint8)
	r.typeOf = make([]uint8, len(r.g.Nodes))
	// A fused kernel's label is its nodes' types: looked up by them in a
	// reused buffer (no string is made per op; a graph may hold millions
	// of kernels of a few kinds), built once per kind.
	fusedLabels := make(map[string]string)
	var key []byte
	// Fusion gives identical kernels one op (their Nodes are one array):
	// a run of them, a graph of a million such kernels, takes the last
	// one's index without rebuilding its key.
	var lastFused *ops.FusedNode
	var lastLen int
	var lastK uint8
	for i, nd := range r.g.Nodes {
		op := nd.Op
		for {
			w, ok := op.(ops.Wrapper) // the cluster's pre-encoded ops
			if !ok {
				break
			}
			op = w.Unwrap()
		}
		f, fused := op.(ops.Fused)
		if fused && len(f.Nodes) > 0 && &f.Nodes[0] == lastFused && len(f.Nodes) == lastLen {
			r.typeOf[i] = lastK
			continue
		}
		if !r.placed {
			r.placed = isPlaced(nd.Op)
		}
		t := op.Type()
		if fused {
			key = key[:0]
			for _, n := range f.Nodes {
				key = append(append(key, n.Op.Type()...), ',')
			}
			if l, ok := fusedLabels[string(key)]; ok {
				t = l
			} else {
				t = cutLabel(ops.Label(op))
				fusedLabels[string(key)] = t
			}
		} else if _, ok := op.(ops.Labeler); ok {
			t = cutLabel(ops.Label(op))
		}
		k, ok := idx[t]
		if !ok {
			if len(r.types) >= MaxOpTypes-1 {
				t = OtherOpType
				k, ok = idx[t]
			}
			if !ok {
				k = uint8(len(r.types))
				idx[t] = k
				r.types = append(r.types, t)
			}
		}
		r.typeOf[i] = k
		if fused && len(f.Nodes) > 0 {
			lastFused, lastLen, lastK = &f.Nodes[0], len(f.Nodes), k
		}
	}
	r.typeCounts = make([][numStates]atomic.Int64, len(r.types))
	r.typeDelta = make([][numStates]int64, len(r.types))
	counts := make([]int64, len(r.types))
	for _, k := range r.typeOf {
		counts[k]++
	}
	for k, n := range counts {
		r.typeCounts[k][Unscheduled].Store(n)
	}
}

// TypeCounts returns the ops of each type per state, types in order of
// first appearance in the graph. It reads counters the event loop keeps, so
// it never waits for a busy loop (as Counts, a state change may be seen
// half done: an op counted in neither state for an instant).
func (r *Run) TypeCounts() []TypeCount {
	out := make([]TypeCount, len(r.types))
	for k, t := range r.types {
		out[k].Type = t
		for st := range numStates {
			out[k].Counts[st] = r.typeCounts[k][st].Load()
		}
	}
	return out
}

// OpType is the type the dashboard files op i under (see TypeCounts).
func (r *Run) OpType(i int) string { return r.types[r.typeOf[i]] }

// OpInfo is one op of a run as the dashboard shows it.
type OpInfo struct {
	Node    int32
	Type    string
	State   State
	Worker  int // the worker it was last sent to, or -1
	Holder  int // the worker holding its output, or -1
	Attempt int
	Nbytes  int64 // of its output, once finished
	Inputs  []int32
	// Started and Ended are when the scheduler heard the op took a slot
	// and that it ended (zero: not yet). They include the worker's report
	// batching (at most a millisecond).
	Started, Ended time.Time
}

// Ops describes the given ops (nodes), or, with nodes nil, the ops of type
// typ (all ops when typ is ""), at most MaxOpInfos of them, in graph order.
func (r *Run) Ops(nodes []int32, typ string) ([]OpInfo, error) {
	var out []OpInfo
	var bad error
	err := r.s.do(func(c *core) {
		add := func(i int32) {
			nd := &r.g.Nodes[i]
			in := make([]int32, len(nd.Inputs))
			for j, x := range nd.Inputs {
				in[j] = int32(x)
			}
			oi := OpInfo{Node: i, Type: r.OpType(int(i)), State: r.state[i], Worker: int(r.worker[i]), Holder: int(r.location[i]),
				Attempt: int(r.attempt[i]), Nbytes: r.nbytes[i], Inputs: in}
			if t := r.startNs[i]; t != 0 {
				oi.Started = time.Unix(0, t)
			}
			if t := r.endNs[i]; t != 0 {
				oi.Ended = time.Unix(0, t)
			}
			out = append(out, oi)
		}
		if nodes != nil {
			for _, i := range nodes {
				if i < 0 || int(i) >= len(r.state) {
					bad = fmt.Errorf("scheduler: graph %d has no chunk op %d (it has %d)", r.id, i, len(r.state))
					return
				}
				if len(out) < MaxOpInfos {
					add(i)
				}
			}
			return
		}
		for i := range r.state {
			if len(out) == MaxOpInfos {
				break
			}
			if typ == "" || r.OpType(i) == typ {
				add(int32(i))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, bad
}

// States copies every op's state; the dashboard asks it of graphs small
// enough to draw op by op.
func (r *Run) States() ([]State, error) {
	var out []State
	err := r.s.do(func(c *core) {
		out = append([]State(nil), r.state...)
	})
	return out, err
}

// TaskEvent is one task on a worker, for the dashboard's task stream.
type TaskEvent struct {
	Graph   protocol.GraphID
	Node    int32
	Type    string
	Worker  int
	Started time.Time // zero: it ended without the scheduler hearing it start
	Ended   time.Time // zero: still running
	Outcome protocol.Outcome
}

// taskRing is a worker's last TaskRing ended tasks.
type taskRing struct {
	ev   []endedTask
	next int
}

// endedTask is a TaskEvent as the ring keeps it: times as Unix
// nanoseconds (0: unknown), made into a TaskEvent only when the dashboard
// asks. The ring takes one per task, millions per graph.
type endedTask struct {
	graph          protocol.GraphID
	node           int32
	outcome        protocol.Outcome
	worker         int
	typ            string
	startNs, endNs int64
}

func (t *taskRing) add(e endedTask) {
	if len(t.ev) < TaskRing {
		t.ev = append(t.ev, e)
		return
	}
	t.ev[t.next] = e
	t.next = (t.next + 1) % TaskRing
}

// events appends the ring's tasks to out, oldest first.
func (t *taskRing) events(out []TaskEvent) []TaskEvent {
	for _, part := range [][]endedTask{t.ev[t.next:], t.ev[:t.next]} {
		for _, e := range part {
			ev := TaskEvent{Graph: e.graph, Node: e.node, Type: e.typ, Worker: e.worker, Outcome: e.outcome}
			if e.startNs != 0 {
				ev.Started = time.Unix(0, e.startNs)
			}
			if e.endNs != 0 {
				ev.Ended = time.Unix(0, e.endNs)
			}
			out = append(out, ev)
		}
	}
	return out
}

// TaskActivity is what the dashboard shows of one worker's tasks.
type TaskActivity struct {
	Recent  []TaskEvent // ended, oldest first, at most TaskRing
	Running []TaskEvent // started and not ended, at most MaxOpInfos
	Queued  int         // sent and not started
}

// Tasks returns worker w's recent and running tasks.
func (s *Scheduler) Tasks(w int) (TaskActivity, error) {
	var out TaskActivity
	var bad error
	err := s.do(func(c *core) {
		if w < 0 || w >= len(c.slots) {
			bad = fmt.Errorf("scheduler: no worker %d (there are %d)", w, len(c.slots))
			return
		}
		if w < len(c.tasks) {
			out.Recent = c.tasks[w].events(out.Recent)
		}
		for _, r := range c.sortedRuns() {
			for i, open := range r.open {
				if !open || int(r.worker[i]) != w {
					continue
				}
				if r.state[i] != Running {
					out.Queued++
					continue
				}
				if len(out.Running) < MaxOpInfos {
					out.Running = append(out.Running, TaskEvent{Graph: r.id, Node: int32(i), Type: r.OpType(i), Worker: w,
						Started: time.Unix(0, r.startNs[i])})
				}
			}
		}
	})
	if err != nil {
		return out, err
	}
	return out, bad
}

// OpsDone is the number of chunk ops that have succeeded since the
// scheduler started, over all graphs: the dashboard's ops per second.
func (s *Scheduler) OpsDone() int64 { return s.opsDone.Load() }

// taskStarted notes when op i of r took a slot.
func (c *core) taskStarted(r *Run, i int32) {
	r.startNs[i] = c.now().UnixNano()
}

// taskEnded notes when op i of r ended on worker w, in the run and in the
// worker's ring. A task whose start was not reported (a small one) started
// the time it says it ran before now.
func (c *core) taskEnded(r *Run, i int32, w int, res *protocol.Result) {
	now := c.arrivedNs
	if now == 0 {
		now = c.now().UnixNano()
	}
	out := res.Outcome
	r.endNs[i] = now
	if r.startNs[i] == 0 && res.Elapsed > 0 {
		r.startNs[i] = now - int64(res.Elapsed)
	}
	for len(c.tasks) <= w {
		c.tasks = append(c.tasks, taskRing{})
	}
	c.tasks[w].add(endedTask{graph: r.id, node: i, typ: r.OpType(int(i)), worker: w, endNs: now, startNs: r.startNs[i], outcome: out})
	if out == protocol.Succeeded {
		r.doneDelta++
		r.touched()
	}
}
