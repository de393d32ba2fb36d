package tensor

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// MapBlocks applies the Go function registered in this binary as name
// (ops.RegisterBlockFunc) to the blocks of ts, lined up block by block:
// every input has the first's shape and chunks, and so has the result, of
// dtype dt. The function must return a block of exactly that dtype and
// shape; another is an error naming it, never a silent cast. Workers run
// it in-process, so every worker binary must register it under the same
// name.
func MapBlocks(name string, dt ndarray.DType, ts ...*Tensor) *Tensor {
	return New(ops.UserBlocks{Label: name, GoFunc: name, DType: dt, BlockID: true, BlockInfo: true}, ts...)
}
