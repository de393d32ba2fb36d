package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// A result fetched by a client on the workers' own host need not travel
// over HTTP at all: the client makes a shared-memory file the size of the
// result, and each worker copies its chunks straight into their place in
// it (POST /chunks/{graph}/{node}/into), one copy from the store to the
// client's memory. Only files of ResultFilePrefix directly in ResultFileDir
// are written, never through a link, and only files of the result's exact
// size owned by the worker's own user.
const (
	ResultFileDir    = "/dev/shm"
	ResultFilePrefix = "phobos-result-"
)

// ChunkIntoPath is the URL path that copies a chunk into a result file.
func ChunkIntoPath(key protocol.ChunkKey) string { return ChunkPath(key) + "/into" }

// ChunkInto asks a worker to copy one chunk into a result file: the file
// holds the whole result (DType, Shape, C order); the chunk's box starts at
// Start.
type ChunkInto struct {
	Path  string `json:"path"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Start []int  `json:"start"`
}

// CheckResultFile reports whether path may be written as a result file.
func CheckResultFile(path string) error {
	if filepath.Dir(path) != ResultFileDir || !strings.HasPrefix(filepath.Base(path), ResultFilePrefix) || filepath.Clean(path) != path {
		return fmt.Errorf("result file %q: only %s/%s* files are written", path, ResultFileDir, ResultFilePrefix)
	}
	return nil
}

// ErrIntoUnsupported: this platform does not write result files.
var ErrIntoUnsupported = errors.New("results are not written into shared memory on this platform")

// ChunkIntoHandler serves POST /chunks/{graph}/{node}/into from get.
func ChunkIntoHandler(get func(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error)) http.Handler {
	return ChunkIntoBorrowHandler(func(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error {
		a, err := get(ctx, key)
		if err != nil {
			return err
		}
		return fn(a)
	})
}

// ChunkIntoBorrowHandler serves POST /chunks/{graph}/{node}/into from
// borrow, which calls fn with the chunk for the length of the call (the
// copy keeps no reference to it, so a store may reuse its buffer later).
func ChunkIntoBorrowHandler(borrow func(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, err1 := strconv.ParseUint(r.PathValue("graph"), 10, 64)
		n, err2 := strconv.ParseInt(r.PathValue("node"), 10, 32)
		var req ChunkInto
		err3 := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req)
		if err := errors.Join(err1, err2, err3); err != nil {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("bad chunk copy request: %v", err))
			return
		}
		var dt ndarray.DType
		if err := dt.UnmarshalText([]byte(req.DType)); err != nil {
			writeJSONError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := CheckResultFile(req.Path); err != nil {
			writeJSONError(w, http.StatusForbidden, err.Error())
			return
		}
		key := protocol.ChunkKey{Graph: protocol.GraphID(g), Node: int32(n)}
		var copyErr error
		copied := false
		err := borrow(r.Context(), key, func(a *ndarray.Array) error {
			copied = true
			copyErr = copyIntoFile(req.Path, dt, req.Shape, req.Start, a)
			return copyErr
		})
		switch {
		case !copied && err != nil:
			writeJSONError(w, http.StatusNotFound, fmt.Sprintf("chunk %v: %v", key, err))
		case copyErr != nil:
			writeJSONError(w, http.StatusConflict, fmt.Sprintf("chunk %v into %s: %v", key, req.Path, copyErr))
		case err != nil:
			writeJSONError(w, http.StatusInternalServerError, fmt.Sprintf("chunk %v: %v", key, err))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
}

// resultBox is the view of the whole result where a chunk of shape goes.
func resultBox(whole *ndarray.Array, start, shape []int) (*ndarray.Array, error) {
	if len(start) != whole.NDim() || len(shape) != whole.NDim() {
		return nil, fmt.Errorf("a chunk of %d axes at %v in a result of %d", len(shape), start, whole.NDim())
	}
	rs := make([]ndarray.Range, len(shape))
	for ax, s := range start {
		if s < 0 || s+shape[ax] > whole.Shape()[ax] {
			return nil, fmt.Errorf("a chunk %v at %v does not fit in a result %v", shape, start, whole.Shape())
		}
		rs[ax] = ndarray.Range{Start: s, Step: 1, Len: shape[ax]}
	}
	return whole.Slice(rs)
}

// PostChunkInto asks the worker serving chunkURL (a ChunkPath URL) to copy
// its chunk into a result file.
func PostChunkInto(ctx context.Context, c *http.Client, chunkURL string, req ChunkInto) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, chunkURL+"/into", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(hr)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("POST %s/into: %s: %s", chunkURL, resp.Status, e.Error)
	}
	return nil
}
