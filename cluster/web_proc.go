package cluster

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/web"
)

// WebConfig configures the web role.
type WebConfig struct {
	// Scheduler is the scheduler's address (host:port or URL).
	Scheduler string
	// Listen is the address of the REST API; "" is a free loopback port.
	Listen string
	// MaxRequestBytes bounds a request body (default web.DefaultMaxRequestBytes).
	MaxRequestBytes int64
	Version         string
	// Token, when not "", is the cluster's shared secret: every request to
	// this role must carry it ("Authorization: Bearer <token>"), and the
	// role sends it on its own requests.
	Token string
	// TLS, when it names a certificate, makes this role serve HTTPS; its CA
	// (or the system's roots) checks the other roles' certificates.
	TLS    rpc.TLSFiles
	Logger *slog.Logger
}

// WebProc is the web role: the REST API in front of a scheduler.
type WebProc struct {
	srv *server
	web *web.Server
}

// StartWeb starts serving the REST API.
func StartWeb(cfg WebConfig) (*WebProc, error) {
	srvTLS, hc, err := roleHTTP(cfg.Token, cfg.TLS)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	schedURL, err := baseURL(cfg.Scheduler, cfg.TLS.Enabled())
	if err != nil {
		return nil, fmt.Errorf("web: --scheduler: %w", err)
	}
	log := discardLogger(cfg.Logger)
	s := web.New(web.Config{
		Graphs:          phobosv1connect.NewGraphServiceClient(hc, schedURL, rpc.ClientOptions()...),
		Scheduler:       phobosv1connect.NewSchedulerServiceClient(hc, schedURL, rpc.ClientOptions()...),
		Dashboard:       phobosv1connect.NewDashboardServiceClient(hc, schedURL, rpc.ClientOptions()...),
		HTTP:            hc,
		MaxRequestBytes: cfg.MaxRequestBytes,
		Version:         cfg.Version,
		Logger:          log,
	})
	// GET /metrics beside the REST API, with the scheduler's series: the
	// mux sets the matched route on the request, which the REST API's own
	// mux then refines, so requests are counted by the REST route they
	// took.
	stats := metrics.NewWeb(metrics.Forward(hc, schedURL+"/metrics", "phobos_scheduler_"))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", stats.Handler())
	mux.Handle("/", s.Handler())
	srv, err := listen(cfg.Listen, stats.Instrument(web.PublicAssets(rpc.RequireTokenOrCookie(cfg.Token, mux))), log, srvTLS)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return &WebProc{srv: srv, web: s}, nil
}

// URL is the REST API's base URL.
func (p *WebProc) URL() string { return p.srv.url }

// Err receives the server's error if it stops on its own.
func (p *WebProc) Err() <-chan error { return p.srv.errc }

// Close stops serving.
func (p *WebProc) Close() {
	p.web.CloseStreams()
	p.srv.shutdown()
}
