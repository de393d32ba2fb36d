package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// runOptions are the flags of phobos run.
type runOptions struct {
	n, chunk       sizeFlag
	reps, warmup   int
	workers, slots int
	seed           uint64
	cluster        string // web URL of a cluster to run on instead of in-process
	noFuse         bool
	memory         memFlag
	cpuProfile     string
	memProfile     string
	mutexProfile   string
	blockProfile   string
	trace          string
	dashboard      string
	tokenFile      string
	tlsCA          string
	spillDir       string
	dataDir        string // where file-backed workloads read their input
	format         string // of that input: npy or zarr
	gen            bool   // also time generating the inputs alone
	metrics        string // address the local session serves /metrics on; "": none
}

// sizeFlag is a size that may be written 200000000, 2e8 or 200_000_000; it
// remembers whether it was given, because only given sizes override.
type sizeFlag struct {
	v   int
	set bool
}

func (f *sizeFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.v)
}

func (f *sizeFlag) Set(s string) error {
	s = strings.ReplaceAll(s, "_", "")
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		f.v, f.set = int(v), true
		return nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return fmt.Errorf("not a whole number")
	}
	f.v, f.set = int(x), true
	return nil
}

func newRunFlags(errOut io.Writer) (*flag.FlagSet, *runOptions) {
	o := &runOptions{}
	fs := flag.NewFlagSet("phobos run", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Var(&o.n, "n", "problem size: the workload's n or N (e.g. 10000, 2e8)")
	fs.Var(&o.chunk, "chunk", "chunk size along the split axes")
	fs.IntVar(&o.reps, "reps", 3, "timed runs; wall_s is their median")
	fs.IntVar(&o.warmup, "warmup", 1, "untimed runs before the timed ones")
	fs.IntVar(&o.workers, "workers", 0, "in-process workers (0: session default, 1)")
	fs.IntVar(&o.slots, "slots", 0, "ops each worker runs at once (0: GOMAXPROCS / workers)")
	fs.Uint64Var(&o.seed, "seed", workloads.DefaultSeed, "random seed")
	fs.StringVar(&o.cluster, "cluster", "", "run on the cluster whose web service is at this URL (phobos cluster prints it)")
	fs.BoolVar(&o.noFuse, "no-fuse", false, "turn the fusion pass off (to measure its gain)")
	fs.Var(&o.memory, "memory", "memory budget per worker: 1GiB, 512MB, 8e9 (default: half of RAM over the workers)")
	fs.StringVar(&o.spillDir, "spill-dir", "", "directory for spill files (default: a temporary directory)")
	fs.StringVar(&o.dataDir, "data", workloads.DefaultDataDir, "directory of the input files of file-backed workloads (W9; write them with phobos gen-data)")
	fs.StringVar(&o.format, "format", "npy", "format of a file-backed workload's input: npy or zarr")
	fs.BoolVar(&o.gen, "gen", false, "also time generating the inputs alone (each summed), reps times: gen_s and compute_s = wall_s - gen_s in the JSON line")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "with -cluster: PEM certificate authority of an https:// cluster (default: the system's)")
	fs.StringVar(&o.tokenFile, "token-file", "", "with -cluster: file holding the cluster's token (default: $"+rpc.TokenEnv+")")
	fs.StringVar(&o.metrics, "metrics", "", "serve the local session's Prometheus metrics at http://ADDR/metrics while it runs (host:port; a cluster's roles serve their own)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (warm-up and timed runs) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile to this file, taken after the collection that found the most live heap")
	fs.StringVar(&o.mutexProfile, "mutexprofile", "", "write a profile of the waits on contended locks (every one sampled) to this file")
	fs.StringVar(&o.blockProfile, "blockprofile", "", "write a profile of the goroutines' blocking (locks, conditions, channels; every event sampled) to this file")
	fs.StringVar(&o.trace, "trace", "", "write an execution trace of the whole run to this file (go tool trace)")
	fs.StringVar(&o.dashboard, "dashboard", "", "serve the dashboard of the in-process cluster on this address (e.g. 127.0.0.1:8787) while the workload runs")
	return fs, o
}

