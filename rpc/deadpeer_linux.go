package rpc

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// deadPeerTimeout bounds how long sent data may stay unacknowledged
// before the connection fails (TCP_USER_TIMEOUT).
const deadPeerTimeout = 15 * time.Second

// deadPeerControl sets TCP_USER_TIMEOUT on a dialled socket.
func deadPeerControl(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(deadPeerTimeout/time.Millisecond))
	})
	if err != nil {
		return err
	}
	return serr
}
