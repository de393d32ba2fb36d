package ops

// View is implemented by chunk ops whose output is a zero-copy strided
// window of their input (a TensorView of the Block Graph): they materialise
// no bytes.
type View interface {
	ChunkOp
	IsView()
}

// ScratchEstimator is implemented by chunk ops whose working memory while
// they run is not one output's worth (the worker's default guess): the
// worker reserves ScratchBytes beside the output before starting them.
type ScratchEstimator interface {
	ChunkOp
	ScratchBytes(out Meta) int64
}

// IsView marks Transpose as a view.
func (Transpose) IsView() {}

// IsView marks Flip as a view.
func (Flip) IsView() {}

// IsView marks Squeeze as a view.
func (Squeeze) IsView() {}

// IsView marks ExpandDims as a view.
func (ExpandDims) IsView() {}

// IsView marks BroadcastChunk as a view.
func (BroadcastChunk) IsView() {}

// IsView marks SliceView as a view.
func (SliceView) IsView() {}

// IsView marks Index as a view: slices and integer indices are strides.
func (Index) IsView() {}

// IsView marks LiteralChunk as a view of client data.
func (LiteralChunk) IsView() {}

// Materializes reports whether a chunk op allocates its output's bytes.
// ReshapeChunk is a view only when its input is contiguous, which is not
// known before running; it is counted as materialising.
func Materializes(op ChunkOp) bool {
	_, v := op.(View)
	return !v
}
