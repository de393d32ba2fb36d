package calls

import (
	"encoding/json"
	"errors"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// user_blocks: a user's Python function applied block by block
// (ops.UserBlocks), the one call under the Python client's map_blocks,
// blockwise, map_overlap, map_chunk and apply_gufunc, which line the
// inputs' chunks up with rechunks and compute the output's chunks first,
// as Dask does.
func init() {
	table["user_blocks"] = function{
		params:   []string{"arrays", "payload", "label", "dtype", "nsplits", "in_axes", "block_id", "block_info", "paths", "unknown"},
		required: 6,
		build:    userBlocks,
	}
}

func userBlocks(a *args) (*tensor.Tensor, error) {
	p := a.params()
	ins := p.tensors("arrays")
	dt, _ := p.dtype("dtype")
	op := ops.UserBlocks{DType: dt, BlockID: p.bool("block_id"), BlockInfo: p.bool("block_info")}
	p.str("label", &op.Label)
	if p.err != nil {
		return nil, p.err
	}
	if err := json.Unmarshal(a.vals["payload"], &op.Payload); err != nil {
		return nil, typeErr("payload", errors.New("want the base64 of a cloudpickle payload"))
	}
	if err := json.Unmarshal(a.vals["nsplits"], &op.NSplits); err != nil {
		return nil, typeErr("nsplits", errors.New("want a list of lists of chunk lengths"))
	}
	if err := json.Unmarshal(a.vals["in_axes"], &op.InAxes); err != nil {
		return nil, typeErr("in_axes", errors.New("want a list of lists of output axes"))
	}
	if a.has("paths") {
		if err := json.Unmarshal(a.vals["paths"], &op.Paths); err != nil {
			return nil, typeErr("paths", errors.New("want a list of file paths"))
		}
	}
	if a.has("unknown") {
		// The output axis of unknown length (Dask's NaN chunks): its
		// nsplits are each block's bound.
		ax, err := a.int("unknown", -1)
		if err != nil {
			return nil, err
		}
		op.Unknown = ax + 1
	}
	if len(op.Payload) > ops.MaxUserPayload {
		return nil, &Error{Kind: "ValueError", Err: errors.New("the pickled function is larger than the limit of 4 MiB: pass large data as arrays, not in the function's closure")}
	}
	return tensor.New(op, ins...), nil
}
