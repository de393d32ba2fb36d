package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkRingSubmit: 16 clients, each with its own session, submit 20
// small graphs one after another (a sum over 16 chunks: 23 chunk ops,
// fetched and deleted as phobos.Connect does), against one scheduler
// alone and against a ring of three sharing the same two workers. One
// iteration is the 320 graphs; graphs/s is the figure to compare.
//
//	go test ./cluster -run '^$' -bench RingSubmit -benchtime 1x -count 5
func BenchmarkRingSubmit(b *testing.B) {
	// ring=1 is one scheduler on the ring: what etcd and the records
	// cost, apart from sharing the work.
	for _, c := range []struct {
		name string
		n    int
		ring bool
	}{{"schedulers=1", 1, false}, {"ring=1", 1, true}, {"schedulers=3", 3, true}} {
		b.Run(c.name, func(b *testing.B) {
			url := benchCluster(b, c.n, c.ring, 2)
			b.ResetTimer()
			var total time.Duration
			for range b.N {
				total += submitRound(b, url, 16, 20)
			}
			b.ReportMetric(float64(16*20*b.N)/total.Seconds(), "graphs/s")
		})
	}
}

// benchCluster starts the roles in this process: one scheduler without
// etcd, or a ring of n over an embedded etcd.
func benchCluster(b *testing.B, n int, onRing bool, workers int) string {
	b.Helper()
	ctx := context.Background()
	if !onRing {
		_, _, wp := startRoles(b, cluster.SchedulerConfig{}, func(i int, cfg *cluster.WorkerConfig) {
			cfg.Slots, cfg.Memory = 2, 256<<20
		}, workers)
		return wp.URL()
	}
	ee, err := cluster.StartEtcd(ctx, cluster.EtcdConfig{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ee.Close)
	etcd := []string{ee.Endpoint()}
	for i := range n {
		sp, err := cluster.StartScheduler(cluster.SchedulerConfig{Etcd: etcd, ID: fmt.Sprintf("s%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(sp.Close)
	}
	for range workers {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Etcd: etcd, Slots: 2, Memory: 256 << 20, SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(w.Close)
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
	return wp.URL()
}

// submitRound runs clients sessions at once, each executing graphs small
// graphs in turn and checking each value, and returns the wall time.
func submitRound(b *testing.B, url string, clients, graphs int) time.Duration {
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
				v, err := s.ExecuteScalar(ctx, tensor.Full([]int{160}, k, tensor.Chunks(10)).Sum())
				if err == nil && v != 160*k {
					err = fmt.Errorf("client %d graph %d: %v, want %v", i, j, v, 160*k)
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
