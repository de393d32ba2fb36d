package execution

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// PanicError is a panic while compiling or assembling, turned into an
// error: a tile rule given parameters it did not expect (a graph from a
// client may hold anything) must not take the process down.
type PanicError struct {
	Stage string // "compile" or "assemble"
	// Op is where it panicked: the tile rule of the op being tiled
	// ("ops.Reshape.Tile") when there is one on the stack, else the
	// innermost function of the program.
	Op    string
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack, for a log; not in Error
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: internal error in %s: %v", e.Stage, e.Op, e.Value)
}

// guard runs fn, turning a panic in it into a *PanicError.
func guard(stage string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Stage: stage, Op: panicSite(), Value: p, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// module is the prefix of this program's function names.
const module = "github.com/phobos-tensor/phobos/"

// panicSite names the function that panicked, from inside the deferred
// call that recovered: the innermost tile rule (a method Tile) between
// the panic and guard, else the innermost function there that is not the
// runtime's.
func panicSite() string {
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	inner := ""
	for more := true; more; {
		var f runtime.Frame
		f, more = frames.Next()
		name := f.Function
		switch {
		case name == module+"execution.guard":
			more = false
		case name == "" || strings.HasPrefix(name, "runtime."):
		case strings.HasSuffix(name, ".Tile"):
			return strings.TrimPrefix(name, module)
		case inner == "":
			inner = strings.TrimPrefix(name, module)
		}
	}
	if inner == "" {
		return "an unknown function"
	}
	return inner
}
