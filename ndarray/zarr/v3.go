package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Zarr format 3 (the v3.0 core specification): an array is a directory
// holding zarr.json, whose codec chain turns each stored chunk into bytes:
// array-to-array codecs (transpose), exactly one array-to-bytes codec
// (bytes, or sharding_indexed, which packs a shard's inner chunks into one
// file with an index of their byte ranges), then bytes-to-bytes codecs
// (gzip, zstd, blosc, crc32c).

// MaxShardIndexBytes bounds a shard's index (16 bytes an inner chunk, plus
// checksums): a reader holds it whole.
const MaxShardIndexBytes = 1 << 27

// v3Meta is what Phobos keeps of a zarr.json.
type v3Meta struct {
	keyPrefix bool    // "default" chunk key encoding: keys start with "c"
	grid      []int   // the regular grid's chunk shape (the shard shape when sharded)
	codecs    []codec // the array's chain
	shard     *shard  // its array-to-bytes codec, when that is sharding_indexed
	fill      []byte  // one element, little-endian
	canonical []byte  // the document without attributes, for workers
	writable  bool    // made by NewArray: WriteMeta and WriteChunk write it
}

// codec is one parsed codec of a chain.
type codec struct {
	name  string // transpose, bytes, gzip, zstd, blosc, crc32c, sharding_indexed
	order []int  // transpose: the permutation
	big   bool   // bytes: big-endian
}

// shard is a sharding_indexed codec's configuration.
type shard struct {
	inner      []int   // the inner chunk shape
	per        []int   // inner chunks per shard along each axis
	codecs     []codec // the inner chunks' chain
	indexBig   bool    // the index's bytes codec is big-endian
	indexCRC   int     // crc32c codecs after it
	indexStart bool    // index_location "start"
	indexBytes int64   // the encoded index's size
	count      int     // inner chunks per shard
}

// v3Fields are the members a zarr.json array document may have.
var v3Fields = []string{"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
	"fill_value", "codecs", "attributes", "storage_transformers", "dimension_names"}

// ParseV3 reads an array's zarr.json document, as Open does (path names the
// array's directory, which is not read): workers rebuild an array from the
// canonical document V3Meta gives.
func ParseV3(path string, doc []byte) (*Array, error) {
	a, err := parseV3(doc)
	if err != nil {
		return nil, fmt.Errorf("zarr %s/zarr.json: %w", path, err)
	}
	a.Path = path
	return a, nil
}

// V3Meta is the array's zarr.json without its attributes, dimension names
// and ignorable extensions (compact JSON): what a worker needs to read
// chunks, for ParseV3. It is nil for a Zarr v2 array.
func (a *Array) V3Meta() []byte {
	if a.v3 == nil {
		return nil
	}
	return bytes.Clone(a.v3.canonical)
}

