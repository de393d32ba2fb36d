package pyexec

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// residentBytes is the executor's own resident memory from
// /proc/PID/status: its anonymous pages (the interpreter, NumPy and SciPy,
// what the function allocates, the result it holds) and its shared memory
// (the arena's pages it has touched). Pages of mapped files (the
// interpreter's and the libraries' code) are the page cache's, shared with
// every process. 0 when it cannot be read (the process is gone).
func (e *executor) residentBytes() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", e.pid))
	if err != nil {
		return 0
	}
	return parseRSS(b)
}

// parseRSS sums RssAnon and RssShmem (in kB) of a /proc/PID/status.
func parseRSS(status []byte) int64 {
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Bytes()
		for _, key := range [][]byte{[]byte("RssAnon:"), []byte("RssShmem:")} {
			if rest, ok := bytes.CutPrefix(line, key); ok {
				f := bytes.Fields(rest)
				if len(f) >= 1 {
					if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
						total += kb << 10
					}
				}
			}
		}
	}
	return total
}
