//go:build linux

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// fakeRun is a graph's result as the scheduler reports it: which chunk is
// computed on which worker (-1: not yet), whether the graph failed.
type fakeRun struct {
	phobosv1connect.GraphServiceClient
	mu     sync.Mutex
	lay    *pb.ResultLayout // every chunk, with the URLs of workers[where]
	where  []int
	urls   []string // per worker
	failed bool
}

func (f *fakeRun) set(j, w int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.where[j] = w
}

func (f *fakeRun) GetResult(_ context.Context, req *connect.Request[pb.GetResultRequest]) (*connect.Response[pb.ResultLayout], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed {
		return nil, connect.NewError(connect.CodeAborted, fmt.Errorf("graph failed"))
	}
	partial := req.Header().Get(rpc.PartialResultHeader) != ""
	out := &pb.ResultLayout{Shape: f.lay.Shape, Dtype: f.lay.Dtype, Nsplits: f.lay.Nsplits}
	for j, c := range f.lay.Chunks {
		w := f.where[j]
		if w < 0 && !partial {
			return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph running"))
		}
		loc := &pb.ChunkLocation{Graph: c.Graph, Node: c.Node, Worker: -1, Shape: c.Shape}
		if w >= 0 {
			loc.Worker, loc.Url = int32(w), f.urls[w]+rpc.ChunkPath(protocol.ChunkKey{Graph: protocol.GraphID(c.Graph), Node: c.Node})
		}
		out.Chunks = append(out.Chunks, loc)
	}
	return connect.NewResponse(out), nil
}

// fakeWorker serves POST .../into for its chunks and counts the copies.
type fakeWorker struct {
	srv    *httptest.Server
	mu     sync.Mutex
	chunks map[int32]*ndarray.Array
	copies map[int32]int
	copied chan int32
}

func newFakeWorker(t *testing.T, chunks map[int32]*ndarray.Array) *fakeWorker {
	fw := &fakeWorker{chunks: chunks, copies: map[int32]int{}, copied: make(chan int32, 64)}
	into := rpc.ChunkIntoHandler(func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
		return fw.chunks[k.Node], nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chunks/{graph}/{node}/into", func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		into.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		if rec.Code == http.StatusNoContent {
			var n int32
			fmt.Sscanf(r.PathValue("node"), "%d", &n)
			fw.mu.Lock()
			fw.copies[n]++
			fw.mu.Unlock()
			fw.copied <- n
		}
	})
	fw.srv = httptest.NewServer(mux)
	t.Cleanup(fw.srv.Close)
	return fw
}

func (fw *fakeWorker) count(n int32) int {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.copies[n]
}

// streamSetup is a 4 x 6 float64 result in 2 x 2 chunks of 2 x 3, a
// worker A holding chunks whose chunk 0 is stale (as a write cut short by
// its death would leave it), a worker B holding them all right, and a
// result file.
func streamSetup(t *testing.T) (full *ndarray.Array, run *fakeRun, a, b *fakeWorker, path string) {
	t.Helper()
	if _, err := os.Stat(rpc.ResultFileDir); err != nil {
		t.Skipf("no %s", rpc.ResultFileDir)
	}
	full, _ = ndarray.New(ndarray.Float64, 4, 6)
	for i := range full.Size() {
		full.SetFlat(i, float64(i)+0.5)
	}
	good := map[int32]*ndarray.Array{}
	stale := map[int32]*ndarray.Array{}
	lay := &pb.ResultLayout{Dtype: "float64", Shape: []int64{4, 6}, Nsplits: []*pb.Splits{{Sizes: []int64{2, 2}}, {Sizes: []int64{3, 3}}}}
	for j := range int32(4) {
		r0, c0 := int(j/2)*2, int(j%2)*3
		v, _ := full.Slice([]ndarray.Range{{Start: r0, Step: 1, Len: 2}, {Start: c0, Step: 1, Len: 3}})
		good[j] = v
		stale[j] = v
		lay.Chunks = append(lay.Chunks, &pb.ChunkLocation{Graph: 7, Node: j, Shape: []int64{2, 3}})
	}
	bad, _ := ndarray.New(ndarray.Float64, 2, 3)
	for i := range bad.Size() {
		bad.SetFlat(i, -1)
	}
	stale[0] = bad
	a, b = newFakeWorker(t, stale), newFakeWorker(t, good)
	run = &fakeRun{lay: lay, where: []int{-1, -1, -1, -1}, urls: []string{a.srv.URL, b.srv.URL}}
	f, err := os.CreateTemp(rpc.ResultFileDir, rpc.ResultFilePrefix+"streamtest-*")
	if err != nil {
		t.Fatal(err)
	}
	path = f.Name()
	t.Cleanup(func() { os.Remove(path) })
	if err := f.Truncate(int64(full.Nbytes())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return full, run, a, b, path
}

func readResultFile(t *testing.T, path string) []float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ndarray.Wrap(ndarray.Float64, []int{4, 6}, raw)
	if err != nil {
		t.Fatal(err)
	}
	return got.Float64s()
}

