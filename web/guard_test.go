package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/rpc"
)

// guarded is a Guard over a handler that answers "inner" to whatever
// reaches it.
func guarded(t *testing.T, cfg GuardConfig) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(Guard(cfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "inner")
	})))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	// No redirects followed: the login's 303 is what is checked.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestGuardRefusesOtherSites: a request with a foreign Origin, fetch
// metadata of another site, or a Host that names neither an address nor an
// allowed name is refused before the token is even looked at, for the API
// and the dashboard's pages alike; the service's own origin passes.
func TestGuardRefusesOtherSites(t *testing.T) {
	const tok = "t0ken"
	srv := guarded(t, GuardConfig{Token: tok, AllowedHosts: []string{"phobos.example"}})
	own := strings.TrimPrefix(srv.URL, "http://")
	cases := []struct {
		name, method, path string
		header             map[string]string
		host               string
		want               int
		body               string
	}{
		{"own origin, token", "POST", "/api/sessions", map[string]string{"Origin": srv.URL, "Authorization": "Bearer " + tok}, "", 200, "inner"},
		{"no origin, token", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "", 200, "inner"},
		{"foreign origin, token", "POST", "/api/sessions", map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer " + tok}, "", 403, "origin"},
		{"foreign origin, no token", "POST", "/api/sessions", map[string]string{"Origin": "http://evil.example"}, "", 403, "origin"},
		{"foreign origin, same host other port", "GET", "/api", map[string]string{"Origin": "http://127.0.0.1:1", "Authorization": "Bearer " + tok}, "", 403, "origin"},
		{"null origin", "POST", "/api/sessions", map[string]string{"Origin": "null", "Authorization": "Bearer " + tok}, "", 403, "origin"},
		{"foreign origin, dashboard page", "GET", "/", map[string]string{"Origin": "http://evil.example"}, "", 403, "origin"},
		{"cross-site fetch", "GET", "/api", map[string]string{"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer " + tok}, "", 403, "another site"},
		{"same-site fetch (another port)", "GET", "/api", map[string]string{"Sec-Fetch-Site": "same-site", "Authorization": "Bearer " + tok}, "", 403, "another site"},
		{"same-origin fetch", "GET", "/api", map[string]string{"Sec-Fetch-Site": "same-origin", "Authorization": "Bearer " + tok}, "", 200, "inner"},
		// The page goes through without the token to the handler, which
		// serves it (dashboard's TestLoginCookie checks the page itself).
		{"typed in the address bar", "GET", "/", map[string]string{"Sec-Fetch-Site": "none"}, "", 200, "inner"},
		{"rebound name", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "evil.example", 403, "--allow-host evil.example"},
		{"rebound name with port, page", "GET", "/", nil, "evil.example:" + strings.Split(own, ":")[1], 403, "not this service's"},
		{"rebound name, own origin", "POST", "/api/sessions", map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer " + tok}, "evil.example", 403, "host"},
		{"allowed name", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "phobos.example:80", 200, "inner"},
		{"allowed name, any case", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "PHOBOS.example", 200, "inner"},
		{"localhost", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "localhost:9", 200, "inner"},
		{"IPv6 literal", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, "[::1]:9", 200, "inner"},
		{"empty host", "GET", "/api", map[string]string{"Authorization": "Bearer " + tok}, " ", 403, "host"},
		{"no token", "GET", "/api", nil, "", 401, "needs a token"},
		{"wrong token", "GET", "/api", map[string]string{"Authorization": "Bearer nope"}, "", 401, "wrong token"},
		{"metrics, no token", "GET", "/metrics", nil, "", 401, "token"},
		{"static page, no token", "GET", "/static/app.js", nil, "", 200, ""},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if c.host != "" {
			req.Host = c.host
		}
		code, body := do(t, req)
		if code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %q, want %d naming %q", c.name, code, body, c.want, c.body)
		}
	}
}

// TestGuardOneTimeLogin: a link made with the token sets the cookie once;
// used again, guessed, or expired, it is refused; making links needs the
// token, and their number is bounded.
func TestGuardOneTimeLogin(t *testing.T) {
	const tok = "s3cret"
	srv := guarded(t, GuardConfig{Token: tok})
	issue := func(token string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/api/login-links", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		code, body := do(t, req)
		if code != http.StatusCreated {
			return code, body
		}
		var got struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		return code, got.Path
	}
	if code, _ := issue(""); code != 401 {
		t.Fatalf("a link without the token: %d", code)
	}
	if code, _ := issue("wrong"); code != 401 {
		t.Fatalf("a link with a wrong token: %d", code)
	}
	code, path := issue(tok)
	if code != http.StatusCreated || !strings.HasPrefix(path, LoginPath+"?once=") {
		t.Fatalf("link: %d %q", code, path)
	}
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("redeem: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == rpc.TokenCookie {
			cookie = ck
		}
	}
	if cookie == nil || cookie.Value != tok || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", cookie)
	}
	// The cookie opens the API.
	req, _ = http.NewRequest("GET", srv.URL+"/api", nil)
	req.AddCookie(cookie)
	if code, body := do(t, req); code != 200 || body != "inner" {
		t.Errorf("with the cookie: %d %q", code, body)
	}
	// Used once: never again; a guess or no code is refused the same way.
	for _, p := range []string{path, LoginPath + "?once=guess", LoginPath} {
		req, _ := http.NewRequest("GET", srv.URL+p, nil)
		code, body := do(t, req)
		if code != 403 || !strings.Contains(body, "used already or has expired") {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
	// Links are bounded.
	n := 0
	for range maxLogins + 5 {
		if code, _ := issue(tok); code == http.StatusCreated {
			n++
		} else if code != http.StatusTooManyRequests {
			t.Fatalf("link %d: %d", n, code)
		}
	}
	if n != maxLogins {
		t.Errorf("%d links outstanding, want the bound %d", n, maxLogins)
	}
}

// TestGuardLoginExpires: a link past its time is refused.
func TestGuardLoginExpires(t *testing.T) {
	srv := guarded(t, GuardConfig{Token: "x", LoginTTL: time.Nanosecond})
	req, _ := http.NewRequest("POST", srv.URL+"/api/login-links", nil)
	req.Header.Set("Authorization", "Bearer x")
	code, body := do(t, req)
	if code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	var got struct{ Path string }
	_ = json.Unmarshal([]byte(body), &got)
	// A nanosecond has passed by the time the request arrives.
	req, _ = http.NewRequest("GET", srv.URL+got.Path, nil)
	if code, body := do(t, req); code != 403 {
		t.Errorf("an expired link: %d %q", code, body)
	}
}
