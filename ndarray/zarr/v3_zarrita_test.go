package zarr

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// zarritaDir is a directory where zarrita is installed (npm install
// zarrita): $ZARRITA_DIR, else /tmp/zarrita.
func zarritaDir(t *testing.T) (node, dir string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the zarrita cross-check is skipped")
	}
	dir = os.Getenv("ZARRITA_DIR")
	if dir == "" {
		dir = "/tmp/zarrita"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "zarrita", "package.json")); err != nil {
		t.Skipf("zarrita is not installed in %s (mkdir -p /tmp/zarrita && cd /tmp/zarrita && npm install zarrita, or set ZARRITA_DIR): the zarrita cross-check is skipped", dir)
	}
	return node, dir
}

// runZarrita runs testdata/zarrita_check.mjs with args.
func runZarrita(t *testing.T, node, dir string, args ...string) {
	t.Helper()
	script, err := os.Open("testdata/zarrita_check.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	cmd := exec.Command(node, append([]string{"--input-type=module", "-"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, script
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zarrita_check.mjs %v: %v\n%s", args, err, out)
	}
}

// zvalues converts the script's values (numbers; int64 and non-finite
// floats as strings) to float64s, and int64s exactly.
func zvalues(raw []json.RawMessage) ([]float64, []int64, error) {
	f := make([]float64, len(raw))
	n := make([]int64, len(raw))
	for i, r := range raw {
		var s string
		if json.Unmarshal(r, &s) != nil {
			s = string(r)
		}
		switch s {
		case "NaN":
			f[i] = math.NaN()
		case "Infinity":
			f[i] = math.Inf(1)
		case "-Infinity":
			f[i] = math.Inf(-1)
		default:
			var err error
			if f[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, err
			}
			n[i], _ = strconv.ParseInt(s, 10, 64)
		}
	}
	return f, n, nil
}

// matches compares an array with the script's values.
func matches(a *ndarray.Array, dtype string, shape []int, raw []json.RawMessage) error {
	if dtype != typeName(a.DType()) || !slices.Equal(shape, a.Shape()) {
		return fmt.Errorf("%s %v, want %s %v", dtype, shape, typeName(a.DType()), a.Shape())
	}
	f, n, err := zvalues(raw)
	if err != nil {
		return err
	}
	if len(f) != a.Size() {
		return fmt.Errorf("%d values for %d elements", len(f), a.Size())
	}
	if a.DType() == ndarray.Int64 {
		if got := a.Contiguous().Int64s(); !slices.Equal(got, n) {
			return fmt.Errorf("int64 values differ: %v, want %v", got, n)
		}
		return nil
	}
	got := a.ToFloat64s()
	for i := range got {
		if got[i] != f[i] && !(math.IsNaN(got[i]) && math.IsNaN(f[i])) {
			return fmt.Errorf("element %d: %v, want %v", i, got[i], f[i])
		}
	}
	return nil
}

