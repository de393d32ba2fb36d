package scheduler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// namedGraph builds a graph of nop ops from lines "name" or "name <- in1
// in2", as the scenarios do.
func namedGraph(t testing.TB, spec string) (*graph.ChunkGraph, map[string]int32, []string) {
	t.Helper()
	g := &graph.ChunkGraph{}
	index := map[string]int32{}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		name, ins, _ := strings.Cut(line, "<-")
		name = strings.TrimSpace(name)
		var refs []ops.ChunkRef
		for _, in := range strings.Fields(ins) {
			j, ok := index[in]
			if !ok {
				t.Fatalf("op %s: no input %s above it", name, in)
			}
			refs = append(refs, ops.ChunkRef(j))
		}
		index[name] = int32(len(names))
		names = append(names, name)
		g.AddChunk(nop{}, refs, scalarMeta)
	}
	return g, index, names
}

func TestRebuild(t *testing.T) {
	const diamond = `
a
b <- a
c <- a
d <- b c`
	const chain = `
a
b <- a
c <- b
d <- c`
	for _, tc := range []struct {
		name    string
		graph   string
		results []string
		held    map[int]string // worker -> ops it holds
		// want is each op's state, then where it is kept ("FINISHED@w0")
		want    string
		release map[int]string
		reused  int
		rerun   int
	}{
		{
			name: "nothing held: everything the results need runs", graph: diamond, results: []string{"d"},
			want: "a:UNSCHEDULED b:UNSCHEDULED c:UNSCHEDULED d:UNSCHEDULED", rerun: 4,
		},
		{
			name: "results held: nothing runs, the rest is freed", graph: diamond, results: []string{"d"},
			held: map[int]string{1: "d b"},
			want: "a:FREED b:FREED c:FREED d:FINISHED@w1", release: map[int]string{1: "b"}, reused: 1,
		},
		{
			name: "a held op whose consumer runs stays; its lost sibling runs from the source", graph: diamond, results: []string{"d"},
			held: map[int]string{0: "b"},
			want: "a:UNSCHEDULED b:FINISHED@w0 c:UNSCHEDULED d:UNSCHEDULED", reused: 1, rerun: 3,
		},
		{
			name: "a lost source is not rerun when what it fed is held", graph: chain, results: []string{"d"},
			held: map[int]string{0: "a", 2: "c"},
			want: "a:FREED b:FREED c:FINISHED@w2 d:UNSCHEDULED", release: map[int]string{0: "a"}, reused: 1, rerun: 1,
		},
		{
			name: "the middle of a chain lost: the chain reruns from the last held op", graph: chain, results: []string{"d"},
			held: map[int]string{0: "a"},
			want: "a:FINISHED@w0 b:UNSCHEDULED c:UNSCHEDULED d:UNSCHEDULED", reused: 1, rerun: 3,
		},
		{
			name: "several copies: the lowest worker keeps it, the others are released", graph: chain, results: []string{"d"},
			held: map[int]string{3: "d c", 1: "d", 2: "d"},
			want: "a:FREED b:FREED c:FREED d:FINISHED@w1", release: map[int]string{2: "d", 3: "c d"}, reused: 1,
		},
		{
			name: "a result read by another result: each kept or rerun on its own", graph: chain, results: []string{"b", "d"},
			held: map[int]string{0: "d"},
			want: "a:UNSCHEDULED b:UNSCHEDULED c:FREED d:FINISHED@w0", reused: 1, rerun: 2,
		},
		{
			name: "an op no result needs is freed, held or not", graph: "a\nb\nz <- a", results: []string{"a", "b"},
			held: map[int]string{0: "z"},
			want: "a:UNSCHEDULED b:UNSCHEDULED z:FREED", release: map[int]string{0: "z"}, rerun: 2,
		},
		{
			name: "an empty graph", graph: "", want: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, index, names := &graph.ChunkGraph{}, map[string]int32{}, []string(nil)
			if tc.graph != "" {
				g, index, names = namedGraph(t, tc.graph)
			}
			var results []int32
			for _, r := range tc.results {
				results = append(results, index[r])
			}
			inv := Inventory{}
			for w, held := range tc.held {
				for _, name := range strings.Fields(held) {
					inv[w] = append(inv[w], HeldChunk{Node: index[name], Nbytes: 8})
				}
			}
			rb, err := Rebuild(g, results, inv)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, st := range rb.State {
				s := names[i] + ":" + st.String()
				if w := rb.Location[i]; w >= 0 {
					s += fmt.Sprintf("@w%d", w)
					if st != Finished || rb.Nbytes[i] != 8 {
						t.Errorf("%s kept on w%d in state %v with %d bytes", names[i], w, st, rb.Nbytes[i])
					}
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("states:\n got %s\nwant %s", g, tc.want)
			}
			gotRel := map[int]string{}
			for w, nodes := range rb.Release {
				var ns []string
				for _, v := range nodes {
					ns = append(ns, names[v])
				}
				gotRel[w] = strings.Join(ns, " ")
			}
			if tc.release == nil {
				tc.release = map[int]string{}
			}
			if !maps.Equal(gotRel, tc.release) {
				t.Errorf("releases: got %v, want %v", gotRel, tc.release)
			}
			if rb.Reused != tc.reused || rb.Rerun != tc.rerun {
				t.Errorf("reused %d, rerun %d; want %d, %d", rb.Reused, rb.Rerun, tc.reused, tc.rerun)
			}
		})
	}
}

