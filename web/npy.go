package web

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// npyHeader is the .npy header of an array of dtype dt and shape; the data
// follows it, streamed chunk by chunk.
func npyHeader(dt ndarray.DType, shape []int) ([]byte, error) { return npy.Header(dt, shape) }
