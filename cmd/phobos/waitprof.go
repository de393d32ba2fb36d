package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profileWaits samples every contended lock wait (into mutexPath) and
// every blocking event (blockPath) from now on, and traces execution to
// tracePath; an empty path asks for none. The files are made now, so a
// bad path fails before the run does. stop writes the profiles and turns
// sampling and tracing off again.
func profileWaits(mutexPath, blockPath, tracePath string) (stop func() error, err error) {
	type profile struct {
		name string
		f    *os.File
	}
	var profiles []profile
	var tf *os.File
	// closeAll undoes a start that failed: nothing is left behind.
	closeAll := func() {
		for _, p := range profiles {
			p.f.Close()
			os.Remove(p.f.Name())
		}
		if tf != nil {
			tf.Close()
			os.Remove(tf.Name())
		}
	}
	for _, p := range []struct{ name, path string }{{"mutex", mutexPath}, {"block", blockPath}} {
		if p.path == "" {
			continue
		}
		f, err := os.Create(p.path)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("%s profile: %w", p.name, err)
		}
		profiles = append(profiles, profile{p.name, f})
	}
	if tracePath != "" {
		if tf, err = os.Create(tracePath); err != nil {
			closeAll()
			return nil, fmt.Errorf("trace: %w", err)
		}
		if err := trace.Start(tf); err != nil {
			closeAll()
			return nil, fmt.Errorf("trace %s: %w", tracePath, err)
		}
	}
	if mutexPath != "" {
		runtime.SetMutexProfileFraction(1)
	}
	if blockPath != "" {
		runtime.SetBlockProfileRate(1)
	}
	return func() error {
		var errs []error
		if tf != nil {
			trace.Stop()
			if err := tf.Close(); err != nil {
				errs = append(errs, fmt.Errorf("trace %s: %w", tracePath, err))
			}
		}
		for _, p := range profiles {
			err := pprof.Lookup(p.name).WriteTo(p.f, 0)
			if cerr := p.f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s profile %s: %w", p.name, p.f.Name(), err))
			}
		}
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
		return errors.Join(errs...)
	}, nil
}
