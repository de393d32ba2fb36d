package cluster_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
)

// A program submitted with wait, inline and release is one request: the
// answer holds the graph's end state and its small results as .npy, and
// the graph is gone after it. A result above the inline bound is left to
// fetch, and the graph stays until it is deleted.
func TestProgramInlineResults(t *testing.T) {
	_, _, wp := startRoles(t, cluster.SchedulerConfig{}, nil, 2)
	do := func(method, path, body string, want int) []byte {
		t.Helper()
		req, err := http.NewRequest(method, wp.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
		}
		return b
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(do("POST", "/api/sessions", "", http.StatusCreated), &sess); err != nil {
		t.Fatal(err)
	}
	programs := "/api/sessions/" + sess.SessionID + "/programs"
	type graphJSON struct {
		URL      string `json:"url"`
		State    string `json:"state"`
		Released bool   `json:"released"`
		Results  []struct {
			URL  string `json:"url"`
			Data string `json:"data"`
		} `json:"results"`
	}
	submit := func(body string) graphJSON {
		t.Helper()
		var g graphJSON
		if err := json.Unmarshal(do("POST", programs, body, http.StatusCreated), &g); err != nil {
			t.Fatal(err)
		}
		if g.State != "SUCCEEDED" {
			t.Fatalf("state %s after waiting for the graph", g.State)
		}
		return g
	}

	// sum(2 * arange(n)), an int64, and its value, computed here.
	const n = 100
	var want int64
	for i := range int64(n) {
		want += 2 * i
	}
	g := submit(`{"program":{"nodes":[{"fn":"arange","args":[0,100,1]},{"fn":"multiply","args":[{"ref":0},2]},{"fn":"sum","args":[{"ref":1}]}]},
		"results":[2],"wait":60,"inline":65536,"release":true}`)
	if !g.Released || len(g.Results) != 1 || g.Results[0].Data == "" {
		t.Fatalf("small result: released %v, results %+v; want it inline and the graph released", g.Released, g.Results)
	}
	raw, err := base64.StdEncoding.DecodeString(g.Results[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := npy.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if a.DType() != ndarray.Int64 || a.Size() != 1 || a.Int64s()[0] != want {
		t.Fatalf("inline result %v, want %v", a, want)
	}
	do("GET", g.URL, "", http.StatusNotFound)

	// 1000 float64 are 8000 bytes, above an inline bound of 1000.
	g = submit(`{"program":{"nodes":[{"fn":"ones","args":[[1000]]}]},"results":[0],"wait":60,"inline":1000,"release":true}`)
	if g.Released || g.Results[0].Data != "" {
		t.Fatalf("big result: released %v, data %d bytes; want it left to fetch", g.Released, len(g.Results[0].Data))
	}
	a, err = npy.Read(bytes.NewReader(do("GET", g.Results[0].URL, "", http.StatusOK)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Size() != 1000 || a.Float64s()[999] != 1 {
		t.Fatalf("fetched result: %d elements, want 1000 ones", a.Size())
	}
	do("DELETE", g.URL, "", http.StatusOK)

	for _, bad := range []string{`"inline":-1`, `"inline":1e9`, `"wait":-2`} {
		do("POST", programs, `{"program":{"nodes":[{"fn":"ones","args":[[3]]}]},"results":[0],`+bad+`}`, http.StatusBadRequest)
	}
}

// A program's files are checked once: a file source is checked by the
// worker that opens it, and nothing checks it again (no check request at
// all for a program that only reads); a path written, which no worker
// opened, is checked once.
func TestProgramFilesCheckedOnce(t *testing.T) {
	root := t.TempDir()
	_, ws, wp := startRoles(t, cluster.SchedulerConfig{}, func(_ int, cfg *cluster.WorkerConfig) { cfg.DataRoots = []string{root} }, 1)
	a, err := ndarray.New(ndarray.Float64, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Float64s() {
		a.Float64s()[i] = float64(i)
	}
	in := filepath.Join(root, "in.npy")
	if err := npy.WriteFile(in, a); err != nil {
		t.Fatal(err)
	}
	requests := func(route string) int {
		t.Helper()
		resp, err := http.Get(ws[0].URL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "phobos_http_requests_total{") && strings.Contains(line, `route="`+route+`"`) {
				f := strings.Fields(line)
				v, err := strconv.Atoi(f[len(f)-1])
				if err != nil {
					t.Fatalf("metrics line %q: %v", line, err)
				}
				n += v
			}
		}
		return n
	}
	post := func(body string) {
		t.Helper()
		resp, err := http.Post(wp.URL()+"/api/sessions", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		var sess struct {
			SessionID string `json:"session_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&sess)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		resp, err = http.Post(wp.URL()+"/api/sessions/"+sess.SessionID+"/programs", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || !strings.Contains(string(b), `"SUCCEEDED"`) {
			t.Fatalf("program: %d %s", resp.StatusCode, b)
		}
	}
	checks, sources := requests("POST "+rpc.CheckPath), requests("POST "+rpc.SourcePath)
	post(`{"program":{"nodes":[{"fn":"from_npy","args":[` + strconv.Quote(in) + `]},{"fn":"sum","args":[{"ref":0}]}]},"results":[1],"wait":60}`)
	if got := requests("POST " + rpc.SourcePath); got != sources+1 {
		t.Errorf("reading a file: %d source requests, want 1", got-sources)
	}
	if got := requests("POST " + rpc.CheckPath); got != checks {
		t.Errorf("reading a file: %d check requests after the worker opened it, want none", got-checks)
	}
	out := filepath.Join(root, "out.npy")
	post(`{"program":{"nodes":[{"fn":"from_npy","args":[` + strconv.Quote(in) + `]},{"fn":"to_npy","args":[{"ref":0},` + strconv.Quote(out) + `]}]},"results":[1],"wait":60}`)
	if got := requests("POST " + rpc.CheckPath); got != checks+1 {
		t.Errorf("writing a file: %d check requests, want 1", got-checks)
	}
	b, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != 6 || b.Float64s()[5] != 5 {
		t.Fatalf("written file holds %v", b)
	}
}
