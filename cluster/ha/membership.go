package ha

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/phobos-tensor/phobos/cluster/ring"
	"github.com/phobos-tensor/phobos/rpc"
)

// The etcd keys of a cluster. A scheduler's record lives under its lease,
// so it goes when the scheduler stops renewing it.
const (
	SchedulersPrefix = "/phobos/schedulers/"
	GraphsPrefix     = "/phobos/graphs/"
	SessionsPrefix   = "/phobos/sessions/"
	LiteralsPrefix   = "/phobos/literals/"
)

// DefaultLeaseTTL is how long a scheduler's membership outlives its last
// renewal. A scheduler that cannot renew for this long stops taking
// graphs; failover (failover.go) moves its sessions after it.
const DefaultLeaseTTL = 5 * time.Second

// SchedulerRecord is a scheduler's membership record in etcd, and how the
// REST API names a session's owner.
type SchedulerRecord struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	PID     int    `json:"pid"`
}

// DialEtcd is an etcd client of endpoints ("host:port" or URLs).
func DialEtcd(endpoints []string, files rpc.TLSFiles) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("no etcd endpoints")
	}
	// https:// endpoints: the role's roots and certificate, which an etcd
	// that checks client certificates asks for.
	var tlsCfg *tls.Config
	if slices.ContainsFunc(endpoints, func(e string) bool { return strings.HasPrefix(e, "https://") }) {
		cfg, err := files.Client()
		if err != nil {
			return nil, fmt.Errorf("etcd: %w", err)
		}
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		tlsCfg = cfg
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		TLS:         tlsCfg,
		DialTimeout: 2 * time.Second,
		// gRPC's reconnect backoff grows to two minutes by default: after
		// an etcd outage of a minute or two a role would stay cut off
		// for as long again, its lease lapsed. A second at most between
		// attempts to a few endpoints costs nothing.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 2 * time.Second,
		})},
		// etcd's client logs every retry of an unreachable endpoint;
		// the roles say what matters (a lapsed lease) themselves.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd %s: %w", strings.Join(endpoints, ","), err)
	}
	return cli, nil
}

// members is a live view of the schedulers registered in etcd and the ring
// they make. Every role that watches the same etcd builds the same ring.
type Members struct {
	mu   sync.Mutex
	byID map[string]SchedulerRecord
	// known holds every scheduler seen since, at its last address: when
	// etcd is unreachable (or has expired their leases), the web service
	// still reaches the schedulers that hold sessions, which refuse new
	// graphs themselves and keep serving results.
	known   map[string]SchedulerRecord
	ring    *ring.Ring
	changed chan struct{} // closed (and replaced) at each change
}

func NewMembers() *Members {
	r, _ := ring.New(nil, 0)
	return &Members{byID: map[string]SchedulerRecord{}, known: map[string]SchedulerRecord{}, ring: r, changed: make(chan struct{})}
}

// snapshot is the current ring, the records by id, and a channel closed
// at the next change.
func (m *Members) Snapshot() (*ring.Ring, map[string]SchedulerRecord, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ring, m.byID, m.changed
}

