package cluster

import (
	"strings"
	"testing"
)

func TestAdvertise(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"10.0.0.5", "http://10.0.0.5:7200", true},
		{"10.0.0.5:9000", "http://10.0.0.5:9000", true},
		{"http://node-3.example:9000", "http://node-3.example:9000", true},
		{"http://node-3.example/", "http://node-3.example:7200", true},
		{"::1", "http://[::1]:7200", true},
		{"[::1]:9000", "http://[::1]:9000", true},
		{"https://secure:1", "https://secure:1", true},
		{"ftp://host:1", "", false},
		{"http://host:1/path", "", false},
		{"", "", false},
	} {
		got, err := advertise(c.in, 7200, "http")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("advertise(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	// A worker serving HTTPS advertises https:// unless told otherwise.
	if got, err := advertise("node-3", 9000, "https"); err != nil || got != "https://node-3:9000" {
		t.Errorf("advertise over TLS = %q, %v", got, err)
	}
}

// TestSchedulerAdvertise: a scheduler told to advertise a name gives that
// name (with its listening port) as its URL, the one a ring records; a
// malformed one is refused at start.
func TestSchedulerAdvertise(t *testing.T) {
	p, err := StartScheduler(SchedulerConfig{Listen: "127.0.0.1:0", Advertise: "sched-0.phobos-scheduler.example"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(p.URL(), "http://sched-0.phobos-scheduler.example"), ":")
	if !strings.HasPrefix(p.URL(), "http://sched-0.phobos-scheduler.example:") || port == "" || port == "0" {
		t.Errorf("URL %q, want http://sched-0.phobos-scheduler.example:PORT", p.URL())
	}
	if q, err := StartScheduler(SchedulerConfig{Listen: "127.0.0.1:0", Advertise: "http://host:1/path"}); err == nil {
		q.Close()
		t.Error("a scheduler started advertising a URL with a path")
	}
}
