package dashboard

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/web"
)

//go:embed pages
var dashboardFiles embed.FS

// assets are the dashboard's files under their URL paths.
var assets = func() fs.FS {
	sub, err := fs.Sub(dashboardFiles, "pages")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return sub
}()

// Source is where the dashboard reads: what the scheduler knows. Errors
// are connect errors where a status matters (not found, invalid).
type Source interface {
	ListWorkers(ctx context.Context) (*pb.ListWorkersResponse, error)
	Overview(ctx context.Context) (*pb.OverviewResponse, error)
	GraphDetail(ctx context.Context, req *pb.GraphDetailRequest) (*pb.GraphDetailResponse, error)
	GraphOps(ctx context.Context, req *pb.GraphOpsRequest) (*pb.GraphOpsResponse, error)
	WorkerTasks(ctx context.Context, req *pb.WorkerTasksRequest) (*pb.WorkerTasksResponse, error)
	CancelGraph(ctx context.Context, req *pb.CancelGraphRequest) (*pb.GraphStatus, error)
}

// clientSource reads the scheduler's services over the network.
type clientSource struct {
	sched phobosv1connect.SchedulerServiceClient
	dash  phobosv1connect.DashboardServiceClient
	graph phobosv1connect.GraphServiceClient
}

func unwrap[T any](resp *connect.Response[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

func (c clientSource) ListWorkers(ctx context.Context) (*pb.ListWorkersResponse, error) {
	return unwrap(c.sched.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{})))
}

func (c clientSource) Overview(ctx context.Context) (*pb.OverviewResponse, error) {
	if c.dash == nil {
		return nil, errNoDashboard
	}
	return unwrap(c.dash.Overview(ctx, connect.NewRequest(&pb.OverviewRequest{})))
}

func (c clientSource) GraphDetail(ctx context.Context, req *pb.GraphDetailRequest) (*pb.GraphDetailResponse, error) {
	if c.dash == nil {
		return nil, errNoDashboard
	}
	return unwrap(c.dash.GraphDetail(ctx, connect.NewRequest(req)))
}

func (c clientSource) GraphOps(ctx context.Context, req *pb.GraphOpsRequest) (*pb.GraphOpsResponse, error) {
	if c.dash == nil {
		return nil, errNoDashboard
	}
	return unwrap(c.dash.GraphOps(ctx, connect.NewRequest(req)))
}

func (c clientSource) WorkerTasks(ctx context.Context, req *pb.WorkerTasksRequest) (*pb.WorkerTasksResponse, error) {
	if c.dash == nil {
		return nil, errNoDashboard
	}
	return unwrap(c.dash.WorkerTasks(ctx, connect.NewRequest(req)))
}

func (c clientSource) CancelGraph(ctx context.Context, req *pb.CancelGraphRequest) (*pb.GraphStatus, error) {
	return unwrap(c.graph.CancelGraph(ctx, connect.NewRequest(req)))
}

var errNoDashboard = web.Error(http.StatusServiceUnavailable, "this web service was started without the scheduler's dashboard service")

// ClientSource reads the scheduler's services over the network (the web
// role's source; on a ring, services that route to the ring's members).
// dash may be nil: the pages then say the scheduler has no dashboard.
func ClientSource(sched phobosv1connect.SchedulerServiceClient, dash phobosv1connect.DashboardServiceClient, graphs phobosv1connect.GraphServiceClient) Source {
	return clientSource{sched: sched, dash: dash, graph: graphs}
}

// SchedulerLister is what a Source without scheduler services (a local
// session's) implements to list its scheduler.
type SchedulerLister interface {
	Schedulers(ctx context.Context) []web.SchedulerStateJSON
}

// Dashboard serves the pages, their data and the event streams over a
// Source.
type Dashboard struct {
	src        Source
	log        *slog.Logger
	events     *hub
	schedulers func(context.Context) []web.SchedulerStateJSON
}

// New makes a dashboard over src. schedulers lists the schedulers for the
// cluster view (the web service's SchedulerStates) unless src is a
// SchedulerLister; nil lists none.
func New(src Source, schedulers func(context.Context) []web.SchedulerStateJSON, log *slog.Logger) *Dashboard {
	s := &Dashboard{src: src, log: log, schedulers: schedulers}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.events = newHub(s)
	return s
}