// fetchInto is the client's POST .../results/0/into at the graph's end.
func fetchInto(t *testing.T, s *Server, path string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/sessions/s1/graphs/g1/results/0/into", strings.NewReader(fmt.Sprintf(`{"path": %q}`, path)))
	r.RemoteAddr = "127.0.0.1:5000"
	r.SetPathValue("sid", "s1")
	r.SetPathValue("gid", "g1")
	r.SetPathValue("i", "0")
	w := httptest.NewRecorder()
	if err := s.resultInto(w, r); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusNoContent {
		t.Fatalf("into: %d %s", w.Code, w.Body)
	}
}

// A result chunk reaches the client's file while its graph runs (the
// other chunks not yet computed); a chunk computed again on another
// worker after the first one died is written again from there, over
// what the dead worker left; the fetch at the end leaves the file equal
// to the result and no chunk is copied twice from one place.
func TestStreamIntoWhileRunning(t *testing.T) {
	full, run, a, b, path := streamSetup(t)
	s := New(Config{HTTP: http.DefaultClient, Graphs: run})
	s.streamInto("s1", "g1", []string{path})

	// Chunk 0 is computed on worker A (which will die): it is written
	// into the file while chunks 1 to 3 are not computed.
	run.set(0, 0)
	if n := <-a.copied; n != 0 {
		t.Fatalf("worker A copied chunk %d, want 0", n)
	}
	got := readResultFile(t, path)
	for i, v := range got {
		r, c := i/6, i%6
		want := 0.0
		if r < 2 && c < 3 {
			want = -1 // worker A's chunk 0
		}
		if v != want {
			t.Fatalf("before the graph ended: element (%d, %d) is %v, want %v", r, c, v, want)
		}
	}

	// Worker A dies; chunk 0 is computed again on B, the rest on B too.
	run.set(0, 1)
	run.set(1, 1)
	run.set(2, 1)
	run.set(3, 1)
	fetchInto(t, s, path)
	if want := fmt.Sprint(full.Float64s()); fmt.Sprint(readResultFile(t, path)) != want {
		t.Fatalf("file %v, want %v", readResultFile(t, path), want)
	}
	for j := range int32(4) {
		if b.count(j) != 1 {
			t.Errorf("worker B copied chunk %d %d times, want once", j, b.count(j))
		}
	}
	if a.count(0) != 1 {
		t.Errorf("worker A copied chunk 0 %d times, want once", a.count(0))
	}
	s.streams.mu.Lock()
	left := len(s.streams.jobs)
	s.streams.mu.Unlock()
	if left != 0 {
		t.Errorf("%d streams left after the fetch", left)
	}
}

// A graph that fails ends its stream: the client's fetch (had it asked)
// would find none, and nothing more is written.
func TestStreamIntoFailedGraph(t *testing.T) {
	_, run, a, _, path := streamSetup(t)
	s := New(Config{HTTP: http.DefaultClient, Graphs: run})
	s.streamInto("s1", "g1", []string{path})
	s.streams.mu.Lock()
	job := s.streams.jobs[intoKey{sid: "s1", gid: "g1", i: 0}]
	s.streams.mu.Unlock()
	if job == nil {
		t.Fatal("no stream started")
	}
	run.mu.Lock()
	run.failed = true
	run.mu.Unlock()
	<-job.looked
	job.writes.Wait()
	if w := s.streams.finish(intoKey{sid: "s1", gid: "g1", i: 0}, path); w != nil {
		t.Fatal("a failed graph's stream was kept")
	}
	if a.count(0) != 0 {
		t.Fatal("a chunk was written for a graph that failed before computing it")
	}
}

// A submission's files are checked before anything runs.
func TestCheckInto(t *testing.T) {
	ok := rpc.ResultFileDir + "/" + rpc.ResultFilePrefix + "x"
	for _, c := range []struct {
		into []string
		n    int
		good bool
	}{
		{nil, 2, true},
		{[]string{ok, ""}, 2, true},
		{[]string{ok}, 2, false},
		{[]string{"/tmp/" + rpc.ResultFilePrefix + "x"}, 1, false},
		{[]string{rpc.ResultFileDir + "/other"}, 1, false},
		{[]string{rpc.ResultFileDir + "/../etc/" + rpc.ResultFilePrefix + "x"}, 1, false},
	} {
		if err := checkInto(c.into, c.n); (err == nil) != c.good {
			t.Errorf("checkInto(%q, %d) = %v", c.into, c.n, err)
		}
	}
}
