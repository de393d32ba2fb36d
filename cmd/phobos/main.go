// Command phobos is Phobos's one binary. It runs the benchmark workloads
// (package workloads) and prints the same JSON line as the NumPy and
// Dask anchors, so they can be compared (and wrapped by bench_anchor.py
// --wrap for process-tree RSS and CPU load); it is also every process of a
// cluster (roles.go).
//
//	phobos run <workload> [flags]   time a workload, one JSON line on stdout
//	phobos explain <workload>       the chunk graph after each optimisation pass
//	phobos scheduler|worker|web     one cluster role
//	phobos cluster --workers N      a whole cluster on this machine
//	phobos top URL                  a terminal view of a cluster's figures
//	phobos certs --dir D --hosts H  a CA and certificate for a cluster's TLS
//	phobos version                  version, Go, platform, BLAS and LAPACK backends
//	phobos help                     usage
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/phobos-tensor/phobos/internal/gctune"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/workloads"
)

// version is the release this binary claims; there is none yet.
const version = "0.1.0-dev"

// Exit codes: 1 for a run that failed, 2 for a command line that cannot run.
const (
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	// The heap may grow between collections by four times its scannable
	// part (graphs, tiles, dispatch records: GOGC 400's headroom, so a
	// million-op graph does not collect every few milliseconds) but by no
	// more than half the live heap, at least 256 MiB, and not in
	// proportion to the chunk data held, which costs a collection nothing
	// and would multiply resident memory. Chunk buffers themselves are
	// reused through ndarray's buffer pool rather than left to the
	// collector. A memory limit (a session's budget, GOMEMLIMIT) still
	// bounds the heap; GOGC in the environment turns the tuner off.
	if os.Getenv("GOGC") == "" {
		gctune.Start(gctune.Default())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process exit, so tests can drive it.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "explain":
		return explainCmd(args[1:], stdout, stderr)
	case "gen-data":
		return genDataCmd(args[1:], stdout, stderr)
	case "top":
		return topCmd(args[1:], stdout, stderr)
	case "certs":
		return certsCmd(args[1:], stdout, stderr)
	case "scheduler", "worker", "web", "cluster", "etcd":
		return roleCmd(args[0], args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "phobos %s\n%s %s/%s\nblas: %s\nlapack: %s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, ndarray.BLASBackend(), ndarray.LAPACKBackend())
		return 0
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "phobos: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Phobos: chunked, lazily evaluated NumPy-style tensors.

Usage:
  phobos run <workload> [flags]   run a benchmark workload in a local session;
                                  one JSON line on stdout, a summary on stderr
  phobos explain <workload> [--no-fuse] [--dot tile|cull|fuse]
                                  the chunk graph after each optimisation pass
  phobos gen-data <workload> [-n N] [-chunk C] [-data DIR] [-format npy|zarr] [-memory M]
                                  write the input file of a file-backed
                                  workload (W9), deterministic for -seed
  phobos version                  print version, Go version, platform, BLAS and LAPACK
  phobos help                     print this help
`+rolesUsage+certsUsage+topUsage+`
Workloads (sizes are the defaults):
`)
	for _, name := range workloads.Names() {
		wl, _ := workloads.Get(name)
		var ps []string
		for _, k := range wl.ParamNames() {
			ps = append(ps, fmt.Sprintf("%s=%d", k, wl.Defaults[k]))
		}
		fmt.Fprintf(w, "  %-4s %s\n       %s\n", wl.Name, wl.Desc, strings.Join(ps, " "))
	}
	fmt.Fprint(w, `
Run flags (after the workload name):
`)
	fs, _ := newRunFlags(io.Discard)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Example:
  phobos run W1 -reps 5
  phobos run W2 -no-fuse -memory 1GiB
`)
}
