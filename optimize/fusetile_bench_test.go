package optimize

import (
	"testing"

	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkCompileForRunW5 compiles W5, (ones(n) + 1).sum() in chunks of
// 100, at a million chunks per tensor op: the compile a run waits for.
func BenchmarkCompileForRunW5(b *testing.B) {
	tg, ids, err := tensor.Build(tensor.Ones([]int{100_000_000}, tensor.Chunks(100)).Add(1).Sum())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := CompileForRun(tg, ids, 0); err != nil {
			b.Fatal(err)
		}
	}
}
