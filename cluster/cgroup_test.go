//go:build linux

package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// cgroupDirs makes a cgroup limited to one CPU and mem bytes, under v2 or
// the v1 cpu and memory controllers, removed when t ends; it returns the
// cgroup.procs files a process joins it by. It skips t where cgroups
// cannot be made.
func cgroupDirs(t *testing.T, mem int64) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	name := fmt.Sprintf("phobos-test-%d", os.Getpid())
	type file struct{ path, value string }
	var dirs []string
	var files []file
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		d := filepath.Join("/sys/fs/cgroup", name)
		dirs = []string{d}
		files = []file{{filepath.Join(d, "cpu.max"), "100000 100000"}, {filepath.Join(d, "memory.max"), fmt.Sprint(mem)}}
	} else if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		c, m := filepath.Join("/sys/fs/cgroup/cpu", name), filepath.Join("/sys/fs/cgroup/memory", name)
		dirs = []string{c, m}
		files = []file{{filepath.Join(c, "cpu.cfs_period_us"), "100000"}, {filepath.Join(c, "cpu.cfs_quota_us"), "100000"},
			{filepath.Join(m, "memory.limit_in_bytes"), fmt.Sprint(mem)}}
	} else {
		t.Skip("no cgroup v2 or v1 cpu controller mounted")
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot make a cgroup: %v", err)
		}
		t.Cleanup(func() { _ = os.Remove(d) })
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, []byte(f.value), 0o644); err != nil {
			t.Skipf("cannot limit a cgroup (%s): %v", f.path, err)
		}
	}
	var procs []string
	for _, d := range dirs {
		procs = append(procs, filepath.Join(d, "cgroup.procs"))
	}
	return procs
}

// TestWorkerDefaultsFromCgroup: a worker started in a container's cgroup
// (one CPU, 1 GiB) without --slots or --memory takes one slot and half the
// cgroup's memory as its budget, as the scheduler it registers with sees.
func TestWorkerDefaultsFromCgroup(t *testing.T) {
	needBinary(t)
	const mem = 1 << 30
	procs := cgroupDirs(t, mem)
	sp, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	// The shell joins the cgroup, then becomes the worker.
	var join []string
	for _, p := range procs {
		join = append(join, "echo $$ > "+p)
	}
	cmd := exec.Command("sh", "-c", strings.Join(join, " && ")+` && exec "$0" worker --scheduler "$1" --spill-dir "$2"`, phobosBin, sp.URL(), t.TempDir())
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker logs:\n%s", logs)
		}
	}()
	hc, _ := cluster.NewClient("", rpc.TLSFiles{})
	sched := phobosv1connect.NewSchedulerServiceClient(hc, sp.URL(), rpc.ClientOptions()...)
	var w *pb.WorkerInfo
	eventually(t, 20*time.Second, "the worker registered", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp, err := sched.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{}))
		if err != nil || len(resp.Msg.Workers) == 0 {
			return false
		}
		w = resp.Msg.Workers[0]
		return true
	})
	if w.Slots != 1 || w.MemoryBytes != mem/2 {
		t.Errorf("worker in a cgroup of 1 CPU and %d bytes: %d slots, budget %d; want 1 slot and %d", mem, w.Slots, w.MemoryBytes, mem/2)
	}
}
