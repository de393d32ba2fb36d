package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/web"
)

// Live updates: each dashboard page opens one server-sent event stream
// (GET /api/events?view=...). Streams of the same view share one sampler,
// which asks the scheduler at a fixed rate (EventInterval) whatever the
// number of browsers, so a room of open dashboards costs the scheduler
// what one does. A sampler runs only while someone watches.

// EventInterval is how often a view is sampled and sent.
const EventInterval = 500 * time.Millisecond

// Bounds on what browsers can make the web service hold.
const (
	maxViews       = 64  // distinct views sampled at once
	maxSubscribers = 256 // event streams open at once
	historyLen     = 600 // samples kept, one a second at most: ten minutes
)

// Sample is the cluster's figures at one time, for the plots.
type Sample struct {
	TimeMs    int64          `json:"t"`
	OpsPerSec float64        `json:"ops_per_s"`
	Workers   []WorkerSample `json:"workers"`
}

// WorkerSample is one worker's figures in a Sample.
type WorkerSample struct {
	ID           int   `json:"id"`
	Running      int   `json:"running"`
	Queued       int   `json:"queued"`
	StoreBytes   int64 `json:"store_bytes"`
	DiskBytes    int64 `json:"disk_bytes"`
	SpilledBytes int64 `json:"spilled_bytes"`
	LoadedBytes  int64 `json:"loaded_bytes"`
}

// hub holds the samplers of the views being watched and the history of
// samples.
type hub struct {
	s *Dashboard

	mu    sync.Mutex
	views map[string]*view
	subs  int
	hist  []Sample // ring, oldest at histAt once full
	at    int
	// the last ops_done reading, for the rate
	lastOps  int64
	lastTime time.Time
	rate     float64

	closed    chan struct{} // closed by CloseStreams
	closeOnce sync.Once
}

// view is one sampled view and the streams watching it.
type view struct {
	subs map[chan []byte]struct{}
	stop chan struct{}
}

func newHub(s *Dashboard) *hub {
	return &hub{s: s, views: map[string]*view{}, closed: make(chan struct{})}
}

// CloseStreams ends the dashboard's event streams, so a server shutting
// down need not wait for browsers that would keep them open for ever.
func (s *Dashboard) CloseStreams() { s.events.closeOnce.Do(func() { close(s.events.closed) }) }

// cluster reads the cluster's figures and records a sample.
func (h *hub) cluster(ctx context.Context) (ClusterJSON, error) {
	ws, err := h.s.src.ListWorkers(ctx)
	if err != nil {
		return ClusterJSON{}, err
	}
	ov, err := h.s.src.Overview(ctx)
	if err != nil {
		return ClusterJSON{}, err
	}
	now := time.Now()
	c := ClusterJSON{TimeMs: now.UnixMilli(), Workers: []DashWorkerJSON{}, OpsDone: ov.OpsDone, Graphs: []GraphSummaryJSON{}, GraphsTotal: int(ov.GraphsTotal)}
	for _, wi := range ws.Workers {
		c.Workers = append(c.Workers, dashWorker(wi))
	}
	for _, g := range ov.Graphs {
		c.Graphs = append(c.Graphs, GraphSummaryJSON{GraphJSON: web.GraphOf(g.Status), Types: typeCountsJSON(g.Types)})
	}
	c.OpsPerSec = h.record(now, c)
	return c, nil
}

// record notes a sample, at most one a second, and returns the ops rate.
func (h *hub) record(now time.Time, c ClusterJSON) float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.lastTime.IsZero() && now.Sub(h.lastTime) < time.Second {
		return h.rate
	}
	if !h.lastTime.IsZero() {
		h.rate = max(0, float64(c.OpsDone-h.lastOps)/now.Sub(h.lastTime).Seconds())
	}
	h.lastOps, h.lastTime = c.OpsDone, now
	smp := Sample{TimeMs: c.TimeMs, OpsPerSec: h.rate}
	for _, w := range c.Workers {
		smp.Workers = append(smp.Workers, WorkerSample{ID: w.ID, Running: w.Running, Queued: w.Queued, StoreBytes: w.StoreBytes,
			DiskBytes: w.DiskBytes, SpilledBytes: w.SpilledBytes, LoadedBytes: w.LoadedBytes})
	}
	if len(h.hist) < historyLen {
		h.hist = append(h.hist, smp)
	} else {
		h.hist[h.at] = smp
		h.at = (h.at + 1) % historyLen
	}
	return h.rate
}

// history returns the samples oldest first, each with worker id's figures
// only (id < 0: every worker's).
func (h *hub) history(id int) []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Concat(h.hist[h.at:], h.hist[:h.at])
	if id < 0 {
		return out
	}
	for i, smp := range out {
		var one []WorkerSample
		for _, w := range smp.Workers {
			if w.ID == id {
				one = append(one, w)
			}
		}
		out[i].Workers = one
	}
	return out
}