// formerly are the schedulers seen before that are not in the ring now,
// by id.
func (m *Members) Formerly() []SchedulerRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []SchedulerRecord
	for id, rec := range m.known {
		if _, ok := m.byID[id]; !ok {
			out = append(out, rec)
		}
	}
	slices.SortFunc(out, func(a, b SchedulerRecord) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// set replaces the membership; the maps given are not kept by callers.
func (m *Members) set(by map[string]SchedulerRecord) {
	ids := make([]string, 0, len(by))
	for id := range by {
		ids = append(ids, id)
	}
	r, err := ring.New(ids, 0)
	if err != nil {
		return // ids are etcd keys: distinct and not empty
	}
	m.mu.Lock()
	m.byID, m.ring = by, r
	for id, rec := range by {
		m.known[id] = rec
	}
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// watch keeps m in step with the records under SchedulersPrefix until ctx
// ends: a listing, then a watch from the listing's revision; when the
// watch breaks (etcd unreachable, history compacted) it lists again.
func (m *Members) Watch(ctx context.Context, cli *clientv3.Client, log *slog.Logger) {
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := m.watchOnce(ctx, cli)
		if ctx.Err() != nil {
			return
		}
		log.Debug("watching the schedulers in etcd", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (m *Members) watchOnce(ctx context.Context, cli *clientv3.Client) error {
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	resp, err := cli.Get(lctx, SchedulersPrefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return err
	}
	by := map[string]SchedulerRecord{}
	for _, kv := range resp.Kvs {
		if rec, ok := decodeRecord(kv.Key, kv.Value); ok {
			by[rec.ID] = rec
		}
	}
	m.set(by)
	// WithRequireLeader ends the watch when etcd loses its quorum (or the
	// client its connection), rather than leaving it silent.
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range cli.Watch(wctx, SchedulersPrefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1)) {
		if err := wr.Err(); err != nil {
			return err
		}
		m.mu.Lock()
		next := make(map[string]SchedulerRecord, len(m.byID)+1)
		for k, v := range m.byID {
			next[k] = v
		}
		m.mu.Unlock()
		for _, ev := range wr.Events {
			id := strings.TrimPrefix(string(ev.Kv.Key), SchedulersPrefix)
			if ev.Type == clientv3.EventTypeDelete {
				delete(next, id)
			} else if rec, ok := decodeRecord(ev.Kv.Key, ev.Kv.Value); ok {
				next[rec.ID] = rec
			}
		}
		m.set(next)
	}
	return errors.New("watch ended")
}

// decodeRecord reads a scheduler's record; one that does not decode, or
// whose id is not its key's, is skipped (it cannot be routed to).
func decodeRecord(key, value []byte) (SchedulerRecord, bool) {
	var rec SchedulerRecord
	if json.Unmarshal(value, &rec) != nil || rec.ID == "" || rec.Address == "" || SchedulersPrefix+rec.ID != string(key) {
		return SchedulerRecord{}, false
	}
	return rec, true
}

// lease keeps a scheduler's record in etcd under a lease it renews, and
// knows whether the scheduler may act as a member: only while the lease is
// surely alive in etcd. Renewals are counted from when they were sent, so
// the local deadline never outlasts etcd's.
type Lease struct {
	cli *clientv3.Client
	Rec SchedulerRecord
	ttl time.Duration
	log *slog.Logger

	mu      sync.Mutex
	id      clientv3.LeaseID // 0: none granted (or it expired)
	until   time.Time        // the lease is alive in etcd at least until then
	lastErr error
	lapsed  bool // the lapse was logged
}

// NewLease is the lease that keeps rec in etcd, renewed within ttl once
// Run is called; rec's address may be set until then.
func NewLease(cli *clientv3.Client, rec SchedulerRecord, ttl time.Duration, log *slog.Logger) *Lease {
	return &Lease{cli: cli, Rec: rec, ttl: ttl, log: log}
}

// ErrNoLease is the typed refusal of a scheduler without a live lease.
type ErrNoLease struct {
	id     string
	Reason string // why it must not take work
}

func (e *ErrNoLease) Error() string {
	return fmt.Sprintf("scheduler %s is not serving: %s; it takes no graphs until it is back in the ring (the cluster's etcd must be reachable)", e.id, e.Reason)
}

// check is nil while the lease is alive, else why the scheduler must not
// take work.
func (l *Lease) Check(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id != 0 && now.Before(l.until) {
		return nil
	}
	reason := "not registered in etcd yet"
	if !l.until.IsZero() {
		reason = fmt.Sprintf("its etcd lease lapsed %v ago (etcd unreachable for longer than the %v lease)", now.Sub(l.until).Round(100*time.Millisecond), l.ttl)
	}
	if l.lastErr != nil {
		reason += ": " + l.lastErr.Error()
	}
	return &ErrNoLease{id: l.Rec.ID, Reason: reason}
}

// run registers and renews until ctx ends, then revokes the lease (best
// effort), taking the record out of etcd at once.
func (l *Lease) Run(ctx context.Context) {
	every := l.ttl / 4
	for {
		l.renew(ctx)
		select {
		case <-ctx.Done():
			l.mu.Lock()
			id := l.id
			l.mu.Unlock()
			if id != 0 {
				rctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_, _ = l.cli.Revoke(rctx, id)
				cancel()
			}
			return
		case <-time.After(every):
		}
	}
}

// renew extends the lease, or grants a new one and writes the record
// under it when there is none (first start, or it expired in etcd while
// unreachable).
func (l *Lease) renew(ctx context.Context) {
	sent := time.Now()
	rctx, cancel := context.WithTimeout(ctx, l.ttl/3)
	defer cancel()
	l.mu.Lock()
	id := l.id
	l.mu.Unlock()
	var ttl time.Duration
	var err error
	if id != 0 {
		var resp *clientv3.LeaseKeepAliveResponse
		if resp, err = l.cli.KeepAliveOnce(rctx, id); err == nil {
			ttl = time.Duration(resp.TTL) * time.Second
		} else if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			l.log.Warn("the scheduler's etcd lease expired; registering again", "scheduler", l.Rec.ID)
			id = 0
		}
	}
	if id == 0 {
		id, ttl, err = l.register(rctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.lastErr = err
		if id == 0 {
			l.id = 0
		}
		if !l.lapsed && !time.Now().Before(l.until) {
			l.lapsed = true
			l.log.Error("no live etcd lease; the scheduler takes no graphs", "scheduler", l.Rec.ID, "err", err)
		}
		return
	}
	if l.lapsed || l.until.IsZero() {
		l.log.Info("the scheduler is in the ring", "scheduler", l.Rec.ID, "address", l.Rec.Address)
	}
	l.id, l.until, l.lastErr, l.lapsed = id, sent.Add(ttl), nil, false
}

func (l *Lease) register(ctx context.Context) (clientv3.LeaseID, time.Duration, error) {
	g, err := l.cli.Grant(ctx, int64(max(1, l.ttl/time.Second)))
	if err != nil {
		return 0, 0, fmt.Errorf("granting a lease: %w", err)
	}
	val, _ := json.Marshal(l.Rec)
	if _, err := l.cli.Put(ctx, SchedulersPrefix+l.Rec.ID, string(val), clientv3.WithLease(g.ID)); err != nil {
		return 0, 0, fmt.Errorf("writing %s: %w", SchedulersPrefix+l.Rec.ID, err)
	}
	return g.ID, time.Duration(g.TTL) * time.Second, nil
}
