package phobos

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
)

// WithDashboard makes NewSession serve the cluster dashboard (the pages a
// cluster's web service serves at /) on addr, a loopback address such as
// "127.0.0.1:8787" or "127.0.0.1:0" for a free port: the session's workers, and each Execute
// as a graph of session "local" while it runs and after. DashboardURL says
// where. Connect sessions ignore it (the cluster serves its own).
func WithDashboard(addr string) Option { return func(c *config) { c.dashboard = addr } }

// DashboardURL is where WithDashboard serves the dashboard ("" without it).
// Its data needs the session's dashboard token: DashboardLogin gives a
// browser that.
func (s *Session) DashboardURL() string {
	if b, ok := s.be.(*localBackend); ok && b.dash != nil {
		return b.dash.url
	}
	return ""
}

// DashboardLogin is a one-time link to the dashboard for a person: opened
// once in a browser, it sets the cookie that carries the dashboard's token
// (a random one per session, never shown), and is refused after that.
func (s *Session) DashboardLogin() (string, error) {
	b, ok := s.be.(*localBackend)
	if !ok || b.dash == nil {
		return "", errors.New("phobos: this session serves no dashboard (WithDashboard)")
	}
	path, err := b.dash.guard.NewLogin()
	if err != nil {
		return "", fmt.Errorf("phobos: %w", err)
	}
	return b.dash.url + path, nil
}

// localDashboard serves a local session's dashboard.
type localDashboard struct {
	src   *dashboard.LocalSource
	srv   *http.Server
	guard *web.Guarded
	url   string
}

// startDashboard serves l's dashboard on addr behind the web service's
// guard: a token of its own, and no requests from other sites' pages.
func startDashboard(addr string, l *cluster.Local) (*localDashboard, error) {
	token, err := rpc.NewToken()
	if err != nil {
		return nil, fmt.Errorf("phobos: dashboard: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("phobos: dashboard on %s: %w", addr, err)
	}
	// It has no TLS, so its token would cross a network in the clear.
	if cluster.Exposed(ln.Addr().String()) {
		ln.Close()
		return nil, fmt.Errorf("phobos: a local session's dashboard serves loopback addresses only, not %s: reach it from another host through an SSH tunnel, or run phobos cluster with TLS", addr)
	}
	d := &localDashboard{src: dashboard.NewLocalSource(l.Scheduler, l.Workers), url: "http://" + ln.Addr().String()}
	d.guard = web.Guard(web.GuardConfig{Token: token}, dashboard.NewHandler(d.src, nil))
	d.srv = &http.Server{Handler: d.guard, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = d.srv.Serve(ln) }()
	return d, nil
}

// close stops serving; open event streams are cut (a dashboard's requests
// are worth no wait).
func (d *localDashboard) close() error {
	if err := d.srv.Close(); err != nil {
		return fmt.Errorf("phobos: closing the dashboard: %w", err)
	}
	return nil
}

// dashboardStarted shows an execution on the dashboard, if there is one;
// the returned func records its end.
func (b *localBackend) dashboardStarted(ts []*tensor.Tensor, run *scheduler.Run, submitted time.Time, prepare time.Duration) func(error) {
	if b.dash == nil {
		return func(error) {}
	}
	// Built again for its tensor ops (cheap, and only with a dashboard):
	// the compiled plan keeps only the chunk graph.
	tg, _, err := tensor.Build(ts...)
	if err != nil {
		tg = &graph.TileableGraph{}
	}
	return b.dash.src.Started(tg, run, submitted, prepare)
}
