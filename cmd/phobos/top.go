package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/web"
)

// phobos top URL: a terminal view of a cluster's figures, for a server
// without a browser. It reads the web service's REST API (GET /api, GET
// /api/workers), its /metrics (which carries the scheduler's series) and
// each live worker's /metrics (spill bytes, chunk ops done), and redraws
// every -interval; -once prints one frame and exits.

const topUsage = `  phobos top URL [-once] [-interval D] [-token-file F] [-tls-ca F]
                                  a cluster's workers, slots, memory, spill,
                                  ops per second and graphs, refreshed
`

// topWorker is one worker's row.
type topWorker struct {
	web.WorkerJSON
	// From its /metrics; Scraped is false when it did not answer.
	Scraped   bool
	DiskBytes int64
	OpsDone   float64 // chunk ops it ended, all outcomes
}

// topFrame is what one frame shows.
type topFrame struct {
	At          time.Time
	API         web.APIInfo
	Workers     []topWorker
	Graphs      map[string]float64 // by state, from the scheduler's series
	HaveGraphs  bool
	OpsDone     float64 // chunk ops the live workers ended
	OpsPerSec   float64 // since the previous frame; -1: no previous frame
	Slots, Busy int
	Queued      int
	MemoryBytes int64 // store bytes in memory, summed
	LimitBytes  int64
	DiskBytes   int64
}

func topCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("phobos top", flag.ContinueOnError)
	fs.SetOutput(stderr)
	once := fs.Bool("once", false, "print one frame and exit (ops per second over -interval)")
	interval := fs.Duration("interval", 2*time.Second, "time between frames")
	tokenFile := fs.String("token-file", "", "file holding the cluster's token (default: $"+rpc.TokenEnv+")")
	ca := fs.String("tls-ca", "", "PEM certificate authority of an https:// cluster (default: the system's)")
	// The URL may come before or after the flags.
	var url string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		url, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if url == "" && fs.NArg() > 0 {
		url = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return exitUsage
		}
	}
	if url == "" || fs.NArg() > 0 || *interval <= 0 {
		fmt.Fprintf(stderr, "usage:\n%s", topUsage)
		return exitUsage
	}
	url = strings.TrimRight(url, "/")
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	token, err := rpc.LoadToken(*tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "phobos top: %v\n", err)
		return exitUsage
	}
	hc, err := cluster.NewClient(token, rpc.TLSFiles{CA: *ca})
	if err != nil {
		fmt.Fprintf(stderr, "phobos top: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	prev, err := collectTop(ctx, hc, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "phobos top: %v\n", err)
		return exitFailed
	}
	if !*once {
		fmt.Fprint(stdout, "\033[H\033[2J")
		renderTop(stdout, url, prev)
	}
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-tick.C:
		}
		f, err := collectTop(ctx, hc, url, prev)
		if err != nil {
			if ctx.Err() != nil {
				return 0
			}
			if *once {
				fmt.Fprintf(stderr, "phobos top: %v\n", err)
				return exitFailed
			}
			fmt.Fprintf(stdout, "\n%s: %v\n", time.Now().Format(time.TimeOnly), err)
			continue
		}
		if *once {
			renderTop(stdout, url, f)
			return 0
		}
		fmt.Fprint(stdout, "\033[H\033[2J")
		renderTop(stdout, url, f)
		prev = f
	}
}

