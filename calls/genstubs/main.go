// Command genstubs writes the Python stubs of the ops' calls
// (calls.PythonStubs) to the file its argument names; go generate in
// package calls runs it.
package main

import (
	"fmt"
	"os"

	"github.com/phobos-tensor/phobos/calls"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genstubs FILE")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], calls.PythonStubs(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genstubs:", err)
		os.Exit(1)
	}
}