// record is the anchors' JSON line. Field order follows the anchors'
// lines so the outputs read alike; pointers are absent when not measured.
type record struct {
	Name            string           `json:"name"`
	System          string           `json:"system"`
	Desc            string           `json:"desc,omitempty"`
	Params          workloads.Params `json:"params"`
	Reps            int              `json:"reps"`
	Warmup          int              `json:"warmup"`
	Seed            uint64           `json:"seed"`
	Workers         int              `json:"workers"`
	Slots           int              `json:"slots"`
	GOMAXPROCS      int              `json:"gomaxprocs"`
	BLAS            string           `json:"blas,omitempty"`
	LAPACK          string           `json:"lapack,omitempty"`
	TS              string           `json:"ts"`
	WarmupS         []float64        `json:"warmup_s,omitempty"`
	Status          string           `json:"status"`
	Error           string           `json:"error,omitempty"`
	WallS           *float64         `json:"wall_s,omitempty"`
	WallSMin        *float64         `json:"wall_s_min,omitempty"`
	WallSMax        *float64         `json:"wall_s_max,omitempty"`
	WallSAll        []float64        `json:"wall_s_all,omitempty"`
	Result          *float64         `json:"result,omitempty"`
	ResultsAllEqual *bool            `json:"results_all_equal,omitempty"`
	Expected        *float64         `json:"expected,omitempty"`
	RelErr          *float64         `json:"rel_err_vs_expected,omitempty"`
	Z               *float64         `json:"z_vs_expected,omitempty"`
	ChunkOps        *int             `json:"chunk_ops,omitempty"`
	TasksOptimized  *int             `json:"tasks_optimized,omitempty"`
	TasksPerS       *float64         `json:"tasks_per_s,omitempty"`
	NsPerChunkOp    *float64         `json:"ns_per_chunk_op,omitempty"` // wall_s over chunk_ops: flat as graphs grow
	// CPUS is the median over the timed runs of this process's CPU time
	// (user and system), and CPUNsPerChunkOp that over chunk_ops: for a
	// local session every role's CPU, for -cluster only the client's (left
	// out). MinorFaults is the median run's minor page faults.
	CPUS            *float64            `json:"cpu_s,omitempty"`
	CPUNsPerChunkOp *float64            `json:"cpu_ns_per_chunk_op,omitempty"`
	MinorFaults     *int64              `json:"minor_faults,omitempty"`
	TileS           *float64            `json:"tile_s,omitempty"`
	RunS            *float64            `json:"run_s,omitempty"`
	FetchS          *float64            `json:"fetch_s,omitempty"`
	MovedMB         *float64            `json:"moved_mb,omitempty"`
	MovedBytes      *int64              `json:"moved_bytes,omitempty"`
	Cluster         string              `json:"cluster,omitempty"`
	PeakStoreMB     *float64            `json:"peak_store_mb,omitempty"`
	Spill           *phobos.MemoryStats `json:"spill,omitempty"`
	DataS           *float64            `json:"data_s,omitempty"`    // making an in-memory workload's data (not timed)
	GenS            *float64            `json:"gen_s,omitempty"`     // generating the inputs alone (-gen), median
	ComputeS        *float64            `json:"compute_s,omitempty"` // wall_s - gen_s
	PeakRSSTreeMB   float64             `json:"peak_rss_tree_mb"`
	PeakRSSSelfMB   float64             `json:"peak_rss_self_mb"`
}

func ptr[T any](v T) *T { return &v }

