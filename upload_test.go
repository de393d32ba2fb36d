package phobos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// uploadCluster is a scheduler, workers and the web service in this
// process, talking over HTTP.
type uploadCluster struct {
	sched   *cluster.SchedulerProc
	workers []*cluster.WorkerProc
	web     *cluster.WebProc
	http    *http.Client
}

func startUploadCluster(t *testing.T, ctx context.Context, workers int) *uploadCluster {
	t.Helper()
	sp, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	c := &uploadCluster{sched: sp}
	for range workers {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Scheduler: sp.URL(), Slots: 2, Memory: 256 << 20, SpillDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		c.workers = append(c.workers, w)
	}
	if c.web, err = cluster.StartWeb(cluster.WebConfig{Scheduler: sp.URL()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.web.Close)
	if c.http, err = cluster.NewClient("", rpc.TLSFiles{}); err != nil {
		t.Fatal(err)
	}
	if err := cluster.WaitReady(ctx, c.http, c.web.URL(), workers); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestUploadsRoundTrip sends client arrays of every dtype, in odd
// chunkings (single elements, uneven edges, one chunk bigger than the
// array), to a cluster as uploads and checks what comes back, and what is
// computed from them, against the same work in a local session.
func TestUploadsRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := startUploadCluster(t, ctx, 2)
	remote, err := phobos.Connect(ctx, c.web.URL(), phobos.WithInlineLimit(0), phobos.WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	local, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	cases := []struct {
		shape  []int
		chunks []int
	}{
		{[]int{7}, []int{1}},
		{[]int{37, 11}, []int{5, 4}},
		{[]int{9, 8}, []int{100, 100}},
		{[]int{5, 6, 7}, []int{2, 3, 7}},
		{[]int{1}, []int{1}},
		{[]int{0, 4}, []int{1, 2}},
		{[]int{}, nil},
	}
	n := 0
	for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int64, ndarray.Int32, ndarray.Bool} {
		for ci, cs := range cases {
			a := ioArray(t, dt, cs.shape, uint64(10*ci+int(dt)))
			var opts []tensor.Option
			if cs.chunks != nil {
				opts = append(opts, tensor.Chunks(cs.chunks...))
			}
			x := tensor.FromArray(a, opts...)
			y := x.Sum()
			if dt != ndarray.Bool {
				y = x.Mul(3).Sum()
			}
			got, err := remote.Execute(ctx, x, y)
			if err != nil {
				t.Fatalf("%v %v chunks %v: %v", dt, cs.shape, cs.chunks, err)
			}
			want, err := local.Execute(ctx, x, y)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if err := sameArray(got[i], want[i]); err != nil {
					t.Errorf("%v %v chunks %v, result %d: %v", dt, cs.shape, cs.chunks, i, err)
				}
			}
			n++
		}
	}
	t.Logf("uploads: %d arrays round-tripped", n)

	// The chunks are files on the workers until the session ends.
	if files := uploadFiles(t, c); files == 0 {
		t.Error("no uploaded chunk files on the workers")
	}
	if err := remote.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the uploads removed with their session", func() bool { return uploadFiles(t, c) == 0 })
}

