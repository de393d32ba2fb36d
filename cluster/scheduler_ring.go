package cluster

import (
	"github.com/phobos-tensor/phobos/cluster/ha"

	"context"
	"errors"
	"os"
	"sort"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// ringMember is a scheduler's place in a ring of schedulers: its record
// in etcd under a lease it renews, and the watched membership every
// scheduler and web service builds the same ring from.
type ringMember struct {
	cli     *clientv3.Client
	lease   *ha.Lease
	members *ha.Members
	records *ha.RecordWriter
	// failover takes orphaned sessions over and hands them back.
	failover *ha.Failover
	cancel   context.CancelFunc
	done     chan struct{}
}

// newRing prepares the scheduler's place in the ring, before it serves
// (so every request sees p.ring set); startRing joins once its URL is
// known.
func (p *SchedulerProc) newRing() error {
	cli, err := ha.DialEtcd(p.cfg.Etcd, p.cfg.TLS)
	if err != nil {
		return err
	}
	id := p.cfg.ID
	if id == "" {
		host, _ := os.Hostname()
		id = host + "-" + newID()[:8]
	}
	members := ha.NewMembers()
	p.ring = &ringMember{
		cli:      cli,
		lease:    ha.NewLease(cli, ha.SchedulerRecord{ID: id, PID: os.Getpid()}, p.cfg.LeaseTTL, p.log),
		members:  members,
		records:  ha.NewRecordWriter(cli, p.log),
		failover: ha.NewFailover(cli, members, id, p.cfg.LeaseTTL, failoverGraphs{p}, p.log),
		done:     make(chan struct{}),
	}
	return nil
}

// startRing registers the scheduler in etcd and watches the ring. It
// returns at once: until its record is written the scheduler takes no
// graphs (serving says why).
func (p *SchedulerProc) startRing() {
	r := p.ring
	r.lease.Rec.Address = p.URL()
	if p.cfg.Advertise == "" {
		// Told nothing, a listener on every interface is recorded by
		// this host's address on the route to etcd.
		r.lease.Rec.Address = towards(p.URL(), p.cfg.Listen, p.cfg.Etcd[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.members.Watch(ctx, r.cli, p.log)
		}()
		orphans := make(chan struct{})
		go func() {
			defer close(orphans)
			r.failover.Watch(ctx)
		}()
		r.lease.Run(ctx)
		<-done
		<-orphans
	}()
}

// leaveRing revokes the lease (the record goes from etcd at once, so the
// others rebuild the ring now, not after the TTL) and stops watching.
func (p *SchedulerProc) leaveRing() {
	if p.ring == nil {
		return
	}
	p.ring.records.Close()
	if p.ring.cancel != nil {
		p.ring.cancel()
		<-p.ring.done
	}
	p.ring.failover.Close()
	_ = p.ring.cli.Close()
}

// ringID is this scheduler's id in the ring, "" alone.
func (p *SchedulerProc) ringID() string {
	if p.ring == nil {
		return ""
	}
	return p.ring.lease.Rec.ID
}

// serving is nil when the scheduler may take sessions and graphs: always
// alone; in a ring, only while its lease is surely alive in etcd, so a
// scheduler cut off from etcd stops rather than running beside the one
// the ring moved its sessions to.
func (p *SchedulerProc) serving() error {
	if p.ring == nil {
		return nil
	}
	if err := p.ring.lease.Check(time.Now()); err != nil {
		return connect.NewError(connect.CodeUnavailable, err)
	}
	return nil
}

// newSessionID is a fresh session id that the ring maps to this scheduler,
// so requests for it, routed by the ring, come here. Alone (or while
// the watched ring does not hold this scheduler yet) any id will do.
func (p *SchedulerProc) newSessionID() string {
	if p.ring == nil {
		return newID()
	}
	r, _, _ := p.ring.members.Snapshot()
	self := p.ring.lease.Rec.ID
	if !r.Has(self) {
		return newID()
	}
	// Each try hits with probability 1/members: 64 tries per member
	// fail with odds below e^-64.
	for range 64 * r.Len() {
		if id := newID(); r.Owner(id) == self {
			return id
		}
	}
	return newID()
}

// info is this scheduler's identity and state.
func (p *SchedulerProc) info() *pb.SchedulerInfo {
	si := &pb.SchedulerInfo{Address: p.URL(), Pid: int32(os.Getpid()), State: "serving", RingMembers: 1}
	if p.ring == nil {
		return si
	}
	si.Id = p.ring.lease.Rec.ID
	r, _, _ := p.ring.members.Snapshot()
	si.RingMembers = int32(r.Len())
	if err := p.serving(); err != nil {
		var nl *ha.ErrNoLease
		if errors.As(err, &nl) {
			si.State = "not serving: " + nl.Reason
		} else {
			si.State = err.Error()
		}
	}
	return si
}

func (s *graphService) ListSessions(ctx context.Context, req *connect.Request[pb.ListSessionsRequest]) (*connect.Response[pb.ListSessionsResponse], error) {
	p := s.p
	type cand struct {
		ss     *session
		graphs []*graphRec
	}
	var cands []cand
	now := time.Now()
	p.mu.Lock()
	for _, ss := range p.mu.sessions {
		c := cand{ss: ss}
		for _, g := range ss.graphs {
			c.graphs = append(c.graphs, g)
		}
		cands = append(cands, c)
	}
	idle := make(map[*session]time.Duration, len(cands))
	for _, c := range cands {
		idle[c.ss] = now.Sub(c.ss.lastUsed)
	}
	p.mu.Unlock()
	out := &pb.ListSessionsResponse{Scheduler: p.info(), Sessions: []*pb.SessionInfo{}}
	for _, c := range cands {
		si := &pb.SessionInfo{SessionId: c.ss.id, Graphs: int32(len(c.graphs)), IdleMs: idle[c.ss].Milliseconds()}
		for _, g := range c.graphs {
			g.mu.Lock()
			if !terminal(g.state) {
				si.Running++
			}
			g.mu.Unlock()
		}
		out.Sessions = append(out.Sessions, si)
	}
	sort.Slice(out.Sessions, func(i, j int) bool { return out.Sessions[i].SessionId < out.Sessions[j].SessionId })
	return connect.NewResponse(out), nil
}
