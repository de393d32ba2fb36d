package ops

import (
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// TestHeldUnknownMeta: a held tensor may come from the client with an
// axis of unknown length, to be resolved; a resolved one, or a malformed
// unknown axis, is refused.
func TestHeldUnknownMeta(t *testing.T) {
	unknown := Meta{Shape: []int{-1, 4}, DType: ndarray.Float64, Unknown: 1}
	if m, err := (Held{Ref: "g1", Meta: unknown}).Infer(nil); err != nil || m.Unknown != 1 {
		t.Fatalf("unresolved unknown: %v %v", m, err)
	}
	for name, h := range map[string]Held{
		"resolved with an unknown axis": {Ref: "g1", Meta: unknown, Splits: [][]int{{2}, {4}}, Nodes: []int32{0}},
		"unknown axis not -1":           {Ref: "g1", Meta: Meta{Shape: []int{3, 4}, DType: ndarray.Float64, Unknown: 1}},
		"unknown axis out of range":     {Ref: "g1", Meta: Meta{Shape: []int{-1, 4}, DType: ndarray.Float64, Unknown: 3}},
		"negative known axis":           {Ref: "g1", Meta: Meta{Shape: []int{-1, -2}, DType: ndarray.Float64, Unknown: 1}},
		"splits not adding up":          {Meta: Meta{Shape: []int{5, 4}, DType: ndarray.Float64}, Splits: [][]int{{2, 2}, {4}}, Nodes: []int32{0, 1}},
	} {
		if _, err := h.Infer(nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := Held{Meta: Meta{Shape: []int{0, 4}, DType: ndarray.Float64}, Splits: [][]int{{0}, {4}}, Nodes: []int32{3}}
	if _, err := ok.Infer(nil); err != nil {
		t.Fatalf("an empty held tensor: %v", err)
	}
}