// round keeps the anchors' precision: 4 decimals for seconds.
func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "phobos run: name a workload first: one of %s\n", strings.Join(workloads.Names(), ", "))
		return exitUsage
	}
	wl, ok := workloads.Get(args[0])
	if !ok {
		fmt.Fprintf(stderr, "phobos run: unknown workload %q (known: %s)\n", args[0], strings.Join(workloads.Names(), ", "))
		return exitUsage
	}
	fs, o := newRunFlags(io.Discard)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "phobos run %s: %s\n", wl.Name, wl.Desc)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "phobos run %s: %v (see phobos help)\n", wl.Name, err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "phobos run %s: unexpected argument %q (flags come after the workload name)\n", wl.Name, fs.Arg(0))
		return exitUsage
	}
	if o.reps < 1 || o.warmup < 0 || o.workers < 0 || o.slots < 0 {
		fmt.Fprintf(stderr, "phobos run %s: need -reps >= 1 and -warmup, -workers, -slots >= 0\n", wl.Name)
		return exitUsage
	}
	over := workloads.Params{}
	if o.n.set {
		over[sizeName(wl)] = o.n.v
	}
	if o.chunk.set {
		over["chunk"] = o.chunk.v
	}
	p, err := wl.Resolve(over)
	if err != nil {
		fmt.Fprintf(stderr, "phobos run: %v\n", err)
		return exitUsage
	}
	if !slices.Contains(workloads.Formats, o.format) {
		fmt.Fprintf(stderr, "phobos run %s: -format %q (npy or zarr)\n", wl.Name, o.format)
		return exitUsage
	}
	if path := wl.DataPath(o.dataDir, o.format, p); path != "" {
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(stderr, "phobos run %s: its input %s: %v; write it with: phobos gen-data %s -data %s -format %s%s\n", wl.Name, path, err, wl.Name, o.dataDir, o.format, sizeArgs(over))
			return exitUsage
		}
		wl = wl.WithData(o.dataDir, o.format)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "phobos run %s: cpu profile: %v\n", wl.Name, err)
			return exitUsage
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "phobos run %s: cpu profile: %v\n", wl.Name, err)
			return exitFailed
		}
		defer pprof.StopCPUProfile()
	}
	if o.memProfile != "" {
		stopHeap, err := profilePeakHeap(o.memProfile)
		if err != nil {
			fmt.Fprintf(stderr, "phobos run %s: heap profile: %v\n", wl.Name, err)
			return exitUsage
		}
		defer func() {
			if err := stopHeap(); err != nil {
				fmt.Fprintf(stderr, "phobos run %s: heap profile: %v\n", wl.Name, err)
			}
		}()
	}
	stopWaits, err := profileWaits(o.mutexProfile, o.blockProfile, o.trace)
	if err != nil {
		fmt.Fprintf(stderr, "phobos run %s: %v\n", wl.Name, err)
		return exitUsage
	}
	defer func() {
		if err := stopWaits(); err != nil {
			fmt.Fprintf(stderr, "phobos run %s: %v\n", wl.Name, err)
		}
	}()
	rec, err := measure(ctx, wl, p, o, stderr)
	rec.PeakRSSSelfMB = vmHWM()
	rec.PeakRSSTreeMB = rec.PeakRSSSelfMB // one process: its tree is itself
	if err != nil {
		rec.Status, rec.Error = "error", err.Error()
	}
	line, jerr := json.Marshal(rec)
	if jerr != nil {
		fmt.Fprintf(stderr, "phobos run %s: encoding the result: %v\n", wl.Name, jerr)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s\n", line)
	fmt.Fprintln(stderr, summary(rec))
	if err != nil {
		return exitFailed
	}
	return 0
}

// sizeName is the parameter -n sets: the workload's one that is not chunk.
func sizeName(wl *workloads.Workload) string {
	for _, k := range wl.ParamNames() {
		if k != "chunk" {
			return k
		}
	}
	return "n"
}

