package phobos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/web"
)

// A remote session's client arrays (FromArray, FromSlice) travel as
// uploads, chunk by chunk, rather than inline in the graph JSON, once they
// are bigger than inlineMaxBytes (WithInlineLimit): no request then holds more than one
// chunk, and the web service only streams it through to a worker. An array
// is uploaded once per session and chunking; later graphs refer to the
// same upload.
const inlineMaxBytes = 1 << 20

// uploadStreams is how many chunks are in flight at once.
const uploadStreams = 4

type uploadKey struct {
	data  *ndarray.Array
	split string // the resolved chunking, as JSON
}

// uploads remembers what a remote session has uploaded.
type uploads struct {
	mu   sync.Mutex
	done map[uploadKey]ops.Uploaded
}

// uploadLiterals replaces the big client arrays of tg by uploads.
func (b *remoteBackend) uploadLiterals(ctx context.Context, tg *graph.TileableGraph) error {
	for i := range tg.Nodes {
		lit, ok := tg.Nodes[i].Op.(ops.Literal)
		if !ok || lit.Data == nil || int64(lit.Data.Size())*int64(lit.Data.DType().Size()) <= b.inlineMax {
			continue
		}
		up, err := b.upload(ctx, lit)
		if err != nil {
			return fmt.Errorf("phobos: uploading a %v array of shape %v: %w", lit.Data.DType(), lit.Data.Shape(), err)
		}
		tg.Nodes[i].Op = up
	}
	return nil
}

func (b *remoteBackend) upload(ctx context.Context, lit ops.Literal) (ops.Uploaded, error) {
	a := lit.Data
	splits, err := lit.Chunks.Resolve(a.Shape(), a.DType().Size())
	if err != nil {
		return ops.Uploaded{}, err
	}
	sj, _ := json.Marshal(splits)
	key := uploadKey{data: a, split: string(sj)}
	b.ups.mu.Lock()
	up, ok := b.ups.done[key]
	b.ups.mu.Unlock()
	if ok {
		return up, nil
	}
	var created web.UploadJSON
	if err := b.do(ctx, http.MethodPost, "/api/sessions/"+b.sid+"/uploads", nil, &created, http.StatusCreated); err != nil {
		return ops.Uploaded{}, err
	}
	grid := make([]int, len(splits))
	for i, s := range splits {
		grid[i] = len(s)
	}
	offs := ops.AxisOffsets(splits)
	var boxes [][2][]int // offset, shape per chunk, C order of the grid
	ops.ForEachGrid(grid, func(idx []int) {
		shape := make([]int, len(idx))
		for ax, j := range idx {
			shape[ax] = splits[ax][j]
		}
		boxes = append(boxes, [2][]int{ops.ChunkOffset(offs, idx), shape})
	})
	up = ops.Uploaded{Session: b.sid, Upload: created.UploadID, Meta: ops.Meta{Shape: a.Shape(), DType: a.DType()}, Splits: splits, Workers: make([]int, len(boxes))}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range min(uploadStreams, len(boxes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				w, err := b.putChunk(ctx, created.URL, i, a, boxes[i][0], boxes[i][1])
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("chunk %d at %v: %w", i, boxes[i][0], err)
					cancel()
				}
				up.Workers[i] = w
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range boxes {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		return ops.Uploaded{}, first
	}
	b.ups.mu.Lock()
	if b.ups.done == nil {
		b.ups.done = make(map[uploadKey]ops.Uploaded)
	}
	b.ups.done[key] = up
	b.ups.mu.Unlock()
	return up, nil
}

// putChunk sends the box of a at off, of size shape, as a .npy body and
// returns the worker that took it.
func (b *remoteBackend) putChunk(ctx context.Context, url string, i int, a *ndarray.Array, off, shape []int) (int, error) {
	rs := make([]ndarray.Range, len(off))
	for ax := range off {
		rs[ax] = ndarray.Range{Start: off[ax], Step: 1, Len: shape[ax]}
	}
	v, err := a.Slice(rs)
	if err != nil {
		return 0, err
	}
	hdr, err := npy.Header(v.DType(), v.Shape())
	if err != nil {
		return 0, err
	}
	size := int64(len(hdr)) + int64(v.Size())*int64(v.DType().Size())
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(npy.Write(pw, v)) }()
	defer pr.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, fmt.Sprintf("%s%s/chunks/%d", b.base, url, i), pr)
	if err != nil {
		return 0, err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := b.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return 0, readAPIError(resp)
	}
	var got web.ChunkUploadJSON
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&got); err != nil {
		return 0, fmt.Errorf("reading the upload's answer: %w", err)
	}
	if got.Index != i || got.Worker < 0 {
		return 0, fmt.Errorf("the upload's answer names chunk %d on worker %d", got.Index, got.Worker)
	}
	return got.Worker, nil
}
