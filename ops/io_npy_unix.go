//go:build unix

package ops

import (
	"io/fs"
	"syscall"
)

// fileID is a file's device and inode.
func fileID(fi fs.FileInfo) [2]int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]int64{int64(st.Dev), int64(st.Ino)}
	}
	return [2]int64{}
}
