// Command phobos-image builds the phobos container image without a
// container runtime: a root file system from pinned Debian packages
// (Python with NumPy and cloudpickle for the executors, OpenBLAS for
// phobos), the phobos binary built reproducibly, every timestamp set to
// the commit's time, written as an OCI image layout and/or a
// docker-archive tarball (podman load, docker load). The same commit and
// pin list give the same image digest.
//
//	phobos-image -oci DIR [-archive FILE] [-tag phobos:dev]
//	phobos-image -resolve            (write the pin list from what apt resolves)
//
// Run it from the repository's root (or give -src); it needs apt-get,
// dpkg-deb and ldconfig, as on Debian. See docs/deploy.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("phobos-image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	cacheDir, _ := os.UserCacheDir()
	fs.StringVar(&o.Lock, "lock", "deploy/image/packages.lock", "the pin list of Debian packages")
	fs.StringVar(&o.Cache, "cache", filepath.Join(cacheDir, "phobos-image"), "where downloaded .debs are kept")
	fs.StringVar(&o.Src, "src", ".", "the repository to build cmd/phobos from")
	fs.StringVar(&o.Binary, "binary", "", "a phobos binary to put in the image instead of building one")
	fs.StringVar(&o.OCI, "oci", "", "write an OCI image layout to this directory")
	fs.StringVar(&o.Archive, "archive", "", "write a docker-archive tarball to this file")
	fs.StringVar(&o.Tag, "tag", "phobos:dev", "the image's name")
	epoch := fs.Int64("epoch", -1, "every timestamp, in seconds since 1970 (default: $SOURCE_DATE_EPOCH, else the last commit's time)")
	resolveOnly := fs.Bool("resolve", false, "resolve the packages' closure with apt and write the pin list (-lock), then exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *resolveOnly {
		pkgs, err := resolve(ctx)
		if err == nil {
			err = writeLock(o.Lock, pkgs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "phobos-image: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d packages\n", o.Lock, len(pkgs))
		return 0
	}
	if o.OCI == "" && o.Archive == "" {
		fmt.Fprintln(stderr, "phobos-image: give -oci DIR, -archive FILE or both")
		return 2
	}
	switch {
	case *epoch >= 0:
		o.Epoch = time.Unix(*epoch, 0).UTC()
	case os.Getenv("SOURCE_DATE_EPOCH") != "":
		sec, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "phobos-image: SOURCE_DATE_EPOCH: %v\n", err)
			return 2
		}
		o.Epoch = time.Unix(sec, 0).UTC()
	default:
		t, err := commitEpoch(ctx, o.Src)
		if err != nil {
			fmt.Fprintf(stderr, "phobos-image: the epoch: %v (give -epoch)\n", err)
			return 1
		}
		o.Epoch = t
	}
	o.Log = stderr
	res, err := build(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "phobos-image: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s digest %s layers %d size %d bytes (unpacked %d)\n", o.Tag, res.Digest, res.Layers, res.Size, res.Uncompressed)
	return 0
}
