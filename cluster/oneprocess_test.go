package cluster_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// A cluster in one process computes as one of processes does: small
// graphs answered in one request, on one worker and across two (a
// program whose chunks spread over both, summed from both), values
// checked against sums computed here.
func TestOneProcessCluster(t *testing.T) {
	for _, workers := range []int{1, 2} {
		oc := cluster.StartOneProcess(t, workers)
		for _, n := range []int{1, 7, 100, 1000} {
			want := int64(n) * int64(n-1)
			if got := oc.Trivial(n); got != want {
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
		if err := json.Unmarshal(oc.Do("POST", oc.Programs, body, http.StatusCreated), &g); err != nil {
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
	oc := cluster.StartOneProcess(b, 1)
	for range 20 {
		oc.Trivial(100)
	}
	b.ResetTimer()
	for range b.N {
		if oc.Trivial(100) != 9900 {
			b.Fatal("wrong sum")
		}
	}
}
