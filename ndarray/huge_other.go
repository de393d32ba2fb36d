//go:build !linux

package ndarray

func adviseHuge([]byte) {}

func adviseFree([]byte) {}
