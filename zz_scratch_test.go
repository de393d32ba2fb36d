package phobos_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

func TestZZScratch(t *testing.T) {
	sess, _ := phobos.NewSession()
	defer sess.Close()
	r, err := sess.Execute(context.Background(), tensor.Arange(-3, 4.5, 0.7, tensor.WithDType(ndarray.Int64)), tensor.FromSlice([]float64{0.5, 3, -2}, []int{3}).Clip(tensor.Scalar(0.0).Div(0), 1),
		tensor.FromSlice([]float32{1, 2}, []int{2}).Sub(tensor.FromSlice([]float64{0.5}, []int{})))
	fmt.Println(r, err)
}
