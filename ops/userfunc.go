package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		// Any dtype: a user's function takes what it is given; the output
		// is checked against the declared dtype and shape when it runs.
		// Unknown: blocks of unknown length are handed over as they come;
		// the output axis they line up with is of unknown length too.
		Descriptor{Name: "user_blocks", Op: UserBlocks{}, Kinds: Half | Complex, Unknown: true,
			Files: func(op any) []string { return op.(UserBlocks).Paths }},
		Descriptor{Name: "user_block", Op: UserBlock{}},
	)
}

// MaxUserPayload bounds the pickled function a user_blocks op carries: it
// travels inside every chunk op of the graph.
const MaxUserPayload = 4 << 20

// UserBlocks is a user's own function applied block by block (Dask's
// blockwise, map_blocks): one chunk op per output block, whose inputs are
// the blocks of each input that line up with it. The function is either a
// cloudpickle payload, run by a Python executor beside the worker
// (BlockRunner), or a Go function registered in the binary by name
// (RegisterBlockFunc). The output's dtype and chunks are declared; an
// output of another dtype or shape fails the op, naming it.
type UserBlocks struct {
	// Label is the function's name, for errors and explain.
	Label string `json:"label"`
	// Payload is the cloudpickle of the Python callable (with its extra
	// arguments); empty for a Go function.
	Payload []byte `json:"payload,omitempty"`
	// GoFunc names a function registered with RegisterBlockFunc.
	GoFunc string        `json:"go_func,omitempty"`
	DType  ndarray.DType `json:"dtype"`
	// NSplits is the output's chunk sizes along each axis; nil: the first
	// input's shape and chunks (every input of that shape, lined up axis
	// by axis).
	NSplits [][]int `json:"nsplits"`
	// InAxes is, for each input and each of its axes, the output axis whose
	// blocks it lines up with, or -1 for an axis the function consumes
	// (the input must be one chunk along it); nil with NSplits nil.
	InAxes [][]int `json:"in_axes"`
	// BlockID and BlockInfo hand the function its block's position (and,
	// with BlockInfo, every input's and the output's locations), as Dask's
	// block_id= and block_info= keywords do.
	BlockID   bool `json:"block_id,omitempty"`
	BlockInfo bool `json:"block_info,omitempty"`
	// Unknown is 1 + the output axis whose length only the function's
	// results tell (Dask's NaN chunks, Mars's map_chunk without
	// elementwise), or 0: NSplits holds each block's bound there, which
	// a block's length may fall short of (Meta.Unknown).
	Unknown int `json:"unknown,omitempty"`
	// Paths are files the function reads (from_array over an HDF5 file):
	// they must lie under the workers' data roots, checked when the graph
	// is submitted (Descriptor.Files) and again before each call.
	Paths []string `json:"paths,omitempty"`
}

// Type implements TensorOp.
func (UserBlocks) Type() string { return "user_blocks" }

func (op UserBlocks) check(in []Meta) error {
	name := "user function " + op.Label
	if (len(op.Payload) == 0) == (op.GoFunc == "") {
		return fmt.Errorf("%s: exactly one of a payload and a Go function name is needed", name)
	}
	if len(op.Payload) > MaxUserPayload {
		return fmt.Errorf("%s: pickled function is %d bytes, over the limit of %d", name, len(op.Payload), MaxUserPayload)
	}
	if !op.DType.Valid() {
		return fmt.Errorf("%s: invalid output dtype", name)
	}
	if op.NSplits == nil {
		if len(in) == 0 || op.InAxes != nil || op.Unknown != 0 {
			return fmt.Errorf("%s: without output chunks, the output is shaped as the first input: give at least one input and no axis maps", name)
		}
		for i, m := range in {
			if !slices.Equal(m.Shape, in[0].Shape) {
				return fmt.Errorf("%s: input %d has shape %v, input 0 %v: the blocks of inputs of one shape are lined up", name, i, m.Shape, in[0].Shape)
			}
		}
		return nil
	}
	if op.Unknown < 0 || op.Unknown > len(op.NSplits) {
		return fmt.Errorf("%s: unknown axis %d of a %d-D output", name, op.Unknown-1, len(op.NSplits))
	}
	if len(in) != len(op.InAxes) {
		return fmt.Errorf("%s: %d inputs but %d input axis maps", name, len(in), len(op.InAxes))
	}
	for k, s := range op.NSplits {
		for _, c := range s {
			if c < 0 {
				return fmt.Errorf("%s: negative chunk length %d on output axis %d", name, c, k)
			}
		}
		if len(s) == 0 {
			return fmt.Errorf("%s: output axis %d has no chunks", name, k)
		}
	}
	for i, axes := range op.InAxes {
		if len(axes) != len(in[i].Shape) {
			return fmt.Errorf("%s: input %d has %d axes but its map names %d", name, i, len(in[i].Shape), len(axes))
		}
		if ax := in[i].UnknownAxis(); ax >= 0 && axes[ax] >= 0 && axes[ax] != op.Unknown-1 {
			return &UnknownShapeError{Op: "user_blocks", Input: i, Axis: ax}
		}
		for _, k := range axes {
			if k < -1 || k >= len(op.NSplits) {
				return fmt.Errorf("%s: input %d maps to output axis %d of %d", name, i, k, len(op.NSplits))
			}
		}
	}
	return nil
}

