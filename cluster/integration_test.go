package cluster_test

// Integration tests of the distributed runtime: they build the phobos binary
// and start real scheduler, worker and web processes on 127.0.0.1, then talk
// to them through the REST API and phobos.Connect. Each test waits for
// conditions by polling with a deadline, never by sleeping.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
	"github.com/phobos-tensor/phobos/workloads"
)

var (
	phobosBin string
	buildErr  error
)

func TestMain(m *testing.M) {
	if bin := os.Getenv("PHOBOS_TEST_BIN"); bin != "" {
		// A prebuilt binary, e.g. go build -race, to race-test the roles.
		phobosBin = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "phobos-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "phobos")
	out, err := exec.Command(goTool, "build", "-o", bin, "github.com/phobos-tensor/phobos/cmd/phobos").CombinedOutput()
	if err != nil {
		buildErr = fmt.Errorf("%v\n%s", err, out)
	} else {
		phobosBin = bin
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needBinary(t *testing.T) {
	t.Helper()
	if phobosBin == "" {
		t.Skipf("cannot build the phobos binary, skipping the process tests: %v", buildErr)
	}
}

// syncBuffer collects the children's logs, shown when a test fails.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCluster launches scheduler, workers and web as child processes.
func startCluster(t *testing.T, workers int, extra map[string][]string) *cluster.ProcCluster {
	t.Helper()
	return startClusterWith(t, workers, extra, "", rpc.TLSFiles{})
}

// startClusterWith is startCluster with a cluster token ("" for none) and
// TLS files (none: plain HTTP).
func startClusterWith(t *testing.T, workers int, extra map[string][]string, token string, tlsFiles rpc.TLSFiles) *cluster.ProcCluster {
	t.Helper()
	needBinary(t)
	logs := &syncBuffer{}
	if extra == nil {
		extra = map[string][]string{}
	}
	for _, role := range []string{"scheduler", "worker", "web"} {
		extra[role] = append(extra[role], "--log-level", "warn")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Launch(ctx, cluster.LaunchConfig{
		Exe: phobosBin, Workers: workers, Slots: 1, Memory: 1 << 30, Stderr: logs, ExtraArgs: extra, Token: token, TLS: tlsFiles,
	})
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, logs)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the cluster: %v", err)
		}
		if strings.Contains(logs.String(), "DATA RACE") {
			t.Errorf("a role reported a data race (binary built with -race)")
		}
		if t.Failed() {
			t.Logf("cluster logs:\n%s", logs)
		}
	})
	return c
}

func sameArray(t *testing.T, what string, got, want *ndarray.Array) {
	t.Helper()
	if got.DType() != want.DType() || !ndarray.SameShape(got.Shape(), want.Shape()) {
		t.Fatalf("%s: got %v%v, want %v%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%s: values differ from the local session's:\n got %v\nwant %v", what, got, want)
	}
}

