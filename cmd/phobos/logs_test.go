package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestRoleLogFormats: --log-format json writes one JSON object a line with
// the role and the line's attributes; text writes key=value; anything else
// is a usage error naming the flag.
func TestRoleLogFormats(t *testing.T) {
	var buf bytes.Buffer
	log, err := roleLogger(&buf, "info", "json", "worker")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("graph running", "session", "s1", "graph", "g2", "run", uint64(7))
	log.Debug("not at info")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("a JSON log line: %v: %s", err, buf.Bytes())
	}
	if m["msg"] != "graph running" || m["role"] != "worker" || m["session"] != "s1" || m["graph"] != "g2" || m["run"] != 7.0 || m["level"] != "INFO" {
		t.Errorf("JSON line %v", m)
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Errorf("%d lines, want 1 (debug is below info): %s", n, buf.String())
	}

	buf.Reset()
	if log, err = roleLogger(&buf, "info", "text", "web"); err != nil {
		t.Fatal(err)
	}
	log.Info("serving", "url", "http://x")
	if got := buf.String(); !strings.Contains(got, `msg=serving role=web url=http://x`) {
		t.Errorf("text line %q", got)
	}

	var stderr bytes.Buffer
	if code := run([]string{"scheduler", "--log-format", "xml"}, io.Discard, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--log-format") {
		t.Errorf("--log-format xml: exit %d, %q; want a usage error naming the flag", code, stderr.String())
	}
}
