package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ops"
)

// A FileAccess allows paths under its roots only, once `..` and symbolic
// links are resolved; with no roots it allows nothing.
func TestFileAccess(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f"), filepath.Join(root, "f-link")); err != nil {
		t.Fatal(err)
	}
	fa, err := ops.NewFileAccess([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(root, "new.npy"), true},
		{filepath.Join(root, "sub", "new.npy"), true},
		{filepath.Join(root, "sub", "..", "x.npy"), true},
		{filepath.Join(root, "..", filepath.Base(outside), "f"), false},
		{filepath.Join(outside, "f"), false},
		{filepath.Join(root, "out", "f"), false},
		{filepath.Join(root, "out", "new.npy"), false},
		{filepath.Join(root, "f-link"), false},
		{"relative.npy", false},
		{filepath.Join(root, "missing-dir", "x.npy"), false},
	} {
		err := fa.Check(c.path)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want allowed %v", c.path, err, c.ok)
		}
		var fe *ops.FileAccessError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("%s: %T, want a FileAccessError", c.path, err)
		}
	}
	none, err := ops.NewFileAccess(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := none.Check(filepath.Join(root, "new.npy")); err == nil {
		t.Error("a worker without data roots allowed a file")
	}
	if _, err := ops.NewFileAccess([]string{filepath.Join(root, "nope")}); err == nil {
		t.Error("a missing data root was accepted")
	}
}

// A sink op whose temporary name is not one the sink made is refused before
// it touches anything: sinks remove their temporary file or directory when
// they fail, and a hostile request must not get another file removed.
func TestSinkTempNameGuarded(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "precious")
	if err := os.Mkdir(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keep, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, op := range []ops.ChunkOp{
		ops.NpyWriteChunk{Path: filepath.Join(dir, "out.npy"), Temp: keep},
		ops.NpyCommit{Path: filepath.Join(dir, "out.npy"), Temp: keep},
		ops.ZarrWriteChunk{Path: filepath.Join(dir, "out.zarr"), Temp: keep},
		ops.ZarrCommit{Path: filepath.Join(dir, "out.zarr"), Temp: keep},
		ops.ZarrCreate{Path: filepath.Join(dir, "out.zarr"), Temp: filepath.Join(dir, ".out.zarr.phobos-zzzzzzzzzzzzzzzz.tmp")},
	} {
		if _, err := op.Exec(ctx, nil); err == nil || !strings.Contains(err.Error(), "not a temporary name") {
			t.Errorf("%s: %v, want a refusal of the temporary name", op.Type(), err)
		}
		if _, err := os.Stat(filepath.Join(keep, "data")); err != nil {
			t.Fatalf("%s removed %s: %v", op.Type(), keep, err)
		}
	}
}
