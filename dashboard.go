package phobos

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
)

// WithDashboard makes NewSession serve the cluster dashboard (the pages a
// cluster's web service serves at /) on addr, e.g. "127.0.0.1:8787" or
// "127.0.0.1:0" for a free port: the session's workers, and each Execute
// as a graph of session "local" while it runs and after. DashboardURL says
// where. Connect sessions ignore it (the cluster serves its own).
func WithDashboard(addr string) Option { return func(c *config) { c.dashboard = addr } }

// DashboardURL is where WithDashboard serves the dashboard ("" without it).
func (s *Session) DashboardURL() string {
	if b, ok := s.be.(*localBackend); ok && b.dash != nil {
		return b.dash.url
	}
	return ""
}

// localDashboard serves a local session's dashboard.
type localDashboard struct {
	src *cluster.LocalDashboard
	srv *http.Server
	url string
}

func startDashboard(addr string, l *cluster.Local) (*localDashboard, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("phobos: dashboard on %s: %w", addr, err)
	}
	d := &localDashboard{src: cluster.NewLocalDashboard(l), url: "http://" + ln.Addr().String()}
	d.srv = &http.Server{Handler: web.NewDashboard(d.src, nil), ReadHeaderTimeout: 10 * time.Second}
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
