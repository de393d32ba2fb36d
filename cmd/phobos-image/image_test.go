package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestLockRoundTrip: the pin list reads back what was written, sorted, and
// a malformed line is refused.
func TestLockRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "packages.lock")
	hash := strings.Repeat("ab", 32)
	in := []pkg{{"zlib1g", "1:1.2.13.dfsg-1", "amd64", hash}, {"libc6", "2.36-9", "amd64", hash}}
	if err := writeLock(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := readLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "libc6" || got[1].Version != "1:1.2.13.dfsg-1" {
		t.Fatalf("read back %v", got)
	}
	if f := got[1].file(); f != "zlib1g_1%3a1.2.13.dfsg-1_amd64.deb" {
		t.Errorf("file name %q", f)
	}
	if err := os.WriteFile(path, []byte("libc6 2.36-9 amd64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readLock(path); err == nil {
		t.Error("a line without a hash was accepted")
	}
}

// TestWriteLayerDeterministic: a tree gives the same layer bytes whatever
// its files' times, entries sorted, owned by root but where told, times
// at the epoch, hard links as links.
func TestWriteLayerDeterministic(t *testing.T) {
	mk := func(mtime time.Time) string {
		dir := t.TempDir()
		for _, f := range []string{"b/z", "a/y", "a/x", "c"} {
			p := filepath.Join(dir, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("a/x", filepath.Join(dir, "l")); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(dir, "c"), filepath.Join(dir, "d")); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"b/z", "a/y", "a/x", "c", "a", "b"} {
			if err := os.Chtimes(filepath.Join(dir, f), mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	epoch := time.Unix(1700000000, 0).UTC()
	owners := map[string]owner{"b": {imageUID, imageGID}}
	var out [2]bytes.Buffer
	for i, mtime := range []time.Time{time.Unix(1, 0), time.Now()} {
		if err := writeLayer(&out[i], mk(mtime), epoch, owners); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Fatal("the same tree with other file times gave another layer")
	}
	tr := tar.NewReader(&out[0])
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(epoch) {
			t.Errorf("%s: time %v", h.Name, h.ModTime)
		}
		wantUID := 0
		if h.Name == "b/" {
			wantUID = imageUID
		}
		if h.Uid != wantUID || h.Uname != "" {
			t.Errorf("%s: uid %d %q, want %d", h.Name, h.Uid, h.Uname, wantUID)
		}
		if h.Name == "d" && (h.Typeflag != tar.TypeLink || h.Linkname != "c") {
			t.Errorf("d: type %c link %q, want a hard link to c", h.Typeflag, h.Linkname)
		}
		if h.Name == "l" && (h.Typeflag != tar.TypeSymlink || h.Linkname != "a/x") {
			t.Errorf("l: type %c link %q", h.Typeflag, h.Linkname)
		}
	}
	want := "a/ a/x a/y b/ b/z c d l"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("entries %q, want %q", got, want)
	}
}

// TestImage builds the image twice from the pinned packages and this
// repository, wants the same digest, and runs phobos version (and the
// executors' Python) from it: with podman where it runs containers, else
// chrooted into the unpacked layers (root only). It downloads the .debs
// once into the cache and takes minutes, so it runs when asked:
// PHOBOS_IMAGE_TEST=1 (.ci/run's image step).
func TestImage(t *testing.T) {
	if os.Getenv("PHOBOS_IMAGE_TEST") == "" {
		t.Skip("set PHOBOS_IMAGE_TEST=1 to build the container image (.ci/run does, as a step of its own)")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "ldconfig"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("building the image needs %s (Debian): %v", tool, err)
		}
	}
	ctx := t.Context()
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	epoch, err := commitEpoch(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	cache := os.Getenv("PHOBOS_IMAGE_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(dir, "phobos-image")
	}
	var digests [2]v1.Hash
	var last result
	var layoutDir, archive string
	for i := range digests {
		out := t.TempDir()
		layoutDir, archive = filepath.Join(out, "oci"), filepath.Join(out, "phobos.tar")
		start := time.Now()
		res, err := build(ctx, options{Lock: filepath.Join(src, "deploy/image/packages.lock"), Cache: cache, Src: src, Epoch: epoch,
			OCI: layoutDir, Archive: archive, Tag: "localhost/phobos:test", Log: testLog{t}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("build %d: digest %s in %v", i+1, res.Digest, time.Since(start).Round(time.Second))
		digests[i], last = res.Digest, res
	}
	if digests[0] != digests[1] {
		t.Fatalf("two builds of one commit: digests %s and %s", digests[0], digests[1])
	}
	t.Logf("image: digest %s, %d layers, %.1f MiB stored (compressed), %.1f MiB unpacked", last.Digest, last.Layers,
		float64(last.Size)/(1<<20), float64(last.Uncompressed)/(1<<20))

	// The layout holds the image just built.
	idx, err := layout.ImageIndexFromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != last.Digest {
		t.Fatalf("OCI layout index: %+v, want the one image %s", im.Manifests, last.Digest)
	}
	img, err := idx.Image(last.Digest)
	if err != nil {
		t.Fatal(err)
	}

	var root string // the unpacked layers, made once if chroot is needed
	rootfs := func() string {
		if root == "" {
			root = t.TempDir()
			rc := mutate.Extract(img)
			defer rc.Close()
			if err := untar(rc, root); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	if _, err := exec.LookPath("podman"); err == nil {
		// podmanRun loads the image under this name; leave nothing behind.
		t.Cleanup(func() { _ = exec.Command("podman", "rmi", "-f", "localhost/phobos:test").Run() })
	}
	version, how := runInImage(t, ctx, img, archive, rootfs, binaryPath, "version")
	t.Logf("phobos version (%s):\n%s", how, version)
	if !strings.Contains(version, "blas: openblas") {
		t.Errorf("phobos version in the image did not find OpenBLAS:\n%s", version)
	}
	py, how := runInImage(t, ctx, img, archive, rootfs, "/usr/bin/python3", "-c",
		"import numpy, cloudpickle; a = numpy.arange(6.0).reshape(2, 3); f = cloudpickle.loads(cloudpickle.dumps(lambda x: x @ x.T)); print(numpy.__version__, cloudpickle.__version__, f(a).tolist())")
	t.Logf("python3 (%s): %s", how, py)
	if !strings.Contains(py, "[[5.0, 14.0], [14.0, 50.0]]") || !strings.HasPrefix(py, "1.24.") {
		t.Errorf("python3 in the image: %q, want NumPy 1.24 computing [[5, 14], [14, 50]]", py)
	}
}

// runInImage runs a command from the image: with podman when it loads the
// archive and runs containers here, else chrooted into the unpacked layers
// as the image's user. It says which.
func runInImage(t *testing.T, ctx context.Context, img v1.Image, archive string, rootfs func() string, argv ...string) (out, how string) {
	t.Helper()
	out, err := podmanRun(ctx, archive, argv...)
	if err == nil {
		return out, "podman"
	}
	t.Logf("podman did not run the image (%v); running it chrooted into its unpacked layers", err)
	if os.Geteuid() != 0 {
		t.Skip("neither podman nor chroot (root only) can run the image here")
	}
	root := rootfs()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = cfg.Config.Env
	cmd.Dir = cfg.Config.WorkingDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: imageUID, Gid: imageGID}}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chroot %s %s: %v\n%s", root, strings.Join(argv, " "), err, b)
	}
	return strings.TrimSpace(string(b)), "chroot"
}

// podmanRun loads the docker-archive into podman and runs argv in it,
// without a network.
func podmanRun(ctx context.Context, archive string, argv ...string) (string, error) {
	if _, err := exec.LookPath("podman"); err != nil {
		return "", err
	}
	if b, err := exec.CommandContext(ctx, "podman", "load", "-q", "-i", archive).CombinedOutput(); err != nil {
		return "", fmt.Errorf("podman load: %w: %s", err, bytes.TrimSpace(b))
	}
	args := append([]string{"run", "--rm", "--network=none", "--entrypoint", argv[0], "localhost/phobos:test"}, argv[1:]...)
	b, err := exec.CommandContext(ctx, "podman", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("podman run: %w: %s", err, bytes.TrimSpace(b))
	}
	return strings.TrimSpace(string(b)), nil
}

// untar extracts a flattened image into dir, with owners and modes.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	type dirMode struct {
		path string
		h    *tar.Header
	}
	var dirs []dirMode
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			dirs = append(dirs, dirMode{p, h})
			continue
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
			continue
		case tar.TypeLink:
			if err := os.Link(filepath.Join(dir, filepath.Clean("/"+h.Linkname)), p); err != nil {
				return err
			}
			continue
		default:
			return fmt.Errorf("%s: unexpected entry type %c", h.Name, h.Typeflag)
		}
		if err := os.Lchown(p, h.Uid, h.Gid); err != nil {
			return err
		}
		if err := os.Chmod(p, os.FileMode(h.Mode).Perm()|modeBits(h.Mode)); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if err := os.Lchown(d.path, d.h.Uid, d.h.Gid); err != nil {
			return err
		}
		if err := os.Chmod(d.path, os.FileMode(d.h.Mode).Perm()|modeBits(d.h.Mode)); err != nil {
			return err
		}
	}
	return nil
}

// modeBits is the setuid, setgid and sticky bits of a tar mode.
func modeBits(m int64) os.FileMode {
	var fm os.FileMode
	if m&0o4000 != 0 {
		fm |= os.ModeSetuid
	}
	if m&0o2000 != 0 {
		fm |= os.ModeSetgid
	}
	if m&0o1000 != 0 {
		fm |= os.ModeSticky
	}
	return fm
}

// testLog writes the builder's progress into the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
