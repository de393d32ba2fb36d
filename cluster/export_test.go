package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
)

// OneProcessClient is a REST client of a one-process cluster with a
// session of its own, for the tests of this package and of cluster_test.
type OneProcessClient struct {
	C        *OneProcess
	Programs string // the session's programs path
	tb       testing.TB
	hc       *http.Client
}

// StartOneProcess launches a one-process cluster of workers workers,
// stopped when tb ends, and opens a session on it.
func StartOneProcess(tb testing.TB, workers int) *OneProcessClient {
	tb.Helper()
	const token = "one-process-test-token"
	c, err := LaunchOneProcess(context.Background(), OneProcessConfig{Workers: workers, Memory: 256 << 20, Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
	})
	hc, err := NewClient(token, rpc.TLSFiles{})
	if err != nil {
		tb.Fatal(err)
	}
	oc := &OneProcessClient{tb: tb, C: c, hc: hc}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(oc.Do("POST", "/api/sessions", "", http.StatusCreated), &sess); err != nil {
		tb.Fatal(err)
	}
	oc.Programs = "/api/sessions/" + sess.SessionID + "/programs"
	return oc
}

// Do sends a request to the cluster and returns its response's body,
// failing the test unless the status is want.
func (oc *OneProcessClient) Do(method, path, body string, want int) []byte {
	oc.tb.Helper()
	req, err := http.NewRequest(method, oc.C.URL+path, strings.NewReader(body))
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

// Trivial is sum(2 * arange(n)) submitted as one request; its value.
func (oc *OneProcessClient) Trivial(n int) int64 {
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
	if err := json.Unmarshal(oc.Do("POST", oc.Programs, body, http.StatusCreated), &g); err != nil {
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
