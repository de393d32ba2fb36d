package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// TestDashboardOverheadW5 measures what a browser open on the graph page
// adds to W5 on `phobos cluster --workers 2`: runs of `phobos run W5
// --cluster URL` alternate without and with headless Chromium following
// each new graph's page. A measurement, not a check: it runs only with
// PHOBOS_DASHBOARD_BENCH=N (N runs of each kind, 9 reps each):
//
//	OPENBLAS_CORETYPE=SkylakeX PHOBOS_DASHBOARD_BENCH=24 go test ./cluster/ -run 'TestDashboardOverheadW5$' -v -timeout 60m
//
// (PHOBOS_TEST_BIN=PATH measures another build's phobos and so its page,
// e.g. main's against a branch's.) Chromium is launched once per arm and
// waits on about:blank between its runs (also in the runs "without a
// browser": settled there it takes no measurable CPU); a run begins once
// the page is loaded and Chromium has settled. Besides W5's times the
// test reports Chromium's CPU per run, the page's main-thread work and
// the graphs it followed.
func TestDashboardOverheadW5(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PHOBOS_DASHBOARD_BENCH"))
	if n <= 0 {
		t.Skip("a measurement: set PHOBOS_DASHBOARD_BENCH=N to run it (N runs of W5 without and with a browser)")
	}
	needBinary(t)
	// No token: the browser and the requests below measure the dashboard, not the login.
	cmd := exec.Command(phobosBin, "cluster", "--workers", "2", "--log-level", "warn", "--insecure-no-token")
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
	// Each round runs W5 without a browser, then with Chromium on the
	// graph page at the cluster's priority (it competes for the same two
	// cores), then with Chromium at nice 19 (it takes only what the
	// cluster leaves, as a browser on the user's own machine would).
	var off, on, onNiced, cpuOff, cpuOn, cpuNiced []float64
	// What the browser arms cost the browser, per run: Chromium's CPU
	// (its processes), the page's main-thread work as Chromium counts it
	// (Performance.getMetrics), the graphs #/follow showed, and the CPU
	// the page took from its load until Chromium had settled (not
	// counted in the runs).
	type browserCost struct{ cpu, loadCPU, task, script, layout, style, followed []float64 }
	var costOn, costNiced browserCost
	// The two browsers are launched once, before the rounds, and wait on
	// about:blank (where a settled Chromium takes no measurable CPU)
	// while the other arms run: a browser just launched works for a
	// second or two whatever its page (about 0.5 s of CPU here), which a
	// user's browser open on the dashboard is past.
	type chromium struct {
		ctx context.Context
		pid int
	}
	launch := func(start func(*testing.T) context.Context) chromium {
		ctx := start(t)
		p := chromedp.FromContext(ctx).Browser.Process()
		if p == nil {
			t.Fatal("no Chromium process to measure")
		}
		if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("Chromium launched: %.2f s of CPU until settled", settle(t, p.Pid))
		return chromium{ctx, p.Pid}
	}
	chOn, chNiced := launch(browser), launch(browserNiced)
	withBrowser := func(i int, b chromium, walls, cpus *[]float64, cost *browserCost) {
		// The browser follows the graph being run: the dashboard's
		// #/follow page opens each new running graph's page by itself,
		// from the cluster view's event stream.
		l0 := treeCPU(b.pid)
		if err := chromedp.Do(b.ctx, chromedp.Navigate(url+"/#/follow")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, b.ctx, 10*time.Second, "#/follow's page", `(document.querySelector("main h1") || {textContent: ""}).textContent.startsWith("Following")`)
		settle(t, b.pid)
		cost.loadCPU = append(cost.loadCPU, treeCPU(b.pid)-l0)
		m0 := pageMetrics(t, b.ctx)
		c0, b0 := treeCPU(clusterPid), treeCPU(b.pid)
		*walls = append(*walls, w5())
		*cpus = append(*cpus, treeCPU(clusterPid)-c0)
		cost.cpu = append(cost.cpu, treeCPU(b.pid)-b0)
		m1 := pageMetrics(t, b.ctx)
		cost.task = append(cost.task, m1["TaskDuration"]-m0["TaskDuration"])
		cost.script = append(cost.script, m1["ScriptDuration"]-m0["ScriptDuration"])
		cost.layout = append(cost.layout, m1["LayoutDuration"]-m0["LayoutDuration"])
		cost.style = append(cost.style, m1["RecalcStyleDuration"]-m0["RecalcStyleDuration"])
		pages := js[int](t, b.ctx, `+document.body.dataset.followed || 0`)
		cost.followed = append(cost.followed, float64(pages))
		if pages == 0 {
			t.Errorf("run %d: the browser opened no graph page", i+1)
		}
		if err := chromedp.Do(b.ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
		settle(t, b.pid)
	}
	arms := []func(i int){
		func(int) {
			c0 := treeCPU(clusterPid)
			off = append(off, w5())
			cpuOff = append(cpuOff, treeCPU(clusterPid)-c0)
		},
		func(i int) { withBrowser(i, chOn, &on, &cpuOn, &costOn) },
		func(i int) { withBrowser(i, chNiced, &onNiced, &cpuNiced, &costNiced) },
	}
	for i := range n {
		// The arms take turns going first, so whatever drifts over a
		// round (the cluster's state, the machine) weighs on each alike.
		for k := range arms {
			arms[(i+k)%len(arms)](i)
		}
		t.Logf("run %d: W5 %.3f s without a browser, %.3f s with one on the graph page, %.3f s with one at nice 19; Chromium %.3f s and %.3f s of CPU, following %.0f and %.0f graphs",
			i+1, off[i], on[i], onNiced[i], costOn.cpu[i], costNiced.cpu[i], costOn.followed[i], costNiced.followed[i])
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
	t.Logf("CPU of the cluster's processes per W5 run (10 graphs), median: %.2f s without a browser, %.2f s with one (%+.2f%%), %.2f s with one at nice 19 (%+.2f%%)",
		median(cpuOff), median(cpuOn), 100*(median(cpuOn)/median(cpuOff)-1), median(cpuNiced), 100*(median(cpuNiced)/median(cpuOff)-1))
	for _, arm := range []struct {
		name string
		c    browserCost
	}{{"at the cluster's priority", costOn}, {"at nice 19", costNiced}} {
		c := arm.c
		t.Logf("Chromium %s, per W5 run, median: %.3f s of CPU (all its processes), the page's main thread %.3f s busy (script %.3f s, layout %.3f s, style %.3f s), %.0f graphs followed; the page's load until settled took %.2f s of CPU, not counted",
			arm.name, median(c.cpu), median(c.task), median(c.script), median(c.layout), median(c.style), median(c.followed), median(c.loadCPU))
	}
	mo, mn, mm := median(off), median(on), median(onNiced)
	t.Logf("W5 on phobos cluster --workers 2, median of %d runs (each the median of 9 reps): %.3f s without a browser; with one on the graph page %.3f s (%+.2f%%), at nice 19 %.3f s (%+.2f%%)",
		n, mo, mn, 100*(mn/mo-1), mm, 100*(mm/mo-1))
}

// settle waits until Chromium (process tree bpid) has used less than 4%
// of a core over each of two half seconds in a row, at most 30 s, and
// returns the CPU it used meanwhile.
func settle(t *testing.T, bpid int) float64 {
	t.Helper()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	first := treeCPU(bpid)
	last, quiet := first, 0
	for range 60 {
		<-tick.C
		now := treeCPU(bpid)
		if now-last < 0.02 {
			quiet++
		} else {
			quiet = 0
		}
		last = now
		if quiet == 2 {
			return now - first
		}
	}
	t.Logf("Chromium did not settle within 30 s")
	return last - first
}

// pageMetrics is Chromium's Performance.getMetrics for the page.
func pageMetrics(t *testing.T, ctx context.Context) map[string]float64 {
	t.Helper()
	res, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		t.Fatalf("Performance.getMetrics: %v", err)
	}
	m := map[string]float64{}
	for _, x := range res.Metrics {
		m[x.Name] = x.Value
	}
	return m
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