func parseV3(doc []byte) (*Array, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("not a JSON object")
	}
	var format int
	if err := field(top, "zarr_format", &format, true); err != nil {
		return nil, err
	}
	if format != 3 {
		return nil, fmt.Errorf("zarr_format %d in zarr.json (3 is read there)", format)
	}
	var node string
	if err := field(top, "node_type", &node, true); err != nil {
		return nil, err
	}
	if node != "array" {
		return nil, fmt.Errorf("node_type %q: not an array (Phobos reads arrays, not groups)", node)
	}
	canon := map[string]json.RawMessage{}
	for k, v := range top {
		if slices.Contains(v3Fields, k) {
			if k != "attributes" && k != "dimension_names" {
				canon[k] = v
			}
			continue
		}
		if !ignorable(v) {
			return nil, fmt.Errorf("unknown member %q (without \"must_understand\": false): Phobos does not understand it", k)
		}
	}
	var shape []int
	if err := field(top, "shape", &shape, true); err != nil {
		return nil, err
	}
	if shape == nil {
		return nil, errors.New("shape null")
	}
	nd := len(shape)
	elems := int64(1)
	for _, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("shape %v", shape)
		}
		if n > 0 && elems > math.MaxInt64/8/int64(n) {
			return nil, fmt.Errorf("shape %v is too large", shape)
		}
		elems *= int64(n)
	}
	if raw, ok := top["dimension_names"]; ok {
		var names []*string
		if err := json.Unmarshal(raw, &names); err != nil || len(names) != nd {
			return nil, fmt.Errorf("dimension_names %s for a %d-d array", raw, nd)
		}
	}
	if raw, ok := top["attributes"]; ok {
		var attrs map[string]any
		if err := json.Unmarshal(raw, &attrs); err != nil || attrs == nil {
			return nil, fmt.Errorf("attributes %s: not an object", clip(raw))
		}
	}

	// data_type
	raw, ok := top["data_type"]
	if !ok {
		return nil, errors.New("no data_type")
	}
	dte, err := parseExt(raw, "data_type")
	if err != nil {
		return nil, err
	}
	if len(dte.config) > 0 {
		return nil, fmt.Errorf("data_type %q with a configuration", dte.name)
	}
	dt, err := ndarray.ParseDType(dte.name)
	if err != nil || typeName(dt) != dte.name {
		return nil, fmt.Errorf("data_type %q is not read: Phobos has bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, complex64 and complex128", dte.name)
	}
	size := dt.Size()

	// chunk_grid
	raw, ok = top["chunk_grid"]
	if !ok {
		return nil, errors.New("no chunk_grid")
	}
	ge, err := parseExt(raw, "chunk_grid")
	if err != nil {
		return nil, err
	}
	if ge.name != "regular" {
		return nil, fmt.Errorf("chunk_grid %q is not read (only \"regular\")", ge.name)
	}
	gc := newConf("chunk_grid", ge.config)
	var grid []int
	if err := gc.get("chunk_shape", &grid, true); err != nil {
		return nil, err
	}
	if err := gc.done(); err != nil {
		return nil, err
	}
	if grid == nil {
		return nil, errors.New("chunk_shape null")
	}
	if len(grid) != nd {
		return nil, fmt.Errorf("chunk_shape %v for shape %v", grid, shape)
	}
	for _, c := range grid {
		if c <= 0 {
			return nil, fmt.Errorf("chunk_shape %v for shape %v", grid, shape)
		}
	}

	// chunk_key_encoding
	raw, ok = top["chunk_key_encoding"]
	if !ok {
		return nil, errors.New("no chunk_key_encoding")
	}
	ke, err := parseExt(raw, "chunk_key_encoding")
	if err != nil {
		return nil, err
	}
	m := &v3Meta{grid: grid}
	sep := "/"
	switch ke.name {
	case "default":
		m.keyPrefix = true
	case "v2":
		sep = "."
	default:
		return nil, fmt.Errorf("chunk_key_encoding %q is not read (\"default\" and \"v2\" are)", ke.name)
	}
	kc := newConf("chunk_key_encoding", ke.config)
	if err := kc.get("separator", &sep, false); err != nil {
		return nil, err
	}
	if err := kc.done(); err != nil {
		return nil, err
	}
	if sep != "/" && sep != "." {
		return nil, fmt.Errorf("chunk_key_encoding separator %q (\"/\" or \".\")", sep)
	}

	// storage_transformers
	if raw, ok := top["storage_transformers"]; ok && string(raw) != "null" {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("storage_transformers %s: not a list", clip(raw))
		}
		for _, st := range list {
			e, err := parseExt(st, "storage transformer")
			if err != nil {
				return nil, err
			}
			if e.must {
				return nil, fmt.Errorf("storage transformer %q is not read (Phobos reads arrays without storage transformers)", e.name)
			}
		}
	}

	// codecs
	raw, ok = top["codecs"]
	if !ok {
		return nil, errors.New("no codecs")
	}
	m.codecs, m.shard, err = parseChain(raw, "codecs", nd, size, grid, true)
	if err != nil {
		return nil, err
	}
	chunks := grid
	if m.shard != nil {
		chunks = m.shard.inner
	}
	if err := checkChunkBytes(chunks, size); err != nil {
		return nil, err
	}

	// fill_value
	raw, ok = top["fill_value"]
	if !ok {
		return nil, errors.New("no fill_value")
	}
	var fill float64
	if m.fill, fill, err = parseFillV3(raw, dt); err != nil {
		return nil, err
	}
	if m.canonical, err = json.Marshal(canon); err != nil {
		return nil, err
	}
	var fillIm float64
	if dt.IsComplex() {
		p := ndarray.ComplexPart(dt)
		fi := m.fill[p.Size():]
		if p == ndarray.Float32 {
			fillIm = float64(math.Float32frombits(binary.LittleEndian.Uint32(fi)))
		} else {
			fillIm = math.Float64frombits(binary.LittleEndian.Uint64(fi))
		}
	}
	return &Array{Format: 3, Shape: shape, Chunks: chunks, DType: dt, Fill: fill, FillImag: fillIm, Separator: sep, v3: m}, nil
}

