package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/phobos-tensor/phobos/storage"
	"time"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

func BenchmarkTaskEnded(b *testing.B) {
	m := NewWorker()
	t := &protocol.Task{Op: ops.Fused{}}
	res := protocol.Result{Outcome: protocol.Succeeded}
	b.ReportAllocs()
	for b.Loop() {
		m.TaskEnded(t, res, 3*time.Microsecond)
	}
}

// TestTaskEndedCounts: each end is counted under its op type and outcome,
// and only ran ops are timed.
func TestTaskEndedCounts(t *testing.T) {
	m := NewWorker()
	if err := m.Register(3, idle{}); err != nil {
		t.Fatal(err)
	}
	fused, full := &protocol.Task{Op: ops.Fused{}}, &protocol.Task{Op: ops.ArgsortBounds{}}
	for range 3 {
		m.TaskEnded(fused, protocol.Result{Outcome: protocol.Succeeded}, time.Millisecond)
	}
	m.TaskEnded(fused, protocol.Result{Outcome: protocol.Failed}, time.Millisecond)
	m.TaskEnded(full, protocol.Result{Outcome: protocol.Cancelled}, 0)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	timed := map[string]uint64{}
	for _, f := range fams {
		for _, x := range f.Metric {
			var op, outcome string
			for _, l := range x.Label {
				switch l.GetName() {
				case "op":
					op = l.GetValue()
				case "outcome":
					outcome = l.GetValue()
				}
			}
			switch f.GetName() {
			case "phobos_worker_chunk_ops_total":
				got[op+"/"+outcome] = x.GetCounter().GetValue()
			case "phobos_worker_chunk_op_duration_seconds":
				timed[op] = x.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[string]float64{"fuse/succeeded": 3, "fuse/failed": 1, "fuse/cancelled": 0, "argsort_bounds/succeeded": 0, "argsort_bounds/failed": 0, "argsort_bounds/cancelled": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) || timed["fuse"] != 4 || timed["argsort_bounds"] != 0 {
		t.Errorf("series %v, timed %v: want exactly %v, fuse timed 4 times, argsort_bounds never", got, timed, want)
	}
}

type idle struct{}

func (idle) Load() (slots, running, queued int) { return 1, 0, 0 }
func (idle) StoreStats() storage.Stats          { return storage.Stats{} }

// TestInstrument: requests are counted by the route pattern the mux inside
// matched, never by the raw path; a request refused before routing counts
// as route "none", an odd method as "other", an aborted response as
// "aborted".
func TestInstrument(t *testing.T) {
	w := NewWeb(nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/sessions/{sid}", func(rw http.ResponseWriter, r *http.Request) { rw.WriteHeader(http.StatusTeapot) })
	mux.HandleFunc("POST /abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	refuse := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Refuse") != "" {
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(rw, r)
	})
	h := w.Instrument(refuse)
	do := func(method, path string, refused bool) {
		req := httptest.NewRequest(method, path, nil)
		if refused {
			req.Header.Set("X-Refuse", "1")
		}
		func() {
			defer func() { _ = recover() }()
			h.ServeHTTP(httptest.NewRecorder(), req)
		}()
	}
	for i := range 3 {
		do(http.MethodGet, fmt.Sprintf("/api/sessions/s%d", i), false)
	}
	do(http.MethodGet, "/api/sessions/x", true)
	do("BREW", "/nowhere", false)
	do(http.MethodPost, "/abort", false)
	fams, err := w.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "phobos_http_requests_total" {
			continue
		}
		for _, m := range f.Metric {
			l := map[string]string{}
			for _, p := range m.Label {
				l[p.GetName()] = p.GetValue()
			}
			got[l["role"]+" "+l["route"]+" "+l["method"]+" "+l["code"]] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"web GET /api/sessions/{sid} GET 418": 3,
		"web none GET 401":                    1,
		"web none other 404":                  1, // no pattern took it
		"web POST /abort POST aborted":        1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests counted %v, want %v", got, want)
	}
}
