package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// TestDashboardOverheadW5 measures what a browser open on the graph page
// adds to W5 on `phobos cluster --workers 2`: runs of `phobos run W5
// --cluster URL` alternate without and with headless Chromium following
// each new graph's page. A measurement, not a check: it runs only with
// PHOBOS_DASHBOARD_BENCH=N (N runs of each kind, 9 reps each).
func TestDashboardOverheadW5(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PHOBOS_DASHBOARD_BENCH"))
	if n <= 0 {
		t.Skip("a measurement: set PHOBOS_DASHBOARD_BENCH=N to run it (N runs of W5 without and with a browser)")
	}
	needBinary(t)
	cmd := exec.Command(phobosBin, "cluster", "--workers", "2", "--log-level", "warn")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("phobos cluster printed no URL")
	}
	url := sc.Text()

	w5 := func() float64 {
		t.Helper()
		line, err := exec.Command(phobosBin, "run", "W5", "--cluster", url, "-reps", "9", "-warmup", "1").Output()
		if err != nil {
			t.Fatalf("phobos run W5: %v", err)
		}
		var rec struct {
			Status string  `json:"status"`
			WallS  float64 `json:"wall_s"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.Status != "ok" {
			t.Fatalf("phobos run W5: %s (%v)", line, err)
		}
		return rec.WallS
	}

	// CPU seconds of a process tree, from /proc: robust where wall time
	// is not (this machine's cores are shared).
	clusterPid := cmd.Process.Pid
	var off, on, cpuOff, cpuOn, cpuBrowser []float64
	for i := range n {
		c0 := treeCPU(clusterPid)
		off = append(off, w5())
		cpuOff = append(cpuOff, treeCPU(clusterPid)-c0)

		// The browser follows the graph being run: the test asks the
		// cluster's overview for a new running graph four times a second
		// and opens its page (a load the runs without a browser do not
		// have, counted against the dashboard).
		ctx := browser(t)
		stop := make(chan struct{})
		followed := make(chan int, 1)
		go func() {
			pages, cur := 0, ""
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					followed <- pages
					return
				case <-tick.C:
				}
				if g := runningGraph(url); g != "" && g != cur {
					cur = g
					if chromedp.Do(ctx, chromedp.Navigate(url+"/#/graph/"+g)) == nil {
						pages++
					}
				}
			}
		}()
		c0 = treeCPU(clusterPid)
		var b0 float64
		bpid := 0
		if p := chromedp.FromContext(ctx).Browser.Process(); p != nil {
			bpid = p.Pid
			b0 = treeCPU(bpid)
		}
		on = append(on, w5())
		cpuOn = append(cpuOn, treeCPU(clusterPid)-c0)
		if bpid != 0 {
			cpuBrowser = append(cpuBrowser, treeCPU(bpid)-b0)
		}
		close(stop)
		pages := <-followed
		chromedp.Cancel(ctx)
		t.Logf("run %d: W5 %.3f s without a browser, %.3f s with one on the graph page (%d graph pages opened)", i+1, off[i], on[i], pages)
		if pages == 0 {
			t.Errorf("run %d: the browser opened no graph page", i+1)
		}
	}
	// What one sample of the graph page costs, timed from outside (the
	// request's whole latency: an upper bound of the work), on a W5 graph
	// kept after it ran (20,000 chunk ops, summarised) and on the cluster
	// view.
	wl, _ := workloads.Get("W5")
	p, err := wl.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, ids, err := tensor.Build(wl.Build(p, workloads.DefaultSeed))
	if err != nil {
		t.Fatal(err)
	}
	a := api{t: t, base: url}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	st := a.json("POST", "/api/sessions/"+sid+"/graphs", submitBody(t, tg, ids), 201)
	if st = waitState(a, st["url"].(string), 60*time.Second); st["state"] != "SUCCEEDED" {
		t.Fatalf("W5 through REST: %v", st)
	}
	if g := sid + "/graphs/" + st["graph_id"].(string); g != "" {
		for _, path := range []string{"/api/sessions/" + g + "/dag", "/api/dashboard/cluster"} {
			var ds []float64
			for range 21 {
				t0 := time.Now()
				resp, err := http.Get(url + path)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ds = append(ds, time.Since(t0).Seconds())
			}
			t.Logf("GET %s: median %.2f ms over 21 requests; at 2 a second, %.2f%% of one core at most", path, 1e3*median(ds), 2*100*median(ds))
		}
	}
	t.Logf("CPU of the cluster's processes per W5 run (10 graphs), median: %.2f s without a browser, %.2f s with one (%+.2f%%); Chromium's own: %.2f s",
		median(cpuOff), median(cpuOn), 100*(median(cpuOn)/median(cpuOff)-1), median(cpuBrowser))
	mo, mn := median(off), median(on)
	t.Logf("W5 on phobos cluster --workers 2, median of %d runs (each the median of 9 reps): %.3f s without a browser, %.3f s with one on the graph page: ratio %.4f (%+.2f%%)",
		n, mo, mn, mn/mo, 100*(mn/mo-1))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// treeCPU is the user and system CPU seconds of process pid and its
// descendants alive now (Linux /proc; 0 elsewhere).
func treeCPU(pid int) float64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	ticks := map[int]float64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// fields after the command (which may hold spaces) in parentheses
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		parent[p], ticks[p] = pp, ut+st
	}
	var sum float64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += t
				break
			}
		}
	}
	return sum / 100 // USER_HZ
}

// runningGraph is "SID/GID" of the newest graph running on the cluster at
// url, or "".
func runningGraph(url string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/api/dashboard/cluster", nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var c struct {
		Graphs []struct {
			SessionID string `json:"session_id"`
			GraphID   string `json:"graph_id"`
			State     string `json:"state"`
		} `json:"graphs"`
	}
	if json.NewDecoder(resp.Body).Decode(&c) != nil {
		return ""
	}
	for i := len(c.Graphs) - 1; i >= 0; i-- {
		if g := c.Graphs[i]; g.State == "RUNNING" || g.State == "PREPARING" {
			return fmt.Sprintf("%s/%s", g.SessionID, g.GraphID)
		}
	}
	return ""
}
