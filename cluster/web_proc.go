package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/web"
	"github.com/prometheus/client_golang/prometheus"
)

// WebConfig configures the web role.
type WebConfig struct {
	// Scheduler is the scheduler's address (host:port or URL).
	Scheduler string
	// Etcd, when it names endpoints, replaces Scheduler: the web service
	// watches the ring of schedulers registered there and sends each
	// session's requests to the scheduler the ring maps it to.
	Etcd []string
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
	TLS rpc.TLSFiles
	// Exposure accepts serving a non-loopback Listen address without a
	// token or without TLS (refused by default).
	Exposure Exposure
	// AllowedHosts are the DNS names clients may reach this service by,
	// beside IP addresses, localhost and this machine's name (web.GuardConfig).
	AllowedHosts []string
	Logger       *slog.Logger
	// Loopback, when set, carries this role's requests to the other roles
	// of its process in process (LaunchOneProcess).
	Loopback *Loopback
	// UnixSocket, when not "", is a path the web service also serves on,
	// as a Unix socket for its owner alone (serveUnix).
	UnixSocket string
}

// WebProc is the web role: the REST API and the dashboard in front of a
// scheduler.
type WebProc struct {
	srv  *server
	dash *dashboard.Dashboard
	ring *webRing    // nil: one scheduler
	unix *unixServer // nil: none
}

// webRing is the web service's watch of the ring.
type webRing struct {
	cancel context.CancelFunc
	done   chan struct{}
	cli    interface{ Close() error }
}

// StartWeb starts serving the REST API.
func StartWeb(cfg WebConfig) (*WebProc, error) {
	srvTLS, hc, err := roleHTTP(cfg.Token, cfg.TLS, false)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	hc = cfg.Loopback.client(hc)
	log := discardLogger(cfg.Logger)
	wcfg := web.Config{
		HTTP:            hc,
		MaxRequestBytes: cfg.MaxRequestBytes,
		Version:         cfg.Version,
		Logger:          log,
	}
	if cfg.Loopback != nil {
		wcfg.Chunks = cfg.Loopback
	}
	var wr *webRing
	var dash phobosv1connect.DashboardServiceClient // the dashboard's data: the scheduler's service, or the ring's merge
	var schedMetrics prometheus.Gatherer            // the scheduler's series, forwarded; with a ring each scheduler serves its own
	if len(cfg.Etcd) > 0 {
		cli, err := ha.DialEtcd(cfg.Etcd, cfg.TLS)
		if err != nil {
			return nil, fmt.Errorf("web: --etcd: %w", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ro := &ringRouter{members: ha.NewMembers(), http: hc, secure: cfg.TLS.Enabled(), clients: map[string]*schedClients{}}
		wr = &webRing{cancel: cancel, done: make(chan struct{}), cli: cli}
		go func() {
			defer close(wr.done)
			ro.members.Watch(ctx, cli, log)
		}()
		wcfg.Graphs, wcfg.Scheduler, wcfg.Ring = ro, ringSched{ro}, ro.ring
		dash = dashboard.NewRingService(ringDashboard{ro})
	} else {
		schedURL, err := baseURL(cfg.Scheduler, cfg.TLS.Enabled())
		if err != nil {
			return nil, fmt.Errorf("web: --scheduler: %w", err)
		}
		wcfg.Graphs = cfg.Loopback.graphs(schedURL, phobosv1connect.NewGraphServiceClient(hc, schedURL, rpc.ClientOptions()...))
		wcfg.Scheduler = phobosv1connect.NewSchedulerServiceClient(hc, schedURL, rpc.ClientOptions()...)
		dash = phobosv1connect.NewDashboardServiceClient(hc, schedURL, rpc.ClientOptions()...)
		schedMetrics = metrics.Forward(hc, schedURL+"/metrics", "phobos_scheduler_")
	}
	s := web.New(wcfg)
	// The dashboard beside the REST API, on its mux.
	d := dashboard.New(dashboard.ClientSource(wcfg.Scheduler, dash, wcfg.Graphs), s.SchedulerStates, log)
	d.Register(s)
	// GET /metrics beside the REST API: the mux sets the matched route on
	// the request, which the REST API's own mux then refines, so requests
	// are counted by the REST route they took.
	stats := metrics.NewWeb(schedMetrics)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", stats.Handler())
	mux.Handle("/", s.Handler())
	h := stats.Instrument(withHealth(web.Guard(web.GuardConfig{Token: cfg.Token, AllowedHosts: cfg.AllowedHosts}, mux), webReady(wcfg.Scheduler)))
	srv, err := listen(cfg.Listen, h, log, srvTLS, cfg.Token, cfg.Exposure)
	if err != nil {
		wr.close()
		return nil, fmt.Errorf("web: %w", err)
	}
	p := &WebProc{srv: srv, dash: d, ring: wr}
	if cfg.UnixSocket != "" {
		if p.unix, err = serveUnix(cfg.UnixSocket, h, log, srv.errc); err != nil {
			p.Close()
			return nil, fmt.Errorf("web: %w", err)
		}
	}
	return p, nil
}

// webReady is the web service's answer to GET /readyz: nil while a
// scheduler answers it.
func webReady(sched phobosv1connect.SchedulerServiceClient) func(context.Context) error {
	return func(ctx context.Context) error {
		if _, err := sched.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{})); err != nil {
			return fmt.Errorf("no scheduler answers: %w", err)
		}
		return nil
	}
}

// URL is the REST API's base URL.
func (p *WebProc) URL() string { return p.srv.url }

// Err receives the server's error if it stops on its own.
func (p *WebProc) Err() <-chan error { return p.srv.errc }

// Close stops serving.
func (p *WebProc) Close() {
	p.dash.CloseStreams()
	p.unix.shutdown()
	p.srv.shutdown()
	p.ring.close()
}

func (wr *webRing) close() {
	if wr == nil {
		return
	}
	wr.cancel()
	<-wr.done
	_ = wr.cli.Close()
}
