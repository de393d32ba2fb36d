package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileAccess is the set of directories the file ops of a graph may read and
// write under. Workers of a cluster run ops with one in their context (see
// WithFileAccess): a path outside its roots, through `..` or a symbolic
// link leading out, is refused; with no roots, every path is. Ops run
// without one (a local session) may touch any path the process can.
type FileAccess struct {
	roots []string // absolute, symbolic links resolved
}

// NewFileAccess resolves the roots (which must exist) into a FileAccess.
func NewFileAccess(roots []string) (*FileAccess, error) {
	fa := &FileAccess{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("data root %q: %w", r, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("data root %q is not a directory", r)
		}
		fa.roots = append(fa.roots, abs)
	}
	return fa, nil
}

// FileAccessError is a file op refused by a worker's FileAccess.
type FileAccessError struct {
	Path  string
	Roots []string
	Why   string
}

func (e *FileAccessError) Error() string {
	if len(e.Roots) == 0 {
		return fmt.Sprintf("file %s: this worker allows no file access; start it with --data-root DIR to allow files under DIR", e.Path)
	}
	return fmt.Sprintf("file %s: %s; this worker allows files under %s only (--data-root)", e.Path, e.Why, strings.Join(e.Roots, ", "))
}

type fileAccessKey struct{}

// WithFileAccess returns a context under which file ops keep to fa.
func WithFileAccess(ctx context.Context, fa *FileAccess) context.Context {
	return context.WithValue(ctx, fileAccessKey{}, fa)
}

// checkPath refuses a path ctx's FileAccess does not allow.
func checkPath(ctx context.Context, path string) error {
	fa, _ := ctx.Value(fileAccessKey{}).(*FileAccess)
	if fa == nil {
		return nil
	}
	return fa.Check(path)
}

// Check reports whether path (an existing file, or one to create in an
// existing directory) lies under a root once symbolic links are resolved.
func (fa *FileAccess) Check(path string) error {
	refuse := func(why string) error { return &FileAccessError{Path: path, Roots: fa.roots, Why: why} }
	if len(fa.roots) == 0 {
		return refuse("")
	}
	if !filepath.IsAbs(path) {
		return refuse("not an absolute path")
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A file to create: its directory must resolve inside a root.
		var dir string
		dir, err = filepath.EvalSymlinks(filepath.Dir(path))
		real = filepath.Join(dir, filepath.Base(path))
	}
	if err != nil {
		return refuse(err.Error())
	}
	for _, root := range fa.roots {
		if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil
		}
	}
	return refuse("outside the data roots")
}

// OpenSource opens the file source of kind ("npy" or "zarr") at path as a
// worker that reads it would, under ctx's FileAccess, and returns its op;
// only the header or the metadata is read. A web service building a
// program asks a worker for this rather than opening files itself.
func OpenSource(ctx context.Context, kind, path string, spec ChunkSpec) (TensorOp, error) {
	if path == "" {
		return nil, errors.New("file source: empty path")
	}
	path = filepath.Clean(path)
	if err := checkPath(ctx, path); err != nil {
		return nil, err
	}
	switch kind {
	case "npy":
		return NewNpyRead(path, spec)
	case "zarr":
		// The metadata file too: it may be a link leading out.
		for _, name := range []string{".zarray", "zarr.json"} {
			p := filepath.Join(path, name)
			if _, err := os.Lstat(p); err == nil {
				if err := checkPath(ctx, p); err != nil {
					return nil, err
				}
			}
		}
		return NewZarrRead(path, spec)
	}
	return nil, fmt.Errorf("file source %s: unknown kind %q (npy, zarr)", path, kind)
}

// CheckPaths refuses the first path ctx's FileAccess does not allow.
func CheckPaths(ctx context.Context, paths []string) error {
	for _, p := range paths {
		if err := checkPath(ctx, filepath.Clean(p)); err != nil {
			return err
		}
	}
	return nil
}
