package main

import (
	"bytes"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// profilePeakHeap watches the live heap (as of the last collection) and
// keeps the heap profile taken when it was largest; stop writes it to
// path. A profile at the end of a run would show what is left, not what
// made the peak.
func profilePeakHeap(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		best []byte
		peak uint64
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	take := func() {
		metrics.Read(sample)
		live := sample[0].Value.Uint64()
		mu.Lock()
		defer mu.Unlock()
		if best != nil && live <= peak {
			return
		}
		var b bytes.Buffer
		if pprof.Lookup("heap").WriteTo(&b, 0) == nil {
			best, peak = b.Bytes(), live
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				take()
			case <-done:
				return
			}
		}
	}()
	return func() error {
		close(done)
		<-finished
		take()
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.Write(best); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}
