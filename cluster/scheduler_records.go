package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/graph"
)

// recordGraph writes a new graph's record; the submission is refused
// when it cannot be written.
func (p *SchedulerProc) recordGraph(ctx context.Context, g *graphRec, tg *graph.TileableGraph, results []int, noFuse bool) error {
	if p.ring == nil {
		return nil
	}
	tj, lits, kept, err := ha.TileableRecord(tg)
	if err != nil {
		return fmt.Errorf("encoding the graph's record: %w", err)
	}
	rec := ha.GraphRecord{Session: g.sid, Graph: g.id, Scheduler: p.ringID(), State: StatePreparing, Tileable: tj, StrippedLiterals: lits,
		Results: results, NoFuse: noFuse, Submitted: g.submitted}
	if len(kept) > 0 {
		// The literals go first, in the order queued: a record that names
		// them is never in etcd without them.
		rec.RecordedLiterals = slices.Sorted(maps.Keys(kept))
		puts := make([]ha.RecordOp, 0, len(kept))
		for _, i := range rec.RecordedLiterals {
			puts = append(puts, ha.PutOp(ha.LiteralKey(g.sid, g.id, i), string(kept[i])))
		}
		if err := p.ring.records.PutAll(ctx, puts); err != nil {
			// An etcd with a smaller request limit than its default
			// refuses large arrays: the graph still runs, and only its
			// takeover would fail, saying why. An etcd that is down
			// fails the record's own write below.
			p.log.Warn("client arrays of a graph not kept in etcd; the graph cannot be taken over by another scheduler", "session", g.sid, "graph", g.id, "err", err)
			rec.RecordedLiterals = nil
		}
	}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	g.record = &rec
	g.mu.Unlock()
	return p.ring.records.Put(ctx, ha.GraphKey(g.sid, g.id), rec, true)
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
	if g.run != nil {
		rec.Run = uint64(g.run.ID())
	}
	if g.err != nil {
		rec.Error = g.err.Error()
	}
	g.record = &rec
	g.mu.Unlock()
	if err := p.ring.records.Put(context.Background(), ha.GraphKey(g.sid, g.id), rec, false); err != nil {
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
	p.ring.records.Del(ha.GraphKey(g.sid, g.id), false)
	p.ring.records.Del(ha.LiteralsPrefix+g.sid+"/"+g.id+"/", true)
}

// recordSession writes a new session's record.
func (p *SchedulerProc) recordSession(ctx context.Context, ss *session) error {
	if p.ring == nil {
		return nil
	}
	return p.ring.records.Put(ctx, ha.SessionsPrefix+ss.id, ha.SessionRecord{Session: ss.id, Scheduler: p.ringID(), Created: ss.created, Fence: ss.fence.Token}, true)
}

// dropSessionRecord deletes a closed session's record and its graphs'.
func (p *SchedulerProc) dropSessionRecord(sid string) {
	if p.ring == nil {
		return
	}
	p.ring.records.Del(ha.SessionsPrefix+sid, false)
	p.ring.records.Del(ha.GraphsPrefix+sid+"/", true)
	p.ring.records.Del(ha.LiteralsPrefix+sid+"/", true)
}
