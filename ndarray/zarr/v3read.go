package zarr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/phobos-tensor/phobos/ndarray"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// keyV3 is the store key of the stored chunk (the shard, when sharded) at
// grid index idx.
func (a *Array) keyV3(idx []int) string {
	var b strings.Builder
	if a.v3.keyPrefix {
		b.WriteByte('c')
		for _, v := range idx {
			b.WriteString(a.Separator)
			b.WriteString(strconv.Itoa(v))
		}
		return b.String()
	}
	if len(idx) == 0 {
		return "0"
	}
	for i, v := range idx {
		if i > 0 {
			b.WriteString(a.Separator)
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// encodedCap bounds the stored bytes of a chunk of n bytes: no codec here
// grows data by more than a few bytes a block.
func encodedCap(n int) int64 { return int64(n) + int64(n)/8 + 1<<20 }

// shardFile is an open shard and its decoded index, kept while a region is
// read.
type shardFile struct {
	f     *os.File
	size  int64
	index []uint64 // offset, nbytes for each inner chunk in C order
}

// shardCache keeps the shards a ReadRegion opened (not safe for concurrent
// use: each ReadRegion has its own).
type shardCache map[string]*shardFile

func (c shardCache) close() {
	for _, s := range c {
		if s.f != nil {
			s.f.Close()
		}
	}
}

// readChunkV3 reads the chunk at grid index idx (an inner chunk's, when
// sharded).
func (a *Array) readChunkV3(idx []int, cache shardCache) (*ndarray.Array, error) {
	if len(idx) != len(a.Chunks) {
		return nil, fmt.Errorf("zarr %s: chunk index %v of a %d-d array", a.Path, idx, len(a.Chunks))
	}
	grid := a.Grid()
	for i, v := range idx {
		if v < 0 || v >= max(grid[i], 1) {
			return nil, fmt.Errorf("zarr %s: chunk index %v outside the grid %v", a.Path, idx, grid)
		}
	}
	if a.v3.shard != nil {
		return a.readInner(idx, cache)
	}
	key := a.keyV3(idx)
	fail := func(err error) error { return fmt.Errorf("zarr %s: chunk %s: %w", a.Path, key, err) }
	name := filepath.Join(a.Path, filepath.FromSlash(key))
	if a.Check != nil {
		if err := a.Check(name); err != nil {
			return nil, err
		}
	}
	want := ndarray.Size(a.Chunks) * a.DType.Size()
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return a.fillChunk(a.Chunks), nil
	}
	if err != nil {
		return nil, fail(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fail(errors.New("not a regular file"))
	}
	if c := encodedCap(want); fi.Size() > c {
		return nil, fail(fmt.Errorf("a file of %d bytes, more than a chunk of %d bytes encodes to (%d)", fi.Size(), want, c))
	}
	raw := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, fail(err)
	}
	out, err := decodeChain(a.v3.codecs, raw, a.Chunks, a.DType)
	if err != nil {
		return nil, fail(err)
	}
	return out, nil
}

// readInner reads the inner chunk at inner-grid index idx from its shard:
// the shard's index, then that chunk's bytes alone.
func (a *Array) readInner(idx []int, cache shardCache) (*ndarray.Array, error) {
	sh := a.v3.shard
	nd := len(idx)
	outer, local := make([]int, nd), 0
	for i, v := range idx {
		outer[i] = v / sh.per[i]
		local = local*sh.per[i] + v%sh.per[i]
	}
	key := a.keyV3(outer)
	fail := func(err error) error {
		return fmt.Errorf("zarr %s: shard %s, inner chunk %v: %w", a.Path, key, idx, err)
	}
	s, err := a.openShard(key, cache)
	if err != nil {
		return nil, fail(err)
	}
	if cache == nil && s.f != nil {
		defer s.f.Close()
	}
	if s.f == nil {
		return a.fillChunk(a.Chunks), nil
	}
	off, n := s.index[2*local], s.index[2*local+1]
	if off == math.MaxUint64 && n == math.MaxUint64 {
		return a.fillChunk(a.Chunks), nil
	}
	want := ndarray.Size(a.Chunks) * a.DType.Size()
	lo, hi := uint64(0), uint64(s.size)
	if sh.indexStart {
		lo = uint64(sh.indexBytes)
	} else {
		hi -= uint64(sh.indexBytes)
	}
	switch {
	case off < lo || off > hi || n > hi-off:
		return nil, fail(fmt.Errorf("the index gives bytes %d+%d, outside the shard's data (bytes %d to %d of %d)", off, n, lo, hi, s.size))
	case int64(n) > encodedCap(want):
		return nil, fail(fmt.Errorf("the index gives %d bytes, more than a chunk of %d bytes encodes to", n, want))
	}
	raw := make([]byte, n)
	if _, err := s.f.ReadAt(raw, int64(off)); err != nil {
		return nil, fail(err)
	}
	out, err := decodeChain(sh.codecs, raw, a.Chunks, a.DType)
	if err != nil {
		return nil, fail(err)
	}
	return out, nil
}

// openShard opens the shard at key and reads its index (a missing shard
// has no file); with a cache, each shard once.
func (a *Array) openShard(key string, cache shardCache) (*shardFile, error) {
	if s, ok := cache[key]; ok {
		return s, nil
	}
	sh := a.v3.shard
	name := filepath.Join(a.Path, filepath.FromSlash(key))
	if a.Check != nil {
		if err := a.Check(name); err != nil {
			return nil, err
		}
	}
	s := &shardFile{}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		if cache != nil {
			cache[key] = s
		}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil && fi.Size() < sh.indexBytes {
		err = fmt.Errorf("a shard of %d bytes, shorter than its index (%d bytes): truncated", fi.Size(), sh.indexBytes)
	}
	var raw []byte
	if err == nil {
		at := int64(0)
		if !sh.indexStart {
			at = fi.Size() - sh.indexBytes
		}
		raw = make([]byte, sh.indexBytes)
		if _, err = f.ReadAt(raw, at); err != nil {
			err = fmt.Errorf("reading the index: %w", err)
		}
	}
	if err == nil {
		s.index, err = decodeIndex(sh, raw)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f, s.size = f, fi.Size()
	if cache != nil {
		cache[key] = s
	}
	return s, nil
}

// decodeIndex checks a shard index's checksums and reads its pairs.
func decodeIndex(sh *shard, raw []byte) ([]uint64, error) {
	for range sh.indexCRC {
		var err error
		if raw, err = checkCRC(raw); err != nil {
			return nil, fmt.Errorf("the shard index: %w", err)
		}
	}
	if len(raw) != 16*sh.count {
		return nil, fmt.Errorf("the shard index has %d bytes, want %d", len(raw), 16*sh.count)
	}
	idx := make([]uint64, 2*sh.count)
	for i := range idx {
		if sh.indexBig {
			idx[i] = binary.BigEndian.Uint64(raw[8*i:])
		} else {
			idx[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
	}
	return idx, nil
}

// checkCRC verifies and strips a crc32c codec's trailing checksum.
func checkCRC(raw []byte) ([]byte, error) {
	if len(raw) < 4 {
		return nil, fmt.Errorf("crc32c: %d bytes, shorter than the checksum", len(raw))
	}
	n := len(raw) - 4
	got, want := crc32.Checksum(raw[:n], castagnoli), binary.LittleEndian.Uint32(raw[n:])
	if got != want {
		return nil, fmt.Errorf("crc32c: checksum %08x, the data's is %08x (corrupt)", want, got)
	}
	return raw[:n], nil
}

// decodeChain decodes the stored bytes of a chunk of the given shape with
// a chain (no sharding in it) into a C-order array.
func decodeChain(chain []codec, raw []byte, shape []int, dt ndarray.DType) (*ndarray.Array, error) {
	// The shape each array-to-array codec gives.
	shapes := [][]int{shape}
	ab := 0
	for ab < len(chain) && chain[ab].name == "transpose" {
		prev := shapes[len(shapes)-1]
		next := make([]int, len(prev))
		for i, o := range chain[ab].order {
			next[i] = prev[o]
		}
		shapes = append(shapes, next)
		ab++
	}
	enc := shapes[len(shapes)-1]
	want := ndarray.Size(enc) * dt.Size()
	limit := int(min(encodedCap(want), MaxChunkBytes+1<<20))
	data := raw
	for i := len(chain) - 1; i > ab; i-- {
		var err error
		if data, err = undoBytes(chain[i].name, data, limit); err != nil {
			return nil, err
		}
	}
	if len(data) != want {
		return nil, fmt.Errorf("%d bytes decoded, a chunk %v of %v has %d", len(data), enc, typeName(dt), want)
	}
	out, err := ndarray.New(dt, enc...)
	if err != nil {
		return nil, err
	}
	b := out.Bytes()
	copy(b, data)
	if chain[ab].big {
		swap(b, partSize(dt))
	}
	if dt == ndarray.Bool {
		for i, v := range b {
			if v > 1 {
				b[i] = 1
			}
		}
	}
	if ab == 0 {
		return out, nil
	}
	for i := ab - 1; i >= 0; i-- {
		order := chain[i].order
		inv := make([]int, len(order))
		for j, o := range order {
			inv[o] = j
		}
		if out, err = out.Transpose(inv...); err != nil {
			return nil, err
		}
	}
	return out.Copy(), nil
}

// undoBytes decodes one bytes-to-bytes codec, giving at most limit bytes.
func undoBytes(name string, data []byte, limit int) ([]byte, error) {
	switch name {
	case "crc32c":
		return checkCRC(data)
	case "blosc":
		return bloscDecode(data, limit)
	case "gzip":
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer r.Close()
		out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		if len(out) > limit {
			return nil, fmt.Errorf("gzip: more than %d bytes decompressed", limit)
		}
		return out, nil
	case "zstd":
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(limit, 1<<20))))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		out, err := d.DecodeAll(data, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if len(out) > limit {
			return nil, fmt.Errorf("zstd: more than %d bytes decompressed", limit)
		}
		return out, nil
	}
	return nil, fmt.Errorf("codec %q cannot decode", name)
}

// fillChunk is a chunk of shape holding the fill value, bit for bit.
func (a *Array) fillChunk(shape []int) *ndarray.Array {
	out, err := ndarray.New(a.DType, shape...)
	if err != nil {
		return a.fillScalar(shape)
	}
	b := out.Bytes()
	if f := a.v3.fill; !allZero(f) {
		for i := 0; i+len(f) <= len(b); i += len(f) {
			copy(b[i:], f)
		}
	}
	return out
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}
