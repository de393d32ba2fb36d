package phobos

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/phobos-tensor/phobos/internal/metrics"
)

// WithMetrics makes NewSession serve its workers' Prometheus metrics at
// http://addr/metrics while it is open (docs/metrics.md: the worker
// series, each with its worker label, and the process's); port 0 picks a
// free one (see MetricsURL). A cluster's roles serve their own.
func WithMetrics(addr string) Option { return func(c *config) { c.metricsAddr = addr } }

// MetricsURL is where the session serves its metrics (WithMetrics), or ""
// when it does not.
func (s *Session) MetricsURL() string { return s.metricsURL }

// metricsServer serves a local session's metrics.
type metricsServer struct {
	srv *http.Server
	url string
}

// serveMetrics starts serving m at addr.
func serveMetrics(addr string, m *metrics.Local) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("phobos: serving metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	ms := &metricsServer{
		srv: &http.Server{Handler: m.Instrument(mux), ReadHeaderTimeout: 10 * time.Second},
		url: "http://" + ln.Addr().String() + "/metrics",
	}
	go func() { _ = ms.srv.Serve(ln) }() // ErrServerClosed once the session closes
	return ms, nil
}

func (ms *metricsServer) close() {
	if ms == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := ms.srv.Shutdown(ctx); err != nil {
		ms.srv.Close()
	}
}
