package ops

import (
	"reflect"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// TestDescriptors checks what the descriptors say for ops whose
// capabilities the rest of Phobos relies on, and that every registered op
// is found by its value and by its name.
func TestDescriptors(t *testing.T) {
	for _, d := range Descriptors() {
		if got := Describe(d.Op); got != d {
			t.Errorf("%s: Describe of its op is %q", d.Name, got.Name)
		}
		if v, ok := NewRegistered(d.Name); !ok || Describe(v) != d {
			t.Errorf("%s: not found by name", d.Name)
		}
	}
	if d := Describe(struct{ X int }{}); d.Name != "" || d.Kinds != 0 || d.Fusion != FuseNone {
		t.Errorf("an unregistered value has a descriptor: %+v", d)
	}
	cases := []struct {
		op       any
		dt       ndarray.DType
		supports bool
	}{
		{Elementwise{}, ndarray.Complex128, true},
		{Elementwise{}, ndarray.Float16, true},
		{Sort{}, ndarray.Complex64, true},
		{Sort{}, ndarray.Float16, false},
		{Argsort{}, ndarray.Complex128, false},
		{Reduction{Func: "sum"}, ndarray.Complex128, true},
		{Reduction{Func: "mean"}, ndarray.Complex128, false},
		{Reduction{Func: "mean"}, ndarray.Float16, true},
		{Reduction{Func: "argmax"}, ndarray.Float16, true},
		{Cumulative{}, ndarray.Float16, false},
		{Arange{}, ndarray.Float16, true},
		{Arange{}, ndarray.Complex64, false},
		{QR{}, ndarray.Float32, true},
	}
	for _, c := range cases {
		if got := supports(c.op, c.dt); got != c.supports {
			t.Errorf("%T %v: supports %v = %v, want %v", c.op, c.op, c.dt, got, c.supports)
		}
	}
	for _, c := range []struct {
		op any
		f  Fusion
	}{{Elementwise{}, FuseElementwise}, {ReducePartial{}, FuseReduce}, {RandomChunk{}, FuseGenerator},
		{FullChunk{}, FuseGenerator}, {ArangeChunk{}, FuseGenerator1D}, {EyeChunk{}, FuseNone}, {ReduceFinish{}, FuseNone}} {
		if got := FusionOf(c.op); got != c.f {
			t.Errorf("%T: fusion %d, want %d", c.op, got, c.f)
		}
	}
	if !IsGenerator(EyeChunk{}) || IsGenerator(Elementwise{}) {
		t.Error("generators: EyeChunk is one, Elementwise is not")
	}
	if p := FilePaths(NpyRead{Path: "/d/x.npy"}); !slices.Equal(p, []string{"/d/x.npy"}) {
		t.Errorf("NpyRead's files: %v", p)
	}
	if p := FilePaths(UserBlocks{Paths: []string{"/d/a.h5"}}); !slices.Equal(p, []string{"/d/a.h5"}) {
		t.Errorf("UserBlocks's files: %v", p)
	}
	if p := FilePaths(Transpose{}); p != nil {
		t.Errorf("Transpose's files: %v", p)
	}
	spec := ChunkSpec{Size: []int{7}}
	for _, op := range []any{Full{Chunks: spec}, Rechunk{Chunks: spec}, NpyRead{Chunks: spec}, ZarrRead{Chunks: spec}} {
		if got, ok := ChunkSpecOf(op); !ok || !slices.Equal(got.Size, spec.Size) {
			t.Errorf("%T: chunk spec %v %v", op, got, ok)
		}
	}
	if _, ok := ChunkSpecOf(Transpose{}); ok {
		t.Error("Transpose has no chunk spec")
	}
	if !acceptsUnknown(Take{}) || acceptsUnknown(Sort{}) {
		t.Error("unknown lengths: Take takes them, Sort does not")
	}
}

// TestNoCapabilityMethods fails on an op that still spells a capability
// as a method of the interfaces descriptors replaced: nothing would call
// it, so the capability would silently be lost.
func TestNoCapabilityMethods(t *testing.T) {
	for _, d := range Descriptors() {
		for _, m := range []string{"FilePaths", "AcceptsUnknown", "IsGenerator"} {
			if _, ok := reflect.TypeOf(d.Op).MethodByName(m); ok {
				t.Errorf("%s: method %s; declare it in the op's Descriptor instead", d.Name, m)
			}
		}
	}
}

func TestCallValidate(t *testing.T) {
	newOp := func(Values) (TensorOp, error) { return Transpose{}, nil }
	cases := []struct {
		c  Call
		ok bool
	}{
		{Call{Name: "f", New: newOp, Params: []Param{{Name: "a"}, {Name: "mode", Kind: ParamString, Default: "x", Choices: []string{"x", "y"}}}}, true},
		{Call{Name: "f", New: newOp, Params: []Param{{Name: "mode", Kind: ParamString, Default: "z", Choices: []string{"x", "y"}}}}, false},
		{Call{Name: "f", New: newOp, Params: []Param{{Name: "a", Optional: true}, {Name: "b"}}}, false},
		{Call{Name: "f", New: newOp, Params: []Param{{Name: "n", Kind: ParamInt, Default: 1.5}}}, false},
		{Call{Name: "f", New: newOp, Params: []Param{{Name: "x", Kind: ParamFloat, Default: 1.5}}}, true},
		{Call{Name: "", New: newOp}, false},
		{Call{Name: "f"}, false},
	}
	for i, c := range cases {
		if err := c.c.validate(true); (err == nil) != c.ok {
			t.Errorf("case %d: validate = %v, want ok %v", i, err, c.ok)
		}
	}
	if err := cases[0].c.validate(false); err == nil {
		t.Error("a call of a chunk op validated")
	}
}