// Infer implements TensorOp.
func (op UserBlocks) Infer(in []Meta) (Meta, error) {
	if err := op.check(in); err != nil {
		return Meta{}, err
	}
	if op.NSplits == nil {
		return Meta{Shape: slices.Clone(in[0].Shape), DType: op.DType, Unknown: in[0].Unknown}, nil
	}
	shape := make([]int, len(op.NSplits))
	for k, s := range op.NSplits {
		for _, c := range s {
			shape[k] += c
		}
	}
	if op.Unknown != 0 {
		shape[op.Unknown-1] = -1
	}
	return Meta{Shape: shape, DType: op.DType, Unknown: int8(op.Unknown)}, nil
}

// blockLoc is one array's place in a block call, as Dask's block_info
// describes it.
type blockLoc struct {
	Shape         []int    `json:"shape"`
	NumChunks     []int    `json:"num-chunks"`
	ChunkLocation []int    `json:"chunk-location"`
	ArrayLocation [][2]int `json:"array-location"`
}

// blockExtra is what a block call hands the function besides its blocks.
type blockExtra struct {
	BlockID []int      `json:"block_id,omitempty"`
	Inputs  []blockLoc `json:"inputs,omitempty"`
	Output  *blockLoc  `json:"output,omitempty"`
}

func location(nsplits [][]int, idx []int) [][2]int {
	loc := make([][2]int, len(idx))
	for ax, b := range idx {
		start := 0
		for _, c := range nsplits[ax][:b] {
			start += c
		}
		loc[ax] = [2]int{start, start + nsplits[ax][b]}
	}
	return loc
}

