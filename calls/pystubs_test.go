package calls

import (
	"bytes"
	"os"
	"testing"
)

// TestPythonStubsCurrent fails when the generated Python stubs differ from
// what the ops declare: run go generate ./calls.
func TestPythonStubsCurrent(t *testing.T) {
	got, err := os.ReadFile("../python/phobos/tensor/_ops.py")
	if err != nil {
		t.Fatal(err)
	}
	if want := PythonStubs(); !bytes.Equal(got, want) {
		t.Fatalf("python/phobos/tensor/_ops.py is out of date with the ops' calls: run go generate ./calls")
	}
}

// TestOpCallsApart checks that no function is both written by hand in the
// table and declared by an op: one of the two would silently win.
func TestOpCallsApart(t *testing.T) {
	for name := range opTable {
		if _, ok := table[name]; ok {
			t.Errorf("%q is both in the table and declared by an op", name)
		}
	}
}

// TestPythonInferRulesCurrent fails when the client's generated inference
// tables differ from what the cluster describes: run go generate ./calls.
func TestPythonInferRulesCurrent(t *testing.T) {
	got, err := os.ReadFile("../python/phobos/tensor/_infer_rules.py")
	if err != nil {
		t.Fatal(err)
	}
	if want := PythonInferRules(); !bytes.Equal(got, want) {
		t.Fatalf("python/phobos/tensor/_infer_rules.py is out of date with the cluster's calls: run go generate ./calls")
	}
}
