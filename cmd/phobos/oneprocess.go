package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/rpc"
)

// runOneProcess is `phobos cluster --one-process`: the roles in this
// process (cluster.LaunchOneProcess), serving until ctx ends or one of
// them fails. It prints what `phobos cluster` prints on stdout: the web
// service's URL, then the token it made.
func runOneProcess(ctx context.Context, stdout, stderr io.Writer, log *slog.Logger, cfg cluster.OneProcessConfig, madeToken bool, schedulers int, tls bool) int {
	if schedulers > 1 {
		fmt.Fprintln(stderr, "phobos cluster: --one-process runs one scheduler; a ring (--schedulers) needs processes of their own")
		return exitUsage
	}
	if tls {
		fmt.Fprintln(stderr, "phobos cluster: --one-process serves plain HTTP on loopback; TLS needs separate processes")
		return exitUsage
	}
	c, err := cluster.LaunchOneProcess(ctx, cfg)
	if err != nil {
		log.Error("failed", "err", err)
		fmt.Fprintf(stderr, "phobos cluster: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, c.URL)
	if madeToken {
		fmt.Fprintln(stdout, "token", cfg.Token)
	}
	if link, err := cluster.LoginLink(ctx, c.URL, cfg.Token, rpc.TLSFiles{}); err == nil {
		log.Info("dashboard (a one-time login link)", "url", link)
	} else {
		log.Warn("no dashboard login link", "err", err)
	}
	log.Info("cluster ready (one process)", "web", c.URL, "scheduler", c.SchedulerURL, "workers", c.WorkerURLs)
	code := 0
	select {
	case <-ctx.Done():
		log.Info("stopping")
	case err := <-c.Failed():
		log.Error("a role stopped; stopping the cluster", "err", err)
		code = exitFailed
	}
	if err := c.Stop(); err != nil {
		log.Warn("stopping", "err", err)
	}
	return code
}
