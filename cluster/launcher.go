package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/rpc"
)

// ReadyPrefix starts the line a role prints on stdout once it serves; the
// line ends with the role's URL. The launcher reads it to learn the port a
// child chose, so no port is ever picked by one process for another.
const ReadyPrefix = "phobos ready:"

// ReadyLine is the line a role prints once it serves at url.
func ReadyLine(role, url string) string { return fmt.Sprintf("%s %s %s", ReadyPrefix, role, url) }

// LaunchConfig describes a one-machine cluster of separate processes.
type LaunchConfig struct {
	// Exe is the phobos binary to run the roles with (default: this one).
	Exe     string
	Workers int
	// Schedulers, when more than 1, runs a ring of that many schedulers
	// (children scheduler-0, scheduler-1, ...) over an etcd embedded in
	// this process; workers register with all of them and the web
	// service routes each session to its owner. 0 or 1: one scheduler,
	// no etcd.
	Schedulers int
	// Slots per worker (default GOMAXPROCS / Workers, at least 1).
	Slots int
	// Memory per worker in bytes (0: the worker's default).
	Memory int64
	// SpillDir is the parent of the workers' spill directories (default: a
	// temporary directory, removed at Stop).
	SpillDir string
	// Listen is the web service's address (default: a free loopback port).
	Listen string
	// ExtraArgs are appended per role ("scheduler", "worker", "web").
	ExtraArgs map[string][]string
	// Stderr receives the children's logs (default os.Stderr).
	Stderr io.Writer
	// ReadyTimeout bounds the start (default 30 s).
	ReadyTimeout time.Duration
	// Token, when not "", is the cluster's shared secret, given to each
	// child through a pipe it reads as its --token-file (never on a
	// command line or in an environment that ps can show).
	Token string
	// TLS is every role's certificate, key and CA (the same files for all:
	// the certificate must name the loopback address), passed as flags.
	TLS rpc.TLSFiles
	// Exposure and AllowedHosts are the web service's (the only role that
	// may listen beyond loopback): see WebConfig.
	Exposure     Exposure
	AllowedHosts []string
}

// ProcCluster is a running cluster of child processes.
type ProcCluster struct {
	URL          string // the web service
	SchedulerURL string // the first scheduler
	// SchedulerURLs are the schedulers of a ring, by index; Etcd its
	// coordination service (nil with one scheduler).
	SchedulerURLs []string
	Etcd          *ha.EmbeddedEtcd
	WorkerURLs    []string

	children []*child
	cfg      LaunchConfig // as Launch completed it (for RestartScheduler)
	spillTmp string
	died     chan string
	stopOnce sync.Once
}

type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// defaultSpillDir makes a temporary spill directory when none was given,
// noting it in *tmp for removal when the cluster stops.
func defaultSpillDir(dir, tmp *string) error {
	if *dir != "" {
		return nil
	}
	d, err := os.MkdirTemp("", "phobos-spill-")
	if err != nil {
		return err
	}
	*dir, *tmp = d, d
	return nil
}

