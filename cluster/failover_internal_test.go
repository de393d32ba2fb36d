package cluster

import (
	"github.com/phobos-tensor/phobos/cluster/ha"

	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Two takeovers of one session from the same reading of its record: the
// transaction on the record lets exactly one raise the fencing token; the
// other is told the record changed, and nothing holds the session twice.
// A session whose record names a live scheduler is not orphaned, and is
// not taken over even by a scheduler whose ring lags etcd; one
// whose owner left the ring and that the ring maps here is, and until it
// is held a request for it is Unavailable (a pause), not "no session".
func TestTakeOverRaisesTheTokenOnce(t *testing.T) {
	ctx := context.Background()
	p, cli, deadline := startS0WithS1(t)
	// A session of s1, which is registered: not orphaned, and a takeover
	// (as from a ring that had not seen s1 yet) is refused by etcd.
	live := ha.SessionRecord{Session: "sl", Scheduler: "s1", Created: time.Now(), Fence: 1}
	val, _ := json.Marshal(live)
	put, err := cli.Put(ctx, ha.SessionsPrefix+"sl", string(val))
	if err != nil {
		t.Fatal(err)
	}
	if p.ring.failover.Orphaned("sl", "s1") {
		t.Error("a session of a live scheduler counts as orphaned")
	}
	if err := p.ring.failover.TakeOver(ctx, live, put.Header.Revision); !errors.Is(err, ha.ErrOwnerAlive) {
		t.Errorf("taking over a live scheduler's session: %v, want ha.ErrOwnerAlive", err)
	}
	if got, err := cli.Get(ctx, ha.SessionsPrefix+"sl"); err != nil || len(got.Kvs) != 1 || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Errorf("the live session's record changed: %v %v", got, err)
	}
	if heldAt(p, "sl") != nil {
		t.Error("a live scheduler's session is held here")
	}

	// Two takeovers of a session whose owner (s9) is gone but which the
	// ring maps to s1, so s0's watcher does not take it over itself.
	sid := sessionMappedTo(p, "sx", "s1")
	rec := ha.SessionRecord{Session: sid, Scheduler: "s9", Created: time.Now(), Fence: 1}
	rev := putSessionRecord(t, cli, rec)
	if p.ring.failover.Orphaned(sid, "s9") {
		t.Error("a session the ring maps to s1 counts as orphaned at s0")
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.ring.failover.TakeOver(ctx, rec, rev)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ha.ErrTakenOver):
			t.Errorf("the losing takeover: %v, want ha.ErrTakenOver", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d takeovers succeeded (%v), want 1", won, errs)
	}
	// The winner holds the session under token 2. s0's watcher may hand
	// it back to s1 (the ring maps it there) at any pass after the
	// takeover, a lease TTL or a ring change later: then s0 no longer
	// holds it and the record names s1, under the same token.
	if ss := heldAt(p, sid); ss != nil && (ss.fence.Token != 2 || ss.fence.Scope != sid) {
		t.Fatalf("the session held: %+v, want fence 2 of scope %s", ss.fence, sid)
	}
	for {
		after, rev := getSessionRecord(t, cli, sid)
		if after.Fence != 2 || (after.Scheduler != "s0" && after.Scheduler != "s1") {
			t.Fatalf("the record after the takeover: %+v, want fence 2 under s0 (or s1, handed back)", after)
		}
		if after.Scheduler == "s1" || heldAt(p, sid) != nil {
			break
		}
		// Not held, but the record names s0: a hand-back between its
		// detaching the session and writing the record.
		if time.Now().After(deadline) {
			t.Fatalf("the session is neither held by s0 nor handed back: %+v", after)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Until(deadline))
		<-cli.Watch(wctx, ha.SessionsPrefix+sid, clientv3.WithRev(rev+1))
		cancel()
	}

	// A session whose owner is gone from the ring: orphaned here (a ring
	// of s0 and s1 maps it to one of them; with s1 gone, to s0), and
	// Unavailable until it is taken over.
	gone := ha.SessionRecord{Session: "sy", Scheduler: "s9", Created: time.Now(), Fence: 4}
	val, _ = json.Marshal(gone)
	if _, err := cli.Put(ctx, ha.SessionsPrefix+"sy", string(val)); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wch := cli.Watch(wctx, ha.SessionsPrefix+"sy")
	if _, err := cli.Delete(ctx, ha.SchedulersPrefix+"s1"); err != nil {
		t.Fatal(err)
	}
	if err := p.missingSession(ctx, "nosuch"); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("a session nobody recorded: %v, want NotFound", err)
	}
	// The watcher takes sy over (at the ring's change, or within a TTL):
	// its record names s0 under token 5, and until s0 holds the session
	// a request for it is a pause.
	for taken := false; !taken; {
		wr, ok := <-wch
		if !ok {
			t.Fatal("the watch of sy ended")
		}
		for _, ev := range wr.Events {
			var r ha.SessionRecord
			if json.Unmarshal(ev.Kv.Value, &r) == nil && r.Scheduler == "s0" {
				if r.Fence != 5 {
					t.Errorf("sy taken over under token %d, want 5", r.Fence)
				}
				taken = true
			}
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if held := heldAt(p, "sy"); held != nil {
			if held.fence.Token != 5 {
				t.Errorf("sy held under token %d, want 5", held.fence.Token)
			}
			break
		}
		err := p.missingSession(ctx, "sy")
		if heldAt(p, "sy") == nil && connect.CodeOf(err) != connect.CodeUnavailable {
			t.Fatalf("a session being taken over: %v, want Unavailable", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("sy is not held after its takeover")
		}
		<-tick.C
	}
}

// startS0WithS1 starts scheduler s0 of a ring (a lease TTL of 2 s) on an
// etcd of its own, and registers "s1" without a scheduler behind it, so
// no watcher takes s1's sessions over by itself. It returns s0, its etcd
// client and a deadline for the test's waits.
func startS0WithS1(t *testing.T) (*SchedulerProc, *clientv3.Client, time.Time) {
	t.Helper()
	ctx := context.Background()
	ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ee.Close)
	p, err := StartScheduler(SchedulerConfig{Etcd: []string{ee.Endpoint()}, ID: "s0", LeaseTTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	deadline := time.Now().Add(30 * time.Second)
	for r, _, changed := p.ring.members.Snapshot(); !r.Has("s0"); r, _, changed = p.ring.members.Snapshot() {
		select {
		case <-changed:
		case <-time.After(time.Until(deadline)):
			t.Fatal("s0 is not in its ring")
		}
	}
	cli := p.ring.cli
	s1, _ := json.Marshal(ha.SchedulerRecord{ID: "s1", Address: "127.0.0.1:9", PID: 1})
	if _, err := cli.Put(ctx, ha.SchedulersPrefix+"s1", string(s1)); err != nil {
		t.Fatal(err)
	}
	// s0 must see s1 in its ring before a session of s1 appears: a
	// session record seen first names a scheduler s0 does not know,
	// which s0 would take over itself (seen in CI under load).
	for r, _, changed := p.ring.members.Snapshot(); !r.Has("s1"); r, _, changed = p.ring.members.Snapshot() {
		<-changed
	}
	return p, cli, deadline
}

// A session held here under a token below its record's was taken over
// by another scheduler while this one was cut off (an etcd outage longer
// than the lease): its dispatches are refused by the workers the
// successor fenced, so the next failover pass takes it out of memory, and
// the record, which names a live scheduler, is left as it is.
func TestStaleSessionIsDropped(t *testing.T) {
	ctx := context.Background()
	p, cli, deadline := startS0WithS1(t)
	// A session the ring maps to s0, orphaned by s9: s0 takes it over
	// under token 2 and holds it.
	sid := sessionMappedTo(p, "sz", "s0")
	rec := ha.SessionRecord{Session: sid, Scheduler: "s9", Created: time.Now(), Fence: 1}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	if err := p.ring.failover.TakeOver(ctx, rec, putSessionRecord(t, cli, rec)); err != nil && !errors.Is(err, ha.ErrTakenOver) {
		t.Fatal(err)
	}
	// ErrTakenOver: s0's watcher took it over first, and may still be
	// adopting it.
	for heldAt(p, sid) == nil && time.Now().Before(deadline) {
		<-tick.C
	}
	if ss := heldAt(p, sid); ss == nil || ss.fence.Token != 2 {
		t.Fatalf("the session taken over: %+v, want it held under token 2", ss)
	}
	// Meanwhile s1 took it over under token 3, unseen by s0.
	rec.Scheduler, rec.Fence = "s1", 3
	putSessionRecord(t, cli, rec)
	for heldAt(p, sid) != nil {
		if time.Now().After(deadline) {
			t.Fatal("s0 still holds the session s1 took over")
		}
		<-tick.C
	}
	if after, _ := getSessionRecord(t, cli, sid); after.Scheduler != "s1" || after.Fence != 3 {
		t.Errorf("the record after s0 dropped the session: %+v, want s1's under token 3", after)
	}
}

// sessionMappedTo is a session id, prefix and a number, that p's ring
// maps to scheduler owner.
func sessionMappedTo(p *SchedulerProc, prefix, owner string) string {
	r, _, _ := p.ring.members.Snapshot()
	for i := 0; ; i++ {
		if c := prefix + strconv.Itoa(i); r.Owner(c) == owner {
			return c
		}
	}
}

// putSessionRecord writes rec to etcd and returns the revision it made.
func putSessionRecord(t *testing.T, cli *clientv3.Client, rec ha.SessionRecord) int64 {
	t.Helper()
	val, _ := json.Marshal(rec)
	put, err := cli.Put(context.Background(), ha.SessionsPrefix+rec.Session, string(val))
	if err != nil {
		t.Fatal(err)
	}
	return put.Header.Revision
}

// getSessionRecord reads session sid's record and the revision read.
func getSessionRecord(t *testing.T, cli *clientv3.Client, sid string) (ha.SessionRecord, int64) {
	t.Helper()
	got, err := cli.Get(context.Background(), ha.SessionsPrefix+sid)
	if err != nil {
		t.Fatal(err)
	}
	var rec ha.SessionRecord
	if len(got.Kvs) != 1 {
		t.Fatalf("session %s has no record", sid)
	}
	if err := json.Unmarshal(got.Kvs[0].Value, &rec); err != nil {
		t.Fatal(err)
	}
	return rec, got.Header.Revision
}

// heldAt is session sid as p holds it in memory, nil if it does not.
func heldAt(p *SchedulerProc, sid string) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.sessions[sid]
}
