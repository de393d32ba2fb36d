//go:build !linux

package storage

// physicalRAM is unknown off Linux; DefaultLimit falls back to a fixed size.
func physicalRAM() int64 { return 0 }