// Launch starts a scheduler, the workers and a web service as children of
// this process and returns once GET /api says the cluster can take work.
func Launch(ctx context.Context, cfg LaunchConfig) (*ProcCluster, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Slots <= 0 {
		cfg.Slots = max(1, runtime.GOMAXPROCS(0)/cfg.Workers)
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = 30 * time.Second
	}
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Exe = exe
	}
	c := &ProcCluster{died: make(chan string, cfg.Workers+max(cfg.Schedulers, 1)+1)}
	if err := defaultSpillDir(&cfg.SpillDir, &c.spillTmp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout)
	defer cancel()
	fail := func(err error) (*ProcCluster, error) {
		c.Stop()
		return nil, err
	}
	c.cfg = cfg
	var err error
	// Where workers and the web service find the scheduler(s).
	var find []string
	if cfg.Schedulers > 1 {
		if c.Etcd, err = ha.StartEtcd(ctx, ha.EtcdConfig{}); err != nil {
			return fail(err)
		}
		find = []string{"--etcd", c.Etcd.Endpoint()}
		for i := range cfg.Schedulers {
			name := fmt.Sprintf("scheduler-%d", i)
			u, err := c.start(ctx, cfg, name, "scheduler", "--listen", "127.0.0.1:0", "--etcd", c.Etcd.Endpoint(), "--id", name)
			if err != nil {
				return fail(err)
			}
			c.SchedulerURLs = append(c.SchedulerURLs, u)
		}
		c.SchedulerURL = c.SchedulerURLs[0]
	} else {
		if c.SchedulerURL, err = c.start(ctx, cfg, "scheduler", "scheduler", "--listen", "127.0.0.1:0"); err != nil {
			return fail(err)
		}
		find = []string{"--scheduler", c.SchedulerURL}
	}
	for i := range cfg.Workers {
		dir := filepath.Join(cfg.SpillDir, fmt.Sprintf("worker-%d", i))
		u, err := c.start(ctx, cfg, fmt.Sprintf("worker-%d", i), "worker", append(slices.Clone(find),
			"--listen", "127.0.0.1:0",
			"--slots", strconv.Itoa(cfg.Slots), "--memory", strconv.FormatInt(cfg.Memory, 10), "--spill-dir", dir)...)
		if err != nil {
			return fail(err)
		}
		c.WorkerURLs = append(c.WorkerURLs, u)
	}
	listenAddr := cfg.Listen
	if listenAddr == "" {
		listenAddr = "127.0.0.1:0"
	}
	webArgs := append(slices.Clone(find), "--listen", listenAddr)
	if cfg.Exposure.Open {
		webArgs = append(webArgs, "--insecure-no-token")
	}
	if cfg.Exposure.PlainHTTP {
		webArgs = append(webArgs, "--insecure-no-tls")
	}
	for _, h := range cfg.AllowedHosts {
		webArgs = append(webArgs, "--allow-host", h)
	}
	c.URL, err = c.start(ctx, cfg, "web", "web", webArgs...)
	if err != nil {
		return fail(err)
	}
	hc, err := NewClient(cfg.Token, cfg.TLS)
	if err != nil {
		return fail(err)
	}
	hc.Timeout = 2 * time.Second
	if cfg.Schedulers > 1 {
		if err := WaitRing(ctx, hc, c.URL, cfg.Schedulers, cfg.Workers); err != nil {
			return fail(err)
		}
	} else if err := WaitReady(ctx, hc, c.URL, cfg.Workers); err != nil {
		return fail(err)
	}
	return c, nil
}

// WaitRing polls GET /api/schedulers with hc until the ring has the given
// number of schedulers serving, each with the given number of live
// workers (or ctx ends).
func WaitRing(ctx context.Context, hc *http.Client, url string, schedulers, workers int) error {
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/schedulers", nil)
		resp, err := hc.Do(req)
		if err == nil {
			var got struct {
				Schedulers []struct {
					ID          string `json:"id"`
					State       string `json:"state"`
					RingMembers int    `json:"ring_members"`
					LiveWorkers int    `json:"live_workers"`
				} `json:"schedulers"`
			}
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err == nil {
				ready := 0
				for _, s := range got.Schedulers {
					if s.State == "serving" && s.RingMembers == schedulers && s.LiveWorkers >= workers {
						ready++
					}
				}
				if ready == schedulers {
					return nil
				}
				last = fmt.Sprintf("%d of %d schedulers serving with %d workers", ready, schedulers, workers)
			}
		}
		if err != nil {
			last = err.Error()
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("ring at %s not ready (%s): %w", url, last, ctx.Err())
		case <-t.C:
		}
	}
}

// start runs one role and waits for its ready line.
func (c *ProcCluster) start(ctx context.Context, cfg LaunchConfig, name, role string, args ...string) (string, error) {
	args = append([]string{role}, args...)
	if cfg.TLS.Enabled() {
		args = append(args, "--tls-cert", cfg.TLS.Cert, "--tls-key", cfg.TLS.Key)
	}
	if cfg.TLS.CA != "" {
		args = append(args, "--tls-ca", cfg.TLS.CA)
	}
	var tokenPipe *os.File
	if cfg.Token != "" {
		r, err := tokenReader(cfg.Token)
		if err != nil {
			return "", fmt.Errorf("starting %s: %w", name, err)
		}
		defer r.Close() // the child holds its own copy once started
		tokenPipe = r
		args = append(args, "--token-file", "/dev/fd/3") // ExtraFiles[0]
	}
	args = append(args, cfg.ExtraArgs[role]...)
	cmd := exec.Command(cfg.Exe, args...)
	cmd.Stderr = cfg.Stderr
	if tokenPipe != nil {
		cmd.ExtraFiles = []*os.File{tokenPipe}
	}
	setChildAttrs(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting %s: %w", name, err)
	}
	ch := &child{name: name, cmd: cmd, done: make(chan struct{})}
	c.children = append(c.children, ch)
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent && strings.HasPrefix(line, ReadyPrefix) {
				f := strings.Fields(line)
				urlc <- f[len(f)-1]
				sent = true
				continue
			}
			fmt.Fprintf(cfg.Stderr, "[%s] %s\n", name, line)
		}
		close(urlc)
	}()
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
		select {
		case c.died <- name:
		default:
		}
	}()
	select {
	case u, ok := <-urlc:
		if !ok {
			<-ch.done
			return "", fmt.Errorf("%s exited before it was ready: %v", name, ch.err)
		}
		return u, nil
	case <-ctx.Done():
		return "", fmt.Errorf("%s did not get ready: %w", name, ctx.Err())
	}
}

