package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// filled returns a contiguous array of the given type and shape with
// distinct, type-appropriate values (including NaN/Inf for floats).
func filled(t *testing.T, dt ndarray.DType, shape ...int) *ndarray.Array {
	t.Helper()
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	n := a.Size()
	switch dt {
	case ndarray.Float64:
		s := a.Float64s()[:n]
		for i := range s {
			s[i] = float64(i)*1.25 - 3.5
		}
		if n > 2 {
			s[0], s[1], s[2] = math.NaN(), math.Inf(-1), math.SmallestNonzeroFloat64
		}
	case ndarray.Float32:
		s := a.Float32s()[:n]
		for i := range s {
			s[i] = float32(i)*0.75 + 0.1
		}
		if n > 1 {
			s[0], s[1] = float32(math.NaN()), float32(math.Inf(1))
		}
	case ndarray.Int64:
		s := a.Int64s()[:n]
		for i := range s {
			s[i] = int64(i)*1e15 - 7
		}
		if n > 1 {
			s[0], s[1] = math.MinInt64, math.MaxInt64
		}
	case ndarray.Int32:
		s := a.Int32s()[:n]
		for i := range s {
			s[i] = int32(i)*1000 - 99
		}
		if n > 1 {
			s[0], s[1] = math.MinInt32, math.MaxInt32
		}
	case ndarray.Bool:
		s := a.Bools()[:n]
		for i := range s {
			s[i] = uint8(i % 3 % 2)
		}
	default:
		// The narrower and unsigned integers: a ramp through every byte
		// value, the top and bottom of the type wrapped in.
		b := a.Bytes()
		for i := range b {
			b[i] = byte(i*37 + 255)
		}
	}
	return a
}

var dtypes = ndarray.DTypes()

var shapes = [][]int{{}, {0}, {1}, {7}, {2, 3}, {3, 0, 2}, {1, 1, 1}, {3, 4, 5}, {2, 1, 3, 2}}

