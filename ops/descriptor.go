package ops

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Descriptor is everything the rest of Phobos knows about an op, declared
// once in the op's own file (Register, from an init function): its wire
// name, the dtypes its kernels take, its role in fusion, the chunk spec and
// the files it uses, and the program functions that make it. The codec, the
// dtype checks of InferChecked, the fusion pass, the scheduler's chunk-count
// check, the web service's file check and the calls table all read it; none
// of them lists ops by type.
type Descriptor struct {
	// Name is the op's wire name, stable across versions. Type() is not
	// usable for this: many ops report a parameter there (Elementwise says
	// "add", Reduction says "sum").
	Name string
	// Op is a value of the op's type (ops are plain values, not pointers).
	Op any

	// Kinds are the dtype families beyond bool, the integers, float32 and
	// float64 that the op's kernels take (float16, complex); an input or
	// output of another family is refused with a DTypeError before the op
	// infers. KindsOf, when set, decides by the op's parameters instead.
	Kinds   Kinds
	KindsOf func(op any) Kinds

	// Unknown is set when the op's Infer and Tile handle an input with an
	// axis of unknown length (Meta.Unknown); others are refused such
	// inputs with an UnknownShapeError.
	Unknown bool

	// Fusion is the chunk op's role in kernel fusion.
	Fusion Fusion
	// Generator is set for chunk ops that make data from nothing,
	// deterministically: cheap to drop and recompute.
	Generator bool

	// Chunks is the chunk spec the op's tensor is split by (creation ops,
	// file sources, rechunk): the scheduler counts the chunks it asks for
	// before tiling.
	Chunks func(op any) ChunkSpec
	// Files are the paths the op reads or writes: a web service checks
	// them with a worker before it accepts the graph.
	Files func(op any) []string

	// Calls are the program functions (and Python functions, generated)
	// that make this op.
	Calls []Call
}

// Kinds is a set of dtype families.
type Kinds uint8

const (
	// Half is float16 (computed in float32, as NumPy does).
	Half Kinds = 1 << iota
	// Complex is complex64 and complex128.
	Complex
)

// Fusion is a chunk op's role when kernels are fused.
type Fusion uint8

const (
	// FuseNone: the op runs as a chunk op of its own.
	FuseNone Fusion = iota
	// FuseElementwise: the op maps elements to elements of its shape; it
	// may root a kernel and be absorbed into its consumer's.
	FuseElementwise
	// FuseGenerator: the op makes data from nothing; a kernel that uses it
	// recomputes it instead of reading a stored chunk.
	FuseGenerator
	// FuseGenerator1D is FuseGenerator for 1-D chunks only (a kernel
	// computes a generator by flat position, which is its index only in 1-D).
	FuseGenerator1D
	// FuseReduce: the op reduces its input; it may root a kernel that
	// computes its input's producers in the same loop.
	FuseReduce
)

// descriptors is the registry, written only while packages initialize and
// read without locks afterwards (Describe runs per chunk op in hot loops).
// Each Register publishes a new immutable snapshot.
var descriptors atomic.Pointer[descriptorSet]

// registerMu serializes writers of descriptors.
var registerMu sync.Mutex

type descriptorSet struct {
	byName map[string]*Descriptor
	byType map[reflect.Type]*Descriptor
	// slots is an open-addressing table by type word (typeWord) for
	// Describe: a map keyed by reflect.Type costs several times a type
	// switch, and fusion asks per chunk op.
	slots []typeSlot
	mask  uintptr
}

type typeSlot struct {
	key uintptr
	d   *Descriptor
}

// eface is the layout of an empty interface: its first word identifies
// the dynamic type, and types are never freed.
type eface struct {
	typ, data unsafe.Pointer
}

func typeWord(op any) uintptr { return uintptr((*eface)(unsafe.Pointer(&op)).typ) }

// slot is where the probe for type word k starts.
func (s *descriptorSet) slot(k uintptr) uintptr { return (k >> 4) * 0x9E3779B97F4A7C15 >> 20 & s.mask }

func (s *descriptorSet) index() {
	n := uintptr(16)
	for n < uintptr(4*len(s.byType)) {
		n <<= 1
	}
	s.slots, s.mask = make([]typeSlot, n), n-1
	for _, d := range s.byType {
		k := typeWord(d.Op)
		i := s.slot(k)
		for s.slots[i].key != 0 {
			i = (i + 1) & s.mask
		}
		s.slots[i] = typeSlot{key: k, d: d}
	}
}

