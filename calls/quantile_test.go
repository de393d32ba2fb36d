package calls_test

import (
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// TestQuantileCalls checks the shapes and dtypes NumPy gives, and the
// errors of each parameter.
func TestQuantileCalls(t *testing.T) {
	const arr = `{"fn":"zeros","args":[[4,5]]}`
	const ints = `{"fn":"zeros","args":[[4,5],"int64"]}`
	for _, c := range []struct {
		node  string
		src   string
		shape []int
		dtype ndarray.DType
	}{
		{arr, `{"fn":"median","args":[{"ref":0}]}`, []int{}, ndarray.Float64},
		{arr, `{"fn":"nanmedian","args":[{"ref":0}],"kwargs":{"axis":1,"keepdims":true}}`, []int{4, 1}, ndarray.Float64},
		{arr, `{"fn":"quantile","args":[{"ref":0},0.5,0]}`, []int{5}, ndarray.Float64},
		{arr, `{"fn":"quantile","args":[{"ref":0},[0.1,0.9]],"kwargs":{"axis":[0,1]}}`, []int{2}, ndarray.Float64},
		{ints, `{"fn":"percentile","args":[{"ref":0},[10,50,90]],"kwargs":{"axis":-1,"method":"lower"}}`, []int{3, 4}, ndarray.Int64},
		{ints, `{"fn":"nanpercentile","args":[{"ref":0},50],"kwargs":{"overwrite_input":true}}`, []int{}, ndarray.Float64},
		{ints, `{"fn":"nanquantile","args":[{"ref":0},0.5],"kwargs":{"axis":0,"keepdims":true,"method":"hazen"}}`, []int{1, 5}, ndarray.Float64},
	} {
		ts, err := parse(t, c.node, c.src).Build(false)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		r := ts[len(ts)-1]
		if !slices.Equal(r.Shape(), c.shape) || r.DType() != c.dtype {
			t.Errorf("%s: %v %v, want %v %v", c.src, r.DType(), r.Shape(), c.dtype, c.shape)
		}
	}
	for _, c := range []struct{ src, kind string }{
		{`{"fn":"quantile","args":[{"ref":0},1.5]}`, "ValueError"},
		{`{"fn":"percentile","args":[{"ref":0},[50,101]]}`, "ValueError"},
		{`{"fn":"quantile","args":[{"ref":0},0.5],"kwargs":{"method":"cubic"}}`, "ValueError"},
		{`{"fn":"quantile","args":[{"ref":0},0.5],"kwargs":{"interpolation":"lower"}}`, "TypeError"},
		{`{"fn":"quantile","args":[{"ref":0},"half"]}`, "TypeError"},
		{`{"fn":"median","args":[{"ref":0}],"kwargs":{"axis":2}}`, "AxisError"},
		{`{"fn":"median","args":[{"ref":0}],"kwargs":{"out":{"ref":0}}}`, "TypeError"},
		{`{"fn":"quantile","args":[{"ref":0}]}`, "TypeError"},
	} {
		_, err := parse(t, arr, c.src).Build(false)
		if err == nil {
			t.Errorf("%s: no error", c.src)
			continue
		}
		checkKind(t, err, c.kind, 1)
	}
}