// ignorable is an extension member with "must_understand": false.
func ignorable(raw json.RawMessage) bool {
	var obj struct {
		Must *bool `json:"must_understand"`
	}
	return json.Unmarshal(raw, &obj) == nil && obj.Must != nil && !*obj.Must
}

// field decodes the member key of an object into dst.
func field(obj map[string]json.RawMessage, key string, dst any, required bool) error {
	raw, ok := obj[key]
	if !ok {
		if required {
			return fmt.Errorf("no %s", key)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s %s: %w", key, clip(raw), err)
	}
	return nil
}

// clip shortens a JSON value for an error message.
func clip(raw json.RawMessage) string {
	if len(raw) > 80 {
		return string(raw[:77]) + "..."
	}
	return string(raw)
}

// ext is an extension definition: a name, an optional configuration and
// must_understand (true unless said otherwise).
type ext struct {
	name   string
	config map[string]json.RawMessage
	must   bool
}

// parseExt reads an extension: a short-hand name or an object with name,
// configuration and must_understand.
func parseExt(raw json.RawMessage, what string) (ext, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if name == "" {
			return ext{}, fmt.Errorf("%s: an empty name", what)
		}
		return ext{name: name, must: true}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return ext{}, fmt.Errorf("%s %s: want a name or an object with one", what, clip(raw))
	}
	e := ext{must: true}
	for k, v := range obj {
		switch k {
		case "name":
			if err := json.Unmarshal(v, &e.name); err != nil || e.name == "" {
				return ext{}, fmt.Errorf("%s: name %s", what, clip(v))
			}
		case "configuration":
			if err := json.Unmarshal(v, &e.config); err != nil || e.config == nil {
				return ext{}, fmt.Errorf("%s: configuration %s is not an object", what, clip(v))
			}
		case "must_understand":
			if err := json.Unmarshal(v, &e.must); err != nil {
				return ext{}, fmt.Errorf("%s: must_understand %s", what, clip(v))
			}
		default:
			return ext{}, fmt.Errorf("%s: unknown member %q", what, k)
		}
	}
	if e.name == "" {
		return ext{}, fmt.Errorf("%s %s: no name", what, clip(raw))
	}
	return e, nil
}

// conf reads a configuration's members, and refuses those it did not read.
type conf struct {
	what string
	m    map[string]json.RawMessage
	used map[string]bool
}

func newConf(what string, m map[string]json.RawMessage) *conf {
	return &conf{what: what, m: m, used: map[string]bool{}}
}

