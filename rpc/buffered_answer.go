package rpc

import "context"

// An in-process transport (cluster's Loopback) serves a request in a
// goroutine of its own, the answer through a pipe, because a handler may
// stream a large answer or hold a long-poll. A caller that knows the
// answer is small and comes at once (the chunks of a result a few KiB
// long) marks its context with BufferedAnswer: such a transport may then
// run the handler in the caller's goroutine and hand the answer over
// whole. Over the network the mark changes nothing.

type bufferedAnswerKey struct{}

// BufferedAnswer marks ctx's requests as having small, prompt answers.
func BufferedAnswer(ctx context.Context) context.Context {
	return context.WithValue(ctx, bufferedAnswerKey{}, true)
}

// WantsBufferedAnswer reports whether ctx carries BufferedAnswer's mark.
func WantsBufferedAnswer(ctx context.Context) bool {
	v, _ := ctx.Value(bufferedAnswerKey{}).(bool)
	return v
}