// TestClusterMatchesLocal runs W1, W3, W4 and W5-like graphs (small sizes)
// and a graph of many ops (literal data with NaN included) through REST on 3
// worker processes, and compares every result, bit for bit, with the local
// session's.
func TestClusterMatchesLocal(t *testing.T) {
	c := startCluster(t, 3, nil)
	ctx := context.Background()
	remote, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	local, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	cases := map[string]workloads.Params{
		"W1": {"n": 1000, "chunk": 250},
		"W3": {"n": 400, "chunk": 100},
		"W4": {"n": 600, "chunk": 150},
		"W5": {"n": 200_000, "chunk": 100},
	}
	for name, over := range cases {
		wl, _ := workloads.Get(name)
		p, err := wl.Resolve(over)
		if err != nil {
			t.Fatal(err)
		}
		x := wl.Build(p, 11)
		want, err := local.Execute(ctx, x)
		if err != nil {
			t.Fatalf("%s local: %v", name, err)
		}
		got, err := remote.Execute(ctx, x)
		if err != nil {
			t.Fatalf("%s remote: %v", name, err)
		}
		sameArray(t, name, got[0], want[0])
		st := remote.Stats()
		if st.ChunkOps != local.Stats().ChunkOps {
			t.Errorf("%s: %d chunk ops on the cluster, %d locally", name, st.ChunkOps, local.Stats().ChunkOps)
		}
		t.Logf("%s: %d chunk ops, moved %d bytes, prepare+encode %v, run %v", name, st.ChunkOps, st.MovedBytes, st.TileTime, st.RunTime)
	}

	// Many ops at once, several results sharing subgraphs, fusion off and on.
	g := tensor.NewGenerator(5)
	a := g.Rand([]int{30, 20}, tensor.Chunks(7, 6))
	b := g.Normal(0, 1, []int{20, 9}, tensor.Chunks(6, 4))
	lit := tensor.FromSlice([]float64{1, math.NaN(), 3, math.Inf(-1), 5, 6}, []int{6}, tensor.Chunks(4))
	zoo := []*tensor.Tensor{
		a.MatMul(b).T().Flip(1),
		a.Add(a.Sum(tensor.Axis(1)).Reshape(30, 1)).Std(tensor.Axis(0)),
		tensor.Where(lit.IsNaN(), -1, lit.CumSum(0)),
		tensor.Concatenate(1, a, a.Clip(0.25, math.Inf(1))).Index(tensor.S(1, 29, 3), tensor.Rev()),
		g.RandInt(0, 10, []int{17}, tensor.Chunks(5)).Astype(ndarray.Float32).ArgMax(),
		tensor.ArangeN(24, tensor.Chunks(5)).Reshape(2, 3, 4).Transpose(2, 0, 1).Max(tensor.Axis(1)),
		// lengths known only from the data: every chunk's reported bytes
		a.Index(tensor.Mask(a.Greater(0.6))),
		a.Index(tensor.Mask(a.Greater(2))),
		a.Index(tensor.All(), tensor.Mask(a.Index(tensor.At(0)).Less(0.5))).Mul(2),
		tensor.ArgWhere(a.Greater(0.9)),
		a.Index(tensor.Mask(a.Greater(0.6))).Mean(),
		a.Take(tensor.FromSlice([]int64{29, -1, 0, 7, 7}, []int{5}, tensor.Chunks(2)), 0),
		a.Ravel().Index(tensor.Array(tensor.FlatNonzero(a.Greater(0.8)))),
	}
	for _, fuse := range []bool{false, true} {
		lz, err := phobos.NewSession(phobos.WithWorkers(2), phobos.WithFusion(fuse))
		if err != nil {
			t.Fatal(err)
		}
		want, err := lz.Execute(ctx, zoo...)
		lz.Close()
		if err != nil {
			t.Fatal(err)
		}
		rz, err := phobos.Connect(ctx, c.URL, phobos.WithFusion(fuse))
		if err != nil {
			t.Fatal(err)
		}
		got, err := rz.Execute(ctx, zoo...)
		rz.Close()
		if err != nil {
			t.Fatalf("zoo (fuse %v): %v", fuse, err)
		}
		for i := range zoo {
			sameArray(t, fmt.Sprintf("zoo[%d] (fuse %v)", i, fuse), got[i], want[i])
		}
	}
}

// TestClusterLocality: W1 on 2 workers moves under 5% of its input bytes,
// with fusion off so the random inputs are real chunks that could move.
func TestClusterLocality(t *testing.T) {
	c := startCluster(t, 2, nil)
	ctx := context.Background()
	for _, fuse := range []bool{false, true} {
		sess, err := phobos.Connect(ctx, c.URL, phobos.WithFusion(fuse))
		if err != nil {
			t.Fatal(err)
		}
		wl, _ := workloads.Get("W1")
		p, _ := wl.Resolve(workloads.Params{"n": 2000, "chunk": 250})
		if _, err := wl.Eval(ctx, sess, p, 1); err != nil {
			t.Fatal(err)
		}
		st := sess.Stats()
		sess.Close()
		input := int64(2 * p["n"] * p["n"] * 8)
		t.Logf("W1 n=%d on 2 workers, fuse %v: %d chunk ops, moved %d bytes = %.3f%% of %d input bytes",
			p["n"], fuse, st.ChunkOps, st.MovedBytes, 100*float64(st.MovedBytes)/float64(input), input)
		if st.MovedBytes*20 >= input {
			t.Errorf("W1 (fuse %v) moved %d bytes, not under 5%% of its %d input bytes", fuse, st.MovedBytes, input)
		}
	}
}

// api is a small REST client for the tests.
type api struct {
	t    *testing.T
	base string
}