// collectTop reads one frame; prev (nil for the first) gives the ops rate.
func collectTop(ctx context.Context, hc *http.Client, url string, prev *topFrame) (*topFrame, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f := &topFrame{At: time.Now(), OpsPerSec: -1}
	// GET /api answers 503 while no worker is live, with the same body.
	if err := getJSON(ctx, hc, url+"/api", &f.API, http.StatusOK, http.StatusServiceUnavailable); err != nil {
		return nil, err
	}
	var ws struct {
		Workers []web.WorkerJSON `json:"workers"`
	}
	if err := getJSON(ctx, hc, url+"/api/workers", &ws, http.StatusOK); err != nil {
		return nil, err
	}
	if fams, err := metrics.Scrape(ctx, hc, url+"/metrics"); err == nil {
		if fam, ok := fams["phobos_scheduler_graphs"]; ok {
			f.Graphs, f.HaveGraphs = byLabel(fam, "state"), true
		}
	}
	for _, w := range ws.Workers {
		tw := topWorker{WorkerJSON: w}
		if w.Alive {
			f.Slots += w.Slots
			f.Busy += w.Running
			f.Queued += w.Queued
			f.MemoryBytes += w.StoreBytes
			f.LimitBytes += w.MemoryBytes
			if fams, err := metrics.Scrape(ctx, hc, w.URL+"/metrics"); err == nil {
				tw.Scraped = true
				tw.DiskBytes = int64(total(fams["phobos_worker_store_disk_bytes"]))
				tw.OpsDone = total(fams["phobos_worker_chunk_ops_total"])
				f.DiskBytes += tw.DiskBytes
				f.OpsDone += tw.OpsDone
			}
		}
		f.Workers = append(f.Workers, tw)
	}
	if prev != nil {
		if dt := f.At.Sub(prev.At).Seconds(); dt > 0 && f.OpsDone >= prev.OpsDone {
			f.OpsPerSec = (f.OpsDone - prev.OpsDone) / dt
		}
	}
	return f, nil
}

func getJSON(ctx context.Context, hc *http.Client, url string, v any, ok ...int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	good := false
	for _, c := range ok {
		good = good || resp.StatusCode == c
	}
	if !good {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// total adds a family's counter and gauge values (0 for a missing family).
func total(f *dto.MetricFamily) float64 {
	if f == nil {
		return 0
	}
	s := 0.0
	for _, m := range f.Metric {
		s += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return s
}

// byLabel sums a family's values by one label's value.
func byLabel(f *dto.MetricFamily, label string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if l.GetName() == label {
				out[l.GetValue()] += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// renderTop prints a frame: a summary, then one row per worker.
func renderTop(w io.Writer, url string, f *topFrame) {
	live := 0
	for _, x := range f.Workers {
		if x.Alive {
			live++
		}
	}
	rate := "-"
	if f.OpsPerSec >= 0 {
		rate = fmt.Sprintf("%.1f", f.OpsPerSec)
	}
	fmt.Fprintf(w, "phobos top %s  %s\n", url, f.At.UTC().Format("2006-01-02 15:04:05Z"))
	fmt.Fprintf(w, "workers %d/%d  slots %d/%d  queued %d  memory %s/%s  spill %s  ops/s %s\n",
		live, len(f.Workers), f.Busy, f.Slots, f.Queued, mib(f.MemoryBytes), mib(f.LimitBytes), mib(f.DiskBytes), rate)
	graphs := "graphs -"
	if f.HaveGraphs {
		graphs = fmt.Sprintf("graphs running %.0f  preparing %.0f  succeeded %.0f  failed %.0f  cancelled %.0f",
			f.Graphs["RUNNING"]+f.Graphs["CANCELLING"], f.Graphs["PREPARING"], f.Graphs["SUCCEEDED"], f.Graphs["FAILED"], f.Graphs["CANCELLED"])
	}
	fmt.Fprintf(w, "%s  sessions %d\n\n", graphs, f.API.Sessions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tALIVE\tSLOTS\tBUSY\tQUEUED\tMEMORY\tLIMIT\tSPILL\tOPS\tURL")
	for _, x := range f.Workers {
		spill, ops := "-", "-"
		if x.Scraped {
			spill, ops = mib(x.DiskBytes), fmt.Sprintf("%.0f", x.OpsDone)
		}
		alive := "yes"
		if !x.Alive {
			alive = "no"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", x.ID, alive, x.Slots, x.Running, x.Queued, mib(x.StoreBytes), mib(x.MemoryBytes), spill, ops, x.URL)
	}
	tw.Flush()
}

// mib prints bytes in MiB with one decimal, so a reader (and a test) can
// compare them with the REST API's byte counts.
func mib(b int64) string { return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20)) }
