package ha

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/phobos-tensor/phobos/rpc"
)

// EmbeddedEtcd is a one-member etcd server run inside this process, so a
// one-machine cluster of several schedulers needs nothing installed: the
// coordination service is etcd's own code (go.etcd.io/etcd/server/v3),
// not ours. A production cluster runs etcd apart and passes its endpoints
// to each role's --etcd.
type EmbeddedEtcd struct {
	stop     sync.Once
	e        *embed.Etcd
	dir      string
	tmp      bool
	endpoint string
	peer     string
}

// EtcdConfig places an embedded etcd.
type EtcdConfig struct {
	// Dir holds its data ("": a temporary directory, removed at Close).
	Dir string
	// Client and Peer are the addresses it listens on (host:port; ""
	// or port 0: a free loopback port). Restarting on the same Dir and
	// Client address brings the same etcd back to its clients.
	Client, Peer string
	// TLS, with a certificate and a CA, makes it serve its clients over
	// HTTPS and ask them for a certificate of that CA (the roles present
	// theirs); peers stay on the loopback address of one member.
	TLS rpc.TLSFiles
}

// StartEtcd starts an embedded etcd and returns once it serves.
func StartEtcd(ctx context.Context, c EtcdConfig) (*EmbeddedEtcd, error) {
	ee := &EmbeddedEtcd{dir: c.Dir}
	if ee.dir == "" {
		dir, err := os.MkdirTemp("", "phobos-etcd-")
		if err != nil {
			return nil, fmt.Errorf("etcd: %w", err)
		}
		ee.dir, ee.tmp = dir, true
	}
	cfg := embed.NewConfig()
	cfg.Name = "phobos"
	cfg.Dir = ee.dir
	// etcd logs each listener it closes as an error; what matters (it
	// did not start, or failed) comes back through StartEtcd and Err.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// Membership and graph records are small and rebuilt from workers
	// and clients after a crash: fsync buys nothing here but latency.
	cfg.UnsafeNoFsync = true
	cu, err := loopbackURL(c.Client)
	if err != nil {
		return nil, fmt.Errorf("etcd: client address: %w", err)
	}
	pu, err := loopbackURL(c.Peer)
	if err != nil {
		return nil, fmt.Errorf("etcd: peer address: %w", err)
	}
	if c.TLS.Mutual() {
		cu.Scheme = "https"
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: c.TLS.Cert, KeyFile: c.TLS.Key, TrustedCAFile: c.TLS.CA, ClientCertAuth: true}
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		ee.removeTmp()
		return nil, fmt.Errorf("etcd: starting in %s: %w", ee.dir, err)
	}
	ee.e = e
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		ee.removeTmp()
		return nil, fmt.Errorf("etcd: %w", err)
	case <-ctx.Done():
		e.Close()
		ee.removeTmp()
		return nil, fmt.Errorf("etcd: not ready: %w", ctx.Err())
	case <-time.After(30 * time.Second):
		e.Close()
		ee.removeTmp()
		return nil, errors.New("etcd: not ready after 30 s")
	}
	// Port 0 chose the ports: advertise what was bound.
	ee.endpoint = cu.Scheme + "://" + e.Clients[0].Addr().String()
	ee.peer = e.Peers[0].Addr().String()
	return ee, nil
}

func loopbackURL(addr string) (*url.URL, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return url.Parse(addr)
}

// Endpoint is the URL clients reach it at.
func (ee *EmbeddedEtcd) Endpoint() string { return ee.endpoint }

// Config is how to start it again where it was: same data, same addresses.
func (ee *EmbeddedEtcd) Config() EtcdConfig {
	return EtcdConfig{Dir: ee.dir, Client: strings.TrimPrefix(ee.endpoint, "http://"), Peer: ee.peer}
}

// Err receives an error if the server fails while running.
func (ee *EmbeddedEtcd) Err() <-chan error { return ee.e.Err() }

// Stop stops the server and keeps its data, so StartEtcd(ee.Config())
// brings it back (tests of a coordination-service outage).
func (ee *EmbeddedEtcd) Stop() { ee.stop.Do(ee.e.Close) }

// Close stops the server and removes a temporary data directory.
func (ee *EmbeddedEtcd) Close() {
	ee.Stop()
	ee.removeTmp()
}

func (ee *EmbeddedEtcd) removeTmp() {
	if ee.tmp {
		_ = os.RemoveAll(ee.dir)
	}
}
