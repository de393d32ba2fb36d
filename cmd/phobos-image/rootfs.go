package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The image's user: roles run unprivileged, as this uid and gid.
const (
	imageUID = 10001
	imageGID = 10001
)

// dropped are directories of the packages the image does not need: manual
// pages, translations, changelogs. The copyright files under
// /usr/share/doc stay.
var dropped = []string{"usr/share/man", "usr/share/info", "usr/share/locale", "usr/share/lintian", "usr/share/bug"}

// stageDebs unpacks the packages into dir in their order, as dpkg would
// without running maintainer scripts, then does what those scripts would
// have done that the image needs: OpenBLAS's alternatives as plain
// symbolic links, a dpkg status file, and the dynamic linker's cache.
func stageDebs(ctx context.Context, dir string, debs []string) error {
	var status bytes.Buffer
	for _, deb := range debs {
		if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, dir).CombinedOutput(); err != nil {
			return fmt.Errorf("dpkg-deb -x %s: %w: %s", deb, err, out)
		}
		ctrl, err := exec.CommandContext(ctx, "dpkg-deb", "-f", deb).Output()
		if err != nil {
			return fmt.Errorf("dpkg-deb -f %s: %w", deb, err)
		}
		// dpkg's own status format: the control stanza with its state.
		stanza := strings.TrimRight(string(ctrl), "\n")
		name, rest, _ := strings.Cut(stanza, "\n")
		fmt.Fprintf(&status, "%s\nStatus: install ok installed\n%s\n\n", name, rest)
	}
	for _, d := range dropped {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return err
		}
	}
	if err := dropDocs(filepath.Join(dir, "usr/share/doc")); err != nil {
		return err
	}
	// update-alternatives would point these at the pthread OpenBLAS; NumPy
	// links libblas.so.3 and liblapack.so.3, phobos dlopens libopenblas.so.0.
	multiarch := "usr/lib/" + debianMultiarch()
	for _, lib := range []string{"libblas.so.3", "liblapack.so.3", "libopenblas.so.0"} {
		target := "openblas-pthread/" + lib
		if _, err := os.Stat(filepath.Join(dir, multiarch, target)); err != nil {
			return fmt.Errorf("OpenBLAS: %w", err)
		}
		link := filepath.Join(dir, multiarch, lib)
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return err
		}
	}
	files := map[string]string{
		"var/lib/dpkg/status": status.String(),
		"etc/ld.so.conf":      "include /etc/ld.so.conf.d/*.conf\n",
		"etc/passwd":          fmt.Sprintf("root:x:0:0:root:/root:/usr/sbin/nologin\nphobos:x:%d:%d:phobos:/home/phobos:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", imageUID, imageGID),
		"etc/group":           fmt.Sprintf("root:x:0:\nphobos:x:%d:\nnogroup:x:65534:\n", imageGID),
		"etc/nsswitch.conf":   "passwd: files\ngroup: files\nhosts: files dns\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		mode fs.FileMode
	}{{"tmp", 0o1777}, {"home/phobos", 0o755}, {"root", 0o700}, {"var/lib/phobos/spill", 0o755}, {"var/lib/phobos/data", 0o755}} {
		p := filepath.Join(dir, d.name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(p, d.mode); err != nil {
			return err
		}
	}
	// The cache lets the loader find libraries outside its default
	// directories; -X leaves the packages' links as they shipped.
	if out, err := exec.CommandContext(ctx, "ldconfig", "-X", "-r", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("ldconfig -r: %w: %s", err, out)
	}
	return nil
}

// dropDocs removes everything under /usr/share/doc but the copyright files.
func dropDocs(doc string) error {
	ents, err := os.ReadDir(doc)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		sub := filepath.Join(doc, e.Name())
		if !e.IsDir() {
			continue // links to another package's directory
		}
		inner, err := os.ReadDir(sub)
		if err != nil {
			return err
		}
		for _, f := range inner {
			if f.Name() != "copyright" {
				if err := os.RemoveAll(filepath.Join(sub, f.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// debianMultiarch is Debian's multiarch directory name for this machine.
func debianMultiarch() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

// owner is a file's owner in the image.
type owner struct{ uid, gid int }

// writeLayer writes the tree under dir as a layer: entries sorted by path,
// every time set to epoch, owned by root unless owners names another
// owner for the path, with no user or group names and hard links kept as
// links.
func writeLayer(w io.Writer, dir string, epoch time.Time, owners map[string]owner) error {
	tw := tar.NewWriter(w)
	seen := map[[2]uint64]string{} // (device, inode) of files with several links
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		hdr.Name = rel
		if info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if o, ok := owners[rel]; ok {
			hdr.Uid, hdr.Gid = o.uid, o.gid
		}
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = epoch, time.Time{}, time.Time{}
		hdr.Format = tar.FormatPAX
		hdr.PAXRecords = nil
		if st, ok := info.Sys().(*syscall.Stat_t); ok && info.Mode().IsRegular() && st.Nlink > 1 {
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if first, ok := seen[key]; ok {
				hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
			} else {
				seen[key] = rel
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