func TestRebuildRefusesForeignInventory(t *testing.T) {
	g, _, _ := namedGraph(t, "a\nb <- a")
	unknown := ops.Meta{DType: ndarray.Float64, Shape: []int{4}, Unknown: 1}
	u := g.AddChunk(nop{}, []ops.ChunkRef{1}, unknown) // 32 bytes at most
	for _, tc := range []struct {
		name    string
		results []int32
		inv     Inventory
		want    string // "" for no error
	}{
		{"a node past the graph", []int32{1}, Inventory{0: {{Node: 3, Nbytes: 8}}}, "not an op of the graph (3 ops)"},
		{"a negative node", []int32{1}, Inventory{0: {{Node: -1, Nbytes: 8}}}, "not an op of the graph"},
		{"a size the op cannot have", []int32{1}, Inventory{2: {{Node: 1, Nbytes: 16}}}, "has 8 bytes"},
		{"a negative size", []int32{1}, Inventory{0: {{Node: 0, Nbytes: -8}}}, "negative size"},
		{"a negative worker", []int32{1}, Inventory{-1: {{Node: 0, Nbytes: 8}}}, "no such worker"},
		{"over the bound of an unknown length", []int32{int32(u)}, Inventory{0: {{Node: int32(u), Nbytes: 40}}}, "larger than its planned bound"},
		{"within the bound of an unknown length", []int32{int32(u)}, Inventory{0: {{Node: int32(u), Nbytes: 16}}}, ""},
		{"a result past the graph", []int32{7}, nil, "result 7 is not a chunk op"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Rebuild(g, tc.results, tc.inv)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
				return
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			var ie *InventoryError
			if strings.HasPrefix(tc.name, "a result") != !errors.As(err, &ie) {
				t.Errorf("error %T: an inventory entry's error must be an *InventoryError", err)
			}
		})
	}
}

// TestRebuildProperties checks, over random graphs and random inventories,
// that the rebuilt states can run the results to the end and redo no more
// than needed: a result is kept or rerun; an op that runs finds each input
// kept or running too; a freed op feeds no op that runs; an op is kept
// only where it is held and only if a result or an op that runs needs it.
func TestRebuildProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "ops")
		g := &graph.ChunkGraph{}
		for i := range n {
			var ins []ops.ChunkRef
			if i > 0 {
				for _, in := range rapid.SliceOfNDistinct(rapid.IntRange(0, i-1), 0, min(i, 3), rapid.ID[int]).Draw(rt, fmt.Sprintf("inputs%d", i)) {
					ins = append(ins, ops.ChunkRef(in))
				}
			}
			g.AddChunk(nop{}, ins, scalarMeta)
		}
		var results []int32
		for _, r := range rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 1, 4, rapid.ID[int]).Draw(rt, "results") {
			results = append(results, int32(r))
		}
		inv := Inventory{}
		held := make([]bool, n)
		for w := range 3 {
			for _, v := range rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 0, n, rapid.ID[int]).Draw(rt, fmt.Sprintf("held%d", w)) {
				inv[w] = append(inv[w], HeldChunk{Node: int32(v), Nbytes: 8})
				held[v] = true
			}
		}
		rb, err := Rebuild(g, results, inv)
		if err != nil {
			rt.Fatal(err)
		}
		needed := make([]bool, n)
		for _, x := range results {
			needed[x] = true
			if st := rb.State[x]; st != Finished && st != Unscheduled {
				rt.Fatalf("result %d is %v", x, st)
			}
		}
		reused, rerun := 0, 0
		for v, st := range rb.State {
			switch st {
			case Unscheduled:
				rerun++
				if held[v] {
					rt.Fatalf("op %d runs again though it is held", v)
				}
				for _, in := range g.Nodes[v].Inputs {
					needed[in] = true
					if s := rb.State[in]; s != Finished && s != Unscheduled {
						rt.Fatalf("op %d runs but its input %d is %v", v, in, s)
					}
				}
			case Finished:
				reused++
				w := rb.Location[v]
				if w < 0 || !slices.Contains(inv[w], HeldChunk{Node: int32(v), Nbytes: 8}) {
					rt.Fatalf("op %d kept on w%d, which does not hold it", v, w)
				}
				if slices.Contains(rb.Release[w], int32(v)) {
					rt.Fatalf("op %d kept on w%d and released there", v, w)
				}
			case Freed:
				if rb.Location[v] >= 0 {
					rt.Fatalf("freed op %d kept on w%d", v, rb.Location[v])
				}
			default:
				rt.Fatalf("op %d rebuilt as %v", v, st)
			}
		}
		for v, st := range rb.State {
			if st == Finished && !needed[v] {
				rt.Fatalf("op %d kept though nothing needs it", v)
			}
		}
		if reused != rb.Reused || rerun != rb.Rerun {
			rt.Fatalf("counted %d reused, %d rerun; states say %d, %d", rb.Reused, rb.Rerun, reused, rerun)
		}
	})
}
