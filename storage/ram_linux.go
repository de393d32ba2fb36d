package storage

import "syscall"

// physicalRAM is the machine's total RAM from sysinfo(2).
func physicalRAM() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
