package web

import (
	"context"
	"net/http"
	"sort"

	"connectrpc.com/connect"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// RingMember is one scheduler of a ring of schedulers, as the web service
// reaches it.
type RingMember struct {
	ID      string
	Address string
	PID     int
	Graphs  phobosv1connect.GraphServiceClient
}

type sessionKey struct{}

// WithSession tags a request's context with the session its path names,
// so a router under Config.Graphs and Config.Scheduler can send calls
// that carry no session id (ListWorkers, for an upload) to the
// session's scheduler.
func WithSession(ctx context.Context, sid string) context.Context {
	return context.WithValue(ctx, sessionKey{}, sid)
}

// SessionOf is the session WithSession tagged ctx with ("" if none).
func SessionOf(ctx context.Context) string {
	sid, _ := ctx.Value(sessionKey{}).(string)
	return sid
}

// members are the schedulers to ask for cluster-wide listings: the ring's,
// or the one scheduler.
func (s *Server) members() []RingMember {
	if s.cfg.Ring != nil {
		return s.cfg.Ring()
	}
	return []RingMember{{Graphs: s.cfg.Graphs}}
}

// SchedulerJSON names a scheduler in the REST API.
type SchedulerJSON struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	PID     int    `json:"pid"`
}

// SessionJSON is an open session in GET /api/sessions.
type SessionJSON struct {
	SessionID string        `json:"session_id"`
	Graphs    int           `json:"graphs"`
	Running   int           `json:"running"`
	IdleMs    int64         `json:"idle_ms"`
	Scheduler SchedulerJSON `json:"scheduler"`
}

func schedulerJSON(si *pb.SchedulerInfo, m RingMember) SchedulerJSON {
	out := SchedulerJSON{ID: m.ID, Address: m.Address, PID: m.PID}
	if si != nil {
		out = SchedulerJSON{ID: si.Id, Address: si.Address, PID: int(si.Pid)}
	}
	return out
}

// getSessions lists every open session with the scheduler that holds it;
// schedulers that do not answer are listed under "unreachable".
func (s *Server) getSessions(w http.ResponseWriter, r *http.Request) error {
	out := struct {
		Sessions    []SessionJSON     `json:"sessions"`
		Unreachable map[string]string `json:"unreachable,omitempty"`
	}{Sessions: []SessionJSON{}}
	members := s.members()
	for _, m := range members {
		resp, err := m.Graphs.ListSessions(r.Context(), connect.NewRequest(&pb.ListSessionsRequest{}))
		if err != nil {
			if len(members) == 1 {
				return err
			}
			if out.Unreachable == nil {
				out.Unreachable = map[string]string{}
			}
			out.Unreachable[m.ID] = err.Error()
			continue
		}
		owner := schedulerJSON(resp.Msg.Scheduler, m)
		for _, ss := range resp.Msg.Sessions {
			out.Sessions = append(out.Sessions, SessionJSON{SessionID: ss.SessionId, Graphs: int(ss.Graphs), Running: int(ss.Running), IdleMs: ss.IdleMs, Scheduler: owner})
		}
	}
	sort.Slice(out.Sessions, func(i, j int) bool { return out.Sessions[i].SessionID < out.Sessions[j].SessionID })
	writeJSON(w, http.StatusOK, out)
	return nil
}

// SchedulerStateJSON is a scheduler in GET /api/schedulers.
type SchedulerStateJSON struct {
	SchedulerJSON
	// State is "serving", "not serving: <why>" (no live lease in etcd:
	// it takes no graphs) or "unreachable: <error>".
	State       string `json:"state"`
	RingMembers int    `json:"ring_members"`
	LiveWorkers int    `json:"live_workers"`
	Sessions    int    `json:"sessions"`
	Graphs      int    `json:"graphs"`
}

func (s *Server) getSchedulers(w http.ResponseWriter, r *http.Request) error {
	out := struct {
		Schedulers []SchedulerStateJSON `json:"schedulers"`
	}{Schedulers: s.schedulerStates(r.Context())}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// schedulerStates lists the schedulers by id, each with its state and
// counts; one that does not answer is listed as unreachable.
func (s *Server) schedulerStates(ctx context.Context) []SchedulerStateJSON {
	out := []SchedulerStateJSON{}
	for _, m := range s.members() {
		if m.Graphs == nil {
			continue // a dashboard over a Source alone: no scheduler to ask
		}
		st := SchedulerStateJSON{SchedulerJSON: SchedulerJSON{ID: m.ID, Address: m.Address, PID: m.PID}}
		resp, err := m.Graphs.Status(ctx, connect.NewRequest(&pb.StatusRequest{}))
		if err != nil {
			st.State = "unreachable: " + err.Error()
		} else {
			msg := resp.Msg
			st.LiveWorkers, st.Sessions, st.Graphs = int(msg.LiveWorkers), int(msg.Sessions), int(msg.Graphs)
			if si := msg.Scheduler; si != nil {
				st.SchedulerJSON = schedulerJSON(si, m)
				st.State, st.RingMembers = si.State, int(si.RingMembers)
			}
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