// worker reads one worker's figures and tasks.
func (h *hub) worker(ctx context.Context, id int) (WorkerViewJSON, error) {
	c, err := h.cluster(ctx)
	if err != nil {
		return WorkerViewJSON{}, err
	}
	i := slices.IndexFunc(c.Workers, func(w DashWorkerJSON) bool { return w.ID == id })
	if i < 0 {
		return WorkerViewJSON{}, web.Error(http.StatusNotFound, fmt.Sprintf("no worker %d (there are %d)", id, len(c.Workers)))
	}
	t, err := h.s.src.WorkerTasks(ctx, &pb.WorkerTasksRequest{Worker: int32(id)})
	if err != nil {
		return WorkerViewJSON{}, err
	}
	return WorkerViewJSON{TimeMs: c.TimeMs, Worker: c.Workers[i], Recent: tasksJSON(t.Recent), Running: tasksJSON(t.Running), Queued: int(t.Queued)}, nil
}

// viewOf parses a stream's view: the key naming it and how to read it.
func (h *hub) viewOf(r *http.Request) (string, func(context.Context, bool) (any, error), error) {
	q := r.URL.Query()
	// history=0: a stream that draws no plots (#/follow watching for a
	// graph) need not have the history sent and parsed.
	withHistory := q.Get("history") != "0"
	switch v := q.Get("view"); v {
	case "cluster":
		return v, func(ctx context.Context, first bool) (any, error) {
			c, err := h.cluster(ctx)
			if first && withHistory {
				c.History = h.history(-1)
			}
			if err == nil {
				c.Schedulers = h.s.schedulerStates(ctx)
			}
			return c, err
		}, nil
	case "worker":
		id, err := workerID(r)
		if err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("worker/%d", id), func(ctx context.Context, first bool) (any, error) {
			w, err := h.worker(ctx, id)
			if first && withHistory {
				w.History = h.history(id)
			}
			return w, err
		}, nil
	case "graph":
		sid, gid := q.Get("session"), q.Get("graph")
		for _, id := range []string{sid, gid} {
			if !validID(id) {
				return "", nil, web.BadRequest(fmt.Errorf("view=graph: session and graph must be ids (letters, digits, '-' and '_'), not %q", id))
			}
		}
		return "graph/" + sid + "/" + gid, func(ctx context.Context, _ bool) (any, error) {
			return h.s.graphDetail(ctx, sid, gid)
		}, nil
	default:
		return "", nil, web.BadRequest(fmt.Errorf("view=%q: want cluster, worker (&worker=ID) or graph (&session=SID&graph=GID)", v))
	}
}

// validID is checkIDs' rule for one id.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

var errTooManyStreams = web.Error(http.StatusServiceUnavailable, fmt.Sprintf("too many dashboard streams open (at most %d, over %d views)", maxSubscribers, maxViews))

// subscribe adds a stream to view key, starting its sampler if it is the
// first.
func (h *hub) subscribe(key string, read func(context.Context, bool) (any, error)) (chan []byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.views[key]
	if h.subs >= maxSubscribers || (v == nil && len(h.views) >= maxViews) {
		return nil, errTooManyStreams
	}
	if v == nil {
		v = &view{subs: map[chan []byte]struct{}{}, stop: make(chan struct{})}
		h.views[key] = v
		go h.sample(v, read)
	}
	ch := make(chan []byte, 1)
	v.subs[ch] = struct{}{}
	h.subs++
	return ch, nil
}

func (h *hub) unsubscribe(key string, ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.views[key]
	if v == nil {
		return
	}
	delete(v.subs, ch)
	h.subs--
	if len(v.subs) == 0 {
		close(v.stop)
		delete(h.views, key)
	}
}

// sample reads a view every EventInterval and hands the event to its
// streams; a stream that has not taken the last one gets the newest
// instead.
func (h *hub) sample(v *view, read func(context.Context, bool) (any, error)) {
	tick := time.NewTicker(EventInterval)
	defer tick.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*EventInterval)
		ev := h.event(read(ctx, false))
		cancel()
		h.mu.Lock()
		for ch := range v.subs {
			select {
			case <-ch:
			default:
			}
			ch <- ev
		}
		h.mu.Unlock()
	}
}

// event frames a view's data (or its error) as a server-sent event.
func (h *hub) event(data any, err error) []byte {
	name := "update"
	if err != nil {
		code, msg := web.StatusOf(err, http.StatusBadGateway)
		name, data = "failure", map[string]any{"error": msg, "status": code}
	}
	b, merr := json.Marshal(data)
	if merr != nil {
		b = []byte(`{"error":"encoding the event failed"}`)
	}
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, b)
}

// serveEvents is GET /api/events: a page's stream. The first event comes
// at once (with the history of the plots); then one each EventInterval.
func (s *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) error {
	key, read, err := s.events.viewOf(r)
	if err != nil {
		return err
	}
	first := s.events.event(read(r.Context(), true))
	ch, err := s.events.subscribe(key, read)
	if err != nil {
		return err
	}
	defer s.events.unsubscribe(key, ch)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	ev := first
	for {
		if _, err := w.Write(ev); err != nil {
			return nil // the browser went away
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-s.events.closed:
			return nil
		case ev = <-ch:
		}
	}
}
