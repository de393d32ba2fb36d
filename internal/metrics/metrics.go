// Package metrics defines the Prometheus series every cluster role serves
// at GET /metrics (docs/metrics.md lists them). Each role makes its own
// prometheus.Registry through its constructor (NewScheduler, NewWorker,
// NewWeb), so there is no global registry and two roles in one process
// (tests, the local session) do not share series.
//
// The roles' code does not import Prometheus: the worker reports task ends
// through worker.Observer, the store and the scheduler are read at scrape
// time through small source interfaces, and HTTP requests are counted by
// a middleware around each role's handler. Labels are bounded: op types,
// states, outcomes, route patterns, status codes and worker ids (bounded by
// the cluster's size), never chunk, graph or session ids.
package metrics

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Namespace prefixes every series of Phobos's own.
const Namespace = "phobos"

// Buckets of the duration histograms. Chunk ops run from microseconds (W5's
// tiny additions) to tens of seconds; requests include long-polls of up to
// a minute.
var (
	opBuckets      = prometheus.ExponentialBuckets(10e-6, 4, 12)  // 10µs .. 42s
	requestBuckets = prometheus.ExponentialBuckets(500e-6, 4, 10) // 0.5ms .. 131s
	fetchBuckets   = prometheus.ExponentialBuckets(100e-6, 4, 10) // 0.1ms .. 26s
)

// role is what every role's metrics share: the registry, the process and
// Go runtime collectors, and the HTTP request series.
type role struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newRole(name string) role {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	r := role{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "http_requests_total",
			Help:        "HTTP requests served, by route pattern (\"none\": no route matched or the request was refused before routing), method and status code.",
			ConstLabels: prometheus.Labels{"role": name},
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "http_request_duration_seconds",
			Help:        "Time to serve an HTTP request, until its handler returned (long-polls and result streams included), by route pattern.",
			ConstLabels: prometheus.Labels{"role": name},
			Buckets:     requestBuckets,
		}, []string{"route"}),
	}
	reg.MustRegister(r.requests, r.latency)
	return r
}

// Handler serves the role's registry in the Prometheus text format (or
// the protobuf format a scraper asks for).
func (r *role) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{Registry: r.reg})
}

// Instrument wraps a role's handler, counting its requests by the route
// pattern the ServeMux inside matched (http.Request.Pattern, which the mux
// sets on the request it is given), method and status. Route and method
// come from the mux, never from the raw path, so the label values stay
// bounded whatever clients send.
func (r *role) Instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		returned := false
		defer func() {
			route := req.Pattern
			if route == "" {
				route = "none"
			}
			code := "aborted" // the handler panicked (http.ErrAbortHandler cuts a response short)
			if returned {
				code = strconv.Itoa(cmp.Or(sw.code, http.StatusOK))
			}
			r.observe(route, req.Method, code, start)
		}()
		next.ServeHTTP(sw, req)
		returned = true
	})
}

// methods are the label values of request methods; any other is "other",
// so a client cannot mint label values.
var methods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

func (r *role) observe(route, method, code string, start time.Time) {
	if !methods[method] {
		method = "other"
	}
	r.requests.WithLabelValues(route, method, code).Inc()
	r.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
}

// statusWriter remembers the status code a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes on (result streams, connect's streaming).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Web is the web role's metrics: its requests (by REST route), the
// process's, and the scheduler's own series, forwarded.
type Web struct {
	role
	scheduler prometheus.Gatherer
}

// NewWeb makes the web role's metrics. scheduler, when not nil, adds the
// scheduler role's phobos_scheduler_* series to every scrape (see
// Forward), so that the cluster's figures can be read from the one
// address clients know.
func NewWeb(scheduler prometheus.Gatherer) *Web { return &Web{newRole("web"), scheduler} }

// Handler serves the web role's registry and the scheduler's forwarded
// series. A scheduler that does not answer leaves its series out and the
// scrape goes on.
func (w *Web) Handler() http.Handler {
	if w.scheduler == nil {
		return w.role.Handler()
	}
	return promhttp.HandlerFor(prometheus.Gatherers{w.reg, w.scheduler}, promhttp.HandlerOpts{Registry: w.reg, ErrorHandling: promhttp.ContinueOnError})
}

// Forward is a Gatherer of another role's series whose names start with
// prefix, read from its /metrics at url with client at each Gather.
func Forward(client *http.Client, url, prefix string) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		fams, err := Scrape(ctx, client, url)
		if err != nil {
			return nil, err
		}
		var out []*dto.MetricFamily
		for name, f := range fams {
			if strings.HasPrefix(name, prefix) {
				out = append(out, f)
			}
		}
		return out, nil
	})
}

// Scrape reads the series served at url (a role's /metrics) in the text
// format, by family name.
func Scrape(ctx context.Context, client *http.Client, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading metrics at %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrapeBytes))
	if err != nil {
		return nil, fmt.Errorf("parsing the metrics at %s: %w", url, err)
	}
	return fams, nil
}

// maxScrapeBytes bounds what Scrape reads: a role's series are a few
// hundred KiB at most.
const maxScrapeBytes = 16 << 20

// desc is a shorthand for the descriptions of series made at scrape time.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
}
