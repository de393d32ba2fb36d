package ops

import "context"

// Threaded is implemented by chunk ops whose kernels can use more than one
// thread. A worker whose other slots are idle with nothing queued lends up
// to MaxThreads(out)-1 of them to such an op for its run (so the slots it
// holds are the threads it uses) and tells the kernel how many threads it
// holds through the context (Threads). out is the meta of the op's output
// chunk: an op says 1 where it would not use more. A kernel must give the
// same result for any thread count.
type Threaded interface {
	ChunkOp
	MaxThreads(out Meta) int
}

type threadsKey struct{}

// WithThreads returns ctx telling a kernel that it holds n threads.
func WithThreads(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, threadsKey{}, n)
}

// Threads is the number of threads a kernel may use: what WithThreads
// said, else 1.
func Threads(ctx context.Context) int {
	if n, ok := ctx.Value(threadsKey{}).(int); ok && n > 1 {
		return n
	}
	return 1
}
