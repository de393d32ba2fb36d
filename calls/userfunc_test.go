package calls_test

import (
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Build cases of user_blocks (a user's function applied block by block):
// the payload is opaque to the build, which checks the chunks and maps.
func init() {
	buildCases = append(buildCases, []buildCase{
		{"user_blocks", `[[@A, @M], "AAEC", "f", "float32", [[2], [3, 4]], [[0, 1], [-1, 1]]]`, ``, []int{2, 7}, "float32",
			func(p pre) *tensor.Tensor {
				return tensor.New(ops.UserBlocks{Label: "f", Payload: []byte{0, 1, 2}, DType: ndarray.Float32,
					NSplits: [][]int{{2}, {3, 4}}, InAxes: [][]int{{0, 1}, {-1, 1}}}, p[A], p[M])
			}},
		{"user_blocks", `[[], "AAEC", "from_array(x)", "int64", [[5, 5]], []]`, `{"block_info":true,"paths":["/data/x.h5"]}`, []int{10}, "int64", nil},
	}...)
}

func TestUserBlocksRefused(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`[[@A], "AAEC", "f", "float64", [[2], [3]], [[0]]]`, "input 0 has 2 axes but its map names 1"},
		{`[[@A], "AAEC", "f", "float64", [[2], [3]], [[0, 2]]]`, "maps to output axis 2 of 2"},
		{`[[@A], "", "f", "float64", [[2], [3]], [[0, 1]]]`, "exactly one of a payload and a Go function"},
		{`[[@A], "AAEC", "f", "float64", [[2], [-3]], [[0, 1]]]`, "negative chunk length"},
		{`[[@A], 7, "f", "float64", [[2], [3]], [[0, 1]]]`, "payload"},
	} {
		nodes := append([]string{}, prelude...)
		nodes = append(nodes, strings.NewReplacer("@A", `{"ref":0}`, "@M", `{"ref":5}`).Replace(`{"fn":"user_blocks","args":`+c.args+`}`))
		_, err := parse(t, nodes...).Build(true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.args, err, c.want)
		}
	}
}
