package web

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// A result streams as bands of chunk rows, written in order but fetched
// ahead: a result of many small chunks costs one worker round trip per
// band, and those overlap instead of adding up; a large band is fetched
// while the one before it is written. The bands ahead are bounded in
// number and in bytes (a band larger than the bound is fetched alone), and
// the requests to workers in number.
const (
	bandsAhead       = 16
	bandBytesAhead   = 128 << 20
	bandTokenBytes   = 1 << 20 // the unit of the byte bound
	fetchesAtOnce    = 16
	bandTokensAtMost = bandBytesAhead / bandTokenBytes
	// Consecutive bands that are each one whole small chunk on one worker
	// are fetched in one request (rpc.ChunkBatchURL), up to these bounds.
	batchChunkBytes = 256 << 10
	batchBytes      = 4 << 20
	batchChunks     = 256
)

// band is one band being fetched: either assembled in memory (arr) or one
// whole chunk whose response body is copied straight through (stream).
type band struct {
	done   chan struct{}
	tokens int
	arr    *ndarray.Array
	stream *rpc.ChunkStream
	batch  *rpc.ChunkBatchStream // several bands' chunks, want bytes in all
	want   int
	err    error
}

func (b *band) close() {
	<-b.done
	if b.stream != nil {
		b.stream.Body.Close()
	}
	if b.batch != nil {
		b.batch.Body.Close()
	}
}

// writeBands writes the out rows of every axis-0 segment, in order.
func (s *Server) writeBands(ctx context.Context, w io.Writer, dt ndarray.DType, lay *pb.ResultLayout, grid []int, sel []axisSel, segs [][]segment) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rowBytes := int64(dt.Size())
	for ax := 1; ax < len(sel); ax++ {
		rowBytes *= int64(sel[ax].n)
	}
	tokens := make(chan struct{}, bandTokensAtMost)
	fetches := make(chan struct{}, fetchesAtOnce)
	queue := make(chan *band, bandsAhead)
	go func() {
		defer close(queue)
		for i := 0; i < len(segs[0]); {
			s0 := segs[0][i]
			nb := int64(s0.hi-s0.lo) * rowBytes
			var urls []string
			if f, ok := wholeChunk(segs, grid, s0); ok && nb <= batchChunkBytes {
				urls = append(urls, lay.Chunks[f].Url)
				base := chunkBase(urls[0])
				for j := i + 1; j < len(segs[0]) && len(urls) < batchChunks; j++ {
					s1 := segs[0][j]
					b1 := int64(s1.hi-s1.lo) * rowBytes
					f1, ok := wholeChunk(segs, grid, s1)
					if !ok || b1 > batchChunkBytes || nb+b1 > batchBytes || chunkBase(lay.Chunks[f1].Url) != base {
						break
					}
					urls = append(urls, lay.Chunks[f1].Url)
					nb += b1
				}
			}
			n := int((nb + bandTokenBytes - 1) / bandTokenBytes)
			n = min(max(n, 1), bandTokensAtMost)
			b := &band{done: make(chan struct{}), want: int(nb)}
			for b.tokens < n {
				select {
				case tokens <- struct{}{}:
					b.tokens++
				case <-ctx.Done():
					for range b.tokens {
						<-tokens
					}
					return
				}
			}
			if len(urls) > 1 {
				i += len(urls)
				go func() {
					defer close(b.done)
					b.batch, b.err = s.fetchBatch(ctx, fetches, urls)
				}()
			} else {
				i++
				go func() {
					defer close(b.done)
					b.arr, b.stream, b.err = s.fetchBand(ctx, fetches, dt, lay, grid, sel, segs, s0)
				}()
			}
			select {
			case queue <- b:
			case <-ctx.Done():
				b.close()
				return
			}
		}
	}()
	var err error
	for b := range queue {
		<-b.done
		if err == nil {
			err = b.err
			switch {
			case err != nil:
			case b.batch != nil:
				var n int64
				n, err = io.Copy(w, b.batch.Body)
				if err == nil && n != int64(b.want) {
					err = fmt.Errorf("chunk batch body: %d of %d bytes", n, b.want)
				}
			case b.stream != nil:
				var n int64
				n, err = io.Copy(w, b.stream.Body)
				if err == nil && n != int64(b.stream.Nbytes()) {
					err = fmt.Errorf("chunk body: %d of %d bytes", n, b.stream.Nbytes())
				}
			default:
				_, err = w.Write(b.arr.Bytes())
			}
			if err != nil {
				cancel() // the bands ahead stop; the loop drains them
			}
		}
		b.close()
		for range b.tokens {
			<-tokens
		}
	}
	return err
}

