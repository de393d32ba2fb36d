//go:build !linux

package ndarray

func adviseHuge([]byte) {}
