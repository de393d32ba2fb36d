package cluster_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
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
