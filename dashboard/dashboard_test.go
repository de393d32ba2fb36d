package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/web"
)

// fakeSource is a Source with two workers and one graph, counting reads.
type fakeSource struct {
	reads   atomic.Int64
	mu      sync.Mutex
	opsReq  *pb.GraphOpsRequest
	cancels int
}

func (f *fakeSource) ListWorkers(ctx context.Context) (*pb.ListWorkersResponse, error) {
	f.reads.Add(1)
	return &pb.ListWorkersResponse{Workers: []*pb.WorkerInfo{
		{Id: 0, Slots: 2, MemoryBytes: 1 << 20, Alive: true, Load: &pb.WorkerLoad{Running: 1, StoreBytes: 100, LimitBytes: 1 << 20, SpilledBytes: 7}},
		{Id: 1, Slots: 2, MemoryBytes: 1 << 20, Alive: true},
	}}, nil
}

func (f *fakeSource) Overview(ctx context.Context) (*pb.OverviewResponse, error) {
	return &pb.OverviewResponse{OpsDone: 5, GraphsTotal: 1, Graphs: []*pb.GraphSummary{{
		Status: &pb.GraphStatus{SessionId: "s1", GraphId: "g1", State: "RUNNING", ChunkOps: 3, Progress: map[string]int64{"RUNNING": 1, "FINISHED": 2}},
		Types:  []*pb.TypeCount{{Type: "add", Counts: []int64{0, 0, 1, 2, 0, 0, 0, 0}}},
	}}}, nil
}

func (f *fakeSource) GraphDetail(ctx context.Context, req *pb.GraphDetailRequest) (*pb.GraphDetailResponse, error) {
	if req.GraphId != "g1" {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no graph %q", req.GraphId))
	}
	return &pb.GraphDetailResponse{Status: &pb.GraphStatus{SessionId: req.SessionId, GraphId: req.GraphId, State: "RUNNING"},
		Chunks: &pb.Dag{Nodes: []*pb.DagNode{{Id: 0, Type: "add", Counts: []int64{0, 0, 1}}}, Ops: 1}}, nil
}

func (f *fakeSource) GraphOps(ctx context.Context, req *pb.GraphOpsRequest) (*pb.GraphOpsResponse, error) {
	f.mu.Lock()
	f.opsReq = req
	f.mu.Unlock()
	return &pb.GraphOpsResponse{Ops: []*pb.OpInfo{{Node: 1, Type: "add", State: "RUNNING", Worker: 0, Holder: -1}}}, nil
}

func (f *fakeSource) WorkerTasks(ctx context.Context, req *pb.WorkerTasksRequest) (*pb.WorkerTasksResponse, error) {
	return &pb.WorkerTasksResponse{Recent: []*pb.TaskEvent{{GraphId: "g1", Node: 0, Type: "add", StartedUs: 1, EndedUs: 2, Outcome: "SUCCEEDED"}}, Queued: 3}, nil
}

func (f *fakeSource) CancelGraph(ctx context.Context, req *pb.CancelGraphRequest) (*pb.GraphStatus, error) {
	f.mu.Lock()
	f.cancels++
	f.mu.Unlock()
	return &pb.GraphStatus{SessionId: req.SessionId, GraphId: req.GraphId, State: "CANCELLING"}, nil
}

func dashServer(t *testing.T) (*fakeSource, *httptest.Server) {
	src := &fakeSource{}
	srv := httptest.NewServer(NewHandler(src, nil))
	t.Cleanup(srv.Close)
	return src, srv
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}

