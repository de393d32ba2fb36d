package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write makes the files of a fake cgroup tree under root.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, v := range files {
		f := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMemoryLimit reads limits from fake cgroup trees: v2, v1,
// hybrid, nested (the lowest along the path binds), none.
func TestMemoryLimit(t *testing.T) {
	cases := []struct {
		name  string
		self  string
		files map[string]string
		want  int64
	}{
		{"v2 container (namespaced root)", "0::/\n", map[string]string{"memory.max": "1073741824"}, 1 << 30},
		{"v2 unlimited", "0::/\n", map[string]string{"memory.max": "max"}, 0},
		{"v2 nested: the parent binds", "0::/kubepods/pod1/c1\n", map[string]string{
			"memory.max": "max", "kubepods/memory.max": "8589934592", "kubepods/pod1/memory.max": "2147483648", "kubepods/pod1/c1/memory.max": "max"}, 2 << 30},
		{"v2 nested: the child binds", "0::/a/b\n", map[string]string{"a/memory.max": "4294967296", "a/b/memory.max": "536870912"}, 512 << 20},
		{"v1 memory controller", "4:memory:/process_api/x\n1:cpu:/\n0::/\n", map[string]string{
			"memory/memory.limit_in_bytes": "9223372036854771712", "memory/process_api/x/memory.limit_in_bytes": "3221225472"}, 3 << 30},
		{"v1 unlimited", "5:cpuacct,memory:/\n", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712"}, 0},
		{"hybrid: unified under unified/", "4:memory:/\n0::/svc\n", map[string]string{
			"memory/memory.limit_in_bytes": "9223372036854771712", "unified/svc/memory.max": "268435456"}, 256 << 20},
		{"no files", "0::/x\n", nil, 0},
		{"garbage", "what\n0::relative\n", map[string]string{"memory.max": "lots"}, 0},
	}
	for _, c := range cases {
		root := t.TempDir()
		write(t, root, c.files)
		if got := memoryLimit(root, strings.NewReader(c.self)); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestCPULimit reads CPU bandwidth limits from fake cgroup trees.
func TestCPULimit(t *testing.T) {
	cases := []struct {
		name  string
		self  string
		files map[string]string
		want  float64
	}{
		{"v2 two CPUs", "0::/\n", map[string]string{"cpu.max": "200000 100000"}, 2},
		{"v2 half a CPU", "0::/c\n", map[string]string{"c/cpu.max": "50000 100000"}, 0.5},
		{"v2 unlimited", "0::/\n", map[string]string{"cpu.max": "max 100000"}, 0},
		{"v2 nested: the parent binds", "0::/a/b\n", map[string]string{"a/cpu.max": "100000 100000", "a/b/cpu.max": "400000 100000"}, 1},
		{"v1", "3:cpu,cpuacct:/k/x\n", map[string]string{"cpu/k/x/cpu.cfs_quota_us": "150000", "cpu/k/x/cpu.cfs_period_us": "100000",
			"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, 1.5},
		{"v1 unlimited", "1:cpu:/\n", map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, 0},
		{"none", "0::/\n", nil, 0},
		{"garbage", "0::/\n", map[string]string{"cpu.max": "x y"}, 0},
	}
	for _, c := range cases {
		root := t.TempDir()
		write(t, root, c.files)
		if got := cpuLimit(root, strings.NewReader(c.self)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
