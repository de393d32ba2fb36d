//go:build !linux

package pyexec

import (
	"context"
	"errors"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// executor is not available off Linux: the shared arenas and the reads of
// an executor's memory are Linux's.
type executor struct {
	rss   int64
	rssAt time.Time
}

func startExecutor(Config) (*executor, error) {
	return nil, errors.New("python executors run on Linux only")
}

func (e *executor) runBatch(_ context.Context, calls []ops.BlockCall, _ time.Duration) ([]*ndarray.Array, []error) {
	errs := make([]error, len(calls))
	for i := range errs {
		errs[i] = errors.New("python executors run on Linux only")
	}
	return make([]*ndarray.Array, len(calls)), errs
}

func (e *executor) isDead() bool         { return true }
func (e *executor) kill()                {}
func (e *executor) release()             {}
func (e *executor) residentBytes() int64 { return 0 }
