// Package cgroup reads the limits of the control group this process runs
// in (a container's, a systemd unit's), under cgroup v2 or v1, so that a
// role's defaults (a worker's memory budget and slots) follow what the
// orchestrator gave it rather than the whole machine.
package cgroup

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// MemoryLimit is the memory limit of this process's cgroup, the lowest
// along its path; 0 when there is none or it cannot be read.
func MemoryLimit() int64 { return ofSelf(memoryLimit) }

// CPULimit is the CPU bandwidth of this process's cgroup in CPUs (quota
// over period, the lowest along its path); 0 when there is none or it
// cannot be read.
func CPULimit() float64 { return ofSelf(cpuLimit) }

// ofSelf is limit read for this process: its cgroups from
// /proc/self/cgroup, their files under /sys/fs/cgroup; zero when they
// cannot be read.
func ofSelf[T int64 | float64](limit func(root string, self io.Reader) T) T {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	defer f.Close()
	return limit("/sys/fs/cgroup", f)
}

// memoryLimit is the memory limit of the cgroup this process runs in,
// the lowest along its path to the root (a parent's limit binds its
// children), under cgroup v2 or v1; 0 when there is none. root is where
// cgroup file systems are mounted ("/sys/fs/cgroup"), self the contents of
// /proc/self/cgroup.
func memoryLimit(root string, self io.Reader) int64 {
	p := cgroupPaths(self)
	v2, v1 := p.unified, p.ctrl["memory"]
	var dirs []string
	if v1 != "" {
		dirs = append(dirs, ancestors(filepath.Join(root, "memory"), v1, "memory.limit_in_bytes")...)
	}
	if v2 != "" {
		// The unified hierarchy: at the root on a pure v2 host, under
		// "unified" on a hybrid one.
		dirs = append(dirs, ancestors(root, v2, "memory.max")...)
		dirs = append(dirs, ancestors(filepath.Join(root, "unified"), v2, "memory.max")...)
	}
	var limit int64
	for _, f := range dirs {
		if v := readLimit(f); v > 0 && (limit == 0 || v < limit) {
			limit = v
		}
	}
	return limit
}

// cpuLimit is the CPU bandwidth limit in CPUs: cpu.max under v2,
// cpu.cfs_quota_us over cpu.cfs_period_us under v1.
func cpuLimit(root string, self io.Reader) float64 {
	p := cgroupPaths(self)
	var limit float64
	take := func(quota, period int64) {
		if quota <= 0 || period <= 0 {
			return
		}
		if v := float64(quota) / float64(period); limit == 0 || v < limit {
			limit = v
		}
	}
	if v1 := p.ctrl["cpu"]; v1 != "" {
		for _, dir := range ancestors(filepath.Join(root, "cpu"), v1, "") {
			take(readInt(filepath.Join(dir, "cpu.cfs_quota_us")), readInt(filepath.Join(dir, "cpu.cfs_period_us")))
		}
	}
	if p.unified != "" {
		for _, mount := range []string{root, filepath.Join(root, "unified")} {
			for _, dir := range ancestors(mount, p.unified, "") {
				b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
				if err != nil {
					continue
				}
				q, per, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
				quota, err1 := strconv.ParseInt(q, 10, 64)
				period, err2 := strconv.ParseInt(per, 10, 64)
				if err1 == nil && err2 == nil {
					take(quota, period)
				}
			}
		}
	}
	return limit
}

// paths are a process's cgroup paths from /proc/self/cgroup: the unified
// (v2) one, and each v1 controller's.
type paths struct {
	unified string
	ctrl    map[string]string
}

func cgroupPaths(self io.Reader) paths {
	p := paths{ctrl: map[string]string{}}
	sc := bufio.NewScanner(self)
	for sc.Scan() {
		id, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		ctrls, dir, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(dir, "/") {
			continue
		}
		if id == "0" && ctrls == "" {
			p.unified = dir
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			p.ctrl[c] = dir
		}
	}
	return p
}

// readInt reads a file holding one integer; 0 when it cannot.
func readInt(file string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// ancestors is file in the cgroup directory of p under mount and in each
// of its parents up to the mount's root.
func ancestors(mount, p, file string) []string {
	var out []string
	for p = path.Clean(p); ; p = path.Dir(p) {
		out = append(out, filepath.Join(mount, filepath.FromSlash(p), file))
		if p == "/" || p == "." {
			return out
		}
	}
}

// readLimit reads a memory limit file: a byte count, or "max" (none);
// v1 says "none" with a number near 2^63. 0 for none or unreadable.
func readLimit(file string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0
	}
	return v
}