// measure times the workload as the anchors do: a session started outside
// the timing, warm-up runs untimed, then reps timed runs end to end (building,
// random generation, execution, fetching the result).
func measure(ctx context.Context, wl *workloads.Workload, p workloads.Params, o *runOptions, stderr io.Writer) (*record, error) {
	workers := max(o.workers, 1)
	slots := o.slots
	if slots == 0 {
		slots = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	rec := &record{
		Name: wl.Name, System: "phobos", Desc: wl.Desc, Params: p,
		Reps: o.reps, Warmup: o.warmup, Seed: o.seed,
		Workers: workers, Slots: slots, GOMAXPROCS: runtime.GOMAXPROCS(0),
		TS: time.Now().Format("2006-01-02T15:04:05-0700"),
	}
	if wl.Name == "W3" {
		rec.BLAS = ndarray.BLASBackend()
		rec.LAPACK = ndarray.LAPACKBackend()
	}
	if wl.Data != nil && o.cluster != "" {
		return rec, fmt.Errorf("%s computes on data made in this process (in memory): run it without -cluster", wl.Name)
	}
	bar := newProgressView(stderr)
	opts := []phobos.Option{phobos.WithWorkers(workers), phobos.WithSlots(slots), phobos.WithFusion(!o.noFuse)}
	if o.memory.v > 0 {
		opts = append(opts, phobos.WithMemoryLimit(o.memory.v))
	}
	if o.spillDir != "" {
		opts = append(opts, phobos.WithSpillDir(o.spillDir))
	}
	if bar != nil {
		opts = append(opts, phobos.WithProgress(bar.update))
	}
	var sess *phobos.Session
	var err error
	if o.cluster != "" {
		rec.Cluster = o.cluster
		token, terr := rpc.LoadToken(o.tokenFile)
		if terr != nil {
			return rec, terr
		}
		tlsCfg, terr := rpc.TLSFiles{CA: o.tlsCA}.Client()
		if terr != nil {
			return rec, terr
		}
		sess, err = phobos.Connect(ctx, o.cluster, append(opts, phobos.WithToken(token), phobos.WithTLSConfig(tlsCfg))...)
	} else {
		if o.metrics != "" {
			opts = append(opts, phobos.WithMetrics(o.metrics))
		}
		if o.dashboard != "" {
			opts = append(opts, phobos.WithDashboard(o.dashboard))
		}
		sess, err = phobos.NewSession(opts...)
		if err == nil && sess.DashboardURL() != "" {
			// A one-time link: the dashboard's token itself is never printed.
			link, lerr := sess.DashboardLogin()
			if lerr != nil {
				sess.Close()
				return rec, lerr
			}
			fmt.Fprintln(os.Stderr, "phobos run: dashboard at", link)
		}
	}
	if err != nil {
		return rec, err
	}
	defer sess.Close()
	if u := sess.MetricsURL(); u != "" {
		fmt.Fprintf(stderr, "phobos run %s: metrics at %s\n", wl.Name, u)
	}
	if wl.Data != nil {
		t0 := time.Now()
		if wl, err = wl.Prepare(p, o.seed); err != nil {
			return rec, err
		}
		rec.DataS = ptr(round(time.Since(t0).Seconds(), 4))
	}

	once := func(label string) (float64, time.Duration, error) {
		bar.start(label)
		defer bar.done()
		t0 := time.Now()
		v, err := wl.Eval(ctx, sess, p, o.seed)
		return v, time.Since(t0), err
	}
	for i := range o.warmup {
		_, d, err := once(fmt.Sprintf("%s warm-up %d/%d", wl.Name, i+1, o.warmup))
		if err != nil {
			return rec, err
		}
		rec.WarmupS = append(rec.WarmupS, round(d.Seconds(), 4))
	}
	var walls, tiles, runs, fetches, vals, cpus []float64
	var faults []int64
	var st phobos.Stats
	for i := range o.reps {
		cpu0, flt0, cpuOK := cpuUse()
		v, d, err := once(fmt.Sprintf("%s run %d/%d", wl.Name, i+1, o.reps))
		if err != nil {
			return rec, err
		}
		if cpu1, flt1, ok := cpuUse(); ok && cpuOK && o.cluster == "" {
			cpus = append(cpus, (cpu1 - cpu0).Seconds())
			faults = append(faults, flt1-flt0)
		}
		st = sess.Stats()
		walls = append(walls, d.Seconds())
		tiles = append(tiles, st.TileTime.Seconds())
		runs = append(runs, st.RunTime.Seconds())
		fetches = append(fetches, st.FetchTime.Seconds())
		vals = append(vals, v)
	}

	if o.gen {
		if g := wl.GenBuild(p, o.seed); g != nil {
			var gens []float64
			for i := range o.reps {
				bar.start(fmt.Sprintf("%s inputs alone %d/%d", wl.Name, i+1, o.reps))
				t0 := time.Now()
				_, err := sess.ExecuteScalar(ctx, g)
				bar.done()
				if err != nil {
					return rec, fmt.Errorf("generating the inputs alone: %w", err)
				}
				gens = append(gens, time.Since(t0).Seconds())
			}
			rec.GenS = ptr(round(median(gens), 4))
			rec.ComputeS = ptr(round(median(walls)-median(gens), 4))
		}
	}

	rec.Status = "ok"
	rec.WallS = ptr(round(median(walls), 4))
	rec.WallSMin = ptr(round(slices.Min(walls), 4))
	rec.WallSMax = ptr(round(slices.Max(walls), 4))
	for _, w := range walls {
		rec.WallSAll = append(rec.WallSAll, round(w, 4))
	}
	res := vals[len(vals)-1]
	rec.Result = ptr(res)
	rec.ResultsAllEqual = ptr(slices.Min(vals) == slices.Max(vals))
	if want, sigma := wl.Expected(p); !math.IsNaN(want) {
		rec.Expected = ptr(want)
		if want != 0 {
			rec.RelErr = ptr(math.Abs(res-want) / math.Abs(want))
		}
		if sigma > 0 {
			rec.Z = ptr(round((res-want)/sigma, 2))
		}
	}
	rec.ChunkOps = ptr(st.ChunkOps)
	if st.ChunkOps > 0 {
		rec.NsPerChunkOp = ptr(round(*rec.WallS*1e9/float64(st.ChunkOps), 1))
	}
	if len(cpus) > 0 {
		rec.CPUS = ptr(round(median(cpus), 4))
		slices.Sort(faults)
		rec.MinorFaults = ptr(faults[(len(faults)-1)/2])
		if st.ChunkOps > 0 {
			rec.CPUNsPerChunkOp = ptr(round(*rec.CPUS*1e9/float64(st.ChunkOps), 1))
		}
	}
	if wl.Name == "W5" {
		rec.TasksOptimized = ptr(st.ChunkOps)
		rec.TasksPerS = ptr(round(float64(st.ChunkOps) / *rec.WallS, 1))
	}
	rec.TileS = ptr(round(median(tiles), 4))
	rec.RunS = ptr(round(median(runs), 4))
	rec.FetchS = ptr(round(median(fetches), 4))
	rec.MovedMB = ptr(round(float64(st.MovedBytes)/(1<<20), 1))
	rec.MovedBytes = ptr(st.MovedBytes)
	rec.PeakStoreMB = ptr(round(float64(st.PeakBytes)/(1<<20), 1))
	if o.cluster == "" {
		rec.Spill = ptr(st.Memory) // the last timed run's spilling and recomputation
	}
	return rec, nil
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summary is the one human-readable line for stderr.
func summary(r *record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "phobos %s %v: ", r.Name, paramString(r.Params))
	if r.Status != "ok" {
		fmt.Fprintf(&b, "error: %s", r.Error)
	} else {
		fmt.Fprintf(&b, "result %.10g", *r.Result)
		if r.Expected != nil {
			fmt.Fprintf(&b, " (expected %.10g", *r.Expected)
			if r.Z != nil {
				fmt.Fprintf(&b, ", z %+.2f", *r.Z)
			}
			b.WriteString(")")
		}
		fmt.Fprintf(&b, "; wall %.4f s median of %d [%.4f, %.4f]; %d chunk ops",
			*r.WallS, r.Reps, *r.WallSMin, *r.WallSMax, *r.ChunkOps)
		if r.TasksPerS != nil {
			fmt.Fprintf(&b, " (%.0f/s)", *r.TasksPerS)
		}
		if r.NsPerChunkOp != nil {
			fmt.Fprintf(&b, ", %.0f ns per chunk op", *r.NsPerChunkOp)
		}
	}
	if r.CPUS != nil {
		fmt.Fprintf(&b, "; CPU %.2f s", *r.CPUS)
		if r.CPUNsPerChunkOp != nil {
			fmt.Fprintf(&b, " (%.0f ns per chunk op)", *r.CPUNsPerChunkOp)
		}
		fmt.Fprintf(&b, ", %d minor page faults", *r.MinorFaults)
	}
	fmt.Fprintf(&b, "; peak RSS %.1f MB", r.PeakRSSSelfMB)
	if ps := ndarray.BufferPoolStats(); ps.Lent > 0 {
		fmt.Fprintf(&b, "; buffers: %d lent, %d reused, %d returned, %d dropped", ps.Lent, ps.Reused, ps.Returned, ps.Dropped)
	}
	return b.String()
}

// paramString lists sizes before the chunk, as the usage does.
func paramString(p workloads.Params) string {
	names := slices.SortedFunc(maps.Keys(p), func(a, b string) int {
		if (a == "chunk") != (b == "chunk") {
			if a == "chunk" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%d", k, p[k])
	}
	return strings.Join(parts, " ")
}

// vmHWM is this process's peak resident set in MB, the kernel's own
// high-water mark (VmHWM in /proc/self/status); 0 where there is no /proc.
func vmHWM() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				kb, err := strconv.ParseFloat(fields[0], 64)
				if err == nil {
					return round(kb/1024, 1)
				}
			}
		}
	}
	return 0
}

