package phobos_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers ranks every package; a package may import only packages of a
// lower rank (ndarray <- ops <- tensor/graph/optimize <-
// scheduler/worker/linalg/execution <- calls <- web <- dashboard <- cluster <- phobos <- cmd). A new package must be
// ranked here, so the layering is decided, not drifted into.
var layers = map[string]int{
	"ndarray":                      0,
	"rpc/phobosv1":                 0,
	"ndarray/npy":                  1,
	"ndarray/zarr":                 1,
	"ndarray/rng":                  1,
	"ndarray/fft":                  1,
	"rpc/phobosv1/phobosv1connect": 1,
	"ops":                          2,
	"internal/numpytest":           2,
	"internal/pki":                 0,
	"internal/cgroup":              0,
	"internal/gctune":              0,
	"internal/prioq":               0,
	"internal/keytab":              0,
	"internal/hugepage":            0,
	"internal/localhttp":           0,
	"graph":                        3,
	"protocol":                     3,
	"pyexec":                       3,
	"tensor":                       4,
	"linalg":                       5,
	"optimize":                     4,
	"scheduler":                    4,
	"storage":                      4,
	"rpc":                          4,
	"worker":                       5,
	"execution":                    5,
	"internal/metrics":             5,
	"calls":                        6,
	"web":                          7,
	"dashboard":                    8,
	"cluster":                      9,
	".":                            10,
	"workloads":                    11,
	"cmd/phobos":                   12,
	"cmd/phobos-image":             12,
	"calls/genstubs":               7,
	"calls/geninfer":               7,
	"cluster/ring":                 1,
	"cluster/ha":                   5,
}

// apart lists, beside the ranks, packages a package must not import
// although they rank below it: the web service speaks to schedulers over
// RPC only (the state names it shows are protocol's).
var apart = map[string][]string{
	"web": {"scheduler", "worker", "storage"},
}

const module = "github.com/phobos-tensor/phobos"

func TestLayering(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range dirs {
		rank, ok := layers[dir]
		if !ok {
			t.Errorf("package %q has no layer: rank it in dep_test.go", dir)
			continue
		}
		fset := token.NewFileSet()
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != module && !strings.HasPrefix(path, module+"/") {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
				if dep == "" {
					dep = "."
				}
				if r, ok := layers[dep]; ok && r >= rank {
					t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", f, rank, dep, r)
				}
				if slices.Contains(apart[dir], dep) {
					t.Errorf("%s imports %s, which its package must not link", f, dep)
				}
			}
		}
	}
}