// Mux is where the dashboard's routes go: an http.ServeMux, or the REST
// API's (web.Server), beside which the web role serves them.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// NewHandler serves the dashboard alone over src, for a local session:
// the pages, their data, the event streams and the cancel of the REST API.
func NewHandler(src Source, log *slog.Logger) http.Handler {
	s := New(src, nil, log)
	m := http.NewServeMux()
	s.Register(m)
	m.Handle("DELETE /api/sessions/{sid}/graphs/{gid}", s.handle(s.cancelFromSource))
	m.Handle("/", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return web.Error(http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s (this is a local session's dashboard)", r.Method, r.URL.Path))
	}))
	return m
}

// Register adds the dashboard's routes to m.
func (s *Dashboard) Register(m Mux) {
	m.Handle("GET /{$}", assetHandler())
	m.Handle("GET /static/", assetHandler())
	m.Handle("POST /api/login", s.handle(s.login))
	m.Handle("GET /api/dashboard/cluster", s.handle(s.getCluster))
	m.Handle("GET /api/dashboard/workers/{wid}", s.handle(s.getWorkerView))
	m.Handle("GET /api/sessions/{sid}/graphs/{gid}/dag", s.handle(s.getGraphDetail))
	m.Handle("GET /api/sessions/{sid}/graphs/{gid}/ops", s.handle(s.getGraphOps))
	m.Handle("GET /api/events", s.handle(s.serveEvents))
}

// handle serves fn as the REST API serves its handlers.
func (s *Dashboard) handle(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return web.HandleFunc(s.log, fn)
}

// schedulerStates lists the schedulers for the cluster view.
func (s *Dashboard) schedulerStates(ctx context.Context) []web.SchedulerStateJSON {
	if sl, ok := s.src.(SchedulerLister); ok {
		return sl.Schedulers(ctx)
	}
	if s.schedulers == nil {
		return []web.SchedulerStateJSON{}
	}
	return s.schedulers(ctx)
}

// assetHandler serves the embedded pages; / is index.html.
func assetHandler() http.Handler {
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, assets, "index.html")
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimPrefix(r.URL.Path, "/static")
		files.ServeHTTP(w, r2)
	})
}

// login answers a request that passed the token check by setting the
// token cookie the browser sends from then on (rpc.TokenCookie, which
// rpc.RequireTokenOrCookie accepts): the page asks for the token once and
// posts it in the Authorization header. The cookie is HttpOnly (scripts
// cannot read it) and SameSite=Strict (other sites cannot use it).
func (s *Dashboard) login(w http.ResponseWriter, r *http.Request) error {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && tok != "" {
		http.SetCookie(w, &http.Cookie{Name: rpc.TokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	}
	web.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true, "token": ok && tok != ""})
	return nil
}

// DashWorkerJSON is a worker as the dashboard shows it: GET /api/workers'
// figures and the store's limit and spill figures.
type DashWorkerJSON struct {
	web.WorkerJSON
	LimitBytes   int64 `json:"limit_bytes"`
	DiskBytes    int64 `json:"disk_bytes"`
	SpilledBytes int64 `json:"spilled_bytes"`
	LoadedBytes  int64 `json:"loaded_bytes"`
}

func dashWorker(wi *pb.WorkerInfo) DashWorkerJSON {
	wj := DashWorkerJSON{WorkerJSON: web.WorkerJSON{
		ID: int(wi.Id), URL: wi.Url, Slots: int(wi.Slots), MemoryBytes: wi.MemoryBytes, SpillDir: wi.SpillDir,
		Alive: wi.Alive, DeadReason: wi.DeadReason, LastHeartbeat: wi.LastHeartbeatMsAgo, PID: int(wi.Pid),
	}}
	if l := wi.Load; l != nil {
		wj.Running, wj.Queued, wj.StoreBytes, wj.PeakStoreBytes, wj.StoreChunks = int(l.Running), int(l.Queued), l.StoreBytes, l.PeakStoreBytes, int(l.StoreChunks)
		wj.LimitBytes, wj.DiskBytes, wj.SpilledBytes, wj.LoadedBytes = l.LimitBytes, l.DiskBytes, l.SpilledBytes, l.LoadedBytes
	}
	return wj
}

// TypeCountJSON is how many ops of one type are in each state.
type TypeCountJSON struct {
	Type   string           `json:"type"`
	Counts map[string]int64 `json:"counts"`
}

func typeCountsJSON(tcs []*pb.TypeCount) []TypeCountJSON {
	out := []TypeCountJSON{}
	for _, tc := range tcs {
		out = append(out, TypeCountJSON{Type: tc.Type, Counts: statesMap(tc.Counts)})
	}
	return out
}