// Register makes ops known by their descriptors. It is called from init
// functions; a name or a type registered twice, or a malformed descriptor,
// is a programming error and panics.
func Register(ds ...Descriptor) {
	registerMu.Lock()
	defer registerMu.Unlock()
	old := descriptors.Load()
	next := &descriptorSet{byName: map[string]*Descriptor{}, byType: map[reflect.Type]*Descriptor{}}
	if old != nil {
		for k, v := range old.byName {
			next.byName[k] = v
		}
		for k, v := range old.byType {
			next.byType[k] = v
		}
	}
	for i := range ds {
		d := ds[i]
		t := reflect.TypeOf(d.Op)
		if d.Name == "" || t == nil || t.Kind() == reflect.Pointer {
			panic(fmt.Sprintf("ops.Register(%q): want a name and an op value, got %T", d.Name, d.Op))
		}
		_, isChunk := d.Op.(ChunkOp)
		_, isTensor := d.Op.(TensorOp)
		if !isChunk && !isTensor {
			panic(fmt.Sprintf("ops.Register(%q): %T is neither a ChunkOp nor a TensorOp", d.Name, d.Op))
		}
		if old, ok := next.byName[d.Name]; ok {
			panic(fmt.Sprintf("ops.Register: name %q already used by %T", d.Name, old.Op))
		}
		if old, ok := next.byType[t]; ok {
			panic(fmt.Sprintf("ops.Register: %v already registered as %q", t, old.Name))
		}
		for _, c := range d.Calls {
			if err := c.validate(isTensor); err != nil {
				panic(fmt.Sprintf("ops.Register(%q): %v", d.Name, err))
			}
		}
		next.byName[d.Name] = &d
		next.byType[t] = &d
	}
	next.index()
	descriptors.Store(next)
}

// noDescriptor describes an unregistered op: no capabilities.
var noDescriptor = &Descriptor{}

// Describe is the descriptor of op's type; an op that is not registered
// gets an empty one (no name, no capabilities).
func Describe(op any) *Descriptor {
	s := descriptors.Load()
	if s == nil || op == nil {
		return noDescriptor
	}
	k := typeWord(op)
	for i := s.slot(k); ; i = (i + 1) & s.mask {
		switch s.slots[i].key {
		case k:
			return s.slots[i].d
		case 0:
			return noDescriptor
		}
	}
}

// Descriptors lists every registered descriptor, sorted by name.
func Descriptors() []*Descriptor {
	s := descriptors.Load()
	if s == nil {
		return nil
	}
	out := make([]*Descriptor, 0, len(s.byName))
	for _, d := range s.byName {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RegisteredName is the wire name of op's type.
func RegisteredName(op any) (string, bool) {
	d := Describe(op)
	return d.Name, d.Name != ""
}

// RegisteredNames lists the wire names of all registered ops, sorted.
func RegisteredNames() []string {
	ds := Descriptors()
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	return names
}

// NewRegistered returns a zero value of the op registered under name.
func NewRegistered(name string) (any, bool) {
	t, ok := lookupType(name)
	if !ok {
		return nil, false
	}
	return reflect.Zero(t).Interface(), true
}

func nameOfType(t reflect.Type) (string, bool) {
	if s := descriptors.Load(); s != nil {
		if d, ok := s.byType[t]; ok {
			return d.Name, true
		}
	}
	return "", false
}

func lookupType(name string) (reflect.Type, bool) {
	s := descriptors.Load()
	if s == nil {
		return nil, false
	}
	d, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return reflect.TypeOf(d.Op), true
}

// KindsOf are the dtype families op's kernels take beyond the real ones.
func KindsOf(op any) Kinds {
	d := Describe(op)
	if d.KindsOf != nil {
		return d.KindsOf(op)
	}
	return d.Kinds
}

// FusionOf is op's role in fusion.
func FusionOf(op any) Fusion { return Describe(op).Fusion }

// IsGenerator reports whether op makes its chunk from nothing,
// deterministically (Descriptor.Generator).
func IsGenerator(op any) bool { return Describe(op).Generator }

// ChunkSpecOf is the chunk spec op's tensor asks for, if op has one.
func ChunkSpecOf(op any) (ChunkSpec, bool) {
	d := Describe(op)
	if d.Chunks == nil {
		return ChunkSpec{}, false
	}
	return d.Chunks(op), true
}

// FilePaths are the paths op reads or writes (none for most ops).
func FilePaths(op any) []string {
	d := Describe(op)
	if d.Files == nil {
		return nil
	}
	return d.Files(op)
}

// acceptsUnknown reports whether op takes inputs of unknown length.
func acceptsUnknown(op any) bool { return Describe(op).Unknown }

// supports reports whether op's kernels take dtype dt.
func supports(op any, dt ndarray.DType) bool {
	switch {
	case dt == ndarray.Float16:
		return KindsOf(op)&Half != 0
	case dt.IsComplex():
		return KindsOf(op)&Complex != 0
	}
	return true
}
