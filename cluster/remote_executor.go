package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// remoteExecutor is a worker process seen from the scheduler: it implements
// protocol.Executor by queueing and returning at once (the scheduler's event
// loop must never wait on the network), while one goroutine sends what has
// queued as one Dispatch message, one message in flight at a time so the
// worker applies tasks, releases and cancels in the order they were made.
type remoteExecutor struct {
	sender string // this scheduler's ring id ("" alone), on every message
	id     int
	slots  int
	client phobosv1connect.WorkerServiceClient
	log    *slog.Logger
	report func(protocol.Result) // fails tasks that cannot be delivered
	dead   func(error)           // gives up on the worker
	// carries: batches travel in the call's context, not encoded
	// (rpc.WithDispatchBatch), to a client that takes them.
	carries bool

	mu     sync.Mutex
	batch  rpc.DispatchBatch
	closed bool
	kick   chan struct{}
	done   chan struct{}
}

// sendTimeout is how long a batch may keep failing to reach a live worker
// before the worker is given up on (heartbeats may still be arriving).
const sendTimeout = 5 * time.Second

func newRemoteExecutor(sender string, id, slots int, client phobosv1connect.WorkerServiceClient, log *slog.Logger, report func(protocol.Result), dead func(error)) *remoteExecutor {
	e := &remoteExecutor{
		sender: sender, id: id, slots: slots, client: client, log: log, report: report, dead: dead,
		kick: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	if bt, ok := client.(rpc.BatchTaker); ok {
		e.carries = bt.TakesBatches()
	}
	go e.loop()
	return e
}

func (e *remoteExecutor) Slots() int { return e.slots }

func (e *remoteExecutor) Submit(tasks []protocol.Task) {
	e.enqueue(func(b *rpc.DispatchBatch) { b.Tasks = append(b.Tasks, tasks...) })
}

func (e *remoteExecutor) Release(keys []protocol.ChunkKey) { e.ReleaseFenced(keys, nil) }

func (e *remoteExecutor) CancelGraph(g protocol.GraphID) { e.CancelGraphFenced(g, 0) }

// ReleaseFenced implements protocol.FencedReleaser: the tokens travel
// with the releases (tokens nil: all 0).
func (e *remoteExecutor) ReleaseFenced(keys []protocol.ChunkKey, tokens []uint64) {
	e.enqueue(func(b *rpc.DispatchBatch) {
		b.Releases = append(b.Releases, keys...)
		for i := range keys {
			var t uint64
			if i < len(tokens) {
				t = tokens[i]
			}
			b.ReleaseFences = append(b.ReleaseFences, t)
		}
	})
}

// CancelGraphFenced implements protocol.FencedReleaser.
func (e *remoteExecutor) CancelGraphFenced(g protocol.GraphID, token uint64) {
	e.enqueue(func(b *rpc.DispatchBatch) {
		b.Cancels = append(b.Cancels, g)
		b.CancelFences = append(b.CancelFences, token)
	})
}

func (e *remoteExecutor) enqueue(add func(*rpc.DispatchBatch)) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	add(&e.batch)
	e.mu.Unlock()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// close drops whatever is queued: the worker is dead or the scheduler stops.
func (e *remoteExecutor) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		e.batch = rpc.DispatchBatch{}
		close(e.done)
	}
}

// releaseLinger is how long releases wait for tasks or cancels to go with
// them: freeing a chunk is on no op's path, while a message of releases
// alone was a third of all Dispatch messages with many graphs of a few
// hundred ops (one per wave of each graph), and each is an HTTP exchange
// on both sides. releaseBatch releases go at once.
const (
	releaseLinger = 5 * time.Millisecond
	releaseBatch  = 4096
)

func (e *remoteExecutor) loop() {
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		select {
		case <-e.kick:
		case <-e.done:
			return
		}
		if e.releasesOnly() {
			linger.Reset(releaseLinger)
		wait:
			for {
				select {
				case <-linger.C:
					break wait
				case <-e.kick:
					if !e.releasesOnly() {
						linger.Stop()
						break wait
					}
				case <-e.done:
					linger.Stop()
					return
				}
			}
		}
		e.mu.Lock()
		b := e.batch
		e.batch = rpc.DispatchBatch{}
		e.mu.Unlock()
		if len(b.Tasks)+len(b.Releases)+len(b.Cancels) == 0 {
			continue
		}
		if e.carries {
			e.send(b, &pb.DispatchRequest{SchedulerId: e.sender})
			continue
		}
		req, err := rpc.EncodeDispatch(b)
		if err != nil {
			// An op that cannot be encoded fails its tasks, not the worker.
			e.failTasks(b.Tasks, err)
			b.Tasks = nil
			if req, err = rpc.EncodeDispatch(b); err != nil {
				continue
			}
		}
		req.SchedulerId = e.sender
		e.send(b, req)
	}
}

// releasesOnly: what is queued is releases, fewer than releaseBatch.
func (e *remoteExecutor) releasesOnly() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := &e.batch
	return len(b.Tasks) == 0 && len(b.Cancels) == 0 && len(b.Releases) > 0 && len(b.Releases) < releaseBatch
}

func (e *remoteExecutor) failTasks(tasks []protocol.Task, err error) {
	for _, t := range tasks {
		e.report(protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: e.id, Outcome: protocol.Failed, Err: fmt.Errorf("sending to worker %d: %w", e.id, err)})
	}
}

// send delivers one message (b, encoded as req, or carried beside it),
// retrying transient failures with backoff.
func (e *remoteExecutor) send(b rpc.DispatchBatch, req *pb.DispatchRequest) {
	tasks := b.Tasks
	var first time.Time
	backoff := 5 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if e.carries {
			ctx = rpc.WithDispatchBatch(ctx, b)
		}
		_, err := e.client.Dispatch(ctx, connect.NewRequest(req))
		cancel()
		if err == nil {
			return
		}
		if code := connect.CodeOf(err); code == connect.CodeInvalidArgument || code == connect.CodeResourceExhausted {
			// The worker cannot take these tasks; resending will not help.
			// Its releases and cancels still must arrive: send them alone.
			e.log.Error("worker refused a batch", "worker", e.id, "tasks", len(tasks), "err", err)
			e.failTasks(tasks, err)
			if len(tasks) > 0 && (len(b.Releases) > 0 || len(b.Cancels) > 0) {
				rest := rpc.DispatchBatch{Releases: b.Releases, ReleaseFences: b.ReleaseFences, Cancels: b.Cancels, CancelFences: b.CancelFences}
				restReq := &pb.DispatchRequest{SchedulerId: req.SchedulerId}
				if !e.carries {
					restReq = &pb.DispatchRequest{SchedulerId: req.SchedulerId, ReleaseGraphs: req.ReleaseGraphs, ReleaseNodes: req.ReleaseNodes, CancelGraphs: req.CancelGraphs, ReleaseFences: req.ReleaseFences, CancelFences: req.CancelFences}
				}
				e.send(rest, restReq)
			}
			return
		}
		if first.IsZero() {
			first = time.Now()
			e.log.Warn("dispatch failed; retrying", "worker", e.id, "err", err)
		}
		if time.Since(first) > sendTimeout {
			e.log.Error("worker unreachable; giving up on it", "worker", e.id, "err", err)
			e.dead(fmt.Errorf("could not deliver tasks for %v: %w", sendTimeout, err))
			return
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-e.done:
			t.Stop()
			return
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}
