package cluster

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// A worker of the scheduler's own process takes its tasks' ops as they
// are: none is decoded (its op cache, which serves workers elsewhere,
// rpc.OpCache, stays empty), and the values stay right (sums of
// 2*arange(n) checked for several n, each run twice).
func TestWorkerOfTheProcessDecodesNoOps(t *testing.T) {
	oc := StartOneProcess(t, 1)
	sum := func(n int) int64 {
		t.Helper()
		body := `{"program":{"nodes":[{"fn":"arange","args":[0,` + strconv.Itoa(n) + `,1]},{"fn":"multiply","args":[{"ref":0},2]},{"fn":"sum","args":[{"ref":1}]}]},` +
			`"results":[2],"wait":30,"inline":65536,"release":true}`
		var g struct {
			State   string `json:"state"`
			Results []struct {
				Data string `json:"data"`
			} `json:"results"`
		}
		if err := json.Unmarshal(oc.Do("POST", oc.Programs, body, http.StatusCreated), &g); err != nil {
			t.Fatal(err)
		}
		if g.State != "SUCCEEDED" || len(g.Results) != 1 {
			t.Fatalf("n=%d: %+v", n, g)
		}
		raw, err := base64.StdEncoding.DecodeString(g.Results[0].Data)
		if err != nil {
			t.Fatal(err)
		}
		a, err := npy.Read(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		return a.Int64s()[0]
	}
	w := oc.C.workers[0]
	for _, n := range []int{1, 7, 100, 1000} {
		want := int64(n) * int64(n-1)
		if got := sum(n); got != want {
			t.Errorf("sum(2*arange(%d)) = %d, want %d", n, got, want)
		}
		if got := sum(n); got != want {
			t.Errorf("again: sum(2*arange(%d)) = %d, want %d", n, got, want)
		}
		if decoded, hits := w.ops.Len(), w.ops.Hits(); decoded != 0 || hits != 0 {
			t.Errorf("n=%d: the worker decoded %d ops (%d from its cache)", n, decoded, hits)
		}
	}
}