// sameArray requires equal dtype, shape and bytes (so NaN payloads and -0
// must survive too).
func sameArray(t *testing.T, got, want *ndarray.Array) {
	t.Helper()
	if got.DType() != want.DType() || !ndarray.SameShape(got.Shape(), want.Shape()) {
		t.Fatalf("got %v %v, want %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("data differs:\ngot  %v\nwant %v", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, dt := range dtypes {
		for _, sh := range shapes {
			t.Run(fmt.Sprintf("%v%v", dt, sh), func(t *testing.T) {
				a := filled(t, dt, sh...)
				var buf bytes.Buffer
				if err := Write(&buf, a); err != nil {
					t.Fatal(err)
				}
				b := buf.Bytes()
				hl := int(binary.LittleEndian.Uint16(b[8:10]))
				if (10+hl)%align != 0 || b[10+hl-1] != '\n' {
					t.Fatalf("header of %d bytes is not padded to %d with a final newline", 10+hl, align)
				}
				if len(b) != 10+hl+a.Nbytes() {
					t.Fatalf("file is %d bytes, want %d", len(b), 10+hl+a.Nbytes())
				}
				got, err := Read(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				sameArray(t, got, a)
				// Also through a reader that cannot tell its length.
				got, err = Read(io.MultiReader(bytes.NewReader(b)))
				if err != nil {
					t.Fatal(err)
				}
				sameArray(t, got, a)
			})
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.npy")
	a := filled(t, ndarray.Float32, 4, 5)
	if err := WriteFile(p, a); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, got, a)
	// A contiguous view with a non-zero offset is written from its buffer.
	rows, err := a.Slice([]ndarray.Range{{Start: 1, Step: 1, Len: 2}})
	if err != nil || !rows.IsContiguous() {
		t.Fatal(err, rows.IsContiguous())
	}
	if err := WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	if got, err = ReadFile(p); err != nil {
		t.Fatal(err)
	}
	sameArray(t, got, rows.Copy())
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.npy")); err == nil {
		t.Fatal("ReadFile of a missing file succeeded")
	}
}

func TestConcatenatedStream(t *testing.T) {
	var buf bytes.Buffer
	a, b := filled(t, ndarray.Int32, 3), filled(t, ndarray.Float64, 2, 2)
	if err := Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	if err := Write(&buf, b); err != nil {
		t.Fatal(err)
	}
	r := io.MultiReader(&buf) // hides Len: a pure stream
	ga, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, ga, a)
	sameArray(t, gb, b)
}

// TestStridedWrite checks that views are written in C order, the same bytes
// as their contiguous copy.
func TestStridedWrite(t *testing.T) {
	for _, dt := range dtypes {
		a := filled(t, dt, 6, 5, 4)
		tr, err := a.Transpose(2, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		sl, err := a.Slice([]ndarray.Range{{Start: 1, Step: 2, Len: 3}, {Start: 1, Step: 2, Len: 2}})
		if err != nil {
			t.Fatal(err)
		}
		bc, err := filled(t, dt, 1, 4).BroadcastTo([]int{3, 4})
		if err != nil {
			t.Fatal(err)
		}
		big, err := filled(t, dt, 300, 200).Transpose() // more than one stream buffer
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range []*ndarray.Array{tr, sl, bc, big} {
			if v.IsContiguous() {
				t.Fatalf("view %d is contiguous", i)
			}
			var vb, cb bytes.Buffer
			if err := Write(&vb, v); err != nil {
				t.Fatal(err)
			}
			if err := Write(&cb, v.Copy()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(vb.Bytes(), cb.Bytes()) {
				t.Fatalf("%v view %d written differently from its copy", dt, i)
			}
		}
	}
}

// TestNegativeStrides: a flipped view is either written correctly or
// refused with an error; it must not crash.
func TestNegativeStrides(t *testing.T) {
	a := filled(t, ndarray.Int32, 3, 4)
	f, err := a.Flip(1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Logf("flipped view refused: %v", err)
		return
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if got.Int32s()[i*4+j] != a.Int32s()[i*4+3-j] {
				t.Fatalf("flipped view written wrongly: %v", got)
			}
		}
	}
}

// rawNpy builds a .npy file by hand with the given dict and data.
func rawNpy(major byte, dict string, data []byte) []byte {
	var b []byte
	b = append(b, magic...)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	b = append(b, dict...)
	return append(b, data...)
}

func TestReadBigEndianAndFortran(t *testing.T) {
	// 2x3 float64 in Fortran order, big-endian: column-major values.
	want := []float64{1, 2, 3, 4, 5, 6} // C order of [[1,2,3],[4,5,6]]
	fortran := []float64{1, 4, 2, 5, 3, 6}
	var data []byte
	for _, v := range fortran {
		data = binary.BigEndian.AppendUint64(data, math.Float64bits(v))
	}
	for _, major := range []byte{1, 2, 3} {
		f := rawNpy(major, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }\n", data)
		a, err := Read(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if !ndarray.SameShape(a.Shape(), []int{2, 3}) || !a.IsContiguous() {
			t.Fatalf("shape %v contiguous %v", a.Shape(), a.IsContiguous())
		}
		for i, v := range want {
			if a.Float64s()[i] != v {
				t.Fatalf("version %d: got %v, want %v", major, a, want)
			}
		}
	}
	// Big-endian int32, C order, double-quoted keys and a list shape.
	var d32 []byte
	for _, v := range []int32{-1, 2, 1 << 20} {
		d32 = binary.BigEndian.AppendUint32(d32, uint32(v))
	}
	a, err := Read(bytes.NewReader(rawNpy(1, `{"descr": ">i4", "shape": [3], "fortran_order": False}`, d32)))
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Int32s(); s[0] != -1 || s[1] != 2 || s[2] != 1<<20 {
		t.Fatalf("got %v", a)
	}
	// Bools other than 0/1 are normalised.
	a, err = Read(bytes.NewReader(rawNpy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", []byte{0, 2, 1})))
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Bools(); s[0] != 0 || s[1] != 1 || s[2] != 1 {
		t.Fatalf("got %v", s[:3])
	}
}

func TestReadErrors(t *testing.T) {
	good := func(dict string, data []byte) []byte { return rawNpy(1, dict, data) }
	cases := []struct {
		name, want string
		in         []byte
	}{
		{"empty", "empty input", nil},
		{"magic", "bad magic", []byte("PK\x03\x04 not numpy at all")},
		{"short magic", "reading magic", []byte("\x93NUM")},
		{"version", "unsupported format version 4.0", []byte("\x93NUMPY\x04\x00\x00\x00")},
		{"header len", "truncated header: got 5 of 100 bytes", append([]byte("\x93NUMPY\x01\x00\x64\x00"), "{'des"...)},
		{"huge header", "exceeds the limit", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff")},
		{"complex256", "unsupported dtype '<c32'", good("{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }", make([]byte, 32))},
		{"bytes", "unsupported dtype '|S4'", good("{'descr': '|S4', 'fortran_order': False, 'shape': (1,), }", make([]byte, 4))},
		{"structured", "structured dtype", good("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", make([]byte, 8))},
		{"truncated", "truncated data: got 12 of 24 bytes", good("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", make([]byte, 12))},
		{"negative", "invalid dimension", good("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }", nil)},
		{"missing key", "lacks 'shape'", good("{'descr': '<f8', 'fortran_order': False}", nil)},
		{"extra key", "unexpected key", good("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}", make([]byte, 8))},
		{"garbage", "bad header", good("{'descr': '<f8', 'fortran_order': Fals", nil)},
		{"not dict", "not a dict", good("[1, 2]", nil)},
		{"overflow", "too many elements", good("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", nil)},
		{"huge claim", "truncated data: got 0 of 8000000000000 bytes", good("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []io.Reader{bytes.NewReader(c.in), io.MultiReader(bytes.NewReader(c.in))} {
				_, err := Read(r)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got error %v, want one containing %q", err, c.want)
				}
			}
		})
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	if err := Write(io.Discard, nil); err == nil {
		t.Fatal("Write(nil) succeeded")
	}
	a := filled(t, ndarray.Float64, 3, 3)
	for after := 0; after < 2; after++ {
		if err := Write(&failWriter{after: after}, a); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("got %v", err)
		}
	}
	tr, _ := filled(t, ndarray.Float64, 300, 300).Transpose()
	if err := Write(&failWriter{after: 2}, tr); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v", err)
	}
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.npy"), a); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
}

// python returns /usr/bin/python3 if it can import numpy, else skips.
func python(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("NumPy cross-check skipped: %s cannot import numpy (%v: %s); install it with: apt-get install python3-numpy", py, err, bytes.TrimSpace(out))
	}
	return py
}

func runPy(t *testing.T, py, script string, args ...string) {
	t.Helper()
	out, err := exec.Command(py, append([]string{"-c", script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python failed: %v\n%s", err, out)
	}
}

// TestNumPyWritesGoReads reads files made by np.save, including Fortran-order
// and big-endian ones, and compares them with the values NumPy also wrote as
// plain little-endian C-order bytes.
func TestNumPyWritesGoReads(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	runPy(t, py, `
import sys, os, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1)
cases = {
  'f8': rng.standard_normal((3, 4)),
  'f4': rng.standard_normal((2, 3, 2)).astype(np.float32),
  'i8': rng.integers(-2**62, 2**62, (5,)),
  'i4': rng.integers(-2**31, 2**31 - 1, (4, 2), dtype=np.int32),
  'b1': rng.random((3, 3)) < 0.5,
  'scalar': np.array(2.5),
  'scalar_i': np.array(7, dtype=np.int64),
  'empty': np.zeros((0, 3), dtype=np.float32),
  'fortran': np.asfortranarray(rng.standard_normal((3, 5, 2))),
  'bigend': rng.standard_normal((4, 3)).astype('>f8'),
  'bigend_i4': np.arange(-5, 7, dtype='>i4').reshape(3, 4),
  'fortran_big': np.asfortranarray(np.arange(12, dtype='>i8').reshape(3, 4)),
  'special': np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324]),
  'i1': np.array([-128, -1, 0, 127], dtype=np.int8),
  'i2': rng.integers(-2**15, 2**15, (3, 2), dtype=np.int16),
  'u1': np.arange(256, dtype=np.uint8).reshape(16, 16),
  'u2': rng.integers(0, 2**16, (7,), dtype=np.uint16),
  'u4': rng.integers(0, 2**32, (2, 2), dtype=np.uint32),
  'u8': np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64),
  'bigend_u2': np.arange(0, 60000, 5000, dtype='>u2').reshape(3, 4),
  'fortran_i2': np.asfortranarray(np.arange(-6, 6, dtype=np.int16).reshape(3, 4)),
}
for k, v in cases.items():
    np.save(os.path.join(d, k + '.npy'), v)
    c = v.astype(v.dtype.newbyteorder('<'), order='C')  # ascontiguousarray would make 0-d 1-d
    with open(os.path.join(d, k + '.raw'), 'w') as f:
        f.write(c.dtype.str + ' ' + ' '.join(map(str, c.shape)) + '\n')
    c.tofile(os.path.join(d, k + '.bin'))
`, dir)
	names, _ := filepath.Glob(filepath.Join(dir, "*.npy"))
	if len(names) != 21 {
		t.Fatalf("numpy wrote %d files", len(names))
	}
	for _, p := range names {
		base := strings.TrimSuffix(p, ".npy")
		meta, err := os.ReadFile(base + ".raw")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(meta))
		dt, _, err := parseDescr(f[0])
		if err != nil {
			t.Fatal(err)
		}
		var shape []int
		for _, s := range f[1:] {
			var n int
			fmt.Sscan(s, &n)
			shape = append(shape, n)
		}
		raw, err := os.ReadFile(base + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		want, err := ndarray.FromBytes(dt, shape, raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		sameArray(t, got, want)
	}
}

// TestGoWritesNumPyReads writes every dtype and several shapes from Go and
// has NumPy load them and compare with the raw bytes; it also checks that the
// files are byte-identical to what np.save writes for the same array.
func TestGoWritesNumPyReads(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	var list []string
	for _, dt := range dtypes {
		for i, sh := range shapes {
			name := fmt.Sprintf("%v_%d", dt, i)
			a := filled(t, dt, sh...)
			if err := WriteFile(filepath.Join(dir, name+".npy"), a); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".bin"), a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			list = append(list, name)
		}
	}
	// A strided view too.
	tr, _ := filled(t, ndarray.Int64, 3, 4).Transpose()
	if err := WriteFile(filepath.Join(dir, "view.npy"), tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "view.bin"), tr.Copy().Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	list = append(list, "view")
	runPy(t, py, `
import sys, os, io, numpy as np
d = sys.argv[1]
for name in sys.argv[2:]:
    p = os.path.join(d, name + '.npy')
    a = np.load(p, allow_pickle=False)
    assert a.flags.c_contiguous and a.dtype.byteorder in '<|=', a.dtype
    raw = np.fromfile(os.path.join(d, name + '.bin'), dtype=a.dtype)
    assert raw.tobytes() == a.tobytes(), (name, a, raw)
    b = io.BytesIO()
    np.save(b, a)
    with open(p, 'rb') as f:
        mine = f.read()
    assert b.getvalue() == mine, (name, b.getvalue()[:128], mine[:128])
`, append([]string{dir}, list...)...)
}