// sizeArgs repeats the size flags a run was given, for a command to suggest.
func sizeArgs(over workloads.Params) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(over)) {
		flag := "-n"
		if k == "chunk" {
			flag = "-chunk"
		}
		fmt.Fprintf(&b, " %s %d", flag, over[k])
	}
	return b.String()
}

// genDataCmd writes the input file of a file-backed workload: phobos
// gen-data W9 [-n N] [-chunk C] [-seed S] [-data DIR] [-memory M]. The
// data is generated by a local session and written by its ToNpy sink,
// chunk by chunk, so no memory holds it whole.
func genDataCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "phobos gen-data: name a file-backed workload first (W9)\n")
		return exitUsage
	}
	wl, ok := workloads.Get(args[0])
	if !ok || wl.Generate == nil {
		fmt.Fprintf(stderr, "phobos gen-data: %q is not a file-backed workload (W9 is)\n", args[0])
		return exitUsage
	}
	fs, o := newRunFlags(io.Discard)
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "phobos gen-data %s: bad flags (it takes -n, -chunk, -seed, -data, -format, -memory)\n", wl.Name)
		return exitUsage
	}
	over := workloads.Params{}
	if o.n.set {
		over[sizeName(wl)] = o.n.v
	}
	if o.chunk.set {
		over["chunk"] = o.chunk.v
	}
	p, err := wl.Resolve(over)
	if err != nil {
		fmt.Fprintf(stderr, "phobos gen-data: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(o.dataDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "phobos gen-data: %v\n", err)
		return exitFailed
	}
	var opts []phobos.Option
	if o.memory.v > 0 {
		opts = append(opts, phobos.WithMemoryLimit(o.memory.v))
	}
	sess, err := phobos.NewSession(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "phobos gen-data: %v\n", err)
		return exitFailed
	}
	defer sess.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if !slices.Contains(workloads.Formats, o.format) {
		fmt.Fprintf(stderr, "phobos gen-data: -format %q (npy or zarr)\n", o.format)
		return exitUsage
	}
	path := wl.DataPath(o.dataDir, o.format, p)
	gen := wl.Generate(p, o.seed)
	sink := gen.ToNpy(path)
	if o.format == "zarr" {
		sink = gen.ToZarr(path, tensor.Chunks(p["chunk"]))
	}
	t0 := time.Now()
	res, err := sess.Execute(ctx, sink)
	if err != nil {
		fmt.Fprintf(stderr, "phobos gen-data %s: %v\n", wl.Name, err)
		return exitFailed
	}
	d := time.Since(t0)
	n := res[0].Int64s()[0]
	fmt.Fprintf(stdout, "%s\n", path)
	fmt.Fprintf(stderr, "phobos gen-data %s: wrote %s, %d bytes in %.2f s (%.0f MB/s)\n", wl.Name, path, n, d.Seconds(), float64(n)/d.Seconds()/1e6)
	return 0
}
