package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// intoAtOnce bounds the chunk copies asked of workers at once.
const intoAtOnce = 4

// resultInto writes a whole result into a shared-memory file the client
// made (rpc.ChunkInto): each worker copies its chunks into place, so the
// result crosses no socket. Only for a client and workers all on this
// host's loopback; otherwise 409, and the client fetches the result as
// .npy instead.
func (s *Server) resultInto(w http.ResponseWriter, r *http.Request) error {
	i, err := strconv.Atoi(r.PathValue("i"))
	if err != nil || i < 0 {
		return badRequest(fmt.Errorf("result index %q: want a non-negative integer", r.PathValue("i")))
	}
	var body struct {
		Path string `json:"path"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<12)).Decode(&body); err != nil {
		return badRequest(fmt.Errorf("result into: %w", err))
	}
	if err := rpc.CheckResultFile(body.Path); err != nil {
		return badRequest(err)
	}
	if !onThisHost(r) {
		return &httpError{code: http.StatusConflict, msg: "results are written into shared memory only for clients on this host"}
	}
	sid, gid := r.PathValue("sid"), r.PathValue("gid")
	// The chunks written while the graph ran are not written again.
	written := s.streams.finish(intoKey{sid: sid, gid: gid, i: i}, body.Path)
	resp, err := s.cfg.Graphs.GetResult(r.Context(), connect.NewRequest(&pb.GetResultRequest{SessionId: sid, GraphId: gid, Index: int32(i)}))
	if err != nil {
		return err
	}
	if err := s.writeInto(r.Context(), resp.Msg, body.Path, written); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// chunkInto is one chunk's copy into a result file: the worker URL that
// holds the chunk (empty while it is not computed) and what to ask it.
type chunkInto struct {
	url string
	req rpc.ChunkInto
}

// intoPlan is the copy of each chunk of lay (C order over its grid) into
// the result file path.
func intoPlan(lay *pb.ResultLayout, path string) ([]chunkInto, error) {
	shape, nsplits, grid := layoutGrid(lay)
	for _, c := range lay.Chunks {
		if c.Url == "" {
			continue
		}
		u, err := url.Parse(c.Url)
		if err != nil || !loopbackHost(u.Host) {
			return nil, &httpError{code: http.StatusConflict, msg: "results are written into shared memory only from workers on this host"}
		}
	}
	if len(shape) == 0 || ndarray.Size(shape) == 0 {
		return nil, &httpError{code: http.StatusConflict, msg: "an empty or 0-d result is fetched as .npy"}
	}
	if ndarray.Size(grid) != len(lay.Chunks) {
		return nil, fmt.Errorf("result layout: %d chunks for a grid %v", len(lay.Chunks), grid)
	}
	offs := ops.AxisOffsets(nsplits)
	plan := make([]chunkInto, 0, len(lay.Chunks))
	ops.ForEachGrid(grid, func(idx []int) {
		start := make([]int, len(idx))
		for ax, b := range idx {
			start[ax] = offs[ax][b]
		}
		plan = append(plan, chunkInto{url: lay.Chunks[len(plan)].Url, req: rpc.ChunkInto{Path: path, DType: lay.Dtype, Shape: shape, Start: start}})
	})
	return plan, nil
}

// writeInto has the workers copy lay's chunks into the result file path,
// all but those written reports as already there (nil: none).
func (s *Server) writeInto(ctx context.Context, lay *pb.ResultLayout, path string, written func(j int, url string) bool) error {
	plan, err := intoPlan(lay, path)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, intoAtOnce)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for j, c := range plan {
		if written != nil && written(j, c.url) {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := rpc.PostChunkInto(ctx, s.http, c.url, c.req)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return &httpError{code: http.StatusConflict, msg: first.Error()}
	}
	return nil
}

// localPeerKey marks a request that came over a Unix socket (WithLocalPeer).
type localPeerKey struct{}

// WithLocalPeer is ctx of a connection over a Unix socket: its client runs
// on this host, as one on a loopback address does (an http.Server's
// ConnContext for such a listener).
func WithLocalPeer(ctx context.Context) context.Context {
	return context.WithValue(ctx, localPeerKey{}, true)
}

// onThisHost reports whether r's client runs on this host: it came from a
// loopback address or over a Unix socket.
func onThisHost(r *http.Request) bool {
	if local, _ := r.Context().Value(localPeerKey{}).(bool); local {
		return true
	}
	return loopbackHost(r.RemoteAddr)
}

// loopbackHost reports whether host[:port] is a loopback address.
func loopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
