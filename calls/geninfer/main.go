// Command geninfer writes the client's dtype inference tables
// (calls.PythonInferRules) to the file its argument names; go generate in
// package calls runs it.
package main

import (
	"fmt"
	"os"

	"github.com/phobos-tensor/phobos/calls"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: geninfer FILE")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], calls.PythonInferRules(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "geninfer:", err)
		os.Exit(1)
	}
}
