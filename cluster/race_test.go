//go:build race

package cluster_test

// raceEnabled: the race detector slows the loops of state-bound tests ten
// times; they run fewer rounds under it.
const raceEnabled = true
