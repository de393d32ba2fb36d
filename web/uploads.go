package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"connectrpc.com/connect"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"

	"github.com/phobos-tensor/phobos/rpc"
)

// Uploads: a client sends an array of any size as chunks, each a .npy body
// streamed through to a worker (nothing is held here), then refers to them
// in its graph with an "uploaded" op (docs/rest-api.md).

// UploadJSON is the body of POST /api/sessions/{sid}/uploads.
type UploadJSON struct {
	SessionID string `json:"session_id"`
	UploadID  string `json:"upload_id"`
	URL       string `json:"url"`
}

// ChunkUploadJSON is the body of the answer to a chunk's PUT.
type ChunkUploadJSON struct {
	Index  int    `json:"index"`
	Worker int    `json:"worker"`
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Bytes  int64  `json:"bytes"`
}

func (s *Server) createUpload(w http.ResponseWriter, r *http.Request) error {
	sid := r.PathValue("sid")
	if _, err := s.cfg.Graphs.GetSession(r.Context(), connect.NewRequest(&pb.GetSessionRequest{SessionId: sid})); err != nil {
		return err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	uid := "u" + hex.EncodeToString(b[:])
	url := "/api/sessions/" + sid + "/uploads/" + uid
	w.Header().Set("Location", url)
	writeJSON(w, http.StatusCreated, UploadJSON{SessionID: sid, UploadID: uid, URL: url})
	return nil
}

// putChunk streams one chunk to a live worker, chosen by the chunk's
// index among the live workers so an array's chunks spread evenly.
func (s *Server) putChunk(w http.ResponseWriter, r *http.Request) error {
	sid, uid := r.PathValue("sid"), r.PathValue("uid")
	index, err := strconv.Atoi(r.PathValue("index"))
	if err != nil || index < 0 {
		return badRequest(fmt.Errorf("chunk index %q: want a non-negative integer", r.PathValue("index")))
	}
	if _, err := s.cfg.Graphs.GetSession(r.Context(), connect.NewRequest(&pb.GetSessionRequest{SessionId: sid})); err != nil {
		return err
	}
	resp, err := s.cfg.Scheduler.ListWorkers(r.Context(), connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return err
	}
	var live []*pb.WorkerInfo
	for _, wi := range resp.Msg.Workers {
		if wi.Alive {
			live = append(live, wi)
		}
	}
	if len(live) == 0 {
		return &httpError{code: http.StatusServiceUnavailable, msg: "no live workers to take the upload"}
	}
	slices.SortFunc(live, func(a, b *pb.WorkerInfo) int { return int(a.Id - b.Id) })
	to := live[index%len(live)]
	rep, err := rpc.PutUpload(r.Context(), s.http, to.Url, sid, uid, index, r.Body, r.ContentLength)
	if err != nil {
		var ue *rpc.UploadError
		if errors.As(err, &ue) && ue.Status < 500 {
			return &httpError{code: ue.Status, msg: ue.Msg}
		}
		return &httpError{code: http.StatusBadGateway, msg: fmt.Sprintf("uploading chunk %d to worker %d: %v", index, to.Id, err)}
	}
	// In a ring each scheduler numbers the workers its own way: the
	// upload names the worker as the session's scheduler does (to.Id);
	// the worker's own answer is its id at one of them.
	if rep.Worker != int(to.Id) && s.cfg.Ring == nil {
		return &httpError{code: http.StatusBadGateway, msg: fmt.Sprintf("worker at %s answered as worker %d, want %d", to.Url, rep.Worker, to.Id)}
	}
	writeJSON(w, http.StatusCreated, ChunkUploadJSON{Index: index, Worker: int(to.Id), DType: rep.DType, Shape: rep.Shape, Bytes: rep.Bytes})
	return nil
}
