package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWritesWaitProfilesAndTrace(t *testing.T) {
	dir := t.TempDir()
	mutex, block, trace := filepath.Join(dir, "mutex.prof"), filepath.Join(dir, "block.prof"), filepath.Join(dir, "run.trace")
	var out, errb bytes.Buffer
	code := run([]string{"run", "W5", "-n", "2e4", "-reps", "1", "-warmup", "0",
		"-mutexprofile", mutex, "-blockprofile", block, "-trace", trace}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	for _, p := range []string{mutex, block} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f) // a pprof profile is a gzipped protocol buffer
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %d bytes, %v", p, len(b), err)
		}
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) || len(b) < 1024 {
		t.Fatalf("%s is not an execution trace: %d bytes starting %q", trace, len(b), b[:min(len(b), 16)])
	}
}

func TestRunWaitProfileBadPath(t *testing.T) {
	for _, flag := range []string{"-mutexprofile", "-blockprofile", "-trace"} {
		var out, errb bytes.Buffer
		bad := filepath.Join(t.TempDir(), "missing", "f")
		code := run([]string{"run", "W5", "-n", "2e4", "-reps", "1", "-warmup", "0", flag, bad}, &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), bad) {
			t.Errorf("%s %s: exit %d, stderr %q; want a failure naming the path", flag, bad, code, errb.String())
		}
	}
}

// A start that fails on one file leaves none of the others behind.
func TestRunWaitProfileBadPathLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "mutex.prof"), filepath.Join(dir, "missing", "run.trace")
	var out, errb bytes.Buffer
	code := run([]string{"run", "W5", "-n", "2e4", "-reps", "1", "-warmup", "0", "-mutexprofile", good, "-trace", bad}, &out, &errb)
	if code == 0 {
		t.Fatalf("exit 0 with a bad trace path; stderr %q", errb.String())
	}
	if _, err := os.Stat(good); !os.IsNotExist(err) {
		t.Errorf("%s left behind after the start failed (stat: %v)", good, err)
	}
}
