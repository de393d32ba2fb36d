package cluster

import "testing"

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
