package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// A client on the cluster's host that will fetch a large result through
// shared memory makes its file before it submits the graph and names it
// in the submission (ProgramRequest.Into). While the graph runs, the web
// service asks the scheduler which of the result's chunks are computed
// (rpc.PartialResultHeader) and has the worker holding each new one copy
// it into the file at once, overlapped with the rest of the graph. The
// client's POST .../results/{i}/into at the end then copies only what is
// not there yet: chunks not computed at the last look, writes that
// failed, and chunks computed again elsewhere after a worker died (their
// URL changed). The file stays the client's: it checks nothing here but
// its name; the worker checks its owner and size on every write, and a
// graph that fails or is cancelled ends the stream (the client removes
// its file).

const (
	// A running graph's result chunks are looked at every streamEvery
	// after a look that found new ones, less often (up to streamEveryMax)
	// after each look that found none.
	streamEvery    = 20 * time.Millisecond
	streamEveryMax = 320 * time.Millisecond
	// streamTTL bounds how long a stream waits for its client's fetch.
	streamTTL = 10 * time.Minute
	// maxStreams bounds the streams kept at once (the oldest go first).
	maxStreams = 256
)

// intoKey names a result of a graph.
type intoKey struct {
	sid, gid string
	i        int
}

// intoStreams are the results being written into clients' files.
type intoStreams struct {
	mu   sync.Mutex
	jobs map[intoKey]*intoJob
}

// intoJob writes one result into one file while its graph runs.
type intoJob struct {
	path    string
	started time.Time
	stop    context.CancelFunc // ends the looking (not the writes issued)
	abort   context.CancelFunc // ends the writes too
	looked  chan struct{}      // closed when the looking has ended
	writes  sync.WaitGroup
	sem     chan struct{}

	mu      sync.Mutex
	tried   map[int]string // chunk (C order) -> the URL a write was issued from
	written map[int]string // chunk -> the URL it was written from
}

// add starts a job for key, ending one it replaces and those too old.
func (st *intoStreams) add(key intoKey, job *intoJob) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.jobs == nil {
		st.jobs = map[intoKey]*intoJob{}
	}
	if old := st.jobs[key]; old != nil {
		old.abort()
	}
	for k, j := range st.jobs {
		if time.Since(j.started) > streamTTL {
			j.abort()
			delete(st.jobs, k)
		}
	}
	for len(st.jobs) >= maxStreams {
		var ok intoKey
		var oldest *intoJob
		for k, j := range st.jobs {
			if oldest == nil || j.started.Before(oldest.started) {
				ok, oldest = k, j
			}
		}
		oldest.abort()
		delete(st.jobs, ok)
	}
	st.jobs[key] = job
}

// drop forgets job if it is still key's.
func (st *intoStreams) drop(key intoKey, job *intoJob) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.jobs[key] == job {
		delete(st.jobs, key)
	}
}

// finish ends the stream of key into path, if there is one, once its
// writes issued have ended, and reports which chunks it wrote (from which
// URL); nil when there is none.
func (st *intoStreams) finish(key intoKey, path string) func(j int, url string) bool {
	st.mu.Lock()
	job := st.jobs[key]
	if job == nil || job.path != path {
		st.mu.Unlock()
		return nil
	}
	delete(st.jobs, key)
	st.mu.Unlock()
	job.stop()
	<-job.looked
	job.writes.Wait()
	job.abort()
	job.mu.Lock()
	written := job.written
	job.written = nil
	job.mu.Unlock()
	return func(j int, url string) bool {
		u, ok := written[j]
		return ok && u == url
	}
}

// streamInto starts writing the results of graph gid named in into (a
// result file path per result, "" for none) as their chunks are computed.
func (s *Server) streamInto(sid, gid string, into []string) {
	for i, path := range into {
		if path == "" {
			continue
		}
		lookCtx, stop := context.WithCancel(context.Background())
		writeCtx, abort := context.WithCancel(context.Background())
		job := &intoJob{
			path: path, started: time.Now(), stop: stop,
			abort: func() { stop(); abort() }, looked: make(chan struct{}),
			sem: make(chan struct{}, intoAtOnce), tried: map[int]string{}, written: map[int]string{},
		}
		key := intoKey{sid: sid, gid: gid, i: i}
		s.streams.add(key, job)
		go s.look(lookCtx, writeCtx, key, job)
	}
}

// look asks for the result's computed chunks until all were issued, the
// job is stopped or the graph cannot give them (failed, cancelled,
// released: the job is dropped, and the client's fetch, if any, copies
// the whole result).
func (s *Server) look(ctx, writeCtx context.Context, key intoKey, job *intoJob) {
	defer close(job.looked)
	every := streamEvery
	for {
		fresh := 0
		req := connect.NewRequest(&pb.GetResultRequest{SessionId: key.sid, GraphId: key.gid, Index: int32(key.i)})
		req.Header().Set(rpc.PartialResultHeader, "1")
		resp, err := s.cfg.Graphs.GetResult(ctx, req)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			var all bool
			all, fresh, err = s.issue(writeCtx, resp.Msg, job)
			if err != nil || all {
				if err != nil {
					s.log.Debug("result not streamed into shared memory", "session", key.sid, "graph", key.gid, "result", key.i, "err", err)
					s.streams.drop(key, job)
				}
				return
			}
		case connect.CodeOf(err) != connect.CodeFailedPrecondition:
			// Not a graph still in preparation: nothing to stream.
			s.streams.drop(key, job)
			return
		}
		if fresh > 0 {
			every = streamEvery
		} else {
			every = min(2*every, streamEveryMax)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// issue has the workers write the computed chunks of lay not yet tried
// from where they are now; all reports whether every chunk was tried,
// fresh how many were tried now.
func (s *Server) issue(ctx context.Context, lay *pb.ResultLayout, job *intoJob) (all bool, fresh int, err error) {
	plan, err := intoPlan(lay, job.path)
	if err != nil {
		return false, 0, err
	}
	all = true
	for j, c := range plan {
		if c.url == "" {
			all = false
			continue
		}
		job.mu.Lock()
		untried := job.tried[j] != c.url
		if untried {
			job.tried[j] = c.url
		}
		job.mu.Unlock()
		if !untried {
			continue
		}
		fresh++
		job.writes.Add(1)
		go func() {
			defer job.writes.Done()
			select {
			case job.sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-job.sem }()
			if err := rpc.PostChunkInto(ctx, s.http, c.url, c.req); err != nil {
				// Left to the client's fetch, which copies it again.
				s.log.Debug("result chunk not streamed into shared memory", "chunk", c.url, "err", err)
				return
			}
			job.mu.Lock()
			if job.written != nil {
				job.written[j] = c.url
			}
			job.mu.Unlock()
		}()
	}
	return all, fresh, nil
}

// checkInto checks a submission's Into for n results.
func checkInto(into []string, n int) error {
	if len(into) == 0 {
		return nil
	}
	if len(into) != n {
		return fmt.Errorf("into: %d files for %d results", len(into), n)
	}
	for i, p := range into {
		if p == "" {
			continue
		}
		if err := rpc.CheckResultFile(p); err != nil {
			return fmt.Errorf("into, result %d: %w", i, err)
		}
	}
	return nil
}
