package hugepage

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds address a.
func vmFlags(t *testing.T, a uintptr) []string {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uintptr(l) <= a && a < uintptr(h)
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(line)[1:]
		}
	}
	t.Fatalf("no mapping of smaps holds %#x", a)
	return nil
}

// An advised array's whole huge pages are in a mapping marked for huge
// pages (VmFlags "hg"), and a small array is left alone.
func TestAdviseMarksMapping(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skipf("a kernel without transparent huge pages: %v", err)
	}
	big := make([]uint64, 3*MinBytes/8)
	small := make([]uint64, 1024)
	Advise(big)
	Advise(small)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(big)))
	first := (p + Size - 1) &^ (Size - 1)
	if !contains(vmFlags(t, first), "hg") {
		t.Errorf("the advised array's first huge page: VmFlags %v, want hg", vmFlags(t, first))
	}
	if last := (p + uintptr(len(big))*8 - 1) &^ (Size - 1); last > first && !contains(vmFlags(t, last-Size), "hg") {
		t.Errorf("the advised array's last whole huge page: VmFlags %v, want hg", vmFlags(t, last-Size))
	}
	big[0], small[0] = 1, 1 // written after the advice, as meant
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
