package cluster

import (
	"errors"
	"fmt"
	"strings"
)

// UserCode is whether a worker runs users' Python functions (map_blocks,
// map_overlap, ...): running the user's code is the point of those calls,
// and whoever may submit graphs may then run any program as the worker's
// user, so it is gated (docs/user-functions.md).
type UserCode int

const (
	// UserCodeAuto allows user code on a worker that listens on loopback
	// addresses only and requires a token: the one-machine cluster
	// new_session() and `phobos cluster` start.
	UserCodeAuto UserCode = iota
	// UserCodeOn allows it on any address; a token is still required.
	UserCodeOn
	// UserCodeOff refuses it.
	UserCodeOff
)

// ParseUserCode reads --allow-user-code's value: auto, true or false.
func ParseUserCode(s string) (UserCode, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return UserCodeAuto, nil
	case "true", "on", "yes", "1":
		return UserCodeOn, nil
	case "false", "off", "no", "0":
		return UserCodeOff, nil
	}
	return 0, fmt.Errorf("--allow-user-code: %q is none of auto, true, false", s)
}

func (u UserCode) String() string {
	switch u {
	case UserCodeOn:
		return "true"
	case UserCodeOff:
		return "false"
	}
	return "auto"
}

// ErrUserCodeNeedsToken is --allow-user-code on a worker without a token:
// anyone who reaches it could run programs.
var ErrUserCodeNeedsToken = errors.New("--allow-user-code needs a token (--token-file or $PHOBOS_TOKEN): users' functions are accepted from authenticated clients only")

// allowUserCode decides whether a worker listening on listen with token
// runs users' functions.
func allowUserCode(u UserCode, listen, token string) (bool, error) {
	switch u {
	case UserCodeOff:
		return false, nil
	case UserCodeOn:
		if token == "" {
			return false, ErrUserCodeNeedsToken
		}
		return true, nil
	}
	return token != "" && !Exposed(listen), nil
}
