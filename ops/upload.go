package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "uploaded", Op: Uploaded{}, Kinds: Half | Complex},
		Descriptor{Name: "upload_chunk", Op: UploadChunk{}},
	)
}

// Client data of any size reaches a cluster as an upload: the client sends
// each chunk of its array, as a .npy stream, to the web service, which
// streams it on to a worker; the worker keeps it in a file of its
// UploadStore. The graph then refers to the chunks by upload id, chunk
// index and the worker holding each (Uploaded), instead of carrying the
// data inline. An UploadChunk runs on the worker holding its chunk
// (Pinned) and reads the file; the chunk may be dropped under memory
// pressure and read again (Rereadable). The uploads live until their
// session is deleted or their worker stops.

// Pinned is implemented by chunk ops that must run on one worker: their
// data is there and nowhere else. (The fuser never absorbs them: they are
// not generators.)
type Pinned interface {
	ChunkOp
	PinnedWorker() int
}

// Wrapper is implemented by chunk ops that wrap another (a pre-encoded
// op): optional interfaces are looked up on the op inside.
type Wrapper interface {
	Unwrap() ChunkOp
}

// PinnedWorker is the worker op must run on, if it is Pinned (through any
// wrappers).
func PinnedWorker(op ChunkOp) (int, bool) {
	for {
		if p, ok := op.(Pinned); ok {
			return p.PinnedWorker(), true
		}
		w, ok := op.(Wrapper)
		if !ok {
			return 0, false
		}
		op = w.Unwrap()
	}
}

// Uploaded is a tensor whose chunks were uploaded to the workers.
type Uploaded struct {
	Session string `json:"session"`
	Upload  string `json:"upload"`
	Meta    Meta   `json:"meta"`
	// Splits are the chunk sizes along each axis, as uploaded.
	Splits [][]int `json:"splits"`
	// Workers holds, per chunk in C order of the chunk grid, the worker
	// the chunk was uploaded to.
	Workers []int `json:"workers"`
}

// Type implements TensorOp.
func (Uploaded) Type() string { return "uploaded" }

// Infer implements TensorOp.
func (op Uploaded) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("uploaded", in); err != nil {
		return Meta{}, err
	}
	if err := CheckUploadIDs(op.Session, op.Upload); err != nil {
		return Meta{}, fmt.Errorf("uploaded: %w", err)
	}
	what := "uploaded " + op.Upload
	if err := checkMeta(what, op.Meta); err != nil {
		return Meta{}, err
	}
	if err := (ChunkSpec{Splits: op.Splits}).Validate(op.Meta.Shape); err != nil {
		return Meta{}, wrapChunks(what, err)
	}
	n := 1
	for _, s := range op.Splits {
		n *= len(s)
	}
	if len(op.Workers) != n {
		return Meta{}, fmt.Errorf("%s: %d workers for %d chunks", what, len(op.Workers), n)
	}
	for i, w := range op.Workers {
		if w < 0 || w > maxWorkerID {
			return Meta{}, fmt.Errorf("%s: chunk %d: worker %d", what, i, w)
		}
	}
	return op.Meta, nil
}

// maxWorkerID bounds worker ids taken from a graph; the scheduler checks
// them against its workers.
const maxWorkerID = 1 << 15

// Tile implements TensorOp.
func (op Uploaded) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	i := 0
	t, err := tileSource(b, out, ChunkSpec{Splits: op.Splits}, func(shape, _ []int) ChunkOp {
		c := UploadChunk{Session: op.Session, Upload: op.Upload, Index: i, Worker: op.Workers[i], DType: out.DType, Shape: slices.Clone(shape)}
		i++
		return c
	})
	if err != nil {
		return nil, fmt.Errorf("uploaded %s: %w", op.Upload, err)
	}
	return t, nil
}

// UploadChunk reads one uploaded chunk on the worker holding it.
type UploadChunk struct {
	Session string        `json:"session"`
	Upload  string        `json:"upload"`
	Index   int           `json:"index"`
	Worker  int           `json:"worker"`
	DType   ndarray.DType `json:"dtype"`
	Shape   []int         `json:"shape"`
}

// Type implements ChunkOp.
func (UploadChunk) Type() string { return "upload_chunk" }

// Label names the upload, for errors and progress.
func (op UploadChunk) Label() string {
	return fmt.Sprintf("upload_chunk(%s #%d)", op.Upload, op.Index)
}

// PinnedWorker implements Pinned.
func (op UploadChunk) PinnedWorker() int { return op.Worker }

// ReadBytes implements Rereadable.
func (op UploadChunk) ReadBytes() int64 {
	return int64(ndarray.Size(op.Shape)) * int64(op.DType.Size())
}

// Check implements Checker.
func (op UploadChunk) Check() error {
	if err := CheckUploadIDs(op.Session, op.Upload); err != nil {
		return err
	}
	if op.Index < 0 || op.Worker < 0 || op.Worker > maxWorkerID {
		return fmt.Errorf("upload_chunk %s: chunk %d on worker %d", op.Upload, op.Index, op.Worker)
	}
	if !op.DType.Valid() {
		return fmt.Errorf("upload_chunk %s: invalid dtype %v", op.Upload, op.DType)
	}
	return checkChunkAlloc("upload_chunk "+op.Upload, op.Shape, op.DType)
}

// Exec implements ChunkOp.
func (op UploadChunk) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	if err := op.Check(); err != nil {
		return nil, err
	}
	us, _ := ctx.Value(uploadsKey{}).(*UploadStore)
	if us == nil {
		return nil, fmt.Errorf("upload_chunk %s #%d: this worker keeps no uploads (uploaded data is read on the worker it was sent to)", op.Upload, op.Index)
	}
	a, err := us.Read(op.Session, op.Upload, op.Index)
	if err != nil {
		return nil, err
	}
	if a.DType() != op.DType || !slices.Equal(a.Shape(), op.Shape) {
		return nil, fmt.Errorf("upload_chunk %s #%d: the uploaded chunk is %v %v, the graph expects %v %v", op.Upload, op.Index, a.DType(), a.Shape(), op.DType, op.Shape)
	}
	return a, nil
}

type uploadsKey struct{}

// WithUploads gives the chunk ops run under ctx the worker's uploads.
func WithUploads(ctx context.Context, us *UploadStore) context.Context {
	return context.WithValue(ctx, uploadsKey{}, us)
}

// CheckUploadIDs refuses session and upload ids that no session or upload
// could have: they name directories, so they are short and made of
// letters, digits, '-' and '_' only.
func CheckUploadIDs(ids ...string) error {
	for _, id := range ids {
		ok := id != "" && len(id) <= 64
		for i := 0; ok && i < len(id); i++ {
			c := id[i]
			ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_'
		}
		if !ok {
			return fmt.Errorf("id %q: want 1 to 64 letters, digits, '-' or '_'", id)
		}
	}
	return nil
}

// ErrNoUpload is returned when an uploaded chunk is not on the worker.
var ErrNoUpload = errors.New("no such uploaded chunk")