// TestV3Zarrita cross-checks with zarrita.js: the stores zarrita writes
// (every codec it can encode, every dtype, both separators, missing chunks
// and fill values) read equal here, whole and by regions; zarrita reads
// the stores this package writes (every codec and dtype) and the stores
// the spec tests build by hand, sharded ones included, equal to what they
// hold.
func TestV3Zarrita(t *testing.T) {
	node, zdir := zarritaDir(t)
	root := t.TempDir()

	// zarrita writes, Phobos reads.
	wdir := filepath.Join(root, "w")
	os.Mkdir(wdir, 0o755)
	runZarrita(t, node, zdir, "write", wdir)
	raw, err := os.ReadFile(filepath.Join(wdir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var written []struct {
		Name, Desc, DType string
		Shape             []int
		Values            []json.RawMessage
	}
	if err := json.Unmarshal(raw, &written); err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, c := range written {
		a, err := Open(filepath.Join(wdir, c.Name+".zarr"))
		if err != nil {
			t.Errorf("%s: %v", c.Desc, err)
			continue
		}
		got, err := a.ReadRegion(make([]int, len(a.Shape)), a.Shape)
		if err != nil {
			t.Errorf("%s: %v", c.Desc, err)
			continue
		}
		if err := matches(got, c.DType, c.Shape, c.Values); err != nil {
			t.Errorf("%s: %v", c.Desc, err)
			continue
		}
		// A region cutting through chunks reads as the same part.
		for _, r := range boxes(a.Shape)[1:] {
			part, err := a.ReadRegion(r[0], r[1])
			if err != nil {
				t.Errorf("%s: region %v: %v", c.Desc, r, err)
				continue
			}
			ranges := make([]ndarray.Range, len(r[0]))
			for i := range ranges {
				ranges[i] = ndarray.Range{Start: r[0][i], Step: 1, Len: r[1][i]}
			}
			wantPart, _ := got.Slice(ranges)
			if !sameArrays(part, wantPart) {
				t.Errorf("%s: region %v differs", c.Desc, r)
			}
		}
		read++
	}
	t.Logf("zarrita wrote %d stores, %d read equal here", len(written), read)

	// Phobos writes (and the spec tests build), zarrita reads.
	rdir := filepath.Join(root, "r")
	os.Mkdir(rdir, 0o755)
	type entry struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	var list []entry
	wants := map[string]*ndarray.Array{}
	descs := map[string]string{}
	// zarrita 0.7.5 reads no "0x" fill values, no short-hand codec names
	// (Zarr 3.1), shard indexes only at the end (it always fetches the
	// index as a suffix of the shard), no array with a zero-length axis,
	// and of two transpose codecs it applies only the first (each decode
	// sets the strides afresh from the array's shape).
	skipped := 0
	for i, c := range v3cases() {
		if strings.Contains(c.fill, `"0x`) || (c.inner != nil && !c.indexEnd) || strings.Contains(c.codecs, `["bytes"`) ||
			slices.Contains(c.shape, 0) || strings.Count(c.codecs, "transpose") > 1 {
			skipped++
			continue
		}
		name := fmt.Sprintf("spec%d", i)
		p := filepath.Join(rdir, name+".zarr")
		os.Mkdir(p, 0o755)
		wants[name], descs[name] = c.build(t, p), "spec store: "+c.name
		list = append(list, entry{name, p})
	}
	n := 0
	for _, codec := range []string{"", "gzip", "zstd", "blosc"} {
		for _, dt := range []ndarray.DType{ndarray.Bool, ndarray.Int32, ndarray.Int64, ndarray.Float32, ndarray.Float64} {
			for _, s := range [][2][]int{{{37, 23}, {10, 7}}, {{5, 30}, {8, 1000}}, {{3, 4}, {1, 1}}, {{2000}, {700}}, {{}, {}}, {{4, 5, 6}, {3, 5, 2}}} {
				name := fmt.Sprintf("go%d", n)
				n++
				p := filepath.Join(rdir, name+".zarr")
				want := roundTripArray(dt, s[0], n)
				if err := writeV3(p, s[0], s[1], dt, codec, want); err != nil {
					t.Fatalf("%q %v %v: %v", codec, dt, s[0], err)
				}
				wants[name], descs[name] = want, fmt.Sprintf("Phobos wrote %q %v %v chunks %v", codec, dt, s[0], s[1])
				list = append(list, entry{name, p})
			}
		}
	}
	b, _ := json.Marshal(list)
	lp, out := filepath.Join(root, "list.json"), filepath.Join(root, "out.json")
	if err := os.WriteFile(lp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runZarrita(t, node, zdir, "read", lp, out)
	if raw, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	var results []struct {
		Name, DType, Error string
		Shape              []int
		Values             []json.RawMessage
	}
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(list) {
		t.Fatalf("zarrita read %d stores of %d", len(results), len(list))
	}
	equal := 0
	for _, r := range results {
		if r.Error != "" {
			t.Errorf("%s: zarrita: %s", descs[r.Name], r.Error)
			continue
		}
		if err := matches(wants[r.Name], r.DType, r.Shape, r.Values); err != nil {
			t.Errorf("%s: zarrita read %v", descs[r.Name], err)
			continue
		}
		equal++
	}
	t.Logf("zarrita read %d stores (%d built from the spec, %d written by Phobos) equal; %d spec stores skipped (hex fill values, short-hand codecs, index at the start, empty arrays, two transposes: zarrita misreads them)",
		equal, len(list)-n, n, skipped)
}

// roundTripArray is a test array of shape, its values from seed.
func roundTripArray(dt ndarray.DType, shape []int, seed int) *ndarray.Array {
	a, _ := ndarray.New(ndarray.Float64, shape...)
	v := a.Float64s()
	x := uint64(seed)*2654435761 + 1
	for i := range v {
		x = x*6364136223846793005 + 1442695040888963407
		v[i] = float64(int64(x>>40)%2000) - 1000 + float64(i%4)/4
	}
	return a.Astype(dt)
}

// writeV3 writes a as a format 3 store at dir through NewArray.
func writeV3(dir string, shape, chunks []int, dt ndarray.DType, codec string, a *ndarray.Array) error {
	z, err := NewArray(shape, chunks, dt, codec, WithFormat(3))
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := z.WriteMeta(dir); err != nil {
		return err
	}
	var werr error
	forGrid(z.Grid(), func(idx []int) {
		ranges := make([]ndarray.Range, len(idx))
		for i := range idx {
			s := idx[i] * chunks[i]
			ranges[i] = ndarray.Range{Start: s, Step: 1, Len: min(chunks[i], shape[i]-s)}
		}
		part, err := a.Slice(ranges)
		if err == nil {
			_, err = z.WriteChunk(dir, idx, part)
		}
		if err != nil && werr == nil {
			werr = err
		}
	})
	return werr
}
