package linalg_test

import (
	"context"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/tensor"
)

// A tall-skinny QR in row chunks, and a least-squares fit through it.
func Example() {
	sess, err := phobos.NewSession()
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	ctx := context.Background()

	// x: 100000 rows in chunks of 10000, 3 columns; y = 1 + 2 t + 3 t² exactly.
	t := tensor.Arange(0, 1, 1e-5, tensor.Chunks(10_000))
	x := tensor.Stack(1, t.Mul(0).Add(1), t, t.Square())
	y := x.MatMul(tensor.FromSlice([]float64{1, 2, 3}, []int{3}))

	q, r := linalg.QR(x, "reduced")
	orth := q.T().MatMul(q).Sub(tensor.Eye(3, 3, 0)).Abs().Max()
	coef, _, rank, _ := linalg.Lstsq(x, y)
	got, err := sess.Execute(ctx, orth, r, coef, rank)
	if err != nil {
		panic(err)
	}
	fmt.Println("Q orthonormal:", got[0].AtFlat(0) < 1e-12)
	fmt.Println("R:", got[1].Shape(), "upper triangular:", got[1].AtFlat(3) == 0 && got[1].AtFlat(6) == 0 && got[1].AtFlat(7) == 0)
	fmt.Printf("coefficients: %.6f %.6f %.6f, rank %v\n",
		round(got[2].AtFlat(0)), round(got[2].AtFlat(1)), round(got[2].AtFlat(2)), got[3].AtFlat(0))
	// Output:
	// Q orthonormal: true
	// R: [3 3] upper triangular: true
	// coefficients: 1.000000 2.000000 3.000000, rank 3
}

func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
