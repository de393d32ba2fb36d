package worker

import (
	"fmt"
	"testing"
)

// The fence table is bounded: past its capacity it forgets the scope used
// least recently, and keeps the others with their tokens.
func TestFencesBounded(t *testing.T) {
	f := newFences[string](3)
	f.raise("a", 1)
	f.raise("b", 2)
	f.raise("c", 3)
	f.raise("a", 4) // a is now the most recent
	f.touch("b")    // then b, still in use
	f.touch("x")    // not there: nothing
	f.raise("d", 5) // forgets c
	for _, tc := range []struct {
		scope string
		token uint64
		ok    bool
	}{{"a", 4, true}, {"b", 2, true}, {"c", 0, false}, {"d", 5, true}, {"x", 0, false}} {
		if got, ok := f.get(tc.scope); got != tc.token || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.scope, got, ok, tc.token, tc.ok)
		}
	}
	for i := range 100 {
		f.raise(fmt.Sprint(i), uint64(i))
	}
	if len(f.token) != 3 || len(f.order) != 3 {
		t.Fatalf("%d tokens, %d orders kept; want 3", len(f.token), len(f.order))
	}
	if got, ok := f.get("99"); !ok || got != 99 {
		t.Errorf("the last scope: %d, %v", got, ok)
	}
}

// raises: a known scope is raised by a higher token only; an unknown one
// by any token above zero, or by zero when keepZero.
func TestFencesRaises(t *testing.T) {
	f := newFences[string](4)
	f.raise("s", 5)
	for _, tc := range []struct {
		scope    string
		token    uint64
		keepZero bool
		want     bool
	}{
		{"s", 4, false, false},
		{"s", 5, true, false},
		{"s", 6, false, true},
		{"new", 0, false, false},
		{"new", 0, true, true},
		{"new", 1, false, true},
	} {
		if got := f.raises(tc.scope, tc.token, tc.keepZero); got != tc.want {
			t.Errorf("raises(%q, %d, %v) = %v, want %v", tc.scope, tc.token, tc.keepZero, got, tc.want)
		}
	}
}
