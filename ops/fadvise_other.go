//go:build !linux

package ops

import "os"

// willNeed is a no-op where posix_fadvise is not available.
func willNeed(*os.File, int64, int64) {}
