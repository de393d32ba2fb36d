// Package dashboard is the cluster's live dashboard: pages embedded in
// the binary (pages/), the JSON they read and a server-sent event stream
// per page (events.go). Its data comes from a Source: the scheduler's
// services for the web role, which mounts it beside the REST API (the
// same URLs, login and token rules), or the embedded cluster of a local
// session (phobos.WithDashboard), which serves it alone (NewHandler).
package dashboard
