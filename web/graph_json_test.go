package web

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// The hand-written answer is byte for byte encoding/json's, for graphs
// as the service makes them and for any strings and numbers.
func TestGraphJSONAsEncodingJSON(t *testing.T) {
	check := func(t interface {
		Helper()
		Fatalf(string, ...any)
	}, g GraphJSON) {
		t.Helper()
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(g); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		got := append(g.appendJSON(nil), '\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("hand-written:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
	for _, g := range []GraphJSON{
		{},
		{Progress: map[string]int64{}, Results: []ResultJSON{}},
		{SessionID: "s1", GraphID: "g7", URL: "/api/sessions/s1/graphs/g7", State: "SUCCEEDED",
			Progress: map[string]int64{"RUNNING": 0, "FINISHED": 3, "WAITING": -1, "READY": 1 << 40}, ChunkOps: 3, MovedBytes: 8, Recomputed: 1,
			PrepareMs: 2, RunMs: 9, Released: true,
			Results: []ResultJSON{{Index: 0, Shape: []int64{}, DType: "int64", Chunks: 1, URL: "/api/sessions/s1/graphs/g7/results/0", Data: "k05VTVBZAQB2AHsn"},
				{Index: 1, Shape: []int64{3, 4}, DType: "<f8", Chunks: 2, URL: "u"}, {Index: 2}}},
		{State: "FAILED", Error: `op "add" <x> & 'y'` + "\n\t\x01\u2028\u00e9\xff"},
	} {
		check(t, g)
	}
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ -~]{0,12}`))
		var g GraphJSON
		g.SessionID, g.GraphID, g.URL, g.State, g.Error = str.Draw(t, "sid"), str.Draw(t, "gid"), str.Draw(t, "url"), str.Draw(t, "state"), str.Draw(t, "error")
		if rapid.Bool().Draw(t, "progress") {
			g.Progress = rapid.MapOf(str, rapid.Int64()).Draw(t, "progress map")
		}
		g.ChunkOps, g.MovedBytes, g.Recomputed = rapid.Int64().Draw(t, "ops"), rapid.Int64().Draw(t, "moved"), rapid.Int64().Draw(t, "recomputed")
		g.PrepareMs, g.RunMs, g.Released = rapid.Int64().Draw(t, "prep"), rapid.Int64().Draw(t, "run"), rapid.Bool().Draw(t, "released")
		if rapid.Bool().Draw(t, "results") {
			n := rapid.IntRange(0, 3).Draw(t, "n")
			g.Results = make([]ResultJSON, n)
			for i := range g.Results {
				r := &g.Results[i]
				r.Index, r.Chunks = rapid.Int().Draw(t, "index"), rapid.Int().Draw(t, "chunks")
				if rapid.Bool().Draw(t, "shape") {
					r.Shape = rapid.SliceOf(rapid.Int64()).Draw(t, "dims")
				}
				r.DType, r.URL, r.Data = str.Draw(t, "dtype"), str.Draw(t, "rurl"), str.Draw(t, "data")
			}
		}
		check(t, g)
	})
}
