package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// Chunk bytes travel as the body of GET /chunks/{graph}/{node}: the raw
// little-endian elements in C order, with the dtype and shape in headers.
// No protobuf framing, so a chunk is written straight from the store and read
// straight into the buffer of a new array: no second full copy either side.
const (
	HeaderDType = "Phobos-Dtype"
	HeaderShape = "Phobos-Shape"
	// blockBytes is the unit in which strided chunks are copied out.
	blockBytes = 1 << 20
)

// shapeBytes is the size of a dt array of shape, refused when a
// dimension is negative or the size does not fit an int (a shape from the
// network must not wrap around to the size of some file).
func shapeBytes(dt ndarray.DType, shape []int) (int, error) {
	n := dt.Size()
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt/d) {
			return 0, fmt.Errorf("a %v array of shape %v is out of range", dt, shape)
		}
		n *= d
	}
	return n, nil
}

// ChunkPath is the URL path of a chunk on the worker holding it.
func ChunkPath(key protocol.ChunkKey) string {
	return fmt.Sprintf("/chunks/%d/%d", key.Graph, key.Node)
}

// lookupChunk gets a chunk for a handler, answering 404 with what was
// missing when it cannot.
func lookupChunk(w http.ResponseWriter, r *http.Request, get func(context.Context, protocol.ChunkKey) (*ndarray.Array, error), key protocol.ChunkKey) (*ndarray.Array, bool) {
	a, err := get(r.Context(), key)
	if err != nil {
		writeJSONError(w, http.StatusNotFound, fmt.Sprintf("chunk %v: %v", key, err))
		return nil, false
	}
	return a, true
}

// ChunkHandler serves GET /chunks/{graph}/{node} from get.
func ChunkHandler(get func(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, err1 := strconv.ParseUint(r.PathValue("graph"), 10, 64)
		n, err2 := strconv.ParseInt(r.PathValue("node"), 10, 32)
		if err1 != nil || err2 != nil {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("bad chunk path %q: want /chunks/{graph}/{node}", r.URL.Path))
			return
		}
		key := protocol.ChunkKey{Graph: protocol.GraphID(g), Node: int32(n)}
		a, ok := lookupChunk(w, r, get, key)
		if !ok {
			return
		}
		SetChunkHeaders(w.Header(), a.DType(), a.Shape())
		w.Header().Set("Content-Length", strconv.Itoa(a.Nbytes()))
		if r.Method == http.MethodHead {
			return
		}
		if err := WriteRaw(w, a); err != nil {
			// The header is out; all we can do is cut the body short, which
			// the reader sees as a truncated chunk.
			panic(http.ErrAbortHandler)
		}
	})
}

// SetChunkHeaders describes an array body.
func SetChunkHeaders(h http.Header, dt ndarray.DType, shape []int) {
	h.Set("Content-Type", "application/octet-stream")
	h.Set(HeaderDType, dt.String())
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	h.Set(HeaderShape, strings.Join(parts, ","))
}

func writeJSONError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// WriteRaw writes a's elements in C order. A contiguous array is written from
// its own buffer; a strided view (a transposed chunk, say) is copied out in
// blocks of rows of about a megabyte, never whole.
func WriteRaw(w io.Writer, a *ndarray.Array) error {
	if a.Size() == 0 {
		return nil
	}
	if a.IsContiguous() || a.NDim() == 0 || a.Nbytes() <= blockBytes {
		b := a.Bytes()
		for len(b) > 0 {
			n := min(len(b), blockBytes)
			if _, err := w.Write(b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		return nil
	}
	shape := a.Shape()
	rowBytes := a.Nbytes() / shape[0]
	rows := max(1, blockBytes/max(rowBytes, 1))
	for r := 0; r < shape[0]; r += rows {
		k := min(rows, shape[0]-r)
		blk, err := a.Slice([]ndarray.Range{{Start: r, Step: 1, Len: k}})
		if err != nil {
			return err
		}
		if _, err := w.Write(blk.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// ErrUnreachable marks a fetch that failed because the worker could not be
// reached or went away mid-transfer (not because it lacks the chunk).
var ErrUnreachable = errors.New("worker unreachable")

// ChunkStream is an open chunk body: its dtype, shape and raw bytes.
type ChunkStream struct {
	DType ndarray.DType
	Shape []int
	Body  io.ReadCloser
}

// Nbytes is the size of the body.
func (s *ChunkStream) Nbytes() int { return ndarray.Size(s.Shape) * s.DType.Size() }

// OpenChunk starts fetching a chunk from url.
func OpenChunk(ctx context.Context, c *http.Client, url string) (*ChunkStream, error) {
	_, resp, err := openRaw(ctx, c, url)
	if err != nil {
		return nil, err
	}
	s := &ChunkStream{Body: resp.Body}
	if err := s.DType.UnmarshalText([]byte(resp.Header.Get(HeaderDType))); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if sh := resp.Header.Get(HeaderShape); sh != "" {
		for _, p := range strings.Split(sh, ",") {
			d, err := strconv.Atoi(p)
			if err != nil || d < 0 {
				resp.Body.Close()
				return nil, fmt.Errorf("GET %s: bad %s header %q", url, HeaderShape, sh)
			}
			s.Shape = append(s.Shape, d)
		}
	}
	n, err := shapeBytes(s.DType, s.Shape)
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != int64(n) {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d bytes for %v%v", url, resp.ContentLength, s.DType, s.Shape)
	}
	return s, nil
}

// FetchChunk reads a whole chunk into a new array, straight into its buffer.
func FetchChunk(ctx context.Context, c *http.Client, url string) (*ndarray.Array, error) {
	s, err := OpenChunk(ctx, c, url)
	if err != nil {
		return nil, err
	}
	defer s.Body.Close()
	a, err := ndarray.New(s.DType, s.Shape...)
	if err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(s.Body, a.Bytes()); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: GET %s: chunk body cut short: %w", ErrUnreachable, url, err)
	}
	return a, nil
}

// openRaw sends GET url and checks its status; the caller closes the body.
func openRaw(ctx context.Context, c *http.Client, url string) (io.ReadCloser, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return nil, nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, e.Error)
		}
		return nil, nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, resp, nil
}
