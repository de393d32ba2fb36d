package rpc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/phobos-tensor/phobos/ndarray"
)

// copyIntoFile copies a into its box of the result file path, mapped.
func copyIntoFile(path string, dt ndarray.DType, shape, start []int, a *ndarray.Array) error {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	size, err := shapeBytes(dt, shape)
	if err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("not a regular file")
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("owned by another user")
	case st.Size != int64(size):
		return fmt.Errorf("%d bytes, but a result %v%v is %d", st.Size, dt, shape, size)
	}
	if a.DType() != dt {
		return fmt.Errorf("the chunk is %v, the result %v", a.DType(), dt)
	}
	if size == 0 || a.Size() == 0 {
		return nil
	}
	if err := fitsBox(shape, start, a.Shape()); err != nil {
		return err
	}
	if done, err := writeRuns(fd, dt, shape, start, a); done || err != nil {
		return err
	}
	m, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	defer unix.Munmap(m)
	whole, err := ndarray.Wrap(dt, shape, m)
	if err != nil {
		return err
	}
	box, err := resultBox(whole, start, a.Shape())
	if err != nil {
		return err
	}
	ndarray.CopyInto(box, a)
	return nil
}
