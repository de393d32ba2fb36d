package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/phobos-tensor/phobos/rpc"
)

// LoginLink asks the web service at base (with the cluster's token and TLS
// roots) for a one-time dashboard login: the URL a person opens once to get
// the token cookie, so the token itself is never printed for them.
func LoginLink(ctx context.Context, base, token string, files rpc.TLSFiles) (string, error) {
	hc, err := NewClient(token, files)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/api/login-links", nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("login link: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", fmt.Errorf("login link: %w", err)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("login link: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var got struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(body, &got); err != nil || !strings.HasPrefix(got.Path, "/") {
		return "", fmt.Errorf("login link: an answer without a path: %q", body)
	}
	return strings.TrimRight(base, "/") + got.Path, nil
}
