package cluster

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// A result batch lingers for more results only while the worker has tasks
// that will make them: a graph alone on the cluster waits for no batch.
func TestResultBatchLingersOnlyWhileBusy(t *testing.T) {
	for _, c := range []struct {
		name string
		busy func() bool
		want bool
	}{
		{"unknown load", nil, true},
		{"busy worker", func() bool { return true }, true},
		{"idle worker", func() bool { return false }, false},
	} {
		b := &resultBatcher{busy: c.busy}
		if got := b.lingers(); got != c.want {
			t.Errorf("%s: lingers %v, want %v", c.name, got, c.want)
		}
	}
}

// reportsTo records the results a batcher delivers, in the order they
// arrive.
type reportsTo struct {
	phobosv1connect.SchedulerServiceClient
	mu   sync.Mutex
	got  []*pb.Result
	msgs int
}

func (r *reportsTo) ReportResults(_ context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, req.Msg.Results...)
	r.msgs++
	return connect.NewResponse(&pb.ReportResultsResponse{}), nil
}

func (r *reportsTo) count() (results, msgs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got), r.msgs
}

// A lone result of an idle worker goes in the call that reports it, no
// batcher woken; one of a busy worker, or made while a message is in
// flight, is queued for the batcher.
func TestLoneResultSentByItsReporter(t *testing.T) {
	to := &reportsTo{}
	busy := false
	// no loop: what is queued stays queued
	b := &resultBatcher{client: to, log: discardLogger(nil), giveUp: time.Second, busy: func() bool { return busy },
		kick: make(chan struct{}, 1), full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	res := protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 1}, Worker: 0, Outcome: protocol.Succeeded}
	b.Report(res)
	if n, _ := to.count(); n != 1 || len(b.kick) != 0 {
		t.Fatalf("idle worker: %d results delivered in the call, batcher woken %v", n, len(b.kick) == 1)
	}
	busy = true
	b.Report(res)
	if n, _ := to.count(); n != 1 || len(b.buf) != 1 || len(b.kick) != 1 {
		t.Fatalf("busy worker: %d delivered, %d queued; want it queued and the batcher woken", n, len(b.buf))
	}
	// idle again, but a result is queued before it: queued behind it
	busy = false
	b.Report(res)
	if n, _ := to.count(); n != 1 || len(b.buf) != 2 {
		t.Fatalf("behind a queued result: %d delivered, %d queued", n, len(b.buf))
	}
	b.buf = nil
	b.sending.Lock() // a message in flight
	b.Report(res)
	b.sending.Unlock()
	if n, _ := to.count(); n != 1 || len(b.buf) != 1 {
		t.Fatalf("while a message is in flight: %d delivered, %d queued", n, len(b.buf))
	}
}

// Results reach the scheduler in the order each reporter made them,
// whether sent by the reporter or the batcher, as the worker's load comes
// and goes.
func TestReportedInOrder(t *testing.T) {
	to := &reportsTo{}
	var busy atomic.Bool
	b := newResultBatcher(0, to, discardLogger(nil), time.Second, nil, busy.Load)
	const reporters, each = 4, 500
	var wg sync.WaitGroup
	for g := range reporters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if i%7 == g {
					busy.Store(!busy.Load())
				}
				b.Report(protocol.Result{Key: protocol.ChunkKey{Graph: protocol.GraphID(g + 1), Node: int32(i)}, Outcome: protocol.Succeeded})
			}
		}()
	}
	wg.Wait()
	b.close()
	next := make([]int32, reporters)
	n, msgs := to.count()
	if n != reporters*each {
		t.Fatalf("%d results delivered, want %d", n, reporters*each)
	}
	for _, m := range to.got {
		g := int(m.Graph) - 1
		if m.Node != next[g] {
			t.Fatalf("reporter %d: result %d arrived when %d was next", g, m.Node, next[g])
		}
		next[g]++
	}
	t.Logf("%d results in %d messages", n, msgs)
}

// flakyReports refuses its first calls as a scheduler that is away would.
type flakyReports struct {
	reportsTo
	refuse int
}

func (f *flakyReports) ReportResults(ctx context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	f.mu.Lock()
	if f.refuse > 0 {
		f.refuse--
		f.mu.Unlock()
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("away"))
	}
	f.mu.Unlock()
	return f.reportsTo.ReportResults(ctx, req)
}

// A lone result the scheduler does not take at once is not retried by the
// slot that made it: it is queued ahead of the results made after it, and
// the batcher delivers them all, in order.
func TestLoneResultNotTakenGoesToTheBatcher(t *testing.T) {
	to := &flakyReports{refuse: 1}
	b := &resultBatcher{client: to, log: discardLogger(nil), giveUp: time.Minute, busy: func() bool { return false },
		kick: make(chan struct{}, 1), full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	b.Report(protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 0}, Outcome: protocol.Succeeded})
	if n, _ := to.count(); n != 0 || len(b.buf) != 1 || len(b.kick) != 1 {
		t.Fatalf("refused: %d delivered, %d queued, batcher woken %v", n, len(b.buf), len(b.kick) == 1)
	}
	b.Report(protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 1}, Outcome: protocol.Succeeded})
	go b.loop()
	b.close()
	if n, _ := to.count(); n != 2 || to.got[0].Node != 0 || to.got[1].Node != 1 {
		t.Fatalf("after the batcher: %d delivered (%v), want both in order", n, to.got)
	}
}
