package workloads

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// small are sizes that keep every workload's graph shape (several chunks per
// axis) but run in milliseconds.
var small = map[string]Params{
	"pi":  {"N": 200_000, "chunk": 30_000},
	"W1":  {"n": 200, "chunk": 50},
	"W2":  {"N": 200_000, "chunk": 30_000},
	"W3":  {"n": 120, "chunk": 50},
	"W4":  {"n": 200, "chunk": 50},
	"W5":  {"n": 20_000, "chunk": 100},
	"W6":  {"m": 20_000, "n": 10, "chunk": 1500},
	"PCA": {"m": 20_000, "n": 10, "k": 3, "chunk": 1500},
	"W7":  {"n": 300, "chunk": 70},
	"W8":  {"n": 300, "chunk": 70},
	"W9":  {"n": 300, "chunk": 70},
	// Missing here, these two ran at their full sizes (1e8 and 2e8).
	"mask": {"n": 200_000, "chunk": 30_000},
	"sort": {"n": 200_000, "chunk": 30_000},
	// In memory.
	"gram":        {"m": 20_000, "n": 7, "chunk": 3_000},
	"matmul":      {"n": 120, "chunk": 50},
	"expsin":      {"n": 200_000, "chunk": 30_000},
	"hypot":       {"n": 200_000, "chunk": 30_000},
	"arctan2":     {"n": 200_000, "chunk": 30_000},
	"log":         {"n": 200_000, "chunk": 30_000},
	"log2":        {"n": 200_000, "chunk": 30_000},
	"log1p":       {"n": 200_000, "chunk": 30_000},
	"cos":         {"n": 200_000, "chunk": 30_000},
	"standardize": {"m": 20_000, "n": 7, "chunk": 3_000},
	"views":       {"n": 200, "chunk": 50},
	"fft":         {"n": 3000, "chunk": 700},
	"fft2":        {"n": 60, "chunk": 25},
}

func TestWorkloadsMatchExpected(t *testing.T) {
	if got, want := Names(), []string{"pi", "PCA", "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "arctan2", "cos", "expsin", "fft", "fft2", "gram", "hypot", "log", "log1p", "log2", "mask", "matmul", "sort", "standardize", "views"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, workers := range []int{1, 2} {
		sess, err := phobos.NewSession(phobos.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range Names() {
			w, _ := Get(name)
			p, err := w.Resolve(small[name])
			if err != nil {
				t.Fatal(err)
			}
			if w.Generate != nil {
				// A file-backed workload: write its input as gen-data does,
				// as .npy and as Zarr; both give the same result.
				dir := t.TempDir()
				gen := w.Generate(p, DefaultSeed)
				if _, err := sess.Execute(context.Background(), gen.ToNpy(w.DataPath(dir, "npy", p)), gen.ToZarr(w.DataPath(dir, "zarr", p), tensor.Chunks(p["chunk"]))); err != nil {
					t.Fatalf("%s: generating its data: %v", name, err)
				}
				a, errA := w.WithData(dir, "npy").Eval(context.Background(), sess, p, DefaultSeed)
				b, errB := w.WithData(dir, "zarr").Eval(context.Background(), sess, p, DefaultSeed)
				if errA != nil || errB != nil || a != b {
					t.Errorf("%s: from .npy %v (%v), from Zarr %v (%v)", name, a, errA, b, errB)
				}
				w = w.WithData(dir, "npy")
			}
			if w, err = w.Prepare(p, DefaultSeed); err != nil {
				t.Fatal(err)
			}
			if g := w.GenBuild(p, DefaultSeed); g != nil {
				if _, err := sess.ExecuteScalar(context.Background(), g); err != nil {
					t.Errorf("%s: generating its inputs alone: %v", name, err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			got, err := w.Eval(ctx, sess, p, DefaultSeed)
			cancel()
			if err != nil {
				t.Errorf("%d workers: %s%v: %v", workers, name, p, err)
				continue
			}
			want, sigma := w.Expected(p)
			if sigma == 0 {
				if got != want {
					t.Errorf("%d workers: %s%v = %v, want exactly %v", workers, name, p, got, want)
				}
			} else if z := (got - want) / sigma; math.Abs(z) > 6 {
				t.Errorf("%d workers: %s%v = %v, want %v ± 6×%v (z = %.2f)", workers, name, p, got, want, sigma, z)
			}
			if name == "W5" {
				// ones, add and a partial sum per chunk at least: the graph is really tiled.
				if ops := sess.Stats().ChunkOps; ops < p["n"]/p["chunk"] {
					t.Errorf("W5 ran %d chunk ops for %d chunks", ops, p["n"]/p["chunk"])
				}
			}
		}
		sess.Close()
	}
}

// The generator is keyed by global element index, so the same seed gives the
// same numbers whatever the chunking; only summation order may differ.
func TestResultIndependentOfChunking(t *testing.T) {
	sess, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	w, _ := Get("W1")
	var vals []float64
	for _, c := range []int{40, 64, 200} {
		v, err := w.Eval(context.Background(), sess, Params{"n": 200, "chunk": c}, 7)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	for _, v := range vals[1:] {
		if math.Abs(v-vals[0]) > 1e-9*math.Abs(vals[0]) {
			t.Errorf("W1 with different chunkings: %v", vals)
		}
	}
	other, err := w.Eval(context.Background(), sess, Params{"n": 200, "chunk": 40}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if other == vals[0] {
		t.Errorf("seeds 7 and 8 gave the same W1 result %v", other)
	}
}

func TestResolve(t *testing.T) {
	w, ok := Get("w2")
	if !ok {
		t.Fatal("Get is case-insensitive: w2 not found")
	}
	p, err := w.Resolve(Params{"N": 1000})
	if err != nil || p["N"] != 1000 || p["chunk"] != 10_000_000 {
		t.Fatalf("Resolve(N=1000) = %v, %v", p, err)
	}
	if w.Defaults["N"] != 200_000_000 {
		t.Fatal("Resolve changed the defaults")
	}
	if _, err := w.Resolve(Params{"n": 5}); err == nil {
		t.Error("W2 has N, not n: want an error")
	}
	if _, err := w.Resolve(Params{"chunk": 0}); err == nil {
		t.Error("chunk 0: want an error")
	}
	if _, ok := Get("W42"); ok {
		t.Error("Get(W42) found something")
	}
}

// TestMeanXY checks the quadrature the ufunc workloads' expectations use
// against means known in closed form.
func TestMeanXY(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(x, y float64) float64
		want float64
	}{
		{"x²+y²", func(x, y float64) float64 { return x*x + y*y }, 1.0/3 + 3},
		{"arctan2 (odd in y)", func(x, y float64) float64 { return math.Atan2(y, x) }, 0},
		{"|x|", func(x, _ float64) float64 { return math.Abs(x) }, 0.5},
	} {
		if got := meanXY(c.f); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
