package cluster

import "testing"

// A result batch lingers for more results only while the worker has tasks
// that will make them: a graph alone on the cluster waits for no batch.
func TestResultBatchLingersOnlyWhileBusy(t *testing.T) {
	for _, c := range []struct {
		name string
		busy func() bool
		want bool
	}{
		{"unknown load", nil, true},
		{"busy worker", func() bool { return true }, true},
		{"idle worker", func() bool { return false }, false},
	} {
		b := &resultBatcher{busy: c.busy}
		if got := b.lingers(); got != c.want {
			t.Errorf("%s: lingers %v, want %v", c.name, got, c.want)
		}
	}
}
