package storage

import (
	"slices"

	"github.com/phobos-tensor/phobos/protocol"
)

// Held is one chunk the store holds, in whichever tier.
type Held struct {
	Key    protocol.ChunkKey
	Nbytes int64
	Tier   Tier
}

// List returns the chunks of the given graphs the store can serve (in
// memory, spilled, or dropped and regenerable; not lost ones), in key
// order: an adopting scheduler's inventory of what survived.
func (s *Store) List(graphs []protocol.GraphID) []Held {
	want := make(map[protocol.GraphID]bool, len(graphs))
	for _, g := range graphs {
		want[g] = true
	}
	var out []Held
	s.mu.Lock()
	s.mu.chunks.All(func(g protocol.GraphID, node int32, e *entry) bool {
		if !want[g] || e.deleted || e.lost != nil {
			return true
		}
		h := Held{Key: protocol.ChunkKey{Graph: g, Node: node}, Nbytes: e.nbytes}
		switch {
		case e.arr != nil:
			h.Tier = TierMemory
		case e.file != "":
			h.Tier = TierDisk
		case e.regen != nil:
			h.Tier = TierDropped
		default:
			return true
		}
		out = append(out, h)
		return true
	})
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Held) int { return protocol.CompareKeys(a.Key, b.Key) })
	return out
}