func uploadFiles(t *testing.T, c *uploadCluster) int {
	n := 0
	for _, w := range c.workers {
		_ = filepath.WalkDir(w.UploadDir(), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
	}
	return n
}

// waitFor polls cond (the removal is asynchronous) until ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// TestUploadWorkerGone: a graph that needs a chunk held by a worker that
// left fails with an error saying so, and the cluster keeps serving.
func TestUploadWorkerGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startUploadCluster(t, ctx, 2)
	s, err := phobos.Connect(ctx, c.web.URL(), phobos.WithInlineLimit(0), phobos.WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := tensor.FromArray(ioArray(t, ndarray.Float64, []int{40}, 3), tensor.Chunks(10))
	if _, err := s.Execute(ctx, x.Sum()); err != nil {
		t.Fatal(err)
	}
	c.workers[1].Close()
	_, err = s.Execute(ctx, x.Sum())
	var pe *scheduler.PinnedError
	if err == nil || (!errors.As(err, &pe) && !strings.Contains(err.Error(), "held only by worker 1")) {
		t.Fatalf("got %v, want an error naming the gone worker holding the upload", err)
	}
	// A new upload goes to the worker that is left.
	y := tensor.FromArray(ioArray(t, ndarray.Float64, []int{40}, 3), tensor.Chunks(10))
	got, err := s.Execute(ctx, y)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(got[0], ioArray(t, ndarray.Float64, []int{40}, 3)); err != nil {
		t.Fatal(err)
	}
}

// TestUploadHostile sends the upload endpoints what no client should: each
// gets a 4xx naming the problem, nothing is kept, and the cluster serves on.
func TestUploadHostile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startUploadCluster(t, ctx, 1)
	base := c.web.URL()
	do := func(method, path string, body []byte) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	code, body := do(http.MethodPost, "/api/sessions", nil)
	if code != http.StatusCreated {
		t.Fatalf("session: %d %s", code, body)
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(body), &sess); err != nil {
		t.Fatal(err)
	}
	code, body = do(http.MethodPost, "/api/sessions/"+sess.SessionID+"/uploads", nil)
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, body)
	}
	var up struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(body), &up); err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := npy.Write(&good, ioArray(t, ndarray.Int32, []int{4, 5}, 1)); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes()
	for _, tc := range []struct {
		name, method, path string
		body               []byte
		code               int
		msg                string
	}{
		{"no session", http.MethodPost, "/api/sessions/nosuch/uploads", nil, 404, "no session"},
		{"bad upload id", http.MethodPut, "/api/sessions/" + sess.SessionID + "/uploads/a..b/chunks/0", g, 404, "no upload"},
		{"negative index", http.MethodPut, up.URL + "/chunks/-1", g, 400, "non-negative"},
		{"not npy", http.MethodPut, up.URL + "/chunks/0", []byte("hello, world"), 400, "not a .npy"},
		{"empty", http.MethodPut, up.URL + "/chunks/0", nil, 400, "empty"},
		{"truncated", http.MethodPut, up.URL + "/chunks/0", g[:len(g)-3], 400, "truncated"},
		{"trailing bytes", http.MethodPut, up.URL + "/chunks/0", append(append([]byte{}, g...), 1, 2, 3), 400, "more bytes follow"},
		{"huge header shape", http.MethodPut, up.URL + "/chunks/0", hugeNpy(), 400, "over"},
		{"session gone", http.MethodPut, "/api/sessions/s0000/uploads/u1/chunks/0", g, 404, "no session"},
	} {
		code, body := do(tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.msg) {
			t.Errorf("%s: got %d %s, want %d and %q", tc.name, code, body, tc.code, tc.msg)
		}
	}
	if n := uploadFiles(t, c); n != 0 {
		t.Errorf("refused uploads left %d files", n)
	}
	// The good chunk is taken, and a graph of another session cannot read it.
	code, body = do(http.MethodPut, up.URL+"/chunks/0", g)
	if code != http.StatusCreated {
		t.Fatalf("good chunk: %d %s", code, body)
	}
	_, other := do(http.MethodPost, "/api/sessions", nil)
	var sess2 struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(other), &sess2)
	uid := up.URL[strings.LastIndex(up.URL, "/")+1:]
	graphJSON := fmt.Sprintf(`{"graph":{"version":1,"nodes":[{"op":{"type":"uploaded","params":{"session":%q,"upload":%q,"meta":{"shape":[4,5],"dtype":"int32"},"splits":[[4],[5]],"workers":[0]}},"inputs":[]}]},"results":[0]}`, sess.SessionID, uid)
	code, body = do(http.MethodPost, "/api/sessions/"+sess2.SessionID+"/graphs", []byte(graphJSON))
	if code != http.StatusBadRequest || !strings.Contains(body, "reads upload") {
		t.Errorf("a graph reading another session's upload: %d %s", code, body)
	}
	code, body = do(http.MethodPost, "/api/sessions/"+sess.SessionID+"/graphs", []byte(graphJSON))
	if code != http.StatusCreated {
		t.Errorf("the upload's own session: %d %s", code, body)
	}
}

// hugeNpy is a .npy header announcing more than a chunk may hold.
func hugeNpy() []byte {
	dict := "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }"
	for (10+len(dict)+1)%64 != 0 {
		dict += " "
	}
	dict += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(dict)), byte(len(dict)>>8))
	return append(b, dict...)
}
