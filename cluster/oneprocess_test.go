package cluster_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
)

// oneProcessClient is a REST client of a one-process cluster with a
// session of its own.
type oneProcessClient struct {
	tb       testing.TB
	c        *cluster.OneProcess
	hc       *http.Client
	programs string
}

func startOneProcess(tb testing.TB, workers int) *oneProcessClient {
	tb.Helper()
	const token = "one-process-test-token"
	c, err := cluster.LaunchOneProcess(context.Background(), cluster.OneProcessConfig{Workers: workers, Memory: 256 << 20, Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
	})
	hc, err := cluster.NewClient(token, rpc.TLSFiles{})
	if err != nil {
		tb.Fatal(err)
	}
	oc := &oneProcessClient{tb: tb, c: c, hc: hc}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(oc.do("POST", "/api/sessions", "", http.StatusCreated), &sess); err != nil {
		tb.Fatal(err)
	}
	oc.programs = "/api/sessions/" + sess.SessionID + "/programs"
	return oc
}

func (oc *oneProcessClient) do(method, path, body string, want int) []byte {
	oc.tb.Helper()
	req, err := http.NewRequest(method, oc.c.URL+path, strings.NewReader(body))
	if err != nil {
		oc.tb.Fatal(err)
	}
	resp, err := oc.hc.Do(req)
	if err != nil {
		oc.tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		oc.tb.Fatal(err)
	}
	if resp.StatusCode != want {
		oc.tb.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	return b
}

// trivial is sum(2 * arange(n)) submitted as one request; its value.
func (oc *oneProcessClient) trivial(n int) int64 {
	oc.tb.Helper()
	body := `{"program":{"nodes":[{"fn":"arange","args":[0,` + strconv.Itoa(n) + `,1]},{"fn":"multiply","args":[{"ref":0},2]},{"fn":"sum","args":[{"ref":1}]}]},` +
		`"results":[2],"wait":5,"inline":65536,"release":true}`
	var g struct {
		State    string `json:"state"`
		Released bool   `json:"released"`
		Results  []struct {
			Data string `json:"data"`
		} `json:"results"`
	}
	if err := json.Unmarshal(oc.do("POST", oc.programs, body, http.StatusCreated), &g); err != nil {
		oc.tb.Fatal(err)
	}
	if g.State != "SUCCEEDED" || !g.Released || len(g.Results) != 1 || g.Results[0].Data == "" {
		oc.tb.Fatalf("answer %+v: want a released success with its result inline", g)
	}
	raw, err := base64.StdEncoding.DecodeString(g.Results[0].Data)
	if err != nil {
		oc.tb.Fatal(err)
	}
	a, err := npy.Read(strings.NewReader(string(raw)))
	if err != nil {
		oc.tb.Fatal(err)
	}
	return a.Int64s()[0]
}

// A cluster in one process computes as one of processes does: small
// graphs answered in one request, on one worker and across two (a
// program whose chunks spread over both, summed from both), values
// checked against sums computed here.
func TestOneProcessCluster(t *testing.T) {
	for _, workers := range []int{1, 2} {
		oc := startOneProcess(t, workers)
		for _, n := range []int{1, 7, 100, 1000} {
			want := int64(n) * int64(n-1)
			if got := oc.trivial(n); got != want {
				t.Errorf("%d workers: sum(2*arange(%d)) = %d, want %d", workers, n, got, want)
			}
		}
		// chunks of 3 over 1000 elements: 334 chunk ops spread over the
		// workers, their partial sums read across them.
		body := `{"program":{"nodes":[{"fn":"arange","args":[0,1000,1],"kwargs":{"chunks":3}},{"fn":"sum","args":[{"ref":0}]}]},` +
			`"results":[1],"wait":30,"inline":65536,"release":true}`
		var g struct {
			State   string `json:"state"`
			Results []struct {
				Data string `json:"data"`
			} `json:"results"`
		}
		if err := json.Unmarshal(oc.do("POST", oc.programs, body, http.StatusCreated), &g); err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(g.Results[0].Data)
		if err != nil {
			t.Fatal(err)
		}
		a, err := npy.Read(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Int64s()[0]; got != 999*1000/2 {
			t.Errorf("%d workers: sum(arange(1000)) in chunks of 3 = %d, want %d", workers, got, 999*1000/2)
		}
	}
}

// BenchmarkOneProcessRoundTrip is the trivial graph of issue 31 from a Go
// HTTP client, one request each, on a one-process cluster.
func BenchmarkOneProcessRoundTrip(b *testing.B) {
	oc := startOneProcess(b, 1)
	for range 20 {
		oc.trivial(100)
	}
	b.ResetTimer()
	for range b.N {
		if oc.trivial(100) != 9900 {
			b.Fatal("wrong sum")
		}
	}
}
