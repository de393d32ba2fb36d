package phobos

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// FailoverWait bounds by default how long a remote session retries a
// request that found the cluster between owners: when the scheduler that
// owns the session dies, the web service answers 503 until another
// scheduler of the ring has taken the session over (a lease TTL and the
// adoption, seconds), and a client that waits sees a pause, not an error.
// WithFailoverWait sets another bound.
const FailoverWait = 2 * time.Minute

// retryable reports whether err is a pause of the cluster rather than an
// answer: a 503, or a request that did not reach the web service.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status == http.StatusServiceUnavailable
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// retry calls f until it succeeds, fails with an error that is not a
// pause, or has been retried for the session's failover wait, with
// exponential backoff.
func (b *remoteBackend) retry(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(b.failoverWait)
	backoff := 50 * time.Millisecond
	for {
		err := f()
		if err == nil || !retryable(ctx, err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}