// statesMap names per-state counts (scheduler state order) by state.
func statesMap(counts []int64) map[string]int64 {
	m := make(map[string]int64, len(counts))
	for i, n := range counts {
		if n != 0 {
			if i < len(protocol.StateNames) {
				m[protocol.StateNames[i]] = n
			}
		}
	}
	return m
}

// GraphSummaryJSON is a graph in the dashboard's list: its REST state and
// its progress by op type.
type GraphSummaryJSON struct {
	web.GraphJSON
	Types []TypeCountJSON `json:"types"`
}

// ClusterJSON is the body of GET /api/dashboard/cluster and the cluster
// page's event.
type ClusterJSON struct {
	TimeMs      int64              `json:"t"`
	Workers     []DashWorkerJSON   `json:"workers"`
	OpsDone     int64              `json:"ops_done"`
	OpsPerSec   float64            `json:"ops_per_s"`
	Graphs      []GraphSummaryJSON `json:"graphs"`
	GraphsTotal int                `json:"graphs_total"`
	// Schedulers: the ring's members, or the one scheduler (cluster view
	// only).
	Schedulers []web.SchedulerStateJSON `json:"schedulers,omitempty"`
	// History holds the samples of the last minutes (events: the first
	// of a stream only).
	History []Sample `json:"history,omitempty"`
}

// DagJSON is a DAG: nodes are ops, or op types when summarised.
type DagJSON struct {
	Nodes      []DagNodeJSON `json:"nodes"`
	Edges      [][3]int64    `json:"edges"` // from, to, count
	Summarised bool          `json:"summarised"`
	Ops        int64         `json:"ops"`
}

// DagNodeJSON is one node of a DagJSON.
type DagNodeJSON struct {
	ID     int32            `json:"id"`
	Type   string           `json:"type"`
	Counts map[string]int64 `json:"counts,omitempty"`
}

func dagJSON(d *pb.Dag) *DagJSON {
	if d == nil {
		return nil
	}
	out := &DagJSON{Nodes: []DagNodeJSON{}, Edges: [][3]int64{}, Summarised: d.Summarised, Ops: d.Ops}
	for _, n := range d.Nodes {
		out.Nodes = append(out.Nodes, DagNodeJSON{ID: n.Id, Type: n.Type, Counts: statesMap(n.Counts)})
	}
	for _, e := range d.Edges {
		out.Edges = append(out.Edges, [3]int64{int64(e.From), int64(e.To), e.Count})
	}
	return out
}

// GraphDetailJSON is the body of GET .../graphs/{gid}/dag and the graph
// page's event.
type GraphDetailJSON struct {
	web.GraphJSON
	Types    []TypeCountJSON `json:"types"`
	Tileable *DagJSON        `json:"tileable"`
	Chunks   *DagJSON        `json:"chunks"`
}

// OpJSON is one chunk op in GET .../graphs/{gid}/ops.
type OpJSON struct {
	Node      int32   `json:"node"`
	Type      string  `json:"type"`
	State     string  `json:"state"`
	Worker    int32   `json:"worker"`
	Holder    int32   `json:"holder"`
	Attempt   int32   `json:"attempt"`
	Nbytes    int64   `json:"nbytes"`
	Inputs    []int32 `json:"inputs"`
	Shape     []int64 `json:"shape"`
	DType     string  `json:"dtype"`
	StartedUs int64   `json:"started_us"`
	EndedUs   int64   `json:"ended_us"`
}

// TaskJSON is one task of a worker's task stream.
type TaskJSON struct {
	SessionID string `json:"session_id,omitempty"`
	GraphID   string `json:"graph_id,omitempty"`
	Node      int32  `json:"node"`
	Type      string `json:"type"`
	StartedUs int64  `json:"started_us"`
	EndedUs   int64  `json:"ended_us"`
	Outcome   string `json:"outcome"`
}

// WorkerViewJSON is the body of GET /api/dashboard/workers/{wid} and the
// worker page's event.
type WorkerViewJSON struct {
	TimeMs  int64          `json:"t"`
	Worker  DashWorkerJSON `json:"worker"`
	Recent  []TaskJSON     `json:"recent"`
	Running []TaskJSON     `json:"running"`
	Queued  int            `json:"queued"`
	History []Sample       `json:"history,omitempty"`
}

