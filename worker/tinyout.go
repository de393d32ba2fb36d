package worker

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// The scalar outputs of a graph of tiny ops (reduction partials and
// combines over small chunks) are made by the million and deleted soon
// after. An op that can write its output into a given array
// (ops.OutputInto) gets one: a spare of its store (a tiny array of a
// chunk deleted before, which the store knows nothing else reads) or, when
// the store has none, a new one the store will keep once the chunk is
// deleted. The output is stored as the store's own (PutOptions.Tiny) only
// when the kernel returned that very array.

// intoTiny is t's op as an ops.OutputInto when its output is tiny (see
// ndarray.FitsTiny), else nil.
func intoTiny(t *protocol.Task) ops.OutputInto {
	into, ok := t.Op.(ops.OutputInto)
	if !ok || !ndarray.FitsTiny(t.Meta.DType, t.Meta.Shape) {
		return nil
	}
	return into
}

// tinyOutput is the array t's kernel may write its output into: r's
// spare made over as t's output, or a new one.
func tinyOutput(r *storage.Reservation, t *protocol.Task) *ndarray.Array {
	if a := r.Spare(); a != nil && ndarray.ResetTiny(a, t.Meta.DType, t.Meta.Shape) {
		return a
	}
	return ndarray.NewTiny(t.Meta.DType, t.Meta.Shape)
}
