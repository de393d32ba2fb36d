package cluster

import (
	"testing"
)

// TestRecordBatches: transactions never hold a key twice or a range
// deletion beside anything, stay under etcd's limit, and later writes of
// a key nobody waits for replace the queued one in its place, never
// across a range deletion or over a write someone waits for.
func TestRecordBatches(t *testing.T) {
	put := func(k string) recordOp { return recordOp{key: k, val: k} }
	cases := []struct {
		ops  []recordOp
		want []int // transaction lengths
	}{
		{[]recordOp{put("a"), put("b"), put("c")}, []int{3}},
		{[]recordOp{put("a"), put("b"), put("a")}, []int{2, 1}},
		{[]recordOp{put("a"), {key: "p/", del: true, prefix: true}, put("p/x")}, []int{1, 1, 1}},
		{[]recordOp{{key: "p/", del: true, prefix: true}, {key: "q/", del: true, prefix: true}}, []int{1, 1}},
	}
	many := make([]recordOp, 300)
	for i := range many {
		many[i] = put(string(rune('A' + i)))
	}
	cases = append(cases, struct {
		ops  []recordOp
		want []int
	}{many, []int{128, 128, 44}})
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

	w := &recordWriter{}
	w.queue = []recordOp{put("g1"), put("g2")}
	if !w.coalesceLocked(recordOp{key: "g1", del: true}) || len(w.queue) != 2 || !w.queue[0].del {
		t.Errorf("a later delete of g1 did not replace its queued put: %+v", w.queue)
	}
	w.queue = []recordOp{put("s/g1"), {key: "s/", del: true, prefix: true}}
	if w.coalesceLocked(put("s/g1")) {
		t.Errorf("a write coalesced across a range deletion: %+v", w.queue)
	}
	waited := put("g3")
	waited.done = make(chan error, 1)
	w.queue = []recordOp{waited}
	if w.coalesceLocked(put("g3")) {
		t.Errorf("a write replaced one its submitter waits for")
	}
	if w.coalesceLocked(recordOp{key: "x/", del: true, prefix: true}) {
		t.Errorf("a range deletion coalesced")
	}
}