// tokenReader is the read end of a pipe holding token and a newline, the
// write end closed: a child reads it to its end as a token file.
func tokenReader(token string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("token pipe: %w", err)
	}
	// A pipe holds far more than a token, so this write cannot block.
	_, err = io.WriteString(w, token+"\n")
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("token pipe: %w", err)
	}
	return r, nil
}

// WaitReady polls GET /api with hc (NewClient: the cluster's token and TLS
// roots) until the cluster has the given number of live workers (or ctx
// ends).
func WaitReady(ctx context.Context, hc *http.Client, url string, workers int) error {
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api", nil)
		resp, err := hc.Do(req)
		if err == nil {
			var info struct {
				Ready       bool `json:"ready"`
				LiveWorkers int  `json:"live_workers"`
			}
			err = json.NewDecoder(resp.Body).Decode(&info)
			resp.Body.Close()
			if err == nil && info.Ready && info.LiveWorkers >= workers {
				return nil
			}
			last = fmt.Sprintf("%d of %d workers live", info.LiveWorkers, workers)
		} else {
			last = err.Error()
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("cluster at %s not ready (%s): %w", url, last, ctx.Err())
		case <-t.C:
		}
	}
}

// Died receives the name of a child that exited while the cluster ran.
func (c *ProcCluster) Died() <-chan string { return c.died }

// ChildErr is how a child ended (nil while it runs or after a clean exit).
func (c *ProcCluster) ChildErr(name string) error {
	for _, ch := range c.children {
		if ch.name == name {
			select {
			case <-ch.done:
				return ch.err
			default:
			}
		}
	}
	return nil
}

// Stop asks every child to stop (SIGTERM: web first, scheduler last), kills
// those that do not within a few seconds, and removes a temporary spill
// directory.
func (c *ProcCluster) Stop() error {
	var errs []error
	c.stopOnce.Do(func() {
		for i := len(c.children) - 1; i >= 0; i-- {
			ch := c.children[i]
			_ = ch.cmd.Process.Signal(syscall.SIGTERM)
			t := time.NewTimer(5 * time.Second)
			select {
			case <-ch.done:
			case <-t.C:
				_ = ch.cmd.Process.Kill()
				<-ch.done
				errs = append(errs, fmt.Errorf("%s did not stop in 5 s; killed", ch.name))
			}
			t.Stop()
		}
		if c.Etcd != nil {
			c.Etcd.Close()
		}
		if c.spillTmp != "" {
			if err := os.RemoveAll(c.spillTmp); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}

// StopChild asks one child to stop (SIGTERM) and waits for it, killing it
// if it has not stopped within 5 s.
func (c *ProcCluster) StopChild(name string) error {
	for _, ch := range c.children {
		if ch.name != name {
			continue
		}
		_ = ch.cmd.Process.Signal(syscall.SIGTERM)
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-ch.done:
			return nil
		case <-t.C:
			_ = ch.cmd.Process.Kill()
			<-ch.done
			return fmt.Errorf("%s did not stop in 5 s; killed", name)
		}
	}
	return fmt.Errorf("no child %q", name)
}

// Kill ends one child at once (SIGKILL), for failure tests.
func (c *ProcCluster) Kill(name string) error {
	for _, ch := range c.children {
		if ch.name == name {
			err := ch.cmd.Process.Kill()
			<-ch.done
			return err
		}
	}
	return fmt.Errorf("no child %q", name)
}

// PID is the process id of the named child ("scheduler", "worker-0", ...,
// "web"), or 0 if there is none.
func (c *ProcCluster) PID(name string) int {
	for _, ch := range c.children {
		if ch.name == name && ch.cmd.Process != nil {
			return ch.cmd.Process.Pid
		}
	}
	return 0
}