func (a api) req(method, path string, body []byte) (int, []byte) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return resp.StatusCode, b
}

func (a api) json(method, path string, body []byte, want int) map[string]any {
	a.t.Helper()
	code, b := a.req(method, path, body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		a.t.Fatalf("%s %s: %d, not JSON: %q", method, path, code, b)
	}
	if code != want {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, b)
	}
	return m
}

// wantError checks a 4xx answer with a JSON error containing each of msgs.
func (a api) wantError(method, path string, body []byte, code int, msgs ...string) {
	a.t.Helper()
	m := a.json(method, path, body, code)
	e, _ := m["error"].(string)
	for _, s := range msgs {
		if !strings.Contains(e, s) {
			a.t.Errorf("%s %s: error %q does not mention %q", method, path, e, s)
		}
	}
}

// exampleGraph is arange(12).reshape(3, 4) * 2 in chunks of 5, written by
// hand as docs/rest-api.md shows.
const exampleGraph = `{"graph": {"version": 1, "nodes": [
  {"op": {"type": "arange", "params": {"meta": {"shape": [12], "dtype": "float64"}, "start": 0, "step": 1, "chunks": {"size": [5]}}}, "inputs": []},
  {"op": {"type": "reshape", "params": {"shape": [3, 4]}}, "inputs": [0]},
  {"op": {"type": "elementwise", "params": {"kind": "binary", "name": "multiply", "consts": [{"pos": 1, "value": 2, "dtype": "float64"}]}}, "inputs": [1]}
]}, "results": [2]}`

func waitState(a api, graphURL string, deadline time.Duration) map[string]any {
	a.t.Helper()
	end := time.Now().Add(deadline)
	for {
		m := a.json("GET", graphURL+"?wait_timeout=1", nil, 200)
		switch m["state"] {
		case "SUCCEEDED", "FAILED", "CANCELLED":
			return m
		}
		if time.Now().After(end) {
			a.t.Fatalf("graph %s still %v after %v", graphURL, m["state"], deadline)
		}
	}
}

func fetchNpy(a api, path string) *ndarray.Array {
	a.t.Helper()
	code, b := a.req("GET", path, nil)
	if code != 200 {
		a.t.Fatalf("GET %s: %d %s", path, code, b)
	}
	arr, err := npy.Read(bytes.NewReader(b))
	if err != nil {
		a.t.Fatalf("GET %s: %v", path, err)
	}
	return arr
}

