package tensor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ops"
)

// ZarrFormat and ZarrCodec combine in either order; the sink op carries the
// format (0 for the default, format 2) and the codec.
func TestToZarrFormatOption(t *testing.T) {
	dir := t.TempDir()
	x := Zeros([]int{4, 5})
	for _, c := range []struct {
		opts   []Option
		codec  string
		format int
	}{
		{nil, "blosc", 0},
		{[]Option{ZarrFormat(3)}, "blosc", 3},
		{[]Option{ZarrFormat(3), ZarrCodec("zstd")}, "zstd", 3},
		{[]Option{ZarrCodec("zstd"), ZarrFormat(3)}, "zstd", 3},
		{[]Option{ZarrCodec("none"), ZarrFormat(3), Chunks(2)}, "", 3},
		{[]Option{ZarrFormat(3), ZarrFormat(2), ZarrCodec("zlib")}, "zlib", 0},
		{[]Option{ZarrFormat(2)}, "blosc", 0},
	} {
		y := x.ToZarr(filepath.Join(dir, "y.zarr"), c.opts...)
		if y.Err() != nil {
			t.Fatalf("%d options: %v", len(c.opts), y.Err())
		}
		w, ok := y.Op().(ops.ZarrWrite)
		if !ok || w.Codec != c.codec || w.Format != c.format {
			t.Errorf("%d options: %#v, want codec %q format %d", len(c.opts), y.Op(), c.codec, c.format)
		}
	}
	for _, c := range []struct {
		opts []Option
		want string
	}{
		{[]Option{ZarrFormat(1)}, "zarr format 1"},
		{[]Option{ZarrFormat(3), ZarrCodec("zlib")}, "zlib"},
		{[]Option{ZarrFormat(3), ZarrCodec("lz4")}, "lz4"},
	} {
		if y := x.ToZarr(filepath.Join(dir, "z.zarr"), c.opts...); y.Err() == nil || !strings.Contains(y.Err().Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.opts, y.Err(), c.want)
		}
	}
}
