package web

import (
	"errors"
	"fmt"
	"net/http"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/ops"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// maxRelease bounds the graphs one release request names.
const maxRelease = 4096

// releaseRequest is the body of POST /api/sessions/{sid}/release.
type releaseRequest struct {
	Graphs []string `json:"graphs"`
}

// releaseGraphs deletes several graphs of a session in one request, as
// DELETE .../graphs/{gid} does each: clients that keep results (persisted
// tensors, held until the client drops them) release them in batches. A
// graph already gone is listed in "missing", not an error.
func (s *Server) releaseGraphs(w http.ResponseWriter, r *http.Request) error {
	var req releaseRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if len(req.Graphs) > maxRelease {
		return badRequest(fmt.Errorf("%d graphs: at most %d per request", len(req.Graphs), maxRelease))
	}
	sid := r.PathValue("sid")
	released, missing := 0, []string{}
	for _, gid := range req.Graphs {
		if err := ops.CheckUploadIDs(gid); err != nil {
			return badRequest(fmt.Errorf("graph: %w", err))
		}
		_, err := s.cfg.Graphs.CancelGraph(r.Context(), connect.NewRequest(&pb.CancelGraphRequest{SessionId: sid, GraphId: gid}))
		var ce *connect.Error
		switch {
		case err == nil:
			released++
		case errors.As(err, &ce) && ce.Code() == connect.CodeNotFound:
			missing = append(missing, gid)
		default:
			return err
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"released": released, "missing": missing})
	return nil
}
