package storage

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteUnits are the suffixes ParseBytes accepts: decimal (KB = 1000, as
// Dask's "4GB") and binary (KiB = 1024), case-insensitive.
var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// ParseBytes reads a memory size such as "1GiB", "4GB", "512 MiB", "1.5g" or
// "1073741824" (command-line flags take sizes this way). Decimal units are
// powers of 1000 and binary ones (KiB, MiB, ...) powers of 1024.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, "_", "")))
	if t == "" {
		return 0, fmt.Errorf("storage: empty memory size")
	}
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, fmt.Errorf("storage: negative memory size %q", s)
		}
		return n, nil
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("storage: bad memory size %q (want e.g. 1GiB, 4GB, 512MiB)", s)
	}
	v := x * mult
	if v < 0 {
		return 0, fmt.Errorf("storage: negative memory size %q", s)
	}
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("storage: memory size %q is too large", s)
	}
	return int64(v), nil
}

// FormatBytes prints a byte count in binary units with three significant
// digits, as errors and logs show sizes.
func FormatBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 && n > -1024 {
		return fmt.Sprintf("%d B", n)
	}
	x := float64(n)
	i := -1
	for math.Abs(x) >= 1024 && i < len(units)-1 {
		x /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %ciB", x, units[i])
}
