//go:build !amd64

package ndarray

func mmCoreHint() string { return "" }
