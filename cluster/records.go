package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// GraphRecord is what etcd keeps of a graph submitted to a scheduler of a
// ring, at graphsPrefix + session + "/" + graph: enough for the scheduler
// the ring moves the session to (failover) to find the graph, read it
// again and rebuild its state from the chunks the workers hold. The owner
// writes it before it acknowledges the submission and rewrites it at
// each state change (PREPARING, RUNNING, the end), never per chunk op.
type GraphRecord struct {
	Session   string `json:"session"`
	Graph     string `json:"graph"`
	Scheduler string `json:"scheduler"` // the owner's ring id
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
	// Tileable is the graph's versioned JSON (graph.EncodeTileable)
	// without client arrays: a literal's data is left out (its chunks
	// live on the workers that hold them; uploads are named by worker
	// already), listed in StrippedLiterals.
	Tileable         json.RawMessage `json:"tileable"`
	StrippedLiterals []int           `json:"stripped_literals,omitempty"`
	Results          []int           `json:"results"`
	NoFuse           bool            `json:"no_fuse,omitempty"`
	Submitted        time.Time       `json:"submitted"`
}

// SessionRecord is a session of a ring in etcd, at sessionsPrefix + id.
type SessionRecord struct {
	Session   string    `json:"session"`
	Scheduler string    `json:"scheduler"`
	Created   time.Time `json:"created"`
}

func graphKey(sid, gid string) string { return graphsPrefix + sid + "/" + gid }

// recordTimeout bounds one record write: a scheduler that cannot write
// within it refuses the submission rather than acknowledge what it did
// not record.
const recordTimeout = 3 * time.Second

// tileableRecord is tg's JSON with client arrays left out.
func tileableRecord(tg *graph.TileableGraph) (json.RawMessage, []int, error) {
	stripped := &graph.TileableGraph{Nodes: slices.Clone(tg.Nodes)}
	var lits []int
	for i, nd := range stripped.Nodes {
		if lit, ok := nd.Op.(ops.Literal); ok && lit.Data != nil {
			lit.Data = nil
			stripped.Nodes[i].Op = lit
			lits = append(lits, i)
		}
	}
	b, err := graph.EncodeTileable(stripped)
	return b, lits, err
}

// putRecord writes v as JSON at key.
func putRecord(ctx context.Context, cli *clientv3.Client, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	if _, err := cli.Put(ctx, key, string(b)); err != nil {
		return fmt.Errorf("writing %s to etcd: %w", key, err)
	}
	return nil
}

// recordGraph writes a new graph's record; the submission is refused
// when it cannot be written.
func (p *SchedulerProc) recordGraph(ctx context.Context, g *graphRec, tg *graph.TileableGraph, results []int, noFuse bool) error {
	if p.ring == nil {
		return nil
	}
	tj, lits, err := tileableRecord(tg)
	if err != nil {
		return fmt.Errorf("encoding the graph's record: %w", err)
	}
	rec := GraphRecord{Session: g.sid, Graph: g.id, Scheduler: p.ringID(), State: StatePreparing, Tileable: tj, StrippedLiterals: lits,
		Results: results, NoFuse: noFuse, Submitted: g.submitted}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	g.record = &rec
	g.mu.Unlock()
	return putRecord(ctx, p.ring.cli, graphKey(g.sid, g.id), rec)
}

// recordState rewrites a graph's record with its new state. It is best
// effort (the graph goes on; the scheduler logs what it could not write):
// a record one state behind is repaired by the next, and failover reads
// the workers' chunks, not the state, to know what is done.
func (p *SchedulerProc) recordState(g *graphRec) {
	if p.ring == nil {
		return
	}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	if g.record == nil || g.record.State == g.state {
		g.mu.Unlock()
		return
	}
	rec := *g.record
	rec.State = g.state
	if g.err != nil {
		rec.Error = g.err.Error()
	}
	g.record = &rec
	g.mu.Unlock()
	if err := putRecord(context.Background(), p.ring.cli, graphKey(g.sid, g.id), rec); err != nil {
		p.log.Warn("graph record not updated", "session", g.sid, "graph", g.id, "state", rec.State, "err", err)
	}
}

// dropGraphRecord deletes the record of a graph whose record went.
func (p *SchedulerProc) dropGraphRecord(g *graphRec) {
	if p.ring == nil {
		return
	}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	g.record = nil
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if _, err := p.ring.cli.Delete(ctx, graphKey(g.sid, g.id)); err != nil {
		p.log.Warn("graph record not deleted", "session", g.sid, "graph", g.id, "err", err)
	}
}

// recordSession writes a new session's record.
func (p *SchedulerProc) recordSession(ctx context.Context, ss *session) error {
	if p.ring == nil {
		return nil
	}
	return putRecord(ctx, p.ring.cli, sessionsPrefix+ss.id, SessionRecord{Session: ss.id, Scheduler: p.ringID(), Created: ss.created})
}

// dropSessionRecord deletes a closed session's record and its graphs'.
func (p *SchedulerProc) dropSessionRecord(sid string) {
	if p.ring == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if _, err := p.ring.cli.Txn(ctx).Then(
		clientv3.OpDelete(sessionsPrefix+sid),
		clientv3.OpDelete(graphsPrefix+sid+"/", clientv3.WithPrefix()),
	).Commit(); err != nil {
		p.log.Warn("session record not deleted", "session", sid, "err", err)
	}
}
