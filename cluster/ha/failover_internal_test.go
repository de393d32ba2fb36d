package ha

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// fakeGraphs is a graph service that records what failover asks of it.
type fakeGraphs struct {
	mu       sync.Mutex
	asked    []protocol.GraphID
	fence    protocol.Fence
	ended    map[string]string // graph: state, and the error if any
	restart  []string
	adopted  map[string]int // graph: chunks held by the workers
	held     int
	sessions []Held
}

func (f *fakeGraphs) Serving() error        { return nil }
func (f *fakeGraphs) Holds(sid string) bool { return false }
func (f *fakeGraphs) Sessions() []Held      { return f.sessions }

func (f *fakeGraphs) Inventory(ctx context.Context, fence protocol.Fence, runs []protocol.GraphID) (*rpc.Inventory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked, f.fence = runs, fence
	held := map[protocol.GraphID]map[int][]rpc.HeldChunk{}
	for _, r := range runs {
		held[r] = map[int][]rpc.HeldChunk{0: {{Key: protocol.ChunkKey{Graph: r, Node: 1}, Nbytes: 8}}}
	}
	return &rpc.Inventory{Held: held}, nil
}

func (f *fakeGraphs) NewSession(rec SessionRecord, fence protocol.Fence) Adopting { return f }

func (f *fakeGraphs) Ended(gr GraphRecord, state string, err error) {
	f.ended[gr.Graph] = state
	if err != nil {
		f.ended[gr.Graph] += ": " + err.Error()
	}
}

func (f *fakeGraphs) Restart(gr GraphRecord, tg *graph.TileableGraph) {
	f.restart = append(f.restart, gr.Graph+"@"+gr.Scheduler)
}

func (f *fakeGraphs) Adopt(ctx context.Context, gr GraphRecord, tg *graph.TileableGraph, held map[int][]rpc.HeldChunk) (int, int, error) {
	f.adopted[gr.Graph+"@"+gr.Scheduler] = len(held[0])
	return 1, 0, nil
}

func (f *fakeGraphs) Hold() (int, error) {
	f.held++
	return len(f.ended) + len(f.restart) + len(f.adopted), nil
}

// fakeHeld is a held session whose graph may be in progress.
type fakeHeld struct {
	busy     bool
	detached bool
	kept     bool
	dropped  bool
	released chan struct{}
}

func (h *fakeHeld) ID() string    { return "sh" }
func (h *fakeHeld) Token() uint64 { return 2 }
func (h *fakeHeld) Detach() bool  { h.detached = !h.busy; return !h.busy }
func (h *fakeHeld) Keep()         { h.kept = true }
func (h *fakeHeld) Drop() int     { h.dropped = true; return 1 }
func (h *fakeHeld) Release()      { close(h.released) }

// TakeOver, without the scheduler process: it raises the token once,
// asks the workers' inventory for the runs of graphs that did not end
// without success, and sorts the recorded graphs (ended, restarted,
// adopted, failed when a record cannot be rebuilt), each rewritten under
// this scheduler. handOver names the successor and releases the runs only
// once the successor's token is in etcd; a busy session stays.
func TestFailoverWithoutScheduler(t *testing.T) {
	ctx := context.Background()
	ee, err := StartEtcd(ctx, EtcdConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ee.Close)
	cli, err := DialEtcd([]string{ee.Endpoint()}, rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	fg := &fakeGraphs{ended: map[string]string{}, adopted: map[string]int{}}
	f := NewFailover(cli, NewMembers(), "s0", time.Second, fg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)

	tg, _, err := tensor.Build(tensor.Ones([]int{4}, tensor.Chunks(2)).Sum())
	if err != nil {
		t.Fatal(err)
	}
	tj, _, _, err := TileableRecord(tg)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, v any) int64 {
		b, _ := json.Marshal(v)
		resp, err := cli.Put(ctx, key, string(b))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	for _, gr := range []GraphRecord{
		{Graph: "g1", State: protocol.GraphFailed, Error: "boom", Run: 1},
		{Graph: "g2", State: protocol.GraphPreparing},
		{Graph: "g3", State: protocol.GraphRunning, Run: 3},
		{Graph: "g4", State: protocol.GraphRunning, Run: 4, StrippedLiterals: []int{0}},
		{Graph: "g5", State: protocol.GraphSucceeded, Run: 5},
	} {
		gr.Session, gr.Scheduler, gr.Tileable = "sx", "s9", tj
		put(GraphKey("sx", gr.Graph), gr)
	}
	rec := SessionRecord{Session: "sx", Scheduler: "s9", Fence: 1}
	rev := put(SessionsPrefix+"sx", rec)
	if err := f.TakeOver(ctx, rec, rev); err != nil {
		t.Fatal(err)
	}
	if err := f.TakeOver(ctx, rec, rev); !errors.Is(err, ErrTakenOver) {
		t.Errorf("a second takeover from the same revision: %v, want ErrTakenOver", err)
	}
	if !slices.Equal(fg.asked, []protocol.GraphID{3, 4, 5}) || fg.fence != (protocol.Fence{Scope: "sx", Token: 2}) {
		t.Errorf("inventory asked for runs %v under %+v, want [3 4 5] under token 2 of sx", fg.asked, fg.fence)
	}
	if fg.ended["g1"] != "FAILED: boom" || !strings.HasPrefix(fg.ended["g4"], "FAILED: taking over graph g4 from scheduler s9") || len(fg.ended) != 2 {
		t.Errorf("ended graphs %q", fg.ended)
	}
	if !slices.Equal(fg.restart, []string{"g2@s0"}) || fg.adopted["g3@s0"] != 1 || fg.adopted["g5@s0"] != 1 || len(fg.adopted) != 2 || fg.held != 1 {
		t.Errorf("restarted %v, adopted %v, held %d times", fg.restart, fg.adopted, fg.held)
	}
	got, err := cli.Get(ctx, SessionsPrefix+"sx")
	if err != nil {
		t.Fatal(err)
	}
	var after SessionRecord
	if err := json.Unmarshal(got.Kvs[0].Value, &after); err != nil || after.Fence != 2 || after.Scheduler != "s0" {
		t.Errorf("the record after the takeover: %+v (%v), want token 2 under s0", after, err)
	}

	// Handing back: a busy session stays, unnamed; an idle one names s1,
	// and its runs are released once s1's token is in etcd.
	put(SessionsPrefix+"sh", SessionRecord{Session: "sh", Scheduler: "s0", Fence: 2})
	busy := &fakeHeld{busy: true, released: make(chan struct{})}
	if err := f.handOver(ctx, busy, "s1"); err != nil || busy.dropped {
		t.Errorf("handing over a busy session: %v, dropped %v", err, busy.dropped)
	}
	h := &fakeHeld{released: make(chan struct{})}
	if err := f.handOver(ctx, h, "s1"); err != nil || !h.detached || h.kept || !h.dropped {
		t.Fatalf("handing over: %v; detached %v kept %v dropped %v", err, h.detached, h.kept, h.dropped)
	}
	got, err = cli.Get(ctx, SessionsPrefix+"sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got.Kvs[0].Value, &after); err != nil || after.Scheduler != "s1" || after.Fence != 2 {
		t.Fatalf("the record handed over: %+v (%v), want s1 under token 2", after, err)
	}
	select {
	case <-h.released:
		t.Fatal("runs released before the successor's token")
	default:
	}
	put(SessionsPrefix+"sh", SessionRecord{Session: "sh", Scheduler: "s1", Fence: 3})
	select {
	case <-h.released:
	case <-time.After(30 * time.Second):
		t.Fatal("runs not released after the successor's token")
	}
}
