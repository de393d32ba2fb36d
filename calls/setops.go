package calls

import "github.com/phobos-tensor/phobos/tensor"

// numpy.argsort, partition, argpartition and the set operations of
// numpy's arraysetops, by NumPy's names and parameters (unique, with its
// return_ flags, is in table.go).
func init() {
	for name, f := range map[string]function{
		"argsort":      {[]string{"a", "axis", "kind"}, argsortFn, 1},
		"partition":    {[]string{"a", "kth", "axis", "kind"}, partitionFn(tensor.Partition), 2},
		"argpartition": {[]string{"a", "kth", "axis", "kind"}, partitionFn(tensor.Argpartition), 2},
		"union1d":      {[]string{"ar1", "ar2"}, union1d, 2},
		"intersect1d":  {[]string{"ar1", "ar2", "assume_unique"}, setop(tensor.Intersect1d), 2},
		"setdiff1d":    {[]string{"ar1", "ar2", "assume_unique"}, setop(tensor.Setdiff1d), 2},
		"setxor1d":     {[]string{"ar1", "ar2", "assume_unique"}, setop(tensor.Setxor1d), 2},
	} {
		table[name] = f
	}
}

// sortKind checks NumPy's kind: every kind is answered by the stable
// sort, which satisfies each of them.
func sortKind(a *args) error {
	if !a.has("kind") {
		return nil
	}
	var kind string
	if err := jsonString(a, "kind", &kind); err != nil {
		return err
	}
	switch kind {
	case "quicksort", "mergesort", "heapsort", "stable", "introselect":
		return nil
	}
	return valueErr("sort kind must be one of 'quick', 'heap', or 'stable' (got '%s')", kind)
}

// argsortFn is numpy.argsort(a, axis=-1, kind=None) (clients argsort the
// flattened tensor for NumPy's axis=None).
func argsortFn(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	if err := sortKind(a); err != nil {
		return nil, err
	}
	if a.flatAxis("axis") {
		return t.Ravel().Argsort(0), nil
	}
	ax, err := a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	return t.Argsort(ax), nil
}

func partitionFn(f func(*tensor.Tensor, []int, int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		if err := sortKind(a); err != nil {
			return nil, err
		}
		kth, _, err := a.ints("kth") // required
		if err != nil {
			return nil, err
		}
		ax, err := a.int("axis", -1)
		if err != nil {
			return nil, err
		}
		return f(t, kth, ax), nil
	}
}

func union1d(a *args) (*tensor.Tensor, error) {
	x, err := a.tensorArgs("ar1", "ar2")
	if err != nil {
		return nil, err
	}
	return tensor.Union1d(x[0], x[1]), nil
}

func setop(f func(a, b *tensor.Tensor, assumeUnique bool) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		x, err := a.tensorArgs("ar1", "ar2")
		if err != nil {
			return nil, err
		}
		au, err := a.bool("assume_unique")
		if err != nil {
			return nil, err
		}
		return f(x[0], x[1], au), nil
	}
}

// uniqueFn is numpy.unique(ar, return_index, return_inverse,
// return_counts): the values, or with any of the flags the result `out`
// of NumPy's tuple (values, then index, inverse and counts as asked).
func uniqueFn(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("ar")
	if err != nil {
		return nil, err
	}
	var want [3]bool
	for i, name := range []string{"return_index", "return_inverse", "return_counts"} {
		if want[i], err = a.bool(name); err != nil {
			return nil, err
		}
	}
	if !want[0] && !want[1] && !want[2] {
		return pick(a, tensor.Unique(t))
	}
	v, idx, inv, cnt := tensor.UniqueAll(t)
	rs := []*tensor.Tensor{v}
	for i, r := range []*tensor.Tensor{idx, inv, cnt} {
		if want[i] {
			rs = append(rs, r)
		}
	}
	return pick(a, rs...)
}