// TestClusterREST drives the API by hand: a graph written as JSON, the
// long-poll, .npy results and slices of them, and every kind of bad input,
// each a 4xx with a JSON error naming the problem, while the cluster keeps
// serving.
func TestClusterREST(t *testing.T) {
	c := startCluster(t, 2, map[string][]string{"web": {"--max-request-bytes", "64KiB"}})
	a := api{t: t, base: c.URL}

	info := a.json("GET", "/api", nil, 200)
	if info["ready"] != true || info["live_workers"].(float64) != 2 {
		t.Fatalf("GET /api: %v", info)
	}
	ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
	if len(ws) != 2 || ws[0].(map[string]any)["slots"].(float64) != 1 || ws[0].(map[string]any)["memory_bytes"].(float64) != 1<<30 {
		t.Fatalf("GET /api/workers: %v", ws)
	}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	sp := "/api/sessions/" + sid
	st := a.json("POST", sp+"/graphs", []byte(exampleGraph), 201)
	gurl := st["url"].(string)
	st = waitState(a, gurl, 10*time.Second)
	if st["state"] != "SUCCEEDED" {
		t.Fatalf("example graph: %v", st)
	}
	res := st["results"].([]any)[0].(map[string]any)
	if fmt.Sprint(res["shape"]) != "[3 4]" || res["dtype"] != "float64" {
		t.Fatalf("result info: %v", res)
	}
	full := fetchNpy(a, gurl+"/results/0")
	want := make([]float64, 12)
	for i := range want {
		want[i] = 2 * float64(i)
	}
	if fmt.Sprint(full.Shape()) != "[3 4]" || fmt.Sprint(full.ToFloat64s()) != fmt.Sprint(want) {
		t.Fatalf("result: %v", full)
	}
	// Slices, checked against the same slicing of the whole result.
	for spec, ranges := range map[string][]ndarray.Range{
		"0:2":       {{Start: 0, Step: 1, Len: 2}, {Start: 0, Step: 1, Len: 4}},
		"::2,1:":    {{Start: 0, Step: 2, Len: 2}, {Start: 1, Step: 1, Len: 3}},
		"::-1,::-3": {{Start: 2, Step: -1, Len: 3}, {Start: 3, Step: -3, Len: 2}},
		"-1":        {{Start: 2, Step: 1, Len: 1}, {Start: 0, Step: 1, Len: 4}},
		"1,2":       {{Start: 1, Step: 1, Len: 1}, {Start: 2, Step: 1, Len: 1}},
		"5:9":       {{Start: 3, Step: 1, Len: 0}, {Start: 0, Step: 1, Len: 4}},
	} {
		got := fetchNpy(a, gurl+"/results/0?slice="+spec)
		view, err := full.Slice(ranges)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.ToFloat64s()) != fmt.Sprint(view.ToFloat64s()) {
			t.Errorf("slice %s: got %v, want %v", spec, got.ToFloat64s(), view.ToFloat64s())
		}
		if (spec == "-1" && fmt.Sprint(got.Shape()) != "[4]") || (spec == "1,2" && got.NDim() != 0) {
			t.Errorf("slice %s: shape %v", spec, got.Shape())
		}
	}

	// Bad input, each a 4xx naming what is wrong.
	graphs := sp + "/graphs"
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": [`), 400, "malformed JSON")
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": []}, "results": [0], "extra": 1}`), 400, `unknown field "extra"`)
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 7, "nodes": []}, "results": [0]}`), 400, "unsupported graph version 7")
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": [{"op": {"type": "frobnicate"}, "inputs": []}]}, "results": [0]}`), 400, `unknown op "frobnicate"`)
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": [
	  {"op": {"type": "full", "params": {"meta": {"shape": [3, 4], "dtype": "float64"}, "value": 1, "chunks": {}}}, "inputs": []},
	  {"op": {"type": "full", "params": {"meta": {"shape": [5], "dtype": "float64"}, "value": 1, "chunks": {}}}, "inputs": []},
	  {"op": {"type": "elementwise", "params": {"kind": "binary", "name": "add"}}, "inputs": [0, 1]}]}, "results": [2]}`), 400, "tensor 2 (add)", "[3 4]", "[5]")
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": [
	  {"op": {"type": "full", "params": {"meta": {"shape": [1000000000], "dtype": "bool"}, "value": 1, "chunks": {"size": [1]}}}, "inputs": []}]}, "results": [0]}`), 400, "tensor 0 (full", "use larger chunks")
	a.wantError("POST", graphs, []byte(strings.Replace(exampleGraph, `"results": [2]`, `"results": [9]`, 1)), 400, "result 0 is tensor 9")
	a.wantError("POST", graphs, []byte(`{"graph": {"version": 1, "nodes": [{"op": {"type": "literal", "params": {"data": "`+strings.Repeat("A", 100<<10)+`"}}, "inputs": []}]}, "results": [0]}`), 413, "exceeds the limit of 65536 bytes")
	a.wantError("POST", "/api/sessions/nope/graphs", []byte(exampleGraph), 404, `no session "nope"`)
	a.wantError("GET", sp+"/graphs/g99", nil, 404, `no graph "g99"`)
	a.wantError("GET", gurl+"/results/1", nil, 404, "has no result 1")
	a.wantError("GET", gurl+"/results/x", nil, 400, "result index")
	a.wantError("GET", gurl+"/results/0?slice=0:1:0", nil, 400, "step cannot be zero")
	a.wantError("GET", gurl+"/results/0?slice=7", nil, 400, "out of bounds")
	a.wantError("GET", gurl+"/results/0?slice=1,2,3", nil, 400, "3 items")
	a.wantError("GET", gurl+"?wait_timeout=soon", nil, 400, "wait_timeout")
	a.wantError("GET", "/api/nothing", nil, 404, "no such endpoint")

	// Still serving, in another session; then DELETE frees the results.
	sid2 := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	st2 := a.json("POST", "/api/sessions/"+sid2+"/graphs", []byte(exampleGraph), 201)
	if st := waitState(a, st2["url"].(string), 10*time.Second); st["state"] != "SUCCEEDED" {
		t.Fatalf("second session: %v", st)
	}
	a.json("DELETE", gurl, nil, 200)
	a.wantError("GET", gurl+"/results/0", nil, 404, "released")
	a.json("DELETE", sp, nil, 200)
	a.wantError("GET", gurl, nil, 404, "no session")
	a.json("DELETE", "/api/sessions/"+sid2, nil, 200)
}

