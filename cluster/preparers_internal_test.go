package cluster

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
)

// goid is the running goroutine's id, read from its stack's first line.
func goid() int {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return n
}

// Graphs never wait for each other's preparer, an idle preparer takes the
// next graph on the goroutine it kept, and after the scheduler stops jobs
// still run.
func TestPreparers(t *testing.T) {
	stop := make(chan struct{})
	ps := newPreparers(stop)
	// a job that waits for a later one: the later one runs elsewhere
	release := make(chan struct{})
	firstDone := make(chan int)
	ps.run(func() {
		<-release
		firstDone <- goid()
	})
	secondOn := make(chan int)
	ps.run(func() {
		close(release)
		secondOn <- goid()
	})
	second := <-secondOn
	first := <-firstDone
	if first == second {
		t.Fatalf("both jobs ran on goroutine %d", first)
	}
	// an idle preparer receives the next job (a send no preparer takes
	// would block) on its own goroutine
	again := make(chan int)
	ps.jobs <- func() { again <- goid() }
	if g := <-again; g != first && g != second {
		t.Errorf("the next job ran on goroutine %d, not on a kept preparer (%d, %d)", g, first, second)
	}
	close(stop)
	done := make(chan bool)
	for range 3 {
		ps.run(func() { done <- true })
		<-done
	}
}
