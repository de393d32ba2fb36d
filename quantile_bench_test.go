package phobos_test

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkMedian1e8 is the exact median of 1e8 in-memory float64 (normal
// values) in a local session, in automatic chunks (radix select over them),
// and NumPy's np.median of the same size for comparison (numpy: the time of
// np.median alone, measured inside Python). Run each three times and take
// the medians:
//
//	go test -run '^$' -bench Median1e8 -benchtime 1x -count 3 .
func BenchmarkMedian1e8(b *testing.B) {
	const n = 100_000_000
	b.Run("phobos", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		data := make([]float64, n)
		for i := range data {
			data[i] = r.NormFloat64()
		}
		a, err := ndarray.FromFloat64s([]int{n}, data)
		if err != nil {
			b.Fatal(err)
		}
		sess, err := phobos.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		x := tensor.FromArray(a)
		b.ResetTimer()
		for range b.N {
			if _, err := sess.ExecuteScalar(context.Background(), x.Median()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("numpy", func(b *testing.B) {
		npRunner.Skip(b)
		const script = `
import time, numpy as np
a = np.random.default_rng(1).standard_normal(100_000_000)
t = time.perf_counter(); np.median(a); print(time.perf_counter() - t)`
		total := 0.0
		for range b.N {
			out, err := exec.Command("/usr/bin/python3", "-c", script).Output()
			if err != nil {
				b.Fatal(err)
			}
			s, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if err != nil {
				b.Fatal(err)
			}
			total += s
		}
		b.ReportMetric(total/float64(b.N), "s/median")
	})
}
