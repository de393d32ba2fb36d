package ops_test

import (
	"errors"
	"os"
	"path/filepath"
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
