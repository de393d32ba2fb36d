package phobos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
)

// persist submits the tensors' graph and keeps it once it succeeded: the
// cluster holds its results until Release or the session's end. The
// tensors returned name the graph by its id in the session; the cluster
// resolves where their chunks are.
func (b *remoteBackend) persist(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	tg, ids, err := tensor.Build(ts...)
	if err != nil {
		return nil, err
	}
	if err := b.uploadLiterals(ctx, tg); err != nil {
		return nil, err
	}
	gj, err := graph.EncodeTileable(tg)
	if err != nil {
		return nil, err
	}
	fuse := !s.cfg.noFuse
	body, err := json.Marshal(web.SubmitRequest{Graph: gj, Results: ids, Fuse: &fuse})
	if err != nil {
		return nil, err
	}
	var st web.GraphJSON
	if err := b.retry(ctx, func() error {
		return b.do(ctx, http.MethodPost, "/api/sessions/"+b.sid+"/graphs", body, &st, http.StatusCreated)
	}); err != nil {
		return nil, fmt.Errorf("phobos: persist: %w", err)
	}
	kept := false
	defer func() {
		if !kept {
			_ = b.releaseIDs(context.WithoutCancel(ctx), []string{st.GraphID})
		}
	}()
	for !terminalState(st.State) {
		path := st.URL
		if err := b.retry(ctx, func() error {
			return b.do(ctx, http.MethodGet, path+"?wait_timeout=5", nil, &st, http.StatusOK)
		}); err != nil {
			return nil, fmt.Errorf("phobos: persist: graph %s: %w", st.GraphID, err)
		}
	}
	s.mu.Lock()
	s.last = Stats{ChunkOps: int(st.ChunkOps), MovedBytes: st.MovedBytes, Recomputed: st.Recomputed}
	s.mu.Unlock()
	if st.State != "SUCCEEDED" {
		return nil, fmt.Errorf("phobos: persist: graph %s %s: %s", st.GraphID, st.State, st.Error)
	}
	kept = true
	out := make([]*tensor.Tensor, len(ts))
	for k, t := range ts {
		m := ops.Meta{Shape: t.Shape(), DType: t.DType()}
		// an axis of unknown length (-1) is the cluster's to resolve
		if ax := slices.Index(m.Shape, -1); ax >= 0 {
			m.Unknown = int8(ax + 1)
		}
		out[k] = tensor.New(ops.Held{Ref: st.GraphID, Result: k, Meta: m})
	}
	return out, nil
}

// release deletes the kept graphs of held tensors in one request.
func (b *remoteBackend) release(ctx context.Context, held []ops.Held) error {
	var gids []string
	for _, h := range held {
		if h.Ref == "" {
			return fmt.Errorf("%w: a tensor persisted by a local session", ErrNotHeld)
		}
		gids = append(gids, h.Ref)
	}
	return b.releaseIDs(ctx, gids)
}

// releaseIDs deletes graphs of the session in one request.
func (b *remoteBackend) releaseIDs(ctx context.Context, gids []string) error {
	body, err := json.Marshal(map[string][]string{"graphs": gids})
	if err != nil {
		return err
	}
	var out struct {
		Missing []string `json:"missing"`
	}
	if err := b.do(ctx, http.MethodPost, "/api/sessions/"+b.sid+"/release", body, &out, http.StatusOK); err != nil {
		return err
	}
	if len(out.Missing) > 0 {
		return fmt.Errorf("%w: graphs %v", ErrNotHeld, out.Missing)
	}
	return nil
}