func TestDashboardData(t *testing.T) {
	src, srv := dashServer(t)
	var c ClusterJSON
	if code := getJSON(t, srv.URL+"/api/dashboard/cluster", &c); code != 200 || len(c.Workers) != 2 || c.Workers[0].Running != 1 ||
		c.Workers[0].SpilledBytes != 7 || c.OpsDone != 5 || len(c.Graphs) != 1 || c.Graphs[0].Types[0].Counts["FINISHED"] != 2 || len(c.History) != 1 {
		t.Fatalf("cluster: %d %+v", code, c)
	}
	var w WorkerViewJSON
	if code := getJSON(t, srv.URL+"/api/dashboard/workers/1", &w); code != 200 || w.Worker.ID != 1 || w.Queued != 3 || len(w.Recent) != 1 {
		t.Fatalf("worker: %d %+v", code, w)
	}
	var e map[string]any
	if code := getJSON(t, srv.URL+"/api/dashboard/workers/7", &e); code != 404 {
		t.Errorf("worker 7: %d %v", code, e)
	}
	if code := getJSON(t, srv.URL+"/api/dashboard/workers/-1", &e); code != 400 {
		t.Errorf("worker -1: %d %v", code, e)
	}
	var d GraphDetailJSON
	if code := getJSON(t, srv.URL+"/api/sessions/s1/graphs/g1/dag", &d); code != 200 || d.Chunks == nil || d.Chunks.Nodes[0].Counts["RUNNING"] != 1 {
		t.Fatalf("dag: %d %+v", code, d)
	}
	if code := getJSON(t, srv.URL+"/api/sessions/s1/graphs/g2/dag", &e); code != 404 {
		t.Errorf("dag of g2: %d %v", code, e)
	}
	var ops struct{ Ops []OpJSON }
	if code := getJSON(t, srv.URL+"/api/sessions/s1/graphs/g1/ops?nodes=1,4", &ops); code != 200 || len(ops.Ops) != 1 {
		t.Fatalf("ops: %d %+v", code, ops)
	}
	if fmt.Sprint(src.opsReq.Nodes) != "[1 4]" {
		t.Errorf("ops asked of the source: %v", src.opsReq)
	}
	many := strings.TrimSuffix(strings.Repeat("1,", maxOpsQuery+1), ",")
	for _, q := range []string{"nodes=x", "nodes=-1", "nodes=" + many, "type=" + strings.Repeat("a", 201)} {
		if code := getJSON(t, srv.URL+"/api/sessions/s1/graphs/g1/ops?"+q, &e); code != 400 {
			t.Errorf("ops?%.30s: %d %v", q, code, e)
		}
	}
	req, _ := http.NewRequest("DELETE", srv.URL+"/api/sessions/s1/graphs/g1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || src.cancels != 1 {
		t.Fatalf("DELETE: %v %v, %d cancels", resp, err, src.cancels)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/")
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/static/app.js")
	if err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), "javascript") {
		t.Fatalf("GET /static/app.js: %v %v", resp, err)
	}
	resp.Body.Close()
}

// stream reads server-sent events from url.
type stream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openEvents(t *testing.T, url string) *stream {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &stream{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// next returns the next event's name and data.
func (s *stream) next(t *testing.T) (string, string) {
	t.Helper()
	var name, data string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data = line[len("data: "):]
		case line == "" && name != "":
			return name, data
		}
	}
	t.Fatalf("stream ended: %v", s.sc.Err())
	return "", ""
}

// TestEventsShareOneSampler: twenty streams of one view cost the source one
// read per interval (plus each stream's first), not one per stream.
func TestEventsShareOneSampler(t *testing.T) {
	src, srv := dashServer(t)
	const k = 20
	var ss []*stream
	for range k {
		s := openEvents(t, srv.URL+"/api/events?view=cluster")
		if ct := s.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q", ct)
		}
		if name, data := s.next(t); name != "update" || !strings.Contains(data, `"history"`) {
			t.Fatalf("first event %q %s: want an update with the history", name, data)
		}
		ss = append(ss, s)
	}
	// A stream that asks for none has no history.
	if name, data := openEvents(t, srv.URL+"/api/events?view=cluster&history=0").next(t); name != "update" || strings.Contains(data, `"history"`) {
		t.Fatalf("first event of a stream with history=0 %q %s: want an update without history", name, data)
	}
	before := src.reads.Load()
	const rounds = 3
	for _, s := range ss {
		for range rounds {
			if name, data := s.next(t); name != "update" || strings.Contains(data, `"history"`) {
				t.Fatalf("event %q %s: want an update without history", name, data)
			}
		}
	}
	// Each stream saw `rounds` ticks; a stream that read late got the
	// newest, so the sampler may have run a few more times, never k each.
	if reads := src.reads.Load() - before; reads > rounds+4 {
		t.Errorf("%d streams, %d events each: %d reads of the source, want about %d", k, rounds, reads, rounds)
	}
}

