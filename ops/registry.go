package ops

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
)

// The registry maps a stable wire name to each op's Go type. Type() is not
// usable for this: many ops report a parameter there (Elementwise says "add",
// Reduction says "sum"), so the wire name is the op's kind, not its label.
var registry opRegistry

type opRegistry struct {
	sync.RWMutex
	byName map[string]reflect.Type
	byType map[reflect.Type]string
}

func (r *opRegistry) nameOf(t reflect.Type) (string, bool) {
	r.RLock()
	defer r.RUnlock()
	n, ok := r.byType[t]
	return n, ok
}

// Register makes an op type known to the codec under name. zero is a value of
// the op's type (ops are plain values, not pointers). Registering a name or a
// type twice is a programming error and panics.
func Register(name string, zero any) {
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() == reflect.Pointer {
		panic(fmt.Sprintf("ops.Register(%q): want an op value, got %T", name, zero))
	}
	_, isChunk := zero.(ChunkOp)
	_, isTensor := zero.(TensorOp)
	if !isChunk && !isTensor {
		panic(fmt.Sprintf("ops.Register(%q): %T is neither a ChunkOp nor a TensorOp", name, zero))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = make(map[string]reflect.Type)
		registry.byType = make(map[reflect.Type]string)
	}
	if old, ok := registry.byName[name]; ok {
		panic(fmt.Sprintf("ops.Register: name %q already used by %v", name, old))
	}
	if old, ok := registry.byType[t]; ok {
		panic(fmt.Sprintf("ops.Register: %v already registered as %q", t, old))
	}
	registry.byName[name] = t
	registry.byType[t] = name
}

// RegisteredName is the wire name of op's type.
func RegisteredName(op any) (string, bool) {
	return registry.nameOf(reflect.TypeOf(op))
}

// RegisteredNames lists the wire names of all registered ops, sorted.
func RegisteredNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.byName))
	for n := range registry.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewRegistered returns a zero value of the op registered under name.
func NewRegistered(name string) (any, bool) {
	registry.RLock()
	t, ok := registry.byName[name]
	registry.RUnlock()
	if !ok {
		return nil, false
	}
	return reflect.Zero(t).Interface(), true
}

func lookupType(name string) (reflect.Type, bool) {
	registry.RLock()
	defer registry.RUnlock()
	t, ok := registry.byName[name]
	return t, ok
}

func init() {
	for name, op := range map[string]any{
		// creation
		"full":          Full{},
		"full_chunk":    FullChunk{},
		"arange":        Arange{},
		"arange_chunk":  ArangeChunk{},
		"eye":           Eye{},
		"eye_chunk":     EyeChunk{},
		"random":        Random{},
		"random_chunk":  RandomChunk{},
		"literal":       Literal{},
		"literal_chunk": LiteralChunk{},
		// elementwise, fused kernels
		"elementwise": Elementwise{},
		"fused":       Fused{},
		// reductions and scans
		"reduction":      Reduction{},
		"reduce_partial": ReducePartial{},
		"reduce_combine": ReduceCombine{},
		"reduce_finish":  ReduceFinish{},
		"cumulative":     Cumulative{},
		"cum_carry":      CumCarry{},
		// linear algebra
		"tensordot":    TensorDot{},
		"matmul":       MatMul{},
		"gram":         Gram{},
		"gram_partial": GramPartial{},
		// numpy.linalg: TSQR and the SVD through it, whole-matrix kernels
		"qr":               QR{},
		"svd":              SVD{},
		"qr_factor":        QRFactorChunk{},
		"qr_r":             QRRChunk{},
		"qr_apply":         QRApply{},
		"svd_small":        SVDSmall{},
		"qr_complete":      QRComplete{},
		"cholesky":         Cholesky{},
		"inv":              Inv{},
		"det":              Det{},
		"slogdet":          Slogdet{},
		"solve":            Solve{},
		"solve_triangular": SolveTriangular{},
		"lstsq":            Lstsq{},
		"lu":               LU{},
		// indexing, shapes and chunking
		"index":              Index{},
		"boolean_mask":       BooleanMask{},
		"boolean_mask_chunk": MaskChunk{},
		"mask_place":         MaskPlace{},
		"mask_place_chunk":   MaskPlaceChunk{},
		"argwhere":           ArgWhere{},
		"argwhere_chunk":     ArgWhereChunk{},
		"take":               Take{},
		"take_part":          TakePartChunk{},
		"take_join":          TakeJoinChunk{},
		"scatter":            Scatter{},
		"scatter_chunk":      ScatterChunk{},
		"check":              Check{},
		"sort":               Sort{},
		"sort_lanes":         SortLanes{},
		"sort_sample":        SortSample{},
		"sort_pivots":        SortPivots{},
		"sort_bounds":        SortBounds{},
		"sort_piece":         SortPiece{},
		"sort_merge":         SortMerge{},
		"sort_counts":        SortCounts{},
		"sort_slice":         SortSlice{},
		"sort_join":          SortJoin{},
		"searchsorted":       SearchSorted{},
		"searchsorted_count": SearchCountChunk{},
		"topk":               TopK{},
		"topk_partial":       TopKPartial{},
		"topk_combine":       TopKCombine{},
		"topk_finish":        TopKFinish{},
		"argsort":            Argsort{},
		"argsort_lanes":      ArgsortLanes{},
		"argsort_pairs":      ArgsortPairs{},
		"argsort_sample":     ArgsortSample{},
		"argsort_bounds":     ArgsortBounds{},
		"argsort_piece":      ArgsortPiece{},
		"argsort_merge":      ArgsortMerge{},
		"transpose":          Transpose{},
		"flip":               Flip{},
		"squeeze":            Squeeze{},
		"expand_dims":        ExpandDims{},
		"broadcast_to":       BroadcastTo{},
		"broadcast_chunk":    BroadcastChunk{},
		"concatenate":        Concatenate{},
		"reshape":            Reshape{},
		"reshape_chunk":      ReshapeChunk{},
		"reshape_assemble":   ReshapeAssemble{},
		"rechunk":            Rechunk{},
		"assemble":           Assemble{},
		"slice_view":         SliceView{},
		// numpy.fft
		"fft": FFT{},
	} {
		Register(name, op)
	}
}
