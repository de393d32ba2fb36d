package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// binaryPath is where the image holds phobos.
const binaryPath = "/usr/local/bin/phobos"

// options say what to build and where to write it.
type options struct {
	Lock    string    // the pin list
	Cache   string    // where downloaded .debs are kept between builds
	Src     string    // the repository, to build cmd/phobos from
	Binary  string    // a phobos binary to use instead of building one
	Epoch   time.Time // every timestamp in the image
	OCI     string    // OCI image layout directory to write, if not empty
	Archive string    // docker-archive tarball to write, if not empty
	Tag     string    // the image's name in both
	Log     io.Writer
}

// result describes a built image.
type result struct {
	Digest       v1.Hash
	Layers       int
	Size         int64 // manifest, config and compressed layers: what a registry stores
	Uncompressed int64 // the layers unpacked
}

// build makes the image: a layer of the pinned Debian packages and a layer
// with phobos, in a temporary directory removed at the end.
func build(ctx context.Context, o options) (result, error) {
	var res result
	pkgs, err := readLock(o.Lock)
	if err != nil {
		return res, err
	}
	debs, err := fetch(ctx, o.Cache, pkgs, o.Log)
	if err != nil {
		return res, err
	}
	work, err := os.MkdirTemp("", "phobos-image")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(work)

	root := filepath.Join(work, "debian")
	if err := os.Mkdir(root, 0o755); err != nil {
		return res, err
	}
	if err := stageDebs(ctx, root, debs); err != nil {
		return res, err
	}
	owned := owner{imageUID, imageGID}
	base, err := layerFromTree(filepath.Join(work, "debian.tar"), root, o.Epoch, map[string]owner{
		"home/phobos": owned, "var/lib/phobos": owned, "var/lib/phobos/spill": owned, "var/lib/phobos/data": owned,
	})
	if err != nil {
		return res, err
	}

	app := filepath.Join(work, "phobos")
	bin := filepath.Join(app, strings.TrimPrefix(binaryPath, "/"))
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return res, err
	}
	if o.Binary != "" {
		err = copyFile(bin, o.Binary)
	} else {
		err = buildPhobos(ctx, o.Src, bin)
	}
	if err != nil {
		return res, err
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return res, err
	}
	top, err := layerFromTree(filepath.Join(work, "phobos.tar"), app, o.Epoch, nil)
	if err != nil {
		return res, err
	}

	created := v1.Time{Time: o.Epoch}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: runtime.GOARCH,
		OS:           "linux",
		Created:      created,
		Config: v1.Config{
			Entrypoint: []string{binaryPath},
			Cmd:        []string{"version"},
			User:       fmt.Sprintf("%d:%d", imageUID, imageGID),
			WorkingDir: "/home/phobos",
			Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/phobos"},
			Labels: map[string]string{
				"org.opencontainers.image.title":  "phobos",
				"org.opencontainers.image.source": "https://github.com/phobos-tensor/phobos",
			},
		},
	})
	if err != nil {
		return res, err
	}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "phobos-image: Debian packages of " + filepath.Base(o.Lock)}},
		mutate.Addendum{Layer: top, History: v1.History{Created: created, CreatedBy: "phobos-image: " + binaryPath}},
	)
	if err != nil {
		return res, err
	}
	img, err = mutate.CreatedAt(img, created)
	if err != nil {
		return res, err
	}
	if res.Digest, err = img.Digest(); err != nil {
		return res, err
	}
	if res.Size, res.Uncompressed, res.Layers, err = sizes(img); err != nil {
		return res, err
	}
	tag, err := name.NewTag(o.Tag)
	if err != nil {
		return res, fmt.Errorf("-tag: %w", err)
	}
	if o.OCI != "" {
		if err := writeLayout(o.OCI, img, tag); err != nil {
			return res, err
		}
	}
	if o.Archive != "" {
		if err := tarball.WriteToFile(o.Archive, tag, img); err != nil {
			return res, fmt.Errorf("writing %s: %w", o.Archive, err)
		}
	}
	return res, nil
}

// layerFromTree writes the tree as a tar file at path and makes it a
// gzip-compressed OCI layer.
func layerFromTree(path, dir string, epoch time.Time, owners map[string]owner) (v1.Layer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := writeLayer(f, dir, epoch, owners); err != nil {
		f.Close()
		return nil, fmt.Errorf("layer of %s: %w", dir, err)
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	// Cached: the layer is compressed once, not again for each output.
	return tarball.LayerFromFile(path, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// sizes adds up what the image takes: stored (manifest, config,
// compressed layers) and unpacked.
func sizes(img v1.Image) (stored, unpacked int64, layers int, err error) {
	m, err := img.RawManifest()
	if err != nil {
		return 0, 0, 0, err
	}
	c, err := img.RawConfigFile()
	if err != nil {
		return 0, 0, 0, err
	}
	stored = int64(len(m) + len(c))
	ls, err := img.Layers()
	if err != nil {
		return 0, 0, 0, err
	}
	for _, l := range ls {
		n, err := l.Size()
		if err != nil {
			return 0, 0, 0, err
		}
		stored += n
		rc, err := l.Uncompressed()
		if err != nil {
			return 0, 0, 0, err
		}
		u, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return 0, 0, 0, err
		}
		unpacked += u
	}
	return stored, unpacked, len(ls), nil
}

// writeLayout writes an OCI image layout holding the one image, into a
// directory that must not exist yet or be empty.
func writeLayout(dir string, img v1.Image, tag name.Tag) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.String(),
	}))
}

// buildPhobos builds cmd/phobos reproducibly: no cgo, no paths of this
// machine, no VCS stamp, no build ID.
func buildPhobos(ctx context.Context, src, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", out, "./cmd/phobos")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOOS=linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/phobos: %w: %s", err, b)
	}
	return nil
}

// commitEpoch is the time of the last commit of the repository at src.
func commitEpoch(ctx context.Context, src string) (time.Time, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", src, "log", "-1", "--format=%ct").Output()
	if err != nil {
		return time.Time{}, fmt.Errorf("git log: %w", err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log: %w", err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
