package ndarray

import "fmt"

// TakeBlock is numpy.take(a, idx, axis) for an a whose axis is whole (of
// length a.shape[axis]): the sub-arrays at the positions idx holds
// (negative counting from the end), in the shape a.shape[:axis] +
// idx.shape + a.shape[axis+1:]. An index out of range is NumPy's
// IndexError, worded as TakeJoin words it. It is TakePart and TakeJoin of
// a single block in one step.
func TakeBlock(a, idx *Array, axis int) (*Array, error) {
	if a == nil || idx == nil {
		return nil, fmt.Errorf("ndarray: take: nil array")
	}
	if axis < 0 || axis >= a.NDim() {
		return nil, fmt.Errorf("ndarray: take: axis %d of a %d-D array", axis, a.NDim())
	}
	vals, err := indexValues(idx)
	if err != nil {
		return nil, err
	}
	n := a.shape[axis]
	pos := make([]int, len(vals))
	for k, v := range vals {
		i, ok := takeIndex(v, n)
		if !ok {
			return nil, fmt.Errorf("index %d is out of bounds for axis %d with size %d", v, axis, n)
		}
		pos[k] = i
	}
	rows := takeRows(a, axis, pos)
	shape := append(append(append([]int(nil), a.shape[:axis]...), idx.shape...), a.shape[axis+1:]...)
	return rows.Reshape(shape...)
}
