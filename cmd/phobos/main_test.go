package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/workloads"
)

func TestRunPrintsOneJSONLine(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "W5", "-n", "2e4", "-reps", "2", "-warmup", "0"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one stdout line, got %q", out.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "system", "params", "reps", "warmup", "status", "wall_s", "wall_s_min",
		"wall_s_max", "wall_s_all", "result", "expected", "peak_rss_tree_mb", "tasks_optimized", "tasks_per_s", "chunk_ops"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("JSON line has no %q: %s", k, lines[0])
		}
	}
	if rec["status"] != "ok" || rec["result"] != 40000.0 || rec["system"] != "phobos" {
		t.Errorf("bad record: %s", lines[0])
	}
	if p := rec["params"].(map[string]any); p["n"] != 20000.0 || p["chunk"] != 100.0 {
		t.Errorf("params %v, want n=20000 chunk=100", p)
	}
	if !strings.Contains(errb.String(), "W5") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("want one summary line on stderr, got %q", errb.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frob"}, exitUsage, `unknown command "frob"`},
		{[]string{"run"}, exitUsage, "name a workload"},
		{[]string{"run", "W42"}, exitUsage, `unknown workload "W42"`},
		{[]string{"run", "W9", "-data", "/nonexistent"}, exitUsage, "write it with: phobos gen-data W9 -data /nonexistent -format npy"},
		{[]string{"gen-data", "W1"}, exitUsage, "not a file-backed workload"},
		{[]string{"run", "W1", "-bogus"}, exitUsage, "-bogus"},
		{[]string{"run", "W1", "-n", "abc"}, exitUsage, "-n"},
		{[]string{"run", "W1", "-reps", "0"}, exitUsage, "-reps"},
		{[]string{"run", "W1", "-chunk", "0"}, exitUsage, "chunk"},
		{[]string{"version"}, 0, "blas"},
		{[]string{"version"}, 0, "lapack: "},
		{[]string{"help"}, 0, "Usage"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.msg) {
			t.Errorf("phobos %v: exit %d, output %q; want exit %d mentioning %q",
				tc.args, code, out.String()+errb.String(), tc.code, tc.msg)
		}
	}
}

func TestSizeFlag(t *testing.T) {
	for in, want := range map[string]int{"2e8": 200_000_000, "200_000_000": 200_000_000, "100": 100} {
		var f sizeFlag
		if err := f.Set(in); err != nil || f.v != want || !f.set {
			t.Errorf("Set(%q) = %d, %v; want %d", in, f.v, err, want)
		}
	}
	for _, in := range []string{"1.5", "x", ""} {
		var f sizeFlag
		if err := f.Set(in); err == nil {
			t.Errorf("Set(%q) accepted", in)
		}
	}
}

// TestExplainEveryWorkload: explain prints the passes of every workload
// (in-memory ones make their arrays first), at small sizes; a file-backed
// one without its file says which file.
func TestExplainEveryWorkload(t *testing.T) {
	for _, name := range workloads.Names() {
		var out, errb bytes.Buffer
		code := run([]string{"explain", name, "-n", "2000", "-chunk", "500"}, &out, &errb)
		if name == "W9" {
			if code == 0 || !strings.Contains(errb.String(), "w9-2000.npy") {
				t.Errorf("explain W9 without its file: exit %d, stderr %q", code, errb.String())
			}
			continue
		}
		if code != 0 || !strings.Contains(out.String(), "fuse") {
			t.Errorf("explain %s: exit %d, stdout %q, stderr %q", name, code, out.String(), errb.String())
		}
	}
}
