// Package rpc carries the control plane of a Phobos cluster over connect-go
// and protobuf (definitions in rpc/proto, generated code in rpc/phobosv1;
// `go generate ./rpc/` regenerates it), and chunk bytes over plain HTTP/1.1.
// It converts between the wire messages and package protocol's Go values and
// holds no policy: what to send where is the scheduler's business.
package rpc

//go:generate sh gen.sh

import (
	"net"
	"net/http"
	"time"

	"connectrpc.com/connect"
)

// MaxMessageBytes bounds one control message. Task batches can carry client
// data (literal chunks), so the bound is generous; it still stops a corrupt
// length from allocating without limit.
const MaxMessageBytes = 1 << 30

// ClientOptions are the connect options of every Phobos client: no gzip
// (control messages are small and latency matters more than bytes on a
// local network; connect clients accept gzip unless told otherwise).
func ClientOptions() []connect.ClientOption {
	return []connect.ClientOption{
		connect.WithAcceptCompression("gzip", nil, nil),
		connect.WithReadMaxBytes(MaxMessageBytes),
		connect.WithSendMaxBytes(MaxMessageBytes),
	}
}

// HandlerOptions are the connect options of every Phobos handler: gzip
// removed, message size bounded.
func HandlerOptions() []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCompression("gzip", nil, nil),
		connect.WithReadMaxBytes(MaxMessageBytes),
		connect.WithSendMaxBytes(MaxMessageBytes),
	}
}

// NewHTTPClient is the HTTP/1.1 client the roles use for RPCs and chunk
// fetches: keep-alive connections enough for every slot of a worker, no
// transparent gzip (chunk bytes are raw floats and compress poorly).
//
// A peer whose host vanished (a cut link, a powered-off machine) sends
// neither data nor a reset, so a request on a kept-alive connection would
// wait for the kernel's defaults, minutes: probes after 5 s of silence,
// and unacknowledged data given up after deadPeerTimeout, bound that, so a
// chunk read from such a peer fails and is recomputed elsewhere.
func NewHTTPClient() *http.Client {
	d := &net.Dialer{
		Timeout:         5 * time.Second,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 2 * time.Second, Count: 5},
		Control:         deadPeerControl,
	}
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil, // loopback and cluster-internal addresses only
		DialContext:         d.DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}}
}
