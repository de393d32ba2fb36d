package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/phobos-tensor/phobos/ndarray/zarr"
	"github.com/phobos-tensor/phobos/ops"
)

// Uploads between the web service and a worker: the web service streams a
// client's chunk (a .npy body) to PUT {worker}/uploads/{sid}/{uid}/{index};
// the scheduler removes a session's uploads with DELETE
// {worker}/uploads/{sid}.

// UploadReply is a worker's answer to an uploaded chunk, relayed to the
// client: where the chunk is and what it holds.
type UploadReply struct {
	Worker int    `json:"worker"`
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Bytes  int64  `json:"bytes"`
}

// UploadPath is where a worker takes a chunk of an upload.
func UploadPath(sid, uid string, index int) string {
	return fmt.Sprintf("/uploads/%s/%s/%d", sid, uid, index)
}

// UploadHandlers serves a worker's uploads: PUT and DELETE, as above.
// worker is the worker's id, once it has one.
func UploadHandlers(mux *http.ServeMux, store *ops.UploadStore, worker func(ctx context.Context) (int, error)) {
	mux.HandleFunc("PUT /uploads/{sid}/{uid}/{index}", func(w http.ResponseWriter, r *http.Request) {
		id, err := worker(r.Context())
		if err != nil {
			writeJSONError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		sid, uid := r.PathValue("sid"), r.PathValue("uid")
		index, err := strconv.Atoi(r.PathValue("index"))
		if err != nil || index < 0 {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("chunk index %q: want a non-negative integer", r.PathValue("index")))
			return
		}
		if err := ops.CheckUploadIDs(sid, uid); err != nil {
			writeJSONError(w, http.StatusBadRequest, err.Error())
			return
		}
		info, err := store.Put(sid, uid, index, http.MaxBytesReader(w, r.Body, zarr.MaxChunkBytes+1<<20))
		if err != nil {
			code := http.StatusBadRequest
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				code = http.StatusRequestEntityTooLarge
			}
			writeJSONError(w, code, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(UploadReply{Worker: id, DType: info.DType.String(), Shape: info.Shape, Bytes: info.Bytes})
	})
	mux.HandleFunc("DELETE /uploads/{sid}", func(w http.ResponseWriter, r *http.Request) {
		if err := store.DeleteSession(r.PathValue("sid")); err != nil {
			writeJSONError(w, http.StatusBadRequest, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// UploadError is a worker's refusal of an uploaded chunk.
type UploadError struct {
	Status int
	Msg    string
}

func (e *UploadError) Error() string { return e.Msg }

// PutUpload streams body (size bytes, or -1 when unknown) to the worker at
// base as chunk index of upload uid of session sid.
func PutUpload(ctx context.Context, c *http.Client, base, sid, uid string, index int, body io.Reader, size int64) (UploadReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+UploadPath(sid, uid, index), body)
	if err != nil {
		return UploadReply{}, err
	}
	req.ContentLength = size
	if size < 0 {
		req.ContentLength = -1
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.Do(req)
	if err != nil {
		return UploadReply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return UploadReply{}, err
	}
	if resp.StatusCode != http.StatusCreated {
		var e struct {
			Error string `json:"error"`
		}
		msg := string(raw)
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return UploadReply{}, &UploadError{Status: resp.StatusCode, Msg: msg}
	}
	var rep UploadReply
	if err := json.Unmarshal(raw, &rep); err != nil {
		return UploadReply{}, fmt.Errorf("worker's upload reply: %w", err)
	}
	return rep, nil
}
