package cluster

import (
	"context"
	"log/slog"
	"sync"

	"github.com/phobos-tensor/phobos/protocol"
)

// runNames names the runs in progress for the scheduler's log: the
// scheduler package knows a run by its numeric id only, the cluster's
// lines carry the session and graph ids too.
type runNames struct{ m sync.Map } // protocol.GraphID -> *graphRec

func (n *runNames) add(id protocol.GraphID, g *graphRec) { n.m.Store(id, g) }
func (n *runNames) remove(id protocol.GraphID)           { n.m.Delete(id) }

// runHandler is the scheduler package's log handler. Its lines name a run
// as "graph", the scheduler's numeric id; here that attribute becomes
// "run", as every role calls it (the chunk keys of workers' lines carry
// it too), and the run's session and REST graph id are added, so one
// graph's lines can be found in every process's log.
type runHandler struct {
	slog.Handler
	names *runNames
}

func (h runHandler) Handle(ctx context.Context, r slog.Record) error {
	renamed := false
	r2 := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "graph" {
			if id, ok := graphID(a.Value); ok {
				renamed = true
				r2.AddAttrs(slog.Uint64("run", uint64(id)))
				if g, ok := h.names.m.Load(id); ok {
					r2.AddAttrs(slog.String("session", g.(*graphRec).sid), slog.String("graph", g.(*graphRec).id))
				}
				return true
			}
		}
		r2.AddAttrs(a)
		return true
	})
	if !renamed {
		return h.Handler.Handle(ctx, r)
	}
	return h.Handler.Handle(ctx, r2)
}

func (h runHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return runHandler{h.Handler.WithAttrs(attrs), h.names}
}

func (h runHandler) WithGroup(name string) slog.Handler {
	return runHandler{h.Handler.WithGroup(name), h.names}
}

// graphID is a "graph" attribute's run id, if it is one.
func graphID(v slog.Value) (protocol.GraphID, bool) {
	switch v.Kind() {
	case slog.KindUint64:
		return protocol.GraphID(v.Uint64()), true
	case slog.KindAny:
		id, ok := v.Any().(protocol.GraphID)
		return id, ok
	}
	return 0, false
}
