package cluster

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// refusingWorker refuses every Dispatch that carries tasks, as a worker
// that cannot decode them would, and records the others.
type refusingWorker struct {
	phobosv1connect.UnimplementedWorkerServiceHandler
	got chan *pb.DispatchRequest
}

func (w *refusingWorker) Dispatch(ctx context.Context, req *connect.Request[pb.DispatchRequest]) (*connect.Response[pb.DispatchResponse], error) {
	if len(req.Msg.Tasks) > 0 {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("cannot take these tasks"))
	}
	w.got <- req.Msg
	return connect.NewResponse(&pb.DispatchResponse{}), nil
}

// A batch the worker refuses fails its tasks, but its releases and cancels
// are still delivered; they used to be dropped with it, leaving chunks on
// the worker.
func TestRefusedDispatchKeepsReleasesAndCancels(t *testing.T) {
	w := &refusingWorker{got: make(chan *pb.DispatchRequest, 4)}
	mux := http.NewServeMux()
	mux.Handle(phobosv1connect.NewWorkerServiceHandler(w, rpc.HandlerOptions()...))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := phobosv1connect.NewWorkerServiceClient(srv.Client(), srv.URL, rpc.ClientOptions()...)
	failed := make(chan protocol.Result, 4)
	e := newRemoteExecutor("", 0, 1, client, slog.New(slog.DiscardHandler), func(r protocol.Result) { failed <- r }, func(error) {})
	defer e.close()

	e.mu.Lock() // one batch holding all three
	e.batch.Tasks = []protocol.Task{{Key: protocol.ChunkKey{Graph: 9, Node: 1}, Attempt: 3, Op: ops.FullChunk{Shape: []int{1}, DType: ndarray.Float64}, Meta: ops.Meta{Shape: []int{1}, DType: ndarray.Float64}}}
	e.batch.Releases = []protocol.ChunkKey{{Graph: 9, Node: 0}}
	e.batch.Cancels = []protocol.GraphID{9}
	e.mu.Unlock()
	e.kick <- struct{}{}

	select {
	case r := <-failed:
		if r.Outcome != protocol.Failed || r.Attempt != 3 || r.Key.Node != 1 {
			t.Fatalf("failed task reported as %+v", r)
		}
	case <-time.After(10 * time.Second): // a failure bound, not a timing
		t.Fatal("refused task not failed")
	}
	select {
	case got := <-w.got:
		if len(got.ReleaseNodes) != 1 || got.ReleaseNodes[0] != 0 || len(got.CancelGraphs) != 1 || got.CancelGraphs[0] != 9 {
			t.Fatalf("delivered %+v, want release g9/c0 and cancel g9", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("releases and cancels of the refused batch never delivered")
	}
}

// fakeScheduler answers ReportResults with a fixed error and counts calls.
type fakeScheduler struct {
	phobosv1connect.UnimplementedSchedulerServiceHandler
	err   error
	mu    sync.Mutex
	calls int
}

func (f *fakeScheduler) ReportResults(ctx context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return nil, f.err
}

// Results that cannot be delivered stop the worker instead of being dropped
// while its heartbeats go on (the batcher used to give up after 20 tries,
// and the scheduler waited forever for them).
func TestUndeliverableResultsStopTheWorker(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"refused", connect.NewError(connect.CodeNotFound, errors.New("no worker 3 is registered")), "refused"},
		{"unreachable", connect.NewError(connect.CodeUnavailable, errors.New("connection refused")), "could not deliver"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := &fakeScheduler{err: c.err}
			mux := http.NewServeMux()
			mux.Handle(phobosv1connect.NewSchedulerServiceHandler(fs, rpc.HandlerOptions()...))
			srv := httptest.NewServer(mux)
			defer srv.Close()
			client := phobosv1connect.NewSchedulerServiceClient(srv.Client(), srv.URL, rpc.ClientOptions()...)
			stopped := make(chan error, 1)
			b := newResultBatcher(3, client, slog.New(slog.DiscardHandler), 50*time.Millisecond, func(err error) { stopped <- err }, nil)
			defer b.close()
			b.Report(protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Attempt: 1, Worker: 3, Outcome: protocol.Succeeded})
			select {
			case err := <-stopped:
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("stopped with %v, want it to say %q", err, c.want)
				}
			case <-time.After(30 * time.Second): // a failure bound, not a timing
				t.Fatal("the worker was not stopped")
			}
		})
	}
}

// A ReportResults batch is taken whole or refused whole: it used to report
// the results before a bad one and then answer InvalidArgument, so the
// worker's resend repeated them. Batches naming an unregistered worker
// (worker 7 of 1) are refused with NotFound, and the scheduler serves on.
func TestReportResultsAllOrNothing(t *testing.T) {
	p, err := StartScheduler(SchedulerConfig{HeartbeatTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client := phobosv1connect.NewSchedulerServiceClient(http.DefaultClient, p.URL(), rpc.ClientOptions()...)
	ctx := context.Background()
	reg, err := client.RegisterWorker(ctx, connect.NewRequest(&pb.RegisterWorkerRequest{Url: "http://127.0.0.1:9", Slots: 1}))
	if err != nil {
		t.Fatal(err)
	}
	id := reg.Msg.WorkerId
	good := &pb.Result{Graph: 1, Node: 1, Attempt: 1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}
	bad := &pb.Result{Graph: 1, Node: -5, Attempt: 1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}
	_, err = client.ReportResults(ctx, connect.NewRequest(&pb.ReportResultsRequest{WorkerId: id, Results: []*pb.Result{good, good, bad, good}}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "result 2 of 4") {
		t.Fatalf("bad batch: %v, want InvalidArgument naming result 2 of 4", err)
	}
	for _, w := range []int32{7, -1} {
		_, err = client.ReportResults(ctx, connect.NewRequest(&pb.ReportResultsRequest{WorkerId: w, Results: []*pb.Result{good}}))
		if connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("worker %d: %v, want NotFound", w, err)
		}
	}
	if _, err := client.ReportResults(ctx, connect.NewRequest(&pb.ReportResultsRequest{WorkerId: id, Results: []*pb.Result{good}})); err != nil {
		t.Fatal(err)
	}
	// Stats applies every result reported before it: anything the refused
	// batch let through would be counted.
	if n := p.sched.Stats().Results; n != 1 {
		t.Fatalf("scheduler got %d results, want 1: the refused batch was half applied", n)
	}
}
