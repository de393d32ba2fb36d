package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/workloads"
)

// explainCmd prints a workload's chunk graph after tiling and after each
// optimisation pass: counts, fused groups and bytes to be materialised, or
// the graph in Graphviz DOT with --dot.
func explainCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "phobos explain: name a workload first: one of %s\n", strings.Join(workloads.Names(), ", "))
		return exitUsage
	}
	wl, ok := workloads.Get(args[0])
	if !ok {
		fmt.Fprintf(stderr, "phobos explain: unknown workload %q (known: %s)\n", args[0], strings.Join(workloads.Names(), ", "))
		return exitUsage
	}
	fs := flag.NewFlagSet("phobos explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var n, chunk sizeFlag
	fs.Var(&n, "n", "problem size: the workload's n or N")
	fs.Var(&chunk, "chunk", "chunk size along the split axes")
	noFuse := fs.Bool("no-fuse", false, "turn the fusion pass off")
	dot := fs.String("dot", "", "write the graph after this pass (tile, cull or fuse) as Graphviz DOT to stdout")
	maxNodes := fs.Int("max-nodes", 2000, "cut DOT output after this many chunk ops")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	over := workloads.Params{}
	if n.set {
		over[sizeName(wl)] = n.v
	}
	if chunk.set {
		over["chunk"] = chunk.v
	}
	p, err := wl.Resolve(over)
	if err != nil {
		fmt.Fprintf(stderr, "phobos explain: %v\n", err)
		return exitUsage
	}
	// In-memory workloads build on arrays made first (their shapes are
	// what the plan needs, but FromArray takes data).
	if wl, err = wl.Prepare(p, workloads.DefaultSeed); err != nil {
		fmt.Fprintf(stderr, "phobos explain: %v\n", err)
		return exitFailed
	}
	if wl.Build == nil {
		fmt.Fprintf(stderr, "phobos explain %s: the workload builds no graph\n", wl.Name)
		return exitFailed
	}
	sess, err := phobos.NewSession(phobos.WithFusion(!*noFuse))
	if err != nil {
		fmt.Fprintf(stderr, "phobos explain: %v\n", err)
		return exitFailed
	}
	defer sess.Close()
	plan, err := sess.Explain(wl.Build(p, workloads.DefaultSeed))
	if err != nil {
		fmt.Fprintf(stderr, "phobos explain %s: %v\n", wl.Name, err)
		return exitFailed
	}
	if *dot != "" {
		for i, s := range plan.Passes {
			if s.Pass == *dot {
				if err := optimize.WriteDOT(stdout, wl.Name+" after "+s.Pass, plan.Graphs[i], *maxNodes); err != nil {
					fmt.Fprintf(stderr, "phobos explain: %v\n", err)
					return exitFailed
				}
				return 0
			}
		}
		fmt.Fprintf(stderr, "phobos explain: no pass %q (passes: tile, cull, fuse)\n", *dot)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s %v: %s\n", wl.Name, p, wl.Desc)
	for _, s := range plan.Passes {
		fmt.Fprintln(stdout, s)
	}
	return 0
}
