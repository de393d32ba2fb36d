package web

import (
	"bytes"
	"context"
	"io"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/rpc"
)

// LocalChunks reads a chunk a worker of this process holds, as GET on its
// URL would answer, without the request: ok is false when no worker of
// this process serves url. The array is the worker's, read only and only
// for the length of the call that asked, as a response body is written
// from it.
type LocalChunks interface {
	GetChunk(ctx context.Context, url string) (a *ndarray.Array, ok bool, err error)
}

// fetchChunk is rpc.FetchChunk of url, from a worker of this process
// without a request when it holds the chunk. The array is not the
// caller's to change.
func (s *Server) fetchChunk(ctx context.Context, url string) (*ndarray.Array, error) {
	if s.cfg.Chunks != nil {
		if a, ok, err := s.cfg.Chunks.GetChunk(ctx, url); ok {
			return a, err
		}
	}
	return rpc.FetchChunk(ctx, s.http, url)
}

// openChunk is rpc.OpenChunk of url, read as fetchChunk reads.
func (s *Server) openChunk(ctx context.Context, url string) (*rpc.ChunkStream, error) {
	if s.cfg.Chunks != nil {
		if a, ok, err := s.cfg.Chunks.GetChunk(ctx, url); ok {
			if err != nil {
				return nil, err
			}
			a = a.Contiguous()
			return &rpc.ChunkStream{DType: a.DType(), Shape: a.Shape(), Body: io.NopCloser(bytes.NewReader(a.Bytes()))}, nil
		}
	}
	return rpc.OpenChunk(ctx, s.http, url)
}