func TestEventsBadViews(t *testing.T) {
	_, srv := dashServer(t)
	var e map[string]any
	for _, q := range []string{"", "view=nope", "view=worker&worker=x", "view=graph&session=s1", "view=graph&session=a/b&graph=g1"} {
		if code := getJSON(t, srv.URL+"/api/events?"+q, &e); code != 400 {
			t.Errorf("events?%s: %d %v", q, code, e)
		}
	}
	// A graph that is not there: the stream says so in a failure event.
	s := openEvents(t, srv.URL+"/api/events?view=graph&session=s1&graph=g2")
	if name, data := s.next(t); name != "failure" || !strings.Contains(data, `"status":404`) {
		t.Errorf("missing graph: %q %s", name, data)
	}
}

func TestEventsBounded(t *testing.T) {
	src := &fakeSource{}
	s := &Dashboard{src: src}
	s.events = newHub(s)
	read := func(context.Context, bool) (any, error) { return nil, nil }
	var chans []chan []byte
	for i := range maxViews {
		ch, err := s.events.subscribe(fmt.Sprint("v", i), read)
		if err != nil {
			t.Fatalf("view %d: %v", i, err)
		}
		chans = append(chans, ch)
	}
	if _, err := s.events.subscribe("one more", read); err != errTooManyStreams {
		t.Errorf("view %d: %v, want too many", maxViews+1, err)
	}
	for len(chans) < maxSubscribers {
		ch, err := s.events.subscribe("v0", read)
		if err != nil {
			t.Fatalf("stream %d: %v", len(chans), err)
		}
		chans = append(chans, ch)
	}
	if _, err := s.events.subscribe("v0", read); err != errTooManyStreams {
		t.Errorf("stream %d: %v, want too many", maxSubscribers+1, err)
	}
	for i, ch := range chans {
		key := "v0"
		if i < maxViews {
			key = fmt.Sprint("v", i)
		}
		s.events.unsubscribe(key, ch)
	}
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	if len(s.events.views) != 0 || s.events.subs != 0 {
		t.Errorf("after every stream closed: %d views, %d streams", len(s.events.views), s.events.subs)
	}
}

func TestLoginCookie(t *testing.T) {
	const tok = "s3cret"
	srv := httptest.NewServer(web.Guard(web.GuardConfig{Token: tok}, NewHandler(&fakeSource{}, nil)))
	defer srv.Close()
	// The page loads without the token; the data does not.
	if resp, err := http.Get(srv.URL + "/"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /: %v %v", resp, err)
	}
	var e map[string]any
	if code := getJSON(t, srv.URL+"/api/dashboard/cluster", &e); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/api/login", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("login: %v %v", resp, err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == rpc.TokenCookie {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != tok || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("login cookie %+v", cookie)
	}
	for _, tc := range []struct {
		value string
		want  int
	}{{tok, 200}, {"wrong", 401}, {"", 401}} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/dashboard/cluster", nil)
		req.AddCookie(&http.Cookie{Name: rpc.TokenCookie, Value: tc.value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("cookie %q: %d, want %d", tc.value, resp.StatusCode, tc.want)
		}
	}
	// A wrong header is refused even beside a good cookie.
	req, _ = http.NewRequest("GET", srv.URL+"/api/dashboard/cluster", nil)
	req.AddCookie(&http.Cookie{Name: rpc.TokenCookie, Value: tok})
	req.Header.Set("Authorization", "Bearer nope")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("wrong header, good cookie: %d", resp.StatusCode)
	}
}
