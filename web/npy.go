package web

import (
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

var errHeaderDone = errors.New("header captured")

// headerCapture keeps the first write (npy.Write writes the whole header in
// one call) and refuses the rest.
type headerCapture struct{ b []byte }

func (h *headerCapture) Write(p []byte) (int, error) {
	if h.b != nil {
		return 0, errHeaderDone
	}
	h.b = append([]byte(nil), p...)
	return len(p), nil
}

// npyHeader is the .npy header of an array of dtype dt and shape, made by
// the npy package itself (so it is byte-identical to npy.Write's and
// np.save's) from a broadcast scalar that holds no data.
// TODO(lead): replace with an exported npy.WriteHeader when there is one.
func npyHeader(dt ndarray.DType, shape []int) ([]byte, error) {
	ghost, err := ndarray.Scalar(dt, 0).BroadcastTo(shape)
	if err != nil {
		return nil, err
	}
	var h headerCapture
	if err := npy.Write(&h, ghost); err != nil && !errors.Is(err, errHeaderDone) {
		return nil, err
	}
	if h.b == nil {
		return nil, fmt.Errorf("npy: no header written for %v%v", dt, shape)
	}
	return h.b, nil
}
