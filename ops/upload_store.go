package ops

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// UploadStore keeps the chunks uploaded to a worker, each a .npy file at
// DIR/session/upload/index.npy. A chunk is streamed to a temporary file as
// it arrives and renamed into place only once it is whole and valid, so a
// cut upload leaves nothing readable behind and uploading the same chunk
// again replaces it. Safe for concurrent use: every chunk is its own file.
type UploadStore struct {
	dir   string
	cache uploadCache // small chunks, also in memory (upload_cache.go)
}

// UploadInfo describes an uploaded chunk.
type UploadInfo struct {
	DType ndarray.DType
	Shape []int
	Bytes int64 // the file's size
}

// NewUploadStore keeps uploads under dir, which it creates.
func NewUploadStore(dir string) (*UploadStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("uploads: %w", err)
	}
	return &UploadStore{dir: dir}, nil
}

// Dir is where the uploads are kept.
func (s *UploadStore) Dir() string { return s.dir }

func (s *UploadStore) path(session, upload string, index int) (string, error) {
	if err := CheckUploadIDs(session, upload); err != nil {
		return "", err
	}
	if index < 0 {
		return "", fmt.Errorf("chunk index %d", index)
	}
	return filepath.Join(s.dir, session, upload, strconv.Itoa(index)+".npy"), nil
}

// Put stores one chunk read from r, a .npy stream holding exactly one
// array of at most zarr.MaxChunkBytes bytes (the bound of every chunk read
// from outside).
func (s *UploadStore) Put(session, upload string, index int, r io.Reader) (UploadInfo, error) {
	p, err := s.path(session, upload, index)
	if err != nil {
		return UploadInfo{}, fmt.Errorf("upload: %w", err)
	}
	what := fmt.Sprintf("upload %s chunk %d", upload, index)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".part-*")
	if err != nil {
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// The header goes to the file as it is parsed; then exactly the data
	// it announces, and nothing after it.
	info, err := npy.ReadHeader(io.TeeReader(r, f))
	if err != nil {
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := checkChunkAlloc(what, info.Shape, info.DType); err != nil {
		return UploadInfo{}, err
	}
	n, err := io.CopyN(f, r, info.DataBytes())
	if err != nil {
		if errors.Is(err, io.EOF) {
			return UploadInfo{}, fmt.Errorf("%s: truncated: got %d of the %d data bytes its header announces (%v %v)", what, n, info.DataBytes(), info.DType, info.Shape)
		}
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	var extra [1]byte
	if m, _ := io.ReadFull(r, extra[:]); m > 0 {
		return UploadInfo{}, fmt.Errorf("%s: more bytes follow the %d data bytes its header announces (%v %v): one array per chunk", what, info.DataBytes(), info.DType, info.Shape)
	}
	if err := f.Close(); err != nil {
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return UploadInfo{}, fmt.Errorf("%s: %w", what, err)
	}
	// After the rename: a read that began before it keeps nothing.
	s.cache.drop(p, false)
	ok = true
	return UploadInfo{DType: info.DType, Shape: info.Shape, Bytes: info.DataOffset + info.DataBytes()}, nil
}

// Read reads an uploaded chunk.
func (s *UploadStore) Read(session, upload string, index int) (*ndarray.Array, error) {
	p, err := s.path(session, upload, index)
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	if a, ok := s.cache.get(p); ok {
		return a, nil
	}
	gen := s.cache.generation()
	a, err := npy.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("upload %s chunk %d of session %s: %w on this worker (deleted with its session, or never sent)", upload, index, session, ErrNoUpload)
	}
	if err != nil {
		return nil, fmt.Errorf("upload %s chunk %d: %w", upload, index, err)
	}
	s.cache.add(p, a, gen)
	return a, nil
}

// DeleteSession removes a session's uploads.
func (s *UploadStore) DeleteSession(session string) error {
	if err := CheckUploadIDs(session); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	dir := filepath.Join(s.dir, session)
	s.cache.drop(dir, true)
	return os.RemoveAll(dir)
}

// Close removes every upload.
func (s *UploadStore) Close() error {
	s.cache.drop(s.dir, true)
	return os.RemoveAll(s.dir)
}
