package rpc

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// TokenEnv is the environment variable a shared cluster token may be given
// in (rather than on a command line, where other users could read it).
const TokenEnv = "PHOBOS_TOKEN"

// LoadToken is the cluster token from file (if not "") or else from
// $PHOBOS_TOKEN; "" means no authentication. A token file holds the token
// on its first line.
func LoadToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", file)
	}
	return tok, nil
}

// RequireToken serves h only to requests carrying "Authorization: Bearer
// token"; others get 401 with a JSON error. With token "" it is h: no
// authentication. Every role's server is wrapped in it, so RPCs, chunk
// reads and the REST API are guarded alike.
func RequireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="phobos"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			msg := "this Phobos cluster needs a token: send Authorization: Bearer <token> (phobos: --token-file or $" + TokenEnv + ")"
			if len(got) > 0 {
				msg = "wrong token in the Authorization header"
			}
			fmt.Fprintf(w, "{\"error\":%q}\n", msg)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TokenCookie is the cookie a browser carries the token in once the
// dashboard's login has set it.
const TokenCookie = "phobos_token"

// RequireTokenOrCookie is RequireToken that also accepts the token in the
// TokenCookie cookie, as browsers send it: the web role's guard.
func RequireTokenOrCookie(token string, h http.Handler) http.Handler {
	guarded := RequireToken(token, h)
	if token == "" {
		return h
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			if c, err := r.Cookie(TokenCookie); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), want) == 1 {
				h.ServeHTTP(w, r)
				return
			}
		}
		guarded.ServeHTTP(w, r)
	})
}

// WithToken makes c send "Authorization: Bearer token" on every request
// (c itself is changed and returned). With token "" it leaves c alone.
func WithToken(c *http.Client, token string) *http.Client {
	if token == "" {
		return c
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &tokenTransport{base: base, header: "Bearer " + token}
	return c
}

type tokenTransport struct {
	base   http.RoundTripper
	header string
}

func (t *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	r.Header.Set("Authorization", t.header)
	return t.base.RoundTrip(r)
}

// NewToken is a fresh random token: 32 bytes from the system's generator,
// base64url-encoded (43 characters), for a cluster started without one.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// RefuseBrowsers answers 403 to any request a web browser made: one with
// an Origin header or fetch metadata (Sec-Fetch-Site). Schedulers and
// workers are called by other roles only, never by a page, so a page that
// reaches their port (a request any site can make a browser send) gets
// nothing, token or not.
func RefuseBrowsers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "{\"error\":%q}\n", "this Phobos role serves other roles only, not web browsers (a request with Origin or Sec-Fetch-Site)")
			return
		}
		h.ServeHTTP(w, r)
	})
}
