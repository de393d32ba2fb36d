package calls

import (
	"errors"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// heldNode is a program's reference to a persisted result: the session's
// graph id, the result's index and its meta. The cluster fills in where
// its chunks are; a client does not say.
func heldNode(h ops.Held) (*tensor.Tensor, error) {
	if h.Ref == "" || h.Graph != 0 || h.Nodes != nil || h.Splits != nil {
		return nil, &Error{Kind: "TypeError", Err: errors.New(`"held" names a graph of the session by "ref", a "result" index and its "meta"; the cluster knows where its chunks are`)}
	}
	if err := ops.CheckUploadIDs(h.Ref); err != nil {
		return nil, &Error{Kind: "ValueError", Err: err}
	}
	t := tensor.New(h)
	if err := t.Err(); err != nil {
		return nil, &Error{Kind: "ValueError", Err: err}
	}
	return t, nil
}