// Tile implements TensorOp.
func (op UserBlocks) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	name := "user function " + op.Label
	if op.NSplits == nil {
		op.NSplits = in[0].NSplits
		op.Unknown = int(out.Unknown)
		op.InAxes = make([][]int, len(in))
		for i, t := range in {
			if i > 0 && !slices.EqualFunc(t.NSplits, in[0].NSplits, slices.Equal[[]int]) {
				return nil, fmt.Errorf("%s: input %d is chunked %v, input 0 %v: rechunk the inputs alike", name, i, t.NSplits, in[0].NSplits)
			}
			op.InAxes[i] = make([]int, len(t.NSplits))
			for ax := range op.InAxes[i] {
				op.InAxes[i][ax] = ax
			}
		}
	}
	grid := make([]int, len(op.NSplits))
	for k, s := range op.NSplits {
		grid[k] = len(s)
	}
	for i, t := range in {
		for ax, k := range op.InAxes[i] {
			n := len(t.NSplits[ax])
			switch {
			case k < 0 && n > 1:
				return nil, fmt.Errorf("%s: input %d has %d chunks along axis %d, which the function consumes: rechunk it to one", name, i, n, ax)
			case k >= 0 && n != grid[k] && n != 1:
				return nil, fmt.Errorf("%s: input %d has %d chunks along axis %d, the output %d along axis %d: rechunk the inputs to line up", name, i, n, ax, grid[k], k)
			}
		}
	}
	res := &Tiled{Meta: out, NSplits: op.NSplits}
	var err error
	var digest string
	if len(op.Payload) > 0 {
		digest = PayloadDigest(op.Payload)
	}
	ForEachGrid(grid, func(idx []int) {
		if err != nil {
			return
		}
		refs := make([]ChunkRef, len(in))
		extra := blockExtra{}
		if op.BlockID || op.BlockInfo {
			extra.BlockID = slices.Clone(idx)
		}
		var inBytes int64
		for i, t := range in {
			tidx := make([]int, len(op.InAxes[i]))
			for ax, k := range op.InAxes[i] {
				if k >= 0 && len(t.NSplits[ax]) > 1 {
					tidx[ax] = idx[k]
				}
			}
			refs[i] = t.Chunks[GridFlat(t.Grid(), tidx)]
			inBytes += b.ChunkMeta(refs[i]).Nbytes()
			if op.BlockInfo {
				extra.Inputs = append(extra.Inputs, blockLoc{
					Shape: slices.Clone(t.Meta.Shape), NumChunks: t.Grid(),
					ChunkLocation: tidx, ArrayLocation: location(t.NSplits, tidx),
				})
			}
		}
		shape := make([]int, len(idx))
		for k, bk := range idx {
			shape[k] = op.NSplits[k][bk]
		}
		if op.BlockInfo {
			extra.Output = &blockLoc{Shape: out.Shape, NumChunks: grid, ChunkLocation: slices.Clone(idx), ArrayLocation: location(op.NSplits, idx)}
		}
		var info []byte
		if op.BlockID || op.BlockInfo {
			info, err = json.Marshal(extra)
		}
		meta := Meta{Shape: shape, DType: op.DType, Unknown: int8(op.Unknown)}
		c := UserBlock{Func: op.Label, Payload: op.Payload, Digest: digest, GoFunc: op.GoFunc, DType: op.DType, Shape: shape, Unknown: op.Unknown,
			Info: info, InBytes: inBytes, Paths: op.Paths}
		res.Chunks = append(res.Chunks, b.AddChunk(c, refs, meta))
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// UserBlock is one call of a user's function on one output block.
type UserBlock struct {
	Func    string `json:"label"`
	Payload []byte `json:"payload,omitempty"`
	// Digest names Payload (PayloadDigest): the executors keep unpickled
	// functions by it, and a dispatch message sends each payload once
	// (SharedPayload).
	Digest string        `json:"digest,omitempty"`
	GoFunc string        `json:"go_func,omitempty"`
	DType  ndarray.DType `json:"dtype"`
	Shape  []int         `json:"shape"`
	// Unknown is 1 + the axis along which Shape is a bound the result
	// may fall short of, or 0 (UserBlocks.Unknown).
	Unknown int             `json:"unknown,omitempty"`
	Info    json.RawMessage `json:"info,omitempty"`
	// InBytes is the inputs' size: an executor holds a copy of them in
	// shared memory while the function runs.
	InBytes int64    `json:"in_bytes,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	// Joined, when set, has one entry per block the function takes: the
	// Assemble that builds it, folded in from the chunk op before this
	// one (optimize.JoinUserBlocks), whose pieces' chunks are then this
	// op's inputs, in order; or nil for a block that is one input whole.
	Joined []*Assemble `json:"joined,omitempty"`
}

// Type implements ChunkOp.
func (UserBlock) Type() string { return "user_block" }

// Label implements Labeler: the function's name shows in errors, logs and explain.
func (op UserBlock) Label() string { return "user_block(" + op.Func + ")" }

// ScratchBytes implements ScratchEstimator: the executor's copies of the
// inputs and the function's own result before it is read back.
func (op UserBlock) ScratchBytes(out Meta) int64 { return op.InBytes + out.Nbytes() }

// Exec implements ChunkOp.
func (op UserBlock) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	out := Meta{Shape: op.Shape, DType: op.DType, Unknown: int8(op.Unknown)}
	for _, p := range op.Paths {
		if err := checkPath(ctx, p); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Label(), err)
		}
	}
	var res *ndarray.Array
	var err error
	var joins []Join
	if op.Joined != nil {
		if joins, err = op.joins(in); err != nil {
			return nil, err
		}
	}
	if op.GoFunc != "" {
		if joins != nil {
			if in, err = assembled(ctx, joins); err != nil {
				return nil, fmt.Errorf("%s: %w", op.Label(), err)
			}
		}
		res, err = op.execGo(ctx, in)
	} else {
		r, _ := ctx.Value(blockRunnerKey{}).(BlockRunner)
		if r == nil {
			return nil, fmt.Errorf("%s: %w", op.Label(), ErrUserCodeRefused)
		}
		if len(op.Payload) == 0 {
			return nil, fmt.Errorf("%s: the op reached its worker without its pickled function", op.Label())
		}
		call := BlockCall{Op: op.Label(), Payload: op.Payload, Digest: op.Digest, Inputs: in, Out: out, Info: op.Info}
		if joins != nil {
			call.Inputs, call.Joins = nil, joins
		}
		res, err = r.RunBlock(ctx, call)
	}
	if err != nil {
		return nil, err
	}
	if res.DType() != op.DType || !out.Fits(res.Shape()) {
		return nil, &BlockMismatchError{Op: op.Label(), Got: Meta{Shape: res.Shape(), DType: res.DType()}, Want: out}
	}
	return res, nil
}

func (op UserBlock) execGo(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	fn, ok := lookupBlockFunc(op.GoFunc)
	if !ok {
		return nil, fmt.Errorf("%s: no Go block function %q is registered in this binary (ops.RegisterBlockFunc)", op.Label(), op.GoFunc)
	}
	info := BlockInfo{Shape: op.Shape, DType: op.DType}
	if len(op.Info) > 0 {
		var e blockExtra
		if err := json.Unmarshal(op.Info, &e); err != nil {
			return nil, fmt.Errorf("%s: block info: %w", op.Label(), err)
		}
		info.BlockID = e.BlockID
		if e.Output != nil {
			info.ArrayLocation = e.Output.ArrayLocation
		}
	}
	res, err := fn(ctx, in, info)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Label(), err)
	}
	if res == nil {
		return nil, fmt.Errorf("%s: the function returned no array", op.Label())
	}
	return res, nil
}

// BlockMismatchError is a user function's output that is not the dtype or
// shape its op declared: never cast or reshaped silently.
type BlockMismatchError struct {
	Op        string
	Got, Want Meta
}

func (e *BlockMismatchError) Error() string {
	if ax := e.Want.UnknownAxis(); ax >= 0 && e.Got.DType == e.Want.DType && len(e.Got.Shape) == len(e.Want.Shape) {
		return fmt.Sprintf("%s returned a block of %v %v, but %v was declared, of at most %d along axis %d "+
			"(the length of unknown size is bounded by the input block's: give chunks= with the output's lengths)",
			e.Op, e.Got.DType, e.Got.Shape, e.Want, e.Want.Shape[ax], ax)
	}
	return fmt.Sprintf("%s returned a block of %v %v, but %v %v was declared (give dtype= and chunks= as the function's output is)",
		e.Op, e.Got.DType, e.Got.Shape, e.Want.DType, e.Want.Shape)
}

// ErrUserCodeRefused is a user's Python function reaching a worker that
// runs no user code.
var ErrUserCodeRefused = errors.New("this cluster does not run users' Python functions: start it with --allow-user-code " +
	"(on by default only for clusters listening on loopback addresses with a token)")

// BlockCall is one call of a user's Python function on one block.
type BlockCall struct {
	Op      string // the chunk op's label, for errors
	Payload []byte // cloudpickle bytes
	Digest  string // PayloadDigest(Payload), or "": the runner computes it
	Inputs  []*ndarray.Array
	// Joins, when set, are the blocks instead of Inputs, each written
	// part by part where the function reads it (Blocks).
	Joins []Join
	Out   Meta            // the declared output
	Info  json.RawMessage // block_id / block_info, when the function takes them
}

// BlockRunner runs users' Python functions; a worker that allows user code
// puts one in its ops' context (WithBlockRunner).
type BlockRunner interface {
	RunBlock(ctx context.Context, call BlockCall) (*ndarray.Array, error)
}

type blockRunnerKey struct{}

// WithBlockRunner returns a context under which UserBlock ops run Python
// functions through r.
func WithBlockRunner(ctx context.Context, r BlockRunner) context.Context {
	return context.WithValue(ctx, blockRunnerKey{}, r)
}

// Retryable is implemented by errors whose op may succeed if run again
// (the process that ran it died): the worker reports them retryable, and
// the scheduler's retry policy decides.
type Retryable interface{ Retryable() bool }

// IsRetryable reports whether err, or an error it wraps, says it is retryable.
func IsRetryable(err error) bool {
	var r Retryable
	return errors.As(err, &r) && r.Retryable()
}

// BlockInfo is what a Go block function learns of its block.
type BlockInfo struct {
	Shape         []int // the declared output block's shape
	DType         ndarray.DType
	BlockID       []int    // the block's position in the output's grid (with block_id or block_info)
	ArrayLocation [][2]int // the block's [start, stop) along each axis (with block_info)
}

// BlockFunc is a Go function applied block by block (tensor.MapBlocks). It
// must not write into its inputs and must return an array of the declared
// dtype and shape.
type BlockFunc func(ctx context.Context, in []*ndarray.Array, info BlockInfo) (*ndarray.Array, error)

// blockFuncs are the Go block functions registered in this binary. They
// are registered once at start-up, as op types are, and only read after.
var blockFuncs = struct {
	sync.RWMutex
	m map[string]BlockFunc
}{m: map[string]BlockFunc{}}

// RegisterBlockFunc names a Go block function so that graphs can name it
// (tensor.MapBlocks); every worker binary that runs such graphs must
// register it under the same name. Registering a name twice is an error.
func RegisterBlockFunc(name string, fn BlockFunc) error {
	if name == "" || fn == nil {
		return errors.New("RegisterBlockFunc: a name and a function are needed")
	}
	blockFuncs.Lock()
	defer blockFuncs.Unlock()
	if _, dup := blockFuncs.m[name]; dup {
		return fmt.Errorf("RegisterBlockFunc: %q is registered already", name)
	}
	blockFuncs.m[name] = fn
	return nil
}

func lookupBlockFunc(name string) (BlockFunc, bool) {
	blockFuncs.RLock()
	defer blockFuncs.RUnlock()
	fn, ok := blockFuncs.m[name]
	return fn, ok
}
