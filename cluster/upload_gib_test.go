package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// peakRSS is a process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// A 1 GiB client array goes into a cluster of processes as an upload, chunk
// by chunk, and comes back whole; the web service only streams chunks
// through, so its peak RSS stays far below the array.
func TestUploadGiB(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("moves 2 GiB through loopback; not under -race or -short")
	}
	c := startCluster(t, 2, map[string][]string{"worker": {"--memory", "2GiB"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 1 << 27 // float64: 1 GiB
	a, err := ndarray.New(ndarray.Float64, 1<<14, n>>14)
	if err != nil {
		t.Fatal(err)
	}
	v := a.Float64s()
	for i := range v {
		v[i] = float64(i%1000003) * 0.5
	}
	x := tensor.FromArray(a, tensor.Chunks(1<<11, n>>14))
	t0 := time.Now()
	got, err := s.Execute(ctx, x, x.Sum())
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	if !bytes.Equal(got[0].Bytes(), a.Bytes()) {
		t.Fatal("the array came back different")
	}
	var want float64
	for _, f := range v {
		want += f
	}
	if d := got[1].Float64s()[0] - want; d > 1e-6*want || d < -1e-6*want {
		t.Errorf("sum %v, want %v", got[1].Float64s()[0], want)
	}
	web := peakRSS(t, c.PID("web"))
	t.Logf("1 GiB up and back in %v; web service peak RSS %d MB", took.Round(time.Millisecond), web>>20)
	if web > 256<<20 {
		t.Errorf("web service peak RSS %d MB, want under 256 MB", web>>20)
	}
}
