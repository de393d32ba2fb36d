package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// pkg is one pinned Debian package: what apt resolved, and the hash of
// the .deb the archive serves for it.
type pkg struct {
	Name, Version, Arch, SHA256 string
}

// file is the name apt-get download gives the package's .deb.
func (p pkg) file() string {
	return fmt.Sprintf("%s_%s_%s.deb", p.Name, strings.ReplaceAll(p.Version, ":", "%3a"), p.Arch)
}

// roots are the packages the image is built from; the pin list holds
// their closure (Depends and Pre-Depends, no Recommends): the Python
// executors' interpreter with NumPy and cloudpickle, and the OpenBLAS
// phobos loads at run time.
var roots = []string{"python3-numpy", "python3-cloudpickle", "libopenblas0-pthread"}

const lockHeader = `# Debian packages of the phobos image: the closure of %s,
# as apt resolved it for an empty system (phobos-image -resolve). One package
# a line: name, version, architecture, SHA-256 of the .deb. The image is built
# from exactly these files; change them only by resolving again.
`

// readLock parses a pin list.
func readLock(path string) ([]pkg, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pkgs []pkg
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 || len(f[3]) != 64 {
			return nil, fmt.Errorf("%s:%d: want name, version, architecture and sha256, got %q", path, i+1, line)
		}
		pkgs = append(pkgs, pkg{f[0], f[1], f[2], f[3]})
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: no packages", path)
	}
	return pkgs, nil
}

// writeLock writes a pin list, sorted by name.
func writeLock(path string, pkgs []pkg) error {
	slices.SortFunc(pkgs, func(a, b pkg) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	fmt.Fprintf(&b, lockHeader, strings.Join(roots, ", "))
	for _, p := range pkgs {
		fmt.Fprintf(&b, "%s %s %s %s\n", p.Name, p.Version, p.Arch, p.SHA256)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// resolve asks apt for the closure of roots on an empty system (a
// simulated install against an empty dpkg status) and the archive's hash of
// each package.
func resolve(ctx context.Context) ([]pkg, error) {
	empty, err := os.CreateTemp("", "phobos-image-status")
	if err != nil {
		return nil, err
	}
	empty.Close()
	defer os.Remove(empty.Name())
	args := append([]string{"-s", "-q", "-o", "Dir::State::status=" + empty.Name(), "--no-install-recommends", "install"}, roots...)
	out, err := exec.CommandContext(ctx, "apt-get", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("apt-get %s: %w", strings.Join(args, " "), err)
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// Inst NAME (VERSION SUITE [ARCH])
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "Inst" {
			continue
		}
		name, version := f[1], strings.TrimPrefix(f[2], "(")
		show, err := exec.CommandContext(ctx, "apt-cache", "show", name+"="+version).Output()
		if err != nil {
			return nil, fmt.Errorf("apt-cache show %s=%s: %w", name, version, err)
		}
		p := pkg{Name: name, Version: version}
		for _, l := range strings.Split(string(show), "\n") {
			if l == "" && p.SHA256 != "" {
				break // the first stanza is the candidate
			}
			if v, ok := strings.CutPrefix(l, "Architecture: "); ok {
				p.Arch = v
			}
			if v, ok := strings.CutPrefix(l, "SHA256: "); ok {
				p.SHA256 = v
			}
		}
		if p.Arch == "" || p.SHA256 == "" {
			return nil, fmt.Errorf("apt-cache show %s=%s: no architecture or SHA256", name, version)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("apt-get resolved no packages for %s", strings.Join(roots, " "))
	}
	return pkgs, nil
}

// fetch makes sure cache holds every pinned .deb with its pinned hash,
// downloading the missing ones with apt-get download, and returns their
// paths in the order of pkgs.
func fetch(ctx context.Context, cache string, pkgs []pkg, log io.Writer) ([]string, error) {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	var missing []string
	for _, p := range pkgs {
		if err := checkHash(filepath.Join(cache, p.file()), p.SHA256); err != nil {
			missing = append(missing, p.Name+":"+p.Arch+"="+p.Version)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(log, "downloading %d packages into %s\n", len(missing), cache)
		tmp, err := os.MkdirTemp(cache, "download")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		// As root apt would hand the download to its _apt user, which
		// cannot write a private temporary directory.
		cmd := exec.CommandContext(ctx, "apt-get", append([]string{"download", "-q", "-o", "APT::Sandbox::User=root"}, missing...)...)
		cmd.Dir = tmp
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("apt-get download: %w", err)
		}
		ents, err := os.ReadDir(tmp)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(cache, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = filepath.Join(cache, p.file())
		if err := checkHash(paths[i], p.SHA256); err != nil {
			return nil, fmt.Errorf("package %s %s: %w", p.Name, p.Version, err)
		}
	}
	return paths, nil
}

// checkHash reports whether the file at path has the SHA-256 want.
func checkHash(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: sha256 %s, pinned %s", path, got, want)
	}
	return nil
}
