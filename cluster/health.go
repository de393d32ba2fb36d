package cluster

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// The paths of the health probes every role answers without the token or
// a client certificate: an orchestrator probes with neither, and the
// answers hold nothing but whether the role serves and, if not ready, why.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// readyTimeout bounds a readiness check that asks another role.
const readyTimeout = 2 * time.Second

// withHealth answers GET /healthz (200 while the process serves) and GET
// /readyz (200 when ready is nil, else 503 with its reason) and passes
// every other request to guarded.
func withHealth(guarded http.Handler, ready func(context.Context) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			guarded.ServeHTTP(w, r)
			return
		}
		switch r.URL.Path {
		case HealthzPath:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintln(w, "ok")
		case ReadyzPath:
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			if err := ready(ctx); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintln(w, "not ready:", err)
				return
			}
			fmt.Fprintln(w, "ready")
		default:
			guarded.ServeHTTP(w, r)
		}
	})
}