// fetchBand fetches the out rows of one axis-0 segment: a band that is
// exactly one whole chunk is left open as the worker's response, any other
// is assembled from its chunks, fetched concurrently.
func (s *Server) fetchBand(ctx context.Context, fetches chan struct{}, dt ndarray.DType, lay *pb.ResultLayout, grid []int, sel []axisSel, segs [][]segment, s0 segment) (*ndarray.Array, *rpc.ChunkStream, error) {
	nd := len(grid)
	// The chunks of the band: every combination of the other axes' segments.
	var combos [][]segment
	cur := make([]segment, nd)
	cur[0] = s0
	var walk func(ax int)
	walk = func(ax int) {
		if ax == nd {
			combos = append(combos, append([]segment(nil), cur...))
			return
		}
		for _, sg := range segs[ax] {
			cur[ax] = sg
			walk(ax + 1)
		}
	}
	walk(1)
	flat := func(c []segment) int {
		f := 0
		for ax, sg := range c {
			f = f*grid[ax] + sg.chunk
		}
		return f
	}
	if len(combos) == 1 {
		whole := true
		for _, sg := range combos[0] {
			whole = whole && sg.whole
		}
		if whole {
			select {
			case fetches <- struct{}{}:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			cs, err := s.openChunk(ctx, lay.Chunks[flat(combos[0])].Url)
			<-fetches
			return nil, cs, err
		}
	}
	bandShape := make([]int, nd)
	bandShape[0] = s0.hi - s0.lo
	for ax := 1; ax < nd; ax++ {
		bandShape[ax] = sel[ax].n
	}
	arr, err := ndarray.New(dt, bandShape...)
	if err != nil {
		return nil, nil, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ferr error
	for _, c := range combos {
		select {
		case fetches <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-fetches }()
			a, err := s.fetchChunk(ctx, lay.Chunks[flat(c)].Url)
			if err == nil {
				src := make([]ndarray.Range, nd)
				dst := make([]ndarray.Range, nd)
				for ax, sg := range c {
					src[ax] = ndarray.Range{Start: sg.first, Step: sel[ax].step, Len: sg.hi - sg.lo}
					dst[ax] = ndarray.Range{Start: sg.lo, Step: 1, Len: sg.hi - sg.lo}
				}
				dst[0].Start = 0
				var sv, dv *ndarray.Array
				if sv, err = a.Slice(src); err == nil {
					if dv, err = arr.Slice(dst); err == nil {
						ndarray.CopyInto(dv, sv) // disjoint regions of the band: safe in parallel
					}
				}
			}
			if err != nil {
				mu.Lock()
				ferr = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ferr != nil {
		return nil, nil, ferr
	}
	return arr, nil, nil
}

// wholeChunk reports whether the band of axis-0 segment s0 is exactly one
// whole chunk, and which (its flat index in the grid).
func wholeChunk(segs [][]segment, grid []int, s0 segment) (int, bool) {
	if !s0.whole {
		return 0, false
	}
	f := s0.chunk
	for ax := 1; ax < len(grid); ax++ {
		if len(segs[ax]) != 1 || !segs[ax][0].whole {
			return 0, false
		}
		f = f*grid[ax] + segs[ax][0].chunk
	}
	return f, true
}

// chunkBase is a chunk URL without its node: chunks of one base are on one
// worker, in one graph.
func chunkBase(url string) string {
	return url[:max(strings.LastIndexByte(url, '/'), 0)]
}

// fetchBatch opens one request for the chunks at urls, whole bands each.
func (s *Server) fetchBatch(ctx context.Context, fetches chan struct{}, urls []string) (*rpc.ChunkBatchStream, error) {
	u, ok := rpc.ChunkBatchURL(urls)
	if !ok {
		return nil, fmt.Errorf("chunks %v cannot be fetched in one batch", urls)
	}
	select {
	case fetches <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-fetches }()
	return rpc.OpenChunkBatch(ctx, s.http, u)
}
