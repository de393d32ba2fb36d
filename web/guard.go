package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/rpc"
)

// GuardConfig configures the web service's front door (Guard).
type GuardConfig struct {
	// Token, when not "", is required on every request but the dashboard's
	// pages and a one-time login: in the Authorization header, or in the
	// cookie a login set.
	Token string
	// AllowedHosts are the names, beside IP addresses, "localhost" and this
	// machine's host name, that requests may name in their Host header; "*"
	// allows any name (when a proxy in front checks it).
	AllowedHosts []string
	// LoginTTL is how long a one-time login link stays valid (default 10
	// minutes).
	LoginTTL time.Duration
}

// LoginPath is where a one-time login code is redeemed: GET
// /login?once=CODE sets the token cookie and sends the browser to the
// dashboard.
const LoginPath = "/login"

// maxLogins bounds the one-time codes outstanding at once, so repeated
// requests for links cannot grow the service's memory.
const maxLogins = 64

// Guard serves h behind the web service's checks, in this order:
//   - a request a page of another site made (an Origin that is not this
//     service's own, or Sec-Fetch-Site cross-site or same-site) gets 403,
//     as does one whose Host header names neither an IP address, localhost,
//     this machine nor an allowed name: a page that rebinds its own DNS name
//     to this address cannot read the answers;
//   - the dashboard's pages (GET / and /static/) are served to anyone, since
//     they hold no data, and so is GET /login?once=CODE, which trades a
//     one-time code for the token cookie;
//   - everything else needs the token, in the Authorization header or the
//     cookie; POST /api/login-links (with the token) makes a one-time code.
func Guard(cfg GuardConfig, h http.Handler) *Guarded {
	if cfg.LoginTTL <= 0 {
		cfg.LoginTTL = 10 * time.Minute
	}
	hostname, _ := os.Hostname()
	g := &Guarded{cfg: cfg, assets: h, hostname: strings.ToLower(hostname), logins: map[[32]byte]time.Time{}}
	inner := http.NewServeMux()
	inner.HandleFunc("POST /api/login-links", g.issue)
	inner.Handle("/", h)
	g.guarded = rpc.RequireTokenOrCookie(cfg.Token, inner)
	return g
}

// Guarded is a handler behind Guard's checks.
type Guarded struct {
	cfg      GuardConfig
	assets   http.Handler // h, which serves the dashboard's pages without the token
	guarded  http.Handler
	hostname string

	mu     sync.Mutex
	logins map[[32]byte]time.Time // one-time codes' hashes and their ends
}

func (g *Guarded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := g.browserCheck(r); msg != "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": msg})
		return
	}
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/static/")):
		g.assets.ServeHTTP(w, r)
	case r.Method == http.MethodGet && r.URL.Path == LoginPath:
		g.redeem(w, r)
	default:
		g.guarded.ServeHTTP(w, r)
	}
}

// browserCheck is why a request is refused as coming from another site's
// page, or naming a host this service does not answer to; "" lets it on.
func (g *Guarded) browserCheck(r *http.Request) string {
	if !g.hostAllowed(r.Host) {
		return fmt.Sprintf("host %q is not this service's: reach it by IP address or localhost, or start the web service with --allow-host %s", r.Host, hostOnly(r.Host))
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return "refused: a request made by another site's page"
	}
	if o, ok := r.Header["Origin"]; ok {
		u, err := url.Parse(strings.Join(o, ""))
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			return fmt.Sprintf("refused: a request from origin %q, not this service's own", strings.Join(o, ""))
		}
	}
	return ""
}

// hostAllowed: IP addresses (a page can only rebind a name), localhost,
// this machine's name and the configured names.
func (g *Guarded) hostAllowed(hostport string) bool {
	host := strings.ToLower(hostOnly(hostport))
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil || host == "localhost" || host == g.hostname {
		return true
	}
	for _, a := range g.cfg.AllowedHosts {
		if a == "*" || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// hostOnly is the host of a Host header, without its port or brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// errTooManyLogins is NewLogin's refusal at the bound.
var errTooManyLogins = fmt.Errorf("%d login links are outstanding: use one or wait for them to expire", maxLogins)

// NewLogin makes a one-time login code: the path (LoginPath?once=CODE) a
// browser opens once to get the token cookie, valid for the LoginTTL.
func (g *Guarded) NewLogin() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("login link: %w", err)
	}
	code := base64.RawURLEncoding.EncodeToString(b)
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, end := range g.logins {
		if now.After(end) {
			delete(g.logins, k)
		}
	}
	if len(g.logins) >= maxLogins {
		return "", errTooManyLogins
	}
	g.logins[sha256.Sum256([]byte(code))] = now.Add(g.cfg.LoginTTL)
	return LoginPath + "?once=" + code, nil
}

// issue answers POST /api/login-links: NewLogin's path.
func (g *Guarded) issue(w http.ResponseWriter, r *http.Request) {
	path, err := g.NewLogin()
	switch {
	case errors.Is(err, errTooManyLogins):
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": err.Error()})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		writeJSON(w, http.StatusCreated, map[string]any{"path": path, "expires_in_s": int(g.cfg.LoginTTL.Seconds())})
	}
}

// redeem answers GET /login?once=CODE: a code issued and not yet used or
// expired sets the token cookie (HttpOnly, SameSite=Strict, Secure under
// TLS) and sends the browser to the dashboard; the code is gone after.
func (g *Guarded) redeem(w http.ResponseWriter, r *http.Request) {
	key := sha256.Sum256([]byte(r.URL.Query().Get("once")))
	g.mu.Lock()
	end, ok := g.logins[key]
	delete(g.logins, key)
	g.mu.Unlock()
	if !ok || time.Now().After(end) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "this login link was used already or has expired: ask for a new one (POST /api/login-links with the token, or session.dashboard_url() in Python)"})
		return
	}
	if g.cfg.Token != "" {
		http.SetCookie(w, &http.Cookie{Name: rpc.TokenCookie, Value: g.cfg.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
