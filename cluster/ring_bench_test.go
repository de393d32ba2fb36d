package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkRingSubmit measures the graphs per second a cluster handles
// when many clients submit at once: 16 clients, each with its own
// session, execute 20 graphs one after another (phobos.Connect: submit,
// wait, fetch the value, delete the graph). Each graph is a sum over 256
// chunks, 341 chunk ops once fused (256 generate-and-reduce kernels and
// the combine tree): every op is small, so the work per graph is the
// scheduling of a few hundred ops (tile, fuse, prepare, the event loop,
// dispatch and results) more than arithmetic. One round is the 320
// graphs, each value checked.
//
// Three clusters run in this process, each with the same two workers (2
// slots each): one scheduler without etcd, a ring of one (what etcd, the
// records and the routing cost) and a ring of three. They are started
// first and measured in turns, one round each, rotating which goes
// first, so a machine whose load changes (other processes) slows all
// three alike; each iteration is one round of each. Reported: the median
// graphs/s of each and its CPU time per graph (getrusage of the whole
// process over the round: clients, web, schedulers, workers and etcd
// alike), which does not depend on how much CPU the others leave, and
// the messages per graph between the roles (from their /metrics):
// Dispatch messages to workers, result reports (and heartbeats) to
// schedulers, chunk reads between workers and etcd proposals, the
// fixed costs that splitting the sessions over schedulers multiplies.
//
// What bounds it here is not a scheduler: with 2 slots per worker the
// workers' slots do (a tiny op holds its slot mostly for hand-offs and
// reads of its inputs from the other worker; 8 slots per worker doubled
// every configuration's rate in one trial), and past them the machine's
// cores, which every role shares, so a ring of three, which sends more
// messages per graph, does not beat a ring of one on one machine.
//
//	go test ./cluster -run '^$' -bench RingSubmit -benchtime 5x
func BenchmarkRingSubmit(b *testing.B) {
	const clients, graphs, chunks = 16, 20, 256
	type config struct {
		name string
		n    int
		ring bool
		cl   benchRoles
		rate []float64 // graphs/s of each round
		cpu  []float64 // CPU ms per graph of each round
		msgs []float64 // messages between the roles per graph, each round
	}
	cs := []*config{{name: "sched1", n: 1}, {name: "ring1", n: 1, ring: true}, {name: "ring3", n: 3, ring: true}}
	for _, c := range cs {
		c.cl = benchCluster(b, c.n, c.ring, 2)
		// One short round first: connections, first allocations.
		submitRound(b, c.cl.web, clients, 2, chunks)
	}
	b.ResetTimer()
	for i := range b.N {
		for j := range cs {
			c := cs[(i+j)%len(cs)]
			msgs0 := c.cl.messages(b)
			cpu0 := processCPU(b)
			elapsed := submitRound(b, c.cl.web, clients, graphs, chunks)
			cpu := processCPU(b) - cpu0
			msgs := c.cl.messages(b) - msgs0
			c.rate = append(c.rate, float64(clients*graphs)/elapsed.Seconds())
			c.cpu = append(c.cpu, float64(cpu.Microseconds())/1000/float64(clients*graphs))
			c.msgs = append(c.msgs, msgs/float64(clients*graphs))
		}
	}
	b.StopTimer()
	for _, c := range cs {
		b.ReportMetric(median(c.rate), c.name+"-graphs/s")
		b.ReportMetric(median(c.cpu), c.name+"-cpu-ms/graph")
		b.ReportMetric(median(c.msgs), c.name+"-msgs/graph")
		b.Logf("%s: graphs/s %.1f, CPU ms/graph %.2f, messages/graph %.1f", c.name, c.rate, c.cpu, c.msgs)
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchRoles are a benchmark cluster's addresses.
type benchRoles struct {
	web        string
	schedulers []string
	workers    []string
	etcd       string // "" without
}

// messages counts the messages the roles have received from each other
// so far: RPCs to schedulers (results, heartbeats) and to workers
// (Dispatch), chunk reads between workers, and etcd proposals.
func (r benchRoles) messages(b *testing.B) float64 {
	hc := http.DefaultClient
	total := 0.0
	for _, u := range r.schedulers {
		total += sum(b, scrape(b, hc, u), "phobos_http_requests_total", map[string]string{"route": "/phobos.v1.SchedulerService/"})
	}
	for _, u := range r.workers {
		fams := scrape(b, hc, u)
		total += sum(b, fams, "phobos_http_requests_total", map[string]string{"route": "/phobos.v1.WorkerService/"})
		total += sum(b, fams, "phobos_http_requests_total", map[string]string{"route": "GET /chunks/{graph}/{node}"})
	}
	if r.etcd != "" {
		total += sum(b, scrape(b, hc, r.etcd), "etcd_server_proposals_committed_total", nil)
	}
	return total
}

// benchCluster starts the roles in this process: one scheduler without
// etcd, or a ring of n over an embedded etcd.
func benchCluster(b *testing.B, n int, onRing bool, workers int) benchRoles {
	b.Helper()
	ctx := context.Background()
	if !onRing {
		sp, ws, wp := startRoles(b, cluster.SchedulerConfig{}, func(i int, cfg *cluster.WorkerConfig) {
			cfg.Slots, cfg.Memory = 2, 256<<20
		}, workers)
		r := benchRoles{web: wp.URL(), schedulers: []string{sp.URL()}}
		for _, w := range ws {
			r.workers = append(r.workers, w.URL())
		}
		return r
	}
	r := benchRoles{}
	ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ee.Close)
	etcd := []string{ee.Endpoint()}
	r.etcd = ee.Endpoint()
	for i := range n {
		sp, err := cluster.StartScheduler(cluster.SchedulerConfig{Etcd: etcd, ID: fmt.Sprintf("s%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(sp.Close)
		r.schedulers = append(r.schedulers, sp.URL())
	}
	for range workers {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Etcd: etcd, Slots: 2, Memory: 256 << 20, SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(w.Close)
		r.workers = append(r.workers, w.URL())
	}
	wp, err := cluster.StartWeb(cluster.WebConfig{Etcd: etcd})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(wp.Close)
	hc, err := cluster.NewClient("", cluster.WebConfig{}.TLS)
	if err != nil {
		b.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := cluster.WaitRing(rctx, hc, wp.URL(), n, workers); err != nil {
		b.Fatal(err)
	}
	r.web = wp.URL()
	return r
}

// submitRound runs clients sessions at once, each executing graphs sums
// over chunks chunks of 10 elements in turn and checking each value, and
// returns the wall time.
func submitRound(b *testing.B, url string, clients, graphs, chunks int) time.Duration {
	b.Helper()
	ctx := context.Background()
	sessions := make([]*phobos.Session, clients)
	for i := range sessions {
		s, err := phobos.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		sessions[i] = s
	}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := time.Now()
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range graphs {
				k := float64(i*graphs + j)
				n := float64(10 * chunks)
				v, err := s.ExecuteScalar(ctx, tensor.Full([]int{10 * chunks}, k, tensor.Chunks(10)).Sum())
				if err == nil && v != n*k {
					err = fmt.Errorf("client %d graph %d: %v, want %v", i, j, v, n*k)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return elapsed
}
