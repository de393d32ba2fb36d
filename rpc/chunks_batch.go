package rpc

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// Several small chunks of one graph travel in one response, GET
// /chunks/{graph}?nodes=3,4,5: their raw bytes one after another, in the
// order asked, with each chunk's dtype and shape in the header
// Phobos-Chunks ("float64:8;float64:8;..."). A result of thousands of
// small chunks then costs a few requests instead of one each.
const (
	HeaderChunks = "Phobos-Chunks"
	// MaxBatchChunks bounds the chunks one batch request names.
	MaxBatchChunks = 1024
)

// ChunkBatchURL is the URL of a batch of chunks, from the URL of each
// (ChunkPath on one worker, one graph), or false when they are not all on
// one worker and in one graph.
func ChunkBatchURL(urls []string) (string, bool) {
	if len(urls) == 0 || len(urls) > MaxBatchChunks {
		return "", false
	}
	var base string
	nodes := make([]string, len(urls))
	for i, u := range urls {
		k := strings.LastIndexByte(u, '/')
		if k < 0 || !strings.Contains(u[:k], "/chunks/") {
			return "", false
		}
		if i == 0 {
			base = u[:k]
		} else if u[:k] != base {
			return "", false
		}
		nodes[i] = u[k+1:]
	}
	return base + "?nodes=" + strings.Join(nodes, ","), true
}

// ChunkBatchHandler serves GET /chunks/{graph}?nodes=... from get.
func ChunkBatchHandler(get func(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, err := strconv.ParseUint(r.PathValue("graph"), 10, 64)
		list := r.URL.Query().Get("nodes")
		if err != nil || list == "" {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("bad chunk batch %q: want /chunks/{graph}?nodes=n,n,...", r.URL.String()))
			return
		}
		parts := strings.Split(list, ",")
		if len(parts) > MaxBatchChunks {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("%d chunks asked in one batch, over the limit of %d", len(parts), MaxBatchChunks))
			return
		}
		arrs := make([]*ndarray.Array, len(parts))
		desc := make([]string, len(parts))
		total := 0
		for i, p := range parts {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("bad node %q in chunk batch", p))
				return
			}
			key := protocol.ChunkKey{Graph: protocol.GraphID(g), Node: int32(n)}
			a, ok := lookupChunk(w, r, get, key)
			if !ok {
				return
			}
			arrs[i] = a
			dims := make([]string, a.NDim())
			for ax, d := range a.Shape() {
				dims[ax] = strconv.Itoa(d)
			}
			desc[i] = a.DType().String() + ":" + strings.Join(dims, ",")
			total += a.Nbytes()
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set(HeaderChunks, strings.Join(desc, ";"))
		w.Header().Set("Content-Length", strconv.Itoa(total))
		for _, a := range arrs {
			if err := WriteRaw(w, a); err != nil {
				panic(http.ErrAbortHandler) // the header is out: cut the body short
			}
		}
	})
}

// OpenChunkBatch starts fetching a batch of chunks (ChunkBatchURL); the
// stream's Shapes and DTypes are each chunk's, its body their bytes in order.
func OpenChunkBatch(ctx context.Context, c *http.Client, url string) (*ChunkBatchStream, error) {
	cs, resp, err := openRaw(ctx, c, url)
	if err != nil {
		return nil, err
	}
	s := &ChunkBatchStream{Body: cs}
	for _, d := range strings.Split(resp.Header.Get(HeaderChunks), ";") {
		dt, dims, ok := strings.Cut(d, ":")
		var one ChunkStream
		if err := one.DType.UnmarshalText([]byte(dt)); !ok || err != nil {
			cs.Close()
			return nil, fmt.Errorf("GET %s: bad %s header", url, HeaderChunks)
		}
		if dims != "" {
			for _, p := range strings.Split(dims, ",") {
				n, err := strconv.Atoi(p)
				if err != nil || n < 0 {
					cs.Close()
					return nil, fmt.Errorf("GET %s: bad %s header", url, HeaderChunks)
				}
				one.Shape = append(one.Shape, n)
			}
		}
		s.DTypes = append(s.DTypes, one.DType)
		s.Shapes = append(s.Shapes, one.Shape)
		s.Nbytes += one.Nbytes()
	}
	if resp.ContentLength >= 0 && resp.ContentLength != int64(s.Nbytes) {
		cs.Close()
		return nil, fmt.Errorf("GET %s: %d bytes for chunks of %d", url, resp.ContentLength, s.Nbytes)
	}
	return s, nil
}

// ChunkBatchStream is an open batch of chunks.
type ChunkBatchStream struct {
	DTypes []ndarray.DType
	Shapes [][]int
	Nbytes int
	Body   io.ReadCloser
}
