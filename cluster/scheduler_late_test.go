package cluster

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// A member is late when its last heartbeat is older than the timeout,
// unless it is dead already or runs in this process.
func TestLateMembers(t *testing.T) {
	now := time.Unix(1000, 0)
	const timeout = 3 * time.Second
	mk := func(id int, url string, silent time.Duration, dead bool) *member {
		m := &member{id: id, url: url, lastBeat: now.Add(-silent)}
		if dead {
			m.dead = errors.New("gone")
		}
		return m
	}
	members := []*member{
		mk(0, "http://127.0.0.1:1", time.Second, false),             // beating
		mk(1, "http://127.0.0.1:2", 4*time.Second, false),           // late
		mk(2, "http://127.0.0.1:3", 10*time.Second, true),           // dead already
		mk(3, "http://127.0.0.1:4", 10*time.Second, false),          // late, in process
		mk(4, "http://127.0.0.1:5", timeout, false),                 // exactly the timeout: not yet
		mk(5, "http://127.0.0.1:6", timeout+time.Nanosecond, false), // just past it
	}
	ids := func(ms []*member) []int {
		var out []int
		for _, m := range ms {
			out = append(out, m.id)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   func(string) bool
		want []int
	}{
		{"separate processes", func(string) bool { return false }, []int{1, 3, 5}},
		{"member 3 in process", func(u string) bool { return u == "http://127.0.0.1:4" }, []int{1, 5}},
		{"all in process", func(string) bool { return true }, nil},
	} {
		if got := ids(lateMembers(members, now, timeout, tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: late %v, want %v", tc.name, got, tc.want)
		}
	}
	// A nil Loopback (a scheduler alone in its process) serves nothing.
	var l *Loopback
	if got := ids(lateMembers(members, now, timeout, l.live)); !slices.Equal(got, []int{1, 3, 5}) {
		t.Errorf("nil loopback: late %v", got)
	}
}
