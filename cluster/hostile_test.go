package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/tensor"
)

// hostile is one request that must be refused with an error naming what
// is wrong, and must change nothing else.
type hostile struct {
	name        string
	method, url string
	ctype       string
	body        []byte
	want        string // in the answer's body; "" for any error
}

// request is h as an HTTP request, with auth as its Authorization header
// unless "".
func (h hostile) request(t *testing.T, auth string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(h.method, h.url, bytes.NewReader(h.body))
	if err != nil {
		t.Fatalf("%s: %v", h.name, err)
	}
	if h.ctype != "" {
		req.Header.Set("Content-Type", h.ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return req
}

// rpcCall builds a connect unary call with a protobuf body.
func rpcCall(name, base, procedure string, m proto.Message, want string) hostile {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err) // a test's own message: cannot fail
	}
	return hostile{name: name, method: "POST", url: base + procedure, ctype: "application/proto", body: b, want: want}
}

// hostileRequests are at least 200 malformed or hostile requests to the web
// service's REST API and to the scheduler's and workers' RPC services.
func hostileRequests(web, sched, worker, sid string) []hostile {
	var hs []hostile
	rest := func(name, method, path, body, want string) {
		hs = append(hs, hostile{name: name, method: method, url: web + path, ctype: "application/json", body: []byte(body), want: want})
	}
	graphs := "/api/sessions/" + sid + "/graphs"
	node := func(op string) string {
		return `{"graph":{"version":1,"nodes":[` + op + `]},"results":[0]}`
	}
	// Bodies that are not a graph.
	for i, b := range []string{``, `{`, `[]`, `null`, `"graph"`, `{"graph":1}`, `{"graph":{}}`, `{"graph":{"version":99,"nodes":[]},"results":[0]}`,
		`{"graph":{"version":1,"nodes":[]},"results":[]}`, `{"graph":{"version":1,"nodes":[]},"results":[0]}`,
		`{"results":"x"}`, `{"graph":{"version":1,"nodes":"x"},"results":[0]}`, strings.Repeat("[", 100000),
		`{"graph":{"version":1,"nodes":[{"op":"x"}]},"results":[0]}`, "\x00\xff\xfe"} {
		rest(fmt.Sprintf("body %d", i), "POST", graphs, b, "")
	}
	// Ops with bad parameters.
	ops := []string{
		`{"op":{"type":"nope","params":{}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[-1],"dtype":"float64"}}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[4],"dtype":"complex512"}}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[1000000000,1000000000,1000000000],"dtype":"float64"}}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[100000000],"dtype":"float64"},"chunks":{"size":[1]}}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[10],"dtype":"float64"},"chunks":{"size":[-5]}}}}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[10],"dtype":"float64"},"chunks":{"splits":[[3,3]]}}}}`,
		`{"op":{"type":"arange","params":{"start":0,"stop":1e300,"step":1e-300}}}`,
		`{"op":{"type":"elementwise","params":{"kind":"binary","name":"add"}},"inputs":[5,6]}`,
		`{"op":{"type":"elementwise","params":{"kind":"binary","name":"add"}},"inputs":[0]}`,
		`{"op":{"type":"full","params":{"meta":{"shape":[4],"dtype":"float64"}}},"inputs":[-1]}`,
		`{"op":{"type":"literal","params":{"data":"not base64!"}}}`,
	}
	for i, op := range ops {
		rest(fmt.Sprintf("op %d", i), "POST", graphs, node(op), "")
	}
	// Every odd shape with every dtype name, good and bad.
	for _, shape := range []string{`[0]`, `[4611686018427387904]`, `[-1,2]`, `[2,-1]`, `[1e18]`, `["x"]`} {
		for _, dt := range []string{"float64", "int32", "bool", "x"} {
			op := `{"op":{"type":"full","params":{"meta":{"shape":` + shape + `,"dtype":"` + dt + `"},"value":1}}}`
			if shape == `[0]` && dt != "x" {
				continue // a valid empty tensor
			}
			rest("shape "+shape+" "+dt, "POST", graphs, node(op), "")
		}
	}
	// Graphs: shape mismatches and a broadcast past the chunk limit.
	mismatch := `{"graph":{"version":1,"nodes":[` +
		`{"op":{"type":"full","params":{"meta":{"shape":[3],"dtype":"float64"},"value":1}}},` +
		`{"op":{"type":"full","params":{"meta":{"shape":[4],"dtype":"float64"},"value":1}}},` +
		`{"op":{"type":"elementwise","params":{"kind":"binary","name":"add"}},"inputs":[0,1]}]},"results":[2]}`
	rest("shape mismatch", "POST", graphs, mismatch, "")
	// Unknown sessions and graphs, traversal in ids, bad indexes.
	for i, path := range []string{
		"/api/sessions/nope", "/api/sessions/../../etc/passwd", "/api/sessions/%2e%2e%2f%2e%2e",
		"/api/sessions/" + sid + "/graphs/g999", "/api/sessions/" + sid + "/graphs/..%2f..%2f",
		"/api/sessions/" + sid + "/graphs/g1/results/-1", "/api/sessions/" + sid + "/graphs/g1/results/999999999999999999999",
		"/api/sessions/" + sid + "/graphs/g1/results/x", "/api/sessions/nope/graphs/g1",
		"/api/sessions/" + sid + "/graphs/g1?wait_timeout=-5", "/api/sessions/" + sid + "/graphs/g1?wait_timeout=1e400",
		"/api/nothing", "/api/sessions/" + sid + "/graphs/g1/results/0?slice=::0",
	} {
		rest(fmt.Sprintf("path %d", i), "GET", path, "", "")
		if !strings.Contains(path, "wait_timeout") { // DELETE ignores the query: g1 may exist
			rest(fmt.Sprintf("delete path %d", i), "DELETE", path, "", "")
		}
	}
	rest("post to a graph", "POST", "/api/sessions/"+sid+"/graphs/g1", "{}", "")
	rest("patch a session", "PATCH", "/api/sessions/"+sid, "{}", "")
	rest("put a graph", "PUT", "/api/sessions/"+sid+"/graphs/g1", "{}", "")
	rest("results past the graph's", "GET", "/api/sessions/"+sid+"/graphs/g1/results/1", "", "")
	rest("a slice of too many axes", "GET", "/api/sessions/"+sid+"/graphs/g1/results/0?slice=1,2,3,4,5,6", "", "")
	rest("put sessions", "PUT", "/api/sessions", "{}", "")
	rest("delete unknown session", "DELETE", "/api/sessions/ffffffffffffffff", "", "no session")

	// Programs of calls: malformed, hostile or impossible.
	programs := "/api/sessions/" + sid + "/programs"
	for i, b := range []string{
		``, `{`, `{"program":1}`, `{"program":{"nodes":[]},"results":[0]}`, `{"program":{"nodes":[{"fn":"zeros","args":[3]}]},"results":[]}`,
		`{"program":{"nodes":[{"fn":"nope"}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"zeros","args":[[1000000000,1000000000,1000000000]]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"zeros","args":[[-3]]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"add","args":[{"ref":5},1]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"add","args":[{"ref":0},1]}]},"results":[0]}`,
		`{"program":{"nodes":[{"like":{"shape":[3],"dtype":"float64"}}]},"results":[0]}`,
		`{"program":{"nodes":[{"data":"bm90IG5weQ=="}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"zeros","args":[3],"data":"x"}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"getitem","args":[{"ref":0},[{"slice":[0,1,0]}]]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"random","args":[1,0,"cauchy",0,1,[3]]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"from_npy","args":["/etc/passwd"]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"from_zarr","args":["../../../../etc"]}]},"results":[0]}`,
		`{"program":{"nodes":[{"fn":"zeros","args":[3]},{"fn":"to_npy","args":[{"ref":0},"/tmp/phobos-hostile.npy"]}]},"results":[1]}`,
		`{"program":{"nodes":[{"fn":"zeros","args":[3]}]},"results":[7]}`,
	} {
		rest(fmt.Sprintf("program %d", i), "POST", programs, b, "")
		rest(fmt.Sprintf("describe %d", i), "POST", "/api/describe", b, "")
	}
	rest("describe too many chunks", "POST", "/api/describe", `{"program":{"nodes":[{"fn":"zeros","args":[[100000000]],"kwargs":{"chunks":1}}]},"nsplits":true}`, "")
	// A worker's file endpoints: it has no data roots here, so every path
	// is refused.
	for i, b := range []string{``, `{`, `{"kind":"npy","path":"/etc/passwd"}`, `{"kind":"zarr","path":"/"}`, `{"kind":"tar","path":"/x"}`, `{"paths":["/etc/shadow","../x"]}`} {
		hs = append(hs, hostile{name: fmt.Sprintf("worker file source %d", i), method: "POST", url: worker + "/files/source", ctype: "application/json", body: []byte(b)})
		hs = append(hs, hostile{name: fmt.Sprintf("worker file check %d", i), method: "POST", url: worker + "/files/check", ctype: "application/json", body: []byte(b)})
	}

	// The scheduler's RPC: results naming workers, graphs and ops that do
	// not exist, and malformed ones.
	report := "/phobos.v1.SchedulerService/ReportResults"
	good := &pb.Result{Graph: 1, Node: 0, Attempt: 1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}
	for _, w := range []int32{7, -1, 1 << 30, 2} {
		hs = append(hs, rpcCall(fmt.Sprintf("report from worker %d", w), sched, report, &pb.ReportResultsRequest{WorkerId: w, Results: []*pb.Result{good}}, "no worker"))
	}
	for i, r := range []*pb.Result{
		{Graph: 1, Node: -1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED},
		{Graph: 1, Node: 1, Nbytes: -8, Outcome: pb.Outcome_OUTCOME_SUCCEEDED},
		{Graph: 1, Node: 1, Attempt: -1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED},
		{Graph: 1, Node: 1},
		{Graph: 1, Node: 1, Outcome: 77},
		{Graph: 1, Node: 1, Outcome: pb.Outcome_OUTCOME_FAILED, LostNodes: []int32{-4}},
	} {
		hs = append(hs, rpcCall(fmt.Sprintf("malformed result %d", i), sched, report, &pb.ReportResultsRequest{WorkerId: 0, Results: []*pb.Result{good, r}}, "result 1 of 2"))
	}
	for _, id := range []int32{9, -3} {
		hs = append(hs, rpcCall(fmt.Sprintf("heartbeat of worker %d", id), sched, "/phobos.v1.SchedulerService/Heartbeat", &pb.HeartbeatRequest{WorkerId: id}, "no worker"))
		hs = append(hs, rpcCall(fmt.Sprintf("deregister worker %d", id), sched, "/phobos.v1.SchedulerService/DeregisterWorker", &pb.DeregisterWorkerRequest{WorkerId: id}, "no worker"))
	}
	hs = append(hs, rpcCall("register without slots", sched, "/phobos.v1.SchedulerService/RegisterWorker", &pb.RegisterWorkerRequest{Url: "http://127.0.0.1:1", Slots: 0}, "slots"))
	hs = append(hs, rpcCall("register a bad url", sched, "/phobos.v1.SchedulerService/RegisterWorker", &pb.RegisterWorkerRequest{Url: "::not a url", Slots: 1}, "url"))
	hs = append(hs, rpcCall("graph of no session", sched, "/phobos.v1.GraphService/GetGraph", &pb.GetGraphRequest{SessionId: "x", GraphId: "g1"}, "no session"))
	hs = append(hs, rpcCall("result of no session", sched, "/phobos.v1.GraphService/GetResult", &pb.GetResultRequest{SessionId: "x", GraphId: "g1", Index: -4}, "no session"))
	hs = append(hs, rpcCall("submit garbage", sched, "/phobos.v1.GraphService/SubmitGraph", &pb.SubmitGraphRequest{SessionId: sid, Graph: []byte("}{"), Results: []int32{0}}, ""))

	// The worker's RPC: tasks with garbage ops and bad fields.
	dispatch := "/phobos.v1.WorkerService/Dispatch"
	task := func(mod func(*pb.Task)) *pb.DispatchRequest {
		t := &pb.Task{Graph: 1, Node: 1, Op: 0, Dtype: "float64", Shape: []int64{4}, Priority: &pb.Priority{}, Attempt: 1}
		mod(t)
		return &pb.DispatchRequest{Ops: [][]byte{[]byte(`{"type":"full_chunk","params":{"shape":[4],"dtype":"float64","value":1}}`)}, Tasks: []*pb.Task{t}}
	}
	for i, mod := range []func(*pb.Task){
		func(t *pb.Task) { t.Node = -1 },
		func(t *pb.Task) { t.Op = 3 },
		func(t *pb.Task) { t.Shape = []int64{-4} },
		func(t *pb.Task) { t.Shape = []int64{1 << 40, 1 << 40} },
		func(t *pb.Task) { t.Dtype = "float128" },
		func(t *pb.Task) { t.Priority = nil },
		func(t *pb.Task) { t.Attempt = -1 },
		func(t *pb.Task) { t.InputNodes, t.InputWorkers = []int32{0}, []int32{0} },
		func(t *pb.Task) { t.InputNodes, t.InputWorkers, t.InputNbytes = []int32{0}, []int32{-9}, []int64{8} },
		func(t *pb.Task) { t.InputNodes, t.InputWorkers, t.InputNbytes = []int32{0}, []int32{0}, []int64{-8} },
	} {
		hs = append(hs, rpcCall(fmt.Sprintf("task %d", i), worker, dispatch, task(mod), "g1/c"))
	}
	for i, op := range []string{`{`, `{"type":"nope"}`, `{"type":"fused","params":{"nodes":"x"}}`, `null`} {
		hs = append(hs, rpcCall(fmt.Sprintf("garbage op %d", i), worker, dispatch, &pb.DispatchRequest{Ops: [][]byte{[]byte(op)}, Tasks: []*pb.Task{{Graph: 1, Node: 1, Dtype: "float64", Priority: &pb.Priority{}}}}, "op 0"))
	}
	hs = append(hs, rpcCall("release lists", worker, dispatch, &pb.DispatchRequest{ReleaseGraphs: []uint64{1, 2}, ReleaseNodes: []int32{1}}, "release"))
	// Raw garbage to every procedure.
	for _, proc := range []string{report, "/phobos.v1.SchedulerService/Heartbeat", "/phobos.v1.SchedulerService/RegisterWorker", "/phobos.v1.GraphService/SubmitGraph"} {
		for i, b := range [][]byte{{0xff}, {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, bytes.Repeat([]byte{0x12}, 64), []byte("not protobuf at all")} {
			hs = append(hs, hostile{name: fmt.Sprintf("garbage %d to %s", i, proc), method: "POST", url: sched + proc, ctype: "application/proto", body: b})
		}
	}
	for i, b := range [][]byte{{0xff}, {0x12, 0x80}, []byte("{}")} {
		hs = append(hs, hostile{name: fmt.Sprintf("garbage %d to Dispatch", i), method: "POST", url: worker + dispatch, ctype: "application/proto", body: b})
	}
	// Chunk paths on a worker.
	for i, p := range []string{"/chunks/x/y", "/chunks/1/-1", "/chunks/99999999999999999999/1", "/chunks/1/1", "/chunks/%2e%2e/1"} {
		hs = append(hs, hostile{name: fmt.Sprintf("chunk path %d", i), method: "GET", url: worker + p})
	}
	// Repeat the REST ones against a second session that was deleted.
	n := len(hs)
	for _, h := range hs[:n] {
		if strings.HasPrefix(h.url, web+"/api/sessions/"+sid) {
			h2 := h
			h2.name += " (deleted session)"
			h2.url = strings.Replace(h.url, sid, "0000000000000000", 1)
			hs = append(hs, h2)
		}
	}
	return hs
}

// TestHostileRequests sends at least 200 malformed or hostile requests to a
// running cluster: each gets an error answer naming what is wrong, no role
// stops, and the cluster computes correctly afterwards. A report naming
// worker 7 of a 2-worker cluster used to take the scheduler down.
func TestHostileRequests(t *testing.T) {
	sp, ws, wp := startRoles(t, cluster.SchedulerConfig{}, nil, 2)
	a := api{t: t, base: wp.URL()}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	hs := hostileRequests(wp.URL(), sp.URL(), ws[0].URL(), sid)
	if len(hs) < 200 {
		t.Fatalf("only %d hostile requests", len(hs))
	}
	for _, h := range hs {
		resp, err := http.DefaultClient.Do(h.request(t, ""))
		if err != nil {
			t.Fatalf("%s: the server did not answer: %v", h.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		submit := h.method == "POST" && strings.HasSuffix(h.url, "/graphs")
		switch {
		case resp.StatusCode < 400 && !submit:
			t.Errorf("%s: %d, want an error: %s", h.name, resp.StatusCode, body)
		case resp.StatusCode < 400:
			// A submission may be accepted and fail later: it must end
			// FAILED with a reason, not run.
			var st map[string]any
			if json.Unmarshal(body, &st) != nil {
				t.Errorf("%s: %d and not JSON: %s", h.name, resp.StatusCode, body)
				continue
			}
			end := waitState(a, st["url"].(string), 30e9)
			if end["state"] != "FAILED" || end["error"] == "" {
				t.Errorf("%s: accepted and ended %v, want FAILED with a reason", h.name, end)
			}
		case resp.StatusCode >= 500 && resp.StatusCode != 503:
			t.Errorf("%s: %d, a server error: %s", h.name, resp.StatusCode, body)
		case h.want != "" && !strings.Contains(string(body), h.want):
			t.Errorf("%s: %d %s, want it to name %q", h.name, resp.StatusCode, body, h.want)
		}
	}
	t.Logf("%d hostile requests refused", len(hs))
	select {
	case err := <-sp.Err():
		t.Fatalf("the scheduler stopped: %v", err)
	case <-ws[0].Done():
		t.Fatalf("worker 0 stopped: %v", ws[0].Err())
	case <-ws[1].Done():
		t.Fatalf("worker 1 stopped: %v", ws[1].Err())
	default:
	}
	// A well-formed result naming no graph is taken, counted and ignored:
	// GET /api shows it.
	late, _ := proto.Marshal(&pb.ReportResultsRequest{WorkerId: 0, Results: []*pb.Result{{Graph: 424242, Node: 1, Attempt: 1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}}})
	resp, err := http.Post(sp.URL()+"/phobos.v1.SchedulerService/ReportResults", "application/proto", bytes.NewReader(late))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a late result: %v %v", resp, err)
	}
	resp.Body.Close()
	info := a.json("GET", "/api", nil, 200)
	if rs, _ := info["results"].(map[string]any); rs == nil || rs["unknown"].(float64) < 1 {
		t.Errorf("GET /api does not count the ignored result: %v", info)
	}
	sess, err := phobos.Connect(context.Background(), wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	v, err := sess.ExecuteScalar(context.Background(), tensor.Arange(0, 100, 1, tensor.Chunks(7)).Sum())
	if err != nil || v != 4950 {
		t.Fatalf("after the hostile requests: %v, %v", v, err)
	}
}

// FuzzClusterRequests sends arbitrary requests (a method, a path under one
// of the roles, a body) to a running cluster started once per fuzzing
// process: no role may stop, and none may answer with a server error other
// than 503. Seeds are the hostile requests above.
func FuzzClusterRequests(f *testing.F) {
	sp, ws, wp := startRoles(f, cluster.SchedulerConfig{}, nil, 2)
	bases := []string{wp.URL(), sp.URL(), ws[0].URL()}
	methods := []string{"GET", "POST", "DELETE", "PUT"}
	// Long-polls and result fetches may legitimately wait: a request is
	// given a second, and one still waiting then is let go.
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Post(wp.URL()+"/api/sessions", "application/json", nil)
	if err != nil {
		f.Fatal(err)
	}
	var s struct {
		SessionID string `json:"session_id"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	for _, h := range hostileRequests(wp.URL(), sp.URL(), ws[0].URL(), s.SessionID) {
		for i, b := range bases {
			if strings.HasPrefix(h.url, b) {
				for m, name := range methods {
					if name == h.method {
						f.Add(uint8(i), uint8(m), strings.TrimPrefix(h.url, b), h.ctype == "application/proto", h.body)
					}
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, role, method uint8, path string, proto bool, body []byte) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		if strings.Contains(path, "Deregister") {
			return // a legitimate request that stops a worker (token-guarded in real clusters)
		}
		req, err := http.NewRequest(methods[int(method)%len(methods)], bases[int(role)%len(bases)]+path, bytes.NewReader(body))
		if err != nil {
			return // not a URL: never sent
		}
		ctype := "application/json"
		if proto {
			ctype = "application/proto"
		}
		req.Header.Set("Content-Type", ctype)
		resp, err := c.Do(req)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
				return
			}
			t.Fatalf("%s %s: no answer: %v", req.Method, req.URL, err)
		}
		out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode >= 500 && resp.StatusCode != 503 {
			t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, out)
		}
		select {
		case err := <-sp.Err():
			t.Fatalf("the scheduler stopped: %v", err)
		case <-ws[0].Done():
			t.Fatalf("a worker stopped: %v", ws[0].Err())
		case err := <-wp.Err():
			t.Fatalf("the web service stopped: %v", err)
		default:
		}
	})
}
