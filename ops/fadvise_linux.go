package ops

import (
	"os"

	"golang.org/x/sys/unix"
)

// willNeed asks the kernel to start reading [off, off+n) of f at once. A
// chunk of a row-major file is many strided runs, which defeats the
// kernel's readahead: read one after another, each run waits for the disk
// alone; announced together first, they are read in parallel.
func willNeed(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED)
}
