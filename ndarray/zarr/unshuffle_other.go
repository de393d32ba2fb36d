//go:build !amd64

package zarr

// unshuffle8Vec does no element here: the portable loop does them all.
func unshuffle8Vec(dst, src []byte, n int) int { return 0 }
