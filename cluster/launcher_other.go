//go:build !linux

package cluster

import "os/exec"

// setChildAttrs: only Linux can tie a child's life to its parent's.
func setChildAttrs(cmd *exec.Cmd) {}
