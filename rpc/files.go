package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/phobos-tensor/phobos/ops"
)

// SourcePath is where a worker opens file sources.
const SourcePath = "/files/source"

// SourceRequest asks a worker to open a file source (POST SourcePath).
type SourceRequest struct {
	Kind   string        `json:"kind"` // "npy" or "zarr"
	Path   string        `json:"path"`
	Chunks ops.ChunkSpec `json:"chunks"`
}

// SourceReply is the op reading the source, as the graph JSON has ops.
type SourceReply struct {
	Op json.RawMessage `json:"op"`
}

// SourceError is a worker's refusal to open a file source.
type SourceError struct {
	Status int
	Msg    string
}

func (e *SourceError) Error() string { return e.Msg }

// SourceHandler serves POST SourcePath: the file is opened under the
// worker's data roots (files), so a client learns nothing of a path the
// worker may not read.
func SourceHandler(files *ops.FileAccess) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req SourceRequest
		d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
		d.DisallowUnknownFields()
		if err := d.Decode(&req); err != nil {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("file source request: %v", err))
			return
		}
		op, err := ops.OpenSource(ops.WithFileAccess(r.Context(), files), req.Kind, req.Path, req.Chunks)
		if err != nil {
			code := http.StatusBadRequest
			var fae *ops.FileAccessError
			if errors.As(err, &fae) {
				code = http.StatusForbidden
			}
			writeJSONError(w, code, err.Error())
			return
		}
		raw, err := ops.MarshalOp(op)
		if err != nil {
			writeJSONError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(SourceReply{Op: raw})
	}
}

// OpenSource asks the worker at base (its URL) to open a file source.
func OpenSource(ctx context.Context, client *http.Client, base string, req SourceRequest) (ops.TensorOp, error) {
	status, raw, err := postJSON(ctx, client, base, SourcePath, req)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, replyError(base, status, raw)
	}
	var rep SourceReply
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("worker %s: file source reply: %w", base, err)
	}
	op, err := ops.UnmarshalTensorOp(rep.Op)
	if err != nil {
		return nil, fmt.Errorf("worker %s: file source reply: %w", base, err)
	}
	if k := op.Type(); k != req.Kind+"_read" {
		return nil, fmt.Errorf("worker %s: asked for a %s source, got a %s op", base, req.Kind, k)
	}
	return op, nil
}

// postJSON posts v as JSON to a worker and returns its answer (at most
// 16 MiB of it).
func postJSON(ctx context.Context, client *http.Client, base, path string, v any) (int, []byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return 0, nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, raw, err
}

// replyError is a worker's refusal, with its words when it gave them.
func replyError(base string, status int, raw []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		e.Error = fmt.Sprintf("worker %s: HTTP %d", base, status)
	}
	return &SourceError{Status: status, Msg: e.Error}
}

// CheckPath is where a worker checks paths against its data roots.
const CheckPath = "/files/check"

// CheckRequest asks a worker whether its data roots allow paths.
type CheckRequest struct {
	Paths []string `json:"paths"`
}

// CheckHandler serves POST CheckPath: 204 when every path is allowed, 403
// naming the first that is not.
func CheckHandler(files *ops.FileAccess) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req CheckRequest
		d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<20))
		d.DisallowUnknownFields()
		if err := d.Decode(&req); err != nil {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("file check request: %v", err))
			return
		}
		if err := ops.CheckPaths(ops.WithFileAccess(r.Context(), files), req.Paths); err != nil {
			writeJSONError(w, http.StatusForbidden, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// CheckFiles asks the worker at base whether its data roots allow paths; a
// refusal is a *SourceError with Status 403.
func CheckFiles(ctx context.Context, client *http.Client, base string, paths []string) error {
	status, raw, err := postJSON(ctx, client, base, CheckPath, CheckRequest{Paths: paths})
	if err != nil {
		return err
	}
	if status != http.StatusNoContent {
		return replyError(base, status, raw)
	}
	return nil
}
