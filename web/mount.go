package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// What a service mounted beside the REST API (the dashboard, package
// dashboard) shares with it: the mux, the error bodies and statuses, the
// graph JSON and the schedulers' states.

// Handle adds a handler to the REST API's mux, beside its own routes
// (which win where a pattern is more specific).
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// HandleFunc serves fn as the REST API's handlers are served: ids in the
// path checked, the session in the context, and an error answered with
// its status and {"error": msg}; failures of 500 and up logged to log.
func HandleFunc(log *slog.Logger, fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{log: log}
	return s.handle(fn)
}

// Error is an error a handler of HandleFunc answers with code and
// {"error": msg}.
func Error(code int, msg string) error { return &httpError{code: code, msg: msg} }

// BadRequest is err answered with 400.
func BadRequest(err error) error { return badRequest(err) }

// StatusOf is the status and message err is answered with: an Error's,
// a scheduler RPC error's, or else fallback and err's text.
func StatusOf(err error, fallback int) (int, string) {
	var he *httpError
	var ce *connect.Error
	switch {
	case errors.As(err, &he):
		return he.code, err.Error()
	case errors.As(err, &ce):
		return statusOf(err), ce.Message()
	}
	return fallback, err.Error()
}

// WriteJSON answers v as JSON with code.
func WriteJSON(w http.ResponseWriter, code int, v any) { writeJSON(w, code, v) }

// GraphOf is a graph's status as the REST API shows it.
func GraphOf(st *pb.GraphStatus) GraphJSON { return graphJSON(st) }

// SchedulerStates lists the schedulers as GET /api/schedulers does.
func (s *Server) SchedulerStates(ctx context.Context) []SchedulerStateJSON {
	return s.schedulerStates(ctx)
}