func tasksJSON(evs []*pb.TaskEvent) []TaskJSON {
	out := []TaskJSON{}
	for _, e := range evs {
		out = append(out, TaskJSON{SessionID: e.SessionId, GraphID: e.GraphId, Node: e.Node, Type: e.Type, StartedUs: e.StartedUs, EndedUs: e.EndedUs, Outcome: e.Outcome})
	}
	return out
}

func (s *Dashboard) getCluster(w http.ResponseWriter, r *http.Request) error {
	c, err := s.events.cluster(r.Context())
	if err != nil {
		return err
	}
	c.History = s.events.history(-1)
	c.Schedulers = s.schedulerStates(r.Context())
	web.WriteJSON(w, http.StatusOK, c)
	return nil
}

// workerID parses {wid}.
func workerID(r *http.Request) (int, error) {
	v := r.PathValue("wid")
	if v == "" {
		v = r.URL.Query().Get("worker")
	}
	id, err := strconv.Atoi(v)
	if err != nil || id < 0 || id > 1<<20 {
		return 0, web.BadRequest(fmt.Errorf("worker %q: want a worker's id, a non-negative integer", v))
	}
	return id, nil
}

func (s *Dashboard) getWorkerView(w http.ResponseWriter, r *http.Request) error {
	id, err := workerID(r)
	if err != nil {
		return err
	}
	v, err := s.events.worker(r.Context(), id)
	if err != nil {
		return err
	}
	v.History = s.events.history(id)
	web.WriteJSON(w, http.StatusOK, v)
	return nil
}

// graphDetail reads a graph's detail from the source.
func (s *Dashboard) graphDetail(ctx context.Context, sid, gid string) (GraphDetailJSON, error) {
	d, err := s.src.GraphDetail(ctx, &pb.GraphDetailRequest{SessionId: sid, GraphId: gid})
	if err != nil {
		return GraphDetailJSON{}, err
	}
	return GraphDetailJSON{GraphJSON: web.GraphOf(d.Status), Types: typeCountsJSON(d.Types), Tileable: dagJSON(d.Tileable), Chunks: dagJSON(d.Chunks)}, nil
}

func (s *Dashboard) getGraphDetail(w http.ResponseWriter, r *http.Request) error {
	d, err := s.graphDetail(r.Context(), r.PathValue("sid"), r.PathValue("gid"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, d)
	return nil
}

// maxOpsQuery bounds the ops one GET .../ops names.
const maxOpsQuery = protocol.MaxOpInfos

func (s *Dashboard) getGraphOps(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req := &pb.GraphOpsRequest{SessionId: r.PathValue("sid"), GraphId: r.PathValue("gid"), Type: q.Get("type")}
	if len(req.Type) > 200 {
		return web.BadRequest(errors.New("type: at most 200 bytes"))
	}
	if v := q.Get("nodes"); v != "" {
		parts := strings.Split(v, ",")
		if len(parts) > maxOpsQuery {
			return web.BadRequest(fmt.Errorf("nodes: %d ops, at most %d at once", len(parts), maxOpsQuery))
		}
		for _, p := range parts {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil || n < 0 {
				return web.BadRequest(fmt.Errorf("nodes: %q is not a chunk op's index", p))
			}
			req.Nodes = append(req.Nodes, int32(n))
		}
	}
	resp, err := s.src.GraphOps(r.Context(), req)
	if err != nil {
		return err
	}
	out := struct {
		Ops []OpJSON `json:"ops"`
	}{Ops: []OpJSON{}}
	for _, o := range resp.Ops {
		oj := OpJSON{Node: o.Node, Type: o.Type, State: o.State, Worker: o.Worker, Holder: o.Holder, Attempt: o.Attempt, Nbytes: o.Nbytes,
			Inputs: o.Inputs, Shape: o.Shape, DType: o.Dtype, StartedUs: o.StartedUs, EndedUs: o.EndedUs}
		if oj.Inputs == nil {
			oj.Inputs = []int32{}
		}
		if oj.Shape == nil {
			oj.Shape = []int64{}
		}
		out.Ops = append(out.Ops, oj)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// cancelFromSource is DELETE .../graphs/{gid} for a local session's
// dashboard.
func (s *Dashboard) cancelFromSource(w http.ResponseWriter, r *http.Request) error {
	st, err := s.src.CancelGraph(r.Context(), &pb.CancelGraphRequest{SessionId: r.PathValue("sid"), GraphId: r.PathValue("gid")})
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, web.GraphOf(st))
	return nil
}