// TestClusterCancel: a running graph reaches CANCELLED within a second of
// DELETE, and the workers' slots and memory are free again afterwards.
func TestClusterCancel(t *testing.T) {
	c := startCluster(t, 2, nil)
	a := api{t: t, base: c.URL}
	ctx := context.Background()
	sess, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	// A long graph submitted through the REST API: many matmul chunks.
	g := tensor.NewGenerator(1)
	x := g.Rand([]int{3000, 3000}, tensor.Chunks(300))
	long := x.MatMul(x).Sum()
	tg, ids, err := tensor.Build(long)
	if err != nil {
		t.Fatal(err)
	}
	body := submitBody(t, tg, ids)
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	st := a.json("POST", "/api/sessions/"+sid+"/graphs", body, 201)
	gurl := st["url"].(string)
	// Wait until ops are running, then cancel.
	eventually(t, 20*time.Second, "ops running", func() bool {
		st = a.json("GET", gurl, nil, 200)
		if st["state"] != "PREPARING" && st["state"] != "RUNNING" {
			t.Fatalf("graph ended before it could be cancelled: %v", st)
		}
		return st["progress"].(map[string]any)["RUNNING"].(float64) > 0
	})
	t0 := time.Now()
	a.json("DELETE", gurl, nil, 200)
	for {
		// A graph deleted while it ran is forgotten once it has
		// stopped: CANCELLED, or gone if it stopped before this look.
		code, raw := a.req("GET", gurl+"?wait_timeout=0.05", nil)
		if code == 404 && strings.Contains(string(raw), "was deleted") {
			break
		}
		if code != 200 {
			t.Fatalf("GET %s after DELETE: status %d: %s", gurl, code, raw)
		}
		st = map[string]any{}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("GET %s: %v: %s", gurl, err, raw)
		}
		if st["state"] == "CANCELLED" {
			break
		}
		if time.Since(t0) > 5*time.Second {
			t.Fatalf("not CANCELLED 5 s after DELETE: %v", st)
		}
	}
	took := time.Since(t0)
	t.Logf("CANCELLED %v after DELETE (progress %v)", took.Round(time.Millisecond), st["progress"])
	if took > time.Second {
		t.Errorf("cancel took %v, want under 1 s", took)
	}
	// Slots and memory free again: the heartbeats (every second) show it.
	var ws []any
	eventually(t, 5*time.Second, "slots and memory free after the cancel", func() bool {
		ws = a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
		busy := 0.0
		for _, w := range ws {
			m := w.(map[string]any)
			busy += m["running"].(float64) + m["queued"].(float64) + m["store_bytes"].(float64)
		}
		return busy == 0
	})
	// And the cluster takes work at once.
	v, err := sess.ExecuteScalar(ctx, tensor.Ones([]int{100}, tensor.Chunks(10)).Sum())
	if err != nil || v != 100 {
		t.Fatalf("after cancel: %v, %v", v, err)
	}
}

func submitBody(t *testing.T, tg *graph.TileableGraph, ids []int) []byte {
	t.Helper()
	gj, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(web.SubmitRequest{Graph: gj, Results: ids})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventually polls cond every few milliseconds until it holds or the
// timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		<-tick.C
	}
}

