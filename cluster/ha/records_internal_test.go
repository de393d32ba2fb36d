package ha

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestRecordBatches: transactions never hold a key twice or a range
// deletion beside anything, stay under etcd's limit, and later writes of
// a key nobody waits for replace the queued one in its place, never
// across a range deletion or over a write someone waits for.
func TestRecordBatches(t *testing.T) {
	put := func(k string) RecordOp { return RecordOp{key: k, val: k} }
	cases := []struct {
		ops  []RecordOp
		want []int // transaction lengths
	}{
		{[]RecordOp{put("a"), put("b"), put("c")}, []int{3}},
		{[]RecordOp{put("a"), put("b"), put("a")}, []int{2, 1}},
		{[]RecordOp{put("a"), {key: "p/", del: true, prefix: true}, put("p/x")}, []int{1, 1, 1}},
		{[]RecordOp{{key: "p/", del: true, prefix: true}, {key: "q/", del: true, prefix: true}}, []int{1, 1}},
	}
	many := make([]RecordOp, 300)
	for i := range many {
		many[i] = put(string(rune('A' + i)))
	}
	cases = append(cases, struct {
		ops  []RecordOp
		want []int
	}{many, []int{128, 128, 44}})
	// Bytes: three writes of 600 KB go one by one, small ones together.
	big := func(k string) RecordOp { return RecordOp{key: k, val: strings.Repeat("x", 600_000)} }
	cases = append(cases, struct {
		ops  []RecordOp
		want []int
	}{[]RecordOp{big("l1"), big("l2"), put("a"), big("l3"), put("b"), put("c")}, []int{1, 2, 3}})
	for i, c := range cases {
		var got []int
		for ops := c.ops; len(ops) > 0; {
			n := txnLen(ops)
			got = append(got, n)
			ops = ops[n:]
		}
		if len(got) != len(c.want) {
			t.Errorf("case %d: transactions %v, want %v", i, got, c.want)
			continue
		}
		for j := range got {
			if got[j] != c.want[j] {
				t.Errorf("case %d: transactions %v, want %v", i, got, c.want)
				break
			}
		}
	}

	w := &RecordWriter{}
	w.queue = []RecordOp{put("g1"), put("g2")}
	if !w.coalesceLocked(RecordOp{key: "g1", del: true}) || len(w.queue) != 2 || !w.queue[0].del {
		t.Errorf("a later delete of g1 did not replace its queued put: %+v", w.queue)
	}
	w.queue = []RecordOp{put("s/g1"), {key: "s/", del: true, prefix: true}}
	if w.coalesceLocked(put("s/g1")) {
		t.Errorf("a write coalesced across a range deletion: %+v", w.queue)
	}
	waited := put("g3")
	waited.done = make(chan error, 1)
	w.queue = []RecordOp{waited}
	if w.coalesceLocked(put("g3")) {
		t.Errorf("a write replaced one its submitter waits for")
	}
	if w.coalesceLocked(RecordOp{key: "x/", del: true, prefix: true}) {
		t.Errorf("a range deletion coalesced")
	}
}

// TestLiteralRecords: a graph's small client arrays are kept aside and put
// back on reading the record; a large one is left out, and the graph then
// cannot be rebuilt, saying why; a missing or mismatched array record
// fails by name.
func TestLiteralRecords(t *testing.T) {
	small := tensor.FromSlice([]float64{1, 2, 3, 4, 5}, []int{5}, tensor.Chunks(2))
	large := tensor.FromSlice(make([]float64, MaxLiteralRecord/8+1), []int{MaxLiteralRecord/8 + 1}, tensor.Chunks(1<<16))
	build := func(ts ...*tensor.Tensor) *graph.TileableGraph {
		tg, _, err := tensor.Build(ts...)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	tg := build(small.Mul(2).Sum())
	tj, lits, kept, err := TileableRecord(tg)
	if err != nil || len(lits) != 1 || len(kept) != 1 {
		t.Fatalf("TileableRecord: %v, stripped %v, kept %d", err, lits, len(kept))
	}
	gr := GraphRecord{Session: "s1", Graph: "g1", Tileable: tj, StrippedLiterals: lits, RecordedLiterals: lits}
	byKey := map[string][]byte{LiteralKey("s1", "g1", lits[0]): kept[lits[0]]}
	back, err := RecordedGraph(gr, byKey)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := graph.EncodeTileable(tg)
	got, _ := graph.EncodeTileable(back)
	if string(got) != string(want) {
		t.Errorf("rebuilt graph differs:\n%s\nwant\n%s", got, want)
	}
	if _, err := RecordedGraph(gr, nil); err == nil || !strings.Contains(err.Error(), "missing from etcd") {
		t.Errorf("array record missing: %v", err)
	}
	// An array record that holds another op.
	other, _ := graph.EncodeTileable(&graph.TileableGraph{Nodes: []graph.TensorNode{{Op: ops.Full{Meta: tg.Nodes[lits[0]].Meta, Value: 1}, Meta: tg.Nodes[lits[0]].Meta}}})
	if _, err := RecordedGraph(gr, map[string][]byte{LiteralKey("s1", "g1", lits[0]): other}); err == nil {
		t.Error("an array record holding another op was accepted")
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(tj, &doc); err != nil || len(tj) > 1000 {
		t.Errorf("the record's graph (%d bytes, %v) should hold no client data", len(tj), err)
	}

	tg = build(large.Add(small.Sum()).Sum())
	_, lits, kept, err = TileableRecord(tg)
	if err != nil || len(lits) != 2 || len(kept) != 1 {
		t.Fatalf("with a large array: %v, stripped %v, kept %d", err, lits, len(kept))
	}
	gr = GraphRecord{Session: "s1", Graph: "g2", StrippedLiterals: lits, RecordedLiterals: []int{lits[1]}}
	if _, err := RecordedGraph(gr, nil); err == nil || !strings.Contains(err.Error(), "1 client arrays of over") {
		t.Errorf("a graph with a large inline array: %v", err)
	}
}
