//go:build !amd64

package rng

// Without the amd64 vector loops the scalar loops fill everything.

func uniform64Vec(dst []float64, x, g uint64, lo, scale float64) int { return 0 }

func uniform32Vec(dst []float32, x, g uint64, lo, scale float32) int { return 0 }

func normal64Vec(dst []float64, x, g uint64, mean, std float64) int { return 0 }