// TestPhobosClusterCommand runs `phobos cluster --workers 2` as a user
// would, then W5 at full size (2e6 elements, 20,000 chunks) through it with
// `phobos run W5 --cluster URL`, and stops it with SIGTERM. The cluster
// makes a token of its own and prints it after its URL; the token is in no
// process's command line or environment, and a request without it is
// refused.
func TestPhobosClusterCommand(t *testing.T) {
	needBinary(t)
	logs := &syncBuffer{}
	cmd := exec.Command(phobosBin, "cluster", "--workers", "2", "--log-level", "warn")
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
		if strings.Contains(logs.String(), "DATA RACE") {
			t.Errorf("a role reported a data race (binary built with -race)")
		}
		if t.Failed() {
			t.Logf("logs:\n%s", logs)
		}
	}()
	linec := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for range 2 {
			if sc.Scan() {
				linec <- sc.Text()
			}
		}
		close(linec)
	}()
	var url, token string
	select {
	case url = <-linec:
		token, _ = strings.CutPrefix(<-linec, "token ")
	case <-time.After(30 * time.Second):
		t.Fatal("phobos cluster printed no URL in 30 s")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("phobos cluster printed %q and a token of %d characters", url, len(token))
	}
	checkTokenHidden(t, token)
	if resp, err := http.Get(url + "/api"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /api without the token: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	run := exec.Command(phobosBin, "run", "W5", "--cluster", url, "-reps", "3", "-warmup", "1")
	run.Env = append(os.Environ(), rpc.TokenEnv+"="+token)
	run.Stderr = logs
	line, err := run.Output()
	if err != nil {
		t.Fatalf("phobos run W5 --cluster: %v", err)
	}
	var rec struct {
		Status     string  `json:"status"`
		WallS      float64 `json:"wall_s"`
		Result     float64 `json:"result"`
		ChunkOps   int     `json:"chunk_ops"`
		MovedBytes *int64  `json:"moved_bytes"`
		Cluster    string  `json:"cluster"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	t.Logf("W5 (2e6 elements, chunks of 100) on phobos cluster --workers 2: %.3f s median wall, %d chunk ops", rec.WallS, rec.ChunkOps)
	if rec.Status != "ok" || rec.Result != 4e6 || rec.MovedBytes == nil || rec.Cluster != url {
		t.Fatalf("phobos run --cluster: %s", line)
	}
	if rec.WallS > 10 {
		t.Errorf("W5 took %.2f s on the cluster (target 2.4 s)", rec.WallS)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("phobos cluster exited with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("phobos cluster did not stop within 20 s of SIGTERM")
	}
	// The children are gone: nothing answers at the URL.
	if resp, err := http.Get(url + "/api"); err == nil {
		resp.Body.Close()
		t.Fatalf("the web service still answers after the cluster stopped")
	}
}

// checkTokenHidden fails t if token is on the command line or in the
// environment of any process this user can see, as ps shows them (ps
// -eww prints both).
func checkTokenHidden(t *testing.T, token string) {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(procs) == 0 {
		t.Skipf("no /proc to look for the token in: %v", err)
	}
	seen := 0
	for _, p := range procs {
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(filepath.Join(p, f))
			if err != nil {
				continue // gone, or another user's
			}
			seen++
			if strings.Contains(string(b), token) {
				t.Errorf("the cluster's token is in %s/%s: %q", p, f, b)
			}
		}
	}
	if out, err := exec.Command("ps", "-eww", "-o", "pid,args").Output(); err == nil && strings.Contains(string(out), token) {
		t.Errorf("the cluster's token shows in ps -eww")
	}
	t.Logf("the token is in none of %d command lines and environments", seen)
}

// TestClusterResultsSurviveWorkerDeath: the results of a finished graph
// that sat on a worker killed afterwards are recomputed from their lineage
// on the other worker; fetching them waits for that and gets the same bytes.
func TestClusterResultsSurviveWorkerDeath(t *testing.T) {
	c := startCluster(t, 2, map[string][]string{"scheduler": {"--heartbeat-timeout", "900ms"}})
	a := api{t: t, base: c.URL}
	x := tensor.NewGenerator(5).Rand([]int{600, 600}, tensor.Chunks(100)).Mul(2)
	tg, ids, err := tensor.Build(x)
	if err != nil {
		t.Fatal(err)
	}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	st := a.json("POST", "/api/sessions/"+sid+"/graphs", submitBody(t, tg, ids), 201)
	gurl := st["url"].(string)
	if st = waitState(a, gurl, 20*time.Second); st["state"] != "SUCCEEDED" {
		t.Fatalf("graph: %v", st)
	}
	before := fetchNpy(a, gurl+"/results/0")
	eventually(t, 10*time.Second, "worker 1 holding result chunks", func() bool {
		ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
		return ws[1].(map[string]any)["store_chunks"].(float64) > 0
	})
	if err := c.Kill("worker-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "worker 1 marked dead", func() bool {
		ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
		return ws[1].(map[string]any)["alive"] == false
	})
	after := fetchNpy(a, gurl+"/results/0")
	sameArray(t, "result after its worker died", after, before)
	if st := a.json("GET", gurl, nil, 200); st["recomputed"].(float64) == 0 {
		t.Errorf("graph after the death: %v, want recomputed chunks", st)
	}
}

// loseWorkerMidGraph runs (x@x).sum() on a two-worker cluster (heartbeats
// every 300 ms, so the test sees worker 1 busy and its loss sooner), calls
// lose once worker 1 is running ops, and checks the graph still ends with
// the local session's result. It returns the cluster, the session and the
// graph's stats for the caller's own checks.
func loseWorkerMidGraph(t *testing.T, lose func(c *cluster.ProcCluster) error) (*cluster.ProcCluster, *phobos.Session, phobos.Stats) {
	t.Helper()
	c := startCluster(t, 2, map[string][]string{"scheduler": {"--heartbeat-timeout", "900ms"}})
	ctx := context.Background()
	sess, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	x := tensor.NewGenerator(2).Rand([]int{3000, 3000}, tensor.Chunks(300))
	expr := x.MatMul(x).Sum()
	type outcome struct {
		v   float64
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := sess.ExecuteScalar(ctx, expr)
		done <- outcome{v, err}
	}()
	a := api{t: t, base: c.URL}
	eventually(t, 20*time.Second, "worker 1 running ops", func() bool {
		ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
		return ws[1].(map[string]any)["running"].(float64) > 0
	})
	if err := lose(c); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the graph did not finish within 60 s of losing worker 1")
	}
	t.Logf("graph ended %v after losing worker 1: %v, %v", time.Since(t0).Round(time.Millisecond), got.v, got.err)
	if got.err != nil {
		t.Fatalf("graph after losing worker 1: %v", got.err)
	}
	st := sess.Stats()
	local, err := phobos.NewSession(phobos.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, err := local.ExecuteScalar(ctx, expr)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.v-want) > 1e-9*math.Abs(want) {
		t.Errorf("result after losing worker 1 %v, local session %v", got.v, want)
	}
	return c, sess, st
}

// TestClusterWorkerDeath: a worker killed without warning is marked dead
// after the heartbeat timeout; the graph it was working on carries on with
// the other worker, which recomputes the lost chunks from their lineage,
// and the cluster takes new graphs.
func TestClusterWorkerDeath(t *testing.T) {
	c, sess, st := loseWorkerMidGraph(t, func(c *cluster.ProcCluster) error { return c.Kill("worker-1") })
	// Worker 1 had been generating chunks of x that later block products
	// still needed: they were recomputed on worker 0.
	if st.Recomputed == 0 || st.PeakBytes == 0 {
		t.Errorf("stats %+v: want chunks recomputed after the death and the stores' peak", st)
	}
	a := api{t: t, base: c.URL}
	ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
	if w := ws[1].(map[string]any); w["alive"] != false || !strings.Contains(w["dead_reason"].(string), "no heartbeat") {
		t.Errorf("worker 1: %v", w)
	}
	v, err := sess.ExecuteScalar(context.Background(), tensor.NewGenerator(2).Rand([]int{1000}, tensor.Chunks(100)).Mul(0).Add(1).Sum())
	if err != nil || v != 1000 {
		t.Fatalf("after the death: %v, %v", v, err)
	}
}

// TestClusterWorkerLeaves: a worker stopped cleanly (SIGTERM) deregisters
// before it exits, so the scheduler takes it out of service at once, with
// the reason, rather than after the heartbeat timeout.
func TestClusterWorkerLeaves(t *testing.T) {
	loseWorkerMidGraph(t, func(c *cluster.ProcCluster) error {
		if err := c.StopChild("worker-1"); err != nil {
			return err
		}
		// Deregistration happened before the process exited.
		a := api{t: t, base: c.URL}
		ws := a.json("GET", "/api/workers", nil, 200)["workers"].([]any)
		if w := ws[1].(map[string]any); w["alive"] != false || !strings.Contains(w["dead_reason"].(string), "worker left") {
			t.Errorf("worker 1 right after it stopped: %v", w)
		}
		return nil
	})
}

// TestClusterToken: a cluster launched with a token passes it to its roles
// (in their environment); REST requests without it get 401 and a JSON error,
// and a session with it runs a graph across the worker processes.
func TestClusterToken(t *testing.T) {
	const token = "process-t0ken"
	c := startClusterWith(t, 2, nil, token, rpc.TLSFiles{})
	a := api{t: t, base: c.URL}
	a.wantError("GET", "/api/workers", nil, 401, "needs a token")
	ctx := context.Background()
	sess, err := phobos.Connect(ctx, c.URL, phobos.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := tensor.NewGenerator(4).Rand([]int{800, 800}, tensor.Chunks(200))
	v, err := sess.ExecuteScalar(ctx, x.Add(x.Transpose()).Sum())
	if err != nil {
		t.Fatalf("graph with the token: %v", err)
	}
	local, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, err := local.ExecuteScalar(ctx, x.Add(x.Transpose()).Sum())
	if err != nil || math.Abs(v-want) > 1e-9*math.Abs(want) {
		t.Fatalf("cluster %v, local %v (%v)", v, want, err)
	}
}

// TestClusterTLS: a cluster of processes launched with certificates serves
// HTTPS on every role and its roles talk HTTPS to each other; a session
// trusting the CA runs a graph across the workers, one that does not is
// refused.
func TestClusterTLS(t *testing.T) {
	f, err := pki.Write(t.TempDir(), pki.Loopback, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	c := startClusterWith(t, 2, nil, "", files)
	for _, u := range append([]string{c.URL, c.SchedulerURL}, c.WorkerURLs...) {
		if !strings.HasPrefix(u, "https://") {
			t.Fatalf("role at %s: want https://", u)
		}
	}
	ctx := context.Background()
	if _, err := phobos.Connect(ctx, c.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("Connect without trusting the CA: %v", err)
	}
	cli, err := files.Client()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := phobos.Connect(ctx, c.URL, phobos.WithTLSConfig(cli))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := tensor.NewGenerator(6).Rand([]int{800, 800}, tensor.Chunks(200))
	v, err := sess.ExecuteScalar(ctx, x.Add(x.Transpose()).Sum())
	if err != nil {
		t.Fatalf("graph over TLS: %v", err)
	}
	local, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, err := local.ExecuteScalar(ctx, x.Add(x.Transpose()).Sum())
	if err != nil || math.Abs(v-want) > 1e-9*math.Abs(want) {
		t.Fatalf("cluster %v, local %v (%v)", v, want, err)
	}
	if st := sess.Stats(); st.MovedBytes == 0 {
		t.Errorf("stats %+v: want chunks read across workers (over TLS)", st)
	}
}

// TestClusterSortSurvivesWorkerDeath: a sort on 3 workers, one of them
// killed once the shuffle has begun (pieces of the sorted chunks are in the
// stores): the pieces and parts it held are recomputed from their lineage
// and the result is the local session's, element for element.
func TestClusterSortSurvivesWorkerDeath(t *testing.T) {
	c := startCluster(t, 3, map[string][]string{"scheduler": {"--heartbeat-timeout", "900ms"}})
	ctx := context.Background()
	sess, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	const n, chunk = 20_000_000, 1_000_000
	x := tensor.NewGenerator(8).Normal(0, 1, []int{n}, tensor.Chunks(chunk))
	s := x.Sort(0)
	type outcome struct {
		v   []*ndarray.Array
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := sess.Execute(ctx, s)
		done <- outcome{v, err}
	}()
	a := api{t: t, base: c.URL}
	// 20 sorted chunks, their samples and bounds are 60 chunks; more means
	// pieces of the shuffle exist.
	eventually(t, 60*time.Second, "the shuffle under way", func() bool {
		total := 0
		for _, w := range a.json("GET", "/api/workers", nil, 200)["workers"].([]any) {
			total += int(w.(map[string]any)["store_chunks"].(float64))
		}
		return total > 90
	})
	if err := c.Kill("worker-1"); err != nil {
		t.Fatal(err)
	}
	var got outcome
	select {
	case got = <-done:
	case <-time.After(120 * time.Second):
		t.Fatal("the sort did not finish within 120 s of losing worker 1")
	}
	if got.err != nil {
		t.Fatalf("sort after losing worker 1: %v", got.err)
	}
	local, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, err := local.Execute(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, "sort after a worker death", got.v[0], want[0])
	if st := sess.Stats(); st.Recomputed == 0 {
		t.Errorf("no chunk was recomputed after killing worker 1 mid-shuffle: stats %+v", st)
	}
}