func (c *conf) get(key string, dst any, required bool) error {
	c.used[key] = true
	raw, ok := c.m[key]
	if !ok {
		if required {
			return fmt.Errorf("%s: no %s", c.what, key)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %s %s: %w", c.what, key, clip(raw), err)
	}
	return nil
}

func (c *conf) done() error {
	var extra []string
	for k := range c.m {
		if !c.used[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("%s: unknown configuration %q", c.what, extra)
	}
	return nil
}

// parseChain reads a codec chain for chunks of shape chunk (nd axes,
// size-byte elements): array-to-array codecs, one array-to-bytes codec,
// bytes-to-bytes codecs. A sharding_indexed codec is returned apart (it
// may be the array-to-bytes codec only where sharding is set, and only
// alone: nothing before or after it).
func parseChain(raw json.RawMessage, what string, nd, size int, chunk []int, sharding bool) ([]codec, *shard, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, fmt.Errorf("%s %s: not a list", what, clip(raw))
	}
	var chain []codec
	var sh *shard
	toBytes := false
	for i, r := range list {
		e, err := parseExt(r, what)
		if err != nil {
			return nil, nil, err
		}
		where := fmt.Sprintf("%s[%d] %q", what, i, e.name)
		c := newConf(where, e.config)
		cd := codec{name: e.name}
		kind := "bytes"
		switch e.name {
		case "transpose":
			kind = "array"
			var order []int
			var s string
			if rawOrder, ok := e.config["order"]; ok && json.Unmarshal(rawOrder, &s) == nil {
				// The draft's "C" and "F" orders.
				c.used["order"] = true
				switch s {
				case "C":
					order = make([]int, nd)
					for j := range order {
						order[j] = j
					}
				case "F":
					order = make([]int, nd)
					for j := range order {
						order[j] = nd - 1 - j
					}
				default:
					return nil, nil, fmt.Errorf("%s: order %q", where, s)
				}
			} else if err := c.get("order", &order, true); err != nil {
				return nil, nil, err
			}
			if len(order) != nd {
				return nil, nil, fmt.Errorf("%s: order %v for %d axes", where, order, nd)
			}
			seen := make([]bool, nd)
			for _, o := range order {
				if o < 0 || o >= nd || seen[o] {
					return nil, nil, fmt.Errorf("%s: order %v is not a permutation of %d axes", where, order, nd)
				}
				seen[o] = true
			}
			cd.order = order
		case "bytes":
			kind = "tobytes"
			endian := ""
			if err := c.get("endian", &endian, size > 1); err != nil {
				return nil, nil, err
			}
			switch endian {
			case "little":
			case "big":
				cd.big = size > 1
			case "":
				if size > 1 {
					return nil, nil, fmt.Errorf("%s: no endian", where)
				}
			default:
				return nil, nil, fmt.Errorf("%s: endian %q (\"little\" or \"big\")", where, endian)
			}
		case "sharding_indexed":
			kind = "tobytes"
			if !sharding {
				return nil, nil, fmt.Errorf("%s: sharding inside sharding is not read", where)
			}
			if sh, err = parseShard(c, where, nd, size, chunk); err != nil {
				return nil, nil, err
			}
		case "gzip":
			level := 0
			if err := c.get("level", &level, true); err != nil {
				return nil, nil, err
			}
			if level < 0 || level > 9 {
				return nil, nil, fmt.Errorf("%s: level %d", where, level)
			}
		case "zstd":
			level, check := 0, false
			if err := c.get("level", &level, true); err != nil {
				return nil, nil, err
			}
			if err := c.get("checksum", &check, false); err != nil {
				return nil, nil, err
			}
		case "blosc":
			var cname, shuffle string
			var clevel, typesize, blocksize int
			if err := c.get("cname", &cname, true); err != nil {
				return nil, nil, err
			}
			if err := c.get("clevel", &clevel, true); err != nil {
				return nil, nil, err
			}
			if err := c.get("shuffle", &shuffle, true); err != nil {
				return nil, nil, err
			}
			if err := c.get("typesize", &typesize, shuffle != "noshuffle"); err != nil {
				return nil, nil, err
			}
			if err := c.get("blocksize", &blocksize, false); err != nil {
				return nil, nil, err
			}
			switch cname {
			case "lz4", "lz4hc", "zstd", "zlib":
			case "blosclz", "snappy":
				return nil, nil, fmt.Errorf("%s: cname %q is not read (Phobos's blosc reads lz4, lz4hc, zstd and zlib)", where, cname)
			default:
				return nil, nil, fmt.Errorf("%s: cname %q", where, cname)
			}
			switch shuffle {
			case "noshuffle", "shuffle", "bitshuffle":
			default:
				return nil, nil, fmt.Errorf("%s: shuffle %q (noshuffle, shuffle or bitshuffle)", where, shuffle)
			}
			if clevel < 0 || clevel > 9 || typesize < 0 || typesize > 255 || blocksize < 0 {
				return nil, nil, fmt.Errorf("%s: clevel %d, typesize %d, blocksize %d", where, clevel, typesize, blocksize)
			}
		case "crc32c":
		default:
			if !e.must {
				continue // "must_understand": false: it may be ignored
			}
			return nil, nil, fmt.Errorf("%s: codec %q is not read (Phobos reads transpose, bytes, sharding_indexed, gzip, zstd, blosc and crc32c)", where, e.name)
		}
		if err := c.done(); err != nil {
			return nil, nil, err
		}
		switch {
		case kind == "array" && toBytes:
			return nil, nil, fmt.Errorf("%s: an array-to-array codec after the array-to-bytes codec", where)
		case kind == "tobytes" && toBytes:
			return nil, nil, fmt.Errorf("%s: a second array-to-bytes codec", where)
		case kind == "bytes" && !toBytes:
			return nil, nil, fmt.Errorf("%s: a bytes-to-bytes codec before the array-to-bytes codec", where)
		}
		if kind == "tobytes" {
			toBytes = true
		}
		chain = append(chain, cd)
	}
	if !toBytes {
		return nil, nil, fmt.Errorf("%s: no array-to-bytes codec (bytes or sharding_indexed)", what)
	}
	if sh != nil && len(chain) != 1 {
		return nil, nil, fmt.Errorf("%s: codecs around sharding_indexed are not read (give them in its inner codecs)", what)
	}
	return chain, sh, nil
}

// parseShard reads a sharding_indexed configuration for shards of shape
// outer.
func parseShard(c *conf, where string, nd, size int, outer []int) (*shard, error) {
	sh := &shard{}
	if err := c.get("chunk_shape", &sh.inner, true); err != nil {
		return nil, err
	}
	if sh.inner == nil {
		sh.inner = []int{}
	}
	if len(sh.inner) != nd {
		return nil, fmt.Errorf("%s: chunk_shape %v for shards %v", where, sh.inner, outer)
	}
	sh.per = make([]int, nd)
	count := int64(1)
	for i, n := range sh.inner {
		if n <= 0 || outer[i]%n != 0 {
			return nil, fmt.Errorf("%s: inner chunk_shape %v does not divide the shard shape %v", where, sh.inner, outer)
		}
		sh.per[i] = outer[i] / n
		count *= int64(sh.per[i])
		if count > MaxShardIndexBytes/16 {
			return nil, fmt.Errorf("%s: shards %v of inner chunks %v: an index over %d bytes", where, outer, sh.inner, MaxShardIndexBytes)
		}
	}
	sh.count = int(count)
	var raw json.RawMessage
	if err := c.get("codecs", &raw, true); err != nil {
		return nil, err
	}
	var err error
	if sh.codecs, _, err = parseChain(raw, where+" codecs", nd, size, sh.inner, false); err != nil {
		return nil, err
	}
	if err := c.get("index_codecs", &raw, true); err != nil {
		return nil, err
	}
	idx, _, err := parseChain(raw, where+" index_codecs", nd+1, 8, append(slices.Clone(sh.per), 2), false)
	if err != nil {
		return nil, err
	}
	for i, cd := range idx {
		switch {
		case cd.name == "bytes" && i == 0:
			sh.indexBig = cd.big
		case cd.name == "crc32c" && i > 0:
			sh.indexCRC++
		default:
			return nil, fmt.Errorf("%s: index_codecs with %q: Phobos reads an index of bytes then crc32c codecs (a fixed size)", where, cd.name)
		}
	}
	loc := "end"
	if err := c.get("index_location", &loc, false); err != nil {
		return nil, err
	}
	switch loc {
	case "end":
	case "start":
		sh.indexStart = true
	default:
		return nil, fmt.Errorf("%s: index_location %q (start or end)", where, loc)
	}
	sh.indexBytes = 16*count + 4*int64(sh.indexCRC)
	return sh, nil
}

// parseFillV3 reads a fill_value for dt: its little-endian bytes and its
// value. null reads as zero (false).
func parseFillV3(raw json.RawMessage, dt ndarray.DType) ([]byte, float64, error) {
	s := strings.TrimSpace(string(raw))
	b := make([]byte, dt.Size())
	bad := func(why string) error {
		return fmt.Errorf("fill_value %s for %s: %s", clip(raw), typeName(dt), why)
	}
	if s == "null" {
		return b, 0, nil
	}
	if dt.IsComplex() {
		// [real, imag], each part a fill_value of the part's float type.
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 2 {
			return nil, 0, bad("want [real, imag]")
		}
		p := ndarray.ComplexPart(dt)
		re, f, err := parseFillV3(parts[0], p)
		if err != nil {
			return nil, 0, err
		}
		im, _, err := parseFillV3(parts[1], p)
		if err != nil {
			return nil, 0, err
		}
		return append(re, im...), f, nil
	}
	switch dt {
	case ndarray.Bool:
		switch s {
		case "true":
			b[0] = 1
			return b, 1, nil
		case "false":
			return b, 0, nil
		}
		return nil, 0, bad("want true or false")
	}
	if dt.IsInt() {
		bits := 8 * dt.Size()
		var u uint64
		var f float64
		if dt.IsUnsigned() {
			v, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return nil, 0, bad("want an integer in the type's range")
			}
			u, f = v, float64(v)
		} else {
			v, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return nil, 0, bad("want an integer in the type's range")
			}
			u, f = uint64(v), float64(v)
		}
		var le [8]byte
		binary.LittleEndian.PutUint64(le[:], u) // two's complement: the low bytes are the narrow value
		copy(b, le[:dt.Size()])
		return b, f, nil
	}
	var f float64
	var str string
	if json.Unmarshal(raw, &str) == nil {
		switch {
		case str == "NaN":
			f = math.NaN()
		case str == "Infinity":
			f = math.Inf(1)
		case str == "-Infinity":
			f = math.Inf(-1)
		case strings.HasPrefix(str, "0x") && len(str) == 2+2*dt.Size():
			u, err := strconv.ParseUint(str[2:], 16, 64)
			if err != nil {
				return nil, 0, bad("a bad hex bit pattern")
			}
			switch dt {
			case ndarray.Float16:
				binary.LittleEndian.PutUint16(b, uint16(u))
				return b, ndarray.HalfToFloat64(uint16(u)), nil
			case ndarray.Float32:
				binary.LittleEndian.PutUint32(b, uint32(u))
				return b, float64(math.Float32frombits(uint32(u))), nil
			}
			binary.LittleEndian.PutUint64(b, u)
			return b, math.Float64frombits(u), nil
		default:
			return nil, 0, bad(`want a number, "NaN", "Infinity", "-Infinity" or "0x" and the bit pattern in hex`)
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, 0, bad("want a number")
		}
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return nil, 0, bad("out of range")
		}
	}
	if dt == ndarray.Float16 {
		h := ndarray.Float64ToHalf(f)
		if math.IsNaN(f) {
			h = 0x7e00 // Zarr's NaN: sign 0, the top mantissa bit alone
		}
		binary.LittleEndian.PutUint16(b, h)
		return b, ndarray.HalfToFloat64(h), nil
	}
	if dt == ndarray.Float32 {
		f32 := float32(f)
		if math.IsNaN(f) {
			// Zarr's NaN: sign 0, the top mantissa bit alone.
			binary.LittleEndian.PutUint32(b, 0x7fc00000)
		} else {
			binary.LittleEndian.PutUint32(b, math.Float32bits(f32))
		}
		return b, float64(f32), nil
	}
	if math.IsNaN(f) {
		binary.LittleEndian.PutUint64(b, 0x7ff8000000000000)
	} else {
		binary.LittleEndian.PutUint64(b, math.Float64bits(f))
	}
	return b, f, nil
}

// typeName is the Zarr v3 data_type of dt: NumPy's name.
func typeName(dt ndarray.DType) string { return dt.String() }
