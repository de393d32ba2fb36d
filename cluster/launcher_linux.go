package cluster

import (
	"os/exec"
	"syscall"
)

// setChildAttrs makes the kernel kill a child if the launcher dies without
// stopping it (kill -9, a crash), so no orphan role keeps its port.
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
