package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/web"
)

// The cluster roles, each a process of this one binary:
//
//	phobos scheduler --listen ADDR [--etcd URL[,URL] --id NAME]
//	phobos worker --scheduler ADDR --slots N --memory BYTES --spill-dir DIR [--listen ADDR]
//	phobos worker --etcd URL[,URL] ...      (every scheduler of a ring)
//	phobos web --scheduler ADDR --listen ADDR  (or --etcd URL[,URL])
//	phobos cluster --workers N [--schedulers M]  (all of them as child processes, on loopback)
//
// Each prints one line on stdout when it serves, "phobos ready: ROLE URL"
// (phobos cluster prints the web URL alone), logs to stderr, and stops
// cleanly on SIGINT or SIGTERM.

const rolesUsage = `
Cluster roles (each a separate process; see docs/rest-api.md):
  phobos scheduler --listen ADDR                     scheduler + graph service
  phobos worker --scheduler ADDR [--slots N] [--memory BYTES] [--spill-dir DIR] [--listen ADDR]
  phobos web --scheduler ADDR --listen ADDR          REST API
  phobos cluster --workers N [--schedulers M]        all roles on this machine;
                                                     prints the web URL when ready
Several schedulers share the work on a consistent-hash ring kept in etcd:
  phobos scheduler --etcd URL[,URL] --id NAME --listen ADDR [--advertise HOST]
  phobos worker --etcd URL[,URL] ...                 registers with every scheduler
  phobos web --etcd URL[,URL] --listen ADDR          routes each session to its owner
  phobos etcd --listen ADDR [--data-dir DIR]         a one-member etcd for the ring
On an address other hosts reach, a role wants a token (--token-file FILE or $PHOBOS_TOKEN) and TLS
(--tls-cert, --tls-key, --tls-ca: phobos certs makes them), or --insecure-no-token / --insecure-no-tls.
phobos cluster makes a token when given none (and, on such an address, a CA) and prints it after
its URL; docs/security.md.
`

// memFlag is a memory size flag: 4GiB, 512MB, 1e9 or plain bytes.
type memFlag struct{ v int64 }

func (m *memFlag) String() string { return fmt.Sprint(m.v) }
func (m *memFlag) Set(s string) error {
	v, err := storage.ParseBytes(s)
	if err != nil {
		return err
	}
	m.v = v
	return nil
}

// roleLogger is a role's log on stderr: text (key=value, for people) or
// JSON lines (for log collectors), every line carrying the role.
func roleLogger(stderr io.Writer, level, format, role string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler
	switch format {
	case "text":
		h = slog.NewTextHandler(stderr, opts)
	case "json":
		h = slog.NewJSONHandler(stderr, opts)
	default:
		return nil, fmt.Errorf("--log-format %q: want text or json", format)
	}
	return slog.New(h).With("role", role), nil
}

// roleCmd runs one of the cluster roles.
func roleCmd(role string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("phobos "+role, flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	logFormat := fs.String("log-format", "text", "log format on stderr: text (key=value) or json (one object a line)")
	tokenFile := fs.String("token-file", "", "file holding the cluster's shared token (default: $"+rpc.TokenEnv+"; none: no authentication)")
	var tlsFiles rpc.TLSFiles
	fs.StringVar(&tlsFiles.Cert, "tls-cert", "", "PEM certificate to serve HTTPS with (with --tls-key)")
	fs.StringVar(&tlsFiles.Key, "tls-key", "", "PEM key of --tls-cert")
	fs.StringVar(&tlsFiles.CA, "tls-ca", "", "PEM certificate authority the other roles' certificates are checked against (default: the system's)")
	var exposure cluster.Exposure
	fs.BoolVar(&exposure.Open, "insecure-no-token", false, "accept serving an address other hosts reach without a token: anyone who reaches it may use the cluster")
	fs.BoolVar(&exposure.PlainHTTP, "insecure-no-tls", false, "accept serving an address other hosts reach with a token over plain HTTP, where the token crosses the network in the clear")
	var allowHosts listFlag
	var (
		listen, schedAddr, spillDir string
		advertise                   string
		slots, workers, maxAttempts int
		mem                         memFlag
		maxReq                      memFlag
		hbTimeout, sessionIdle      time.Duration
		progressTimeout             time.Duration
		maxFinished                 int
		dataRoots                   listFlag
		stopOnEOF                   bool
		etcd                        listFlag
		schedID                     string
		leaseTTL                    time.Duration
		schedulers                  int
		userCodeFlag                string
		userCodeTimeout             time.Duration
		oneProcess                  bool
		unixSocket                  string
	)
	userCodeUsage := "run users' Python functions (map_blocks, map_overlap, ...) on the workers: auto (only on a cluster listening on loopback addresses, with a token), true or false"
	userTimeoutUsage := "longest one call of a user's Python function may run on one chunk before its executor is killed (0: no limit)"
	etcdUsage := "etcd endpoints (comma-separated or repeated) of a ring of schedulers; none: one scheduler"
	switch role {
	case "scheduler":
		fs.StringVar(&listen, "listen", "127.0.0.1:7100", "address to serve on (host:port; port 0 picks a free one)")
		fs.StringVar(&advertise, "advertise", "", "address workers and web services reach this scheduler at (host or host:port; default: the listen address)")
		fs.IntVar(&maxAttempts, "max-attempts", 3, "tries of a failing chunk op before its graph fails")
		fs.DurationVar(&hbTimeout, "heartbeat-timeout", 3*time.Second, "silence after which a worker is marked dead")
		fs.DurationVar(&sessionIdle, "session-idle-timeout", time.Hour, "close sessions (freeing their results) after this long without a request; 0 never")
		fs.IntVar(&maxFinished, "max-finished-graphs", cluster.DefaultMaxFinishedGraphs, "ended graphs a session keeps with their results; past it the oldest are released")
		fs.DurationVar(&progressTimeout, "progress-timeout", scheduler.DefaultProgressTimeout, "fail a graph in which no chunk op changed state for this long (naming what it waits for); 0 never")
		fs.Var(&etcd, "etcd", etcdUsage)
		fs.StringVar(&schedID, "id", "", "this scheduler's name in the ring (default: host name and a random suffix); a restart under the same name gets the same share")
		fs.DurationVar(&leaseTTL, "lease-ttl", ha.DefaultLeaseTTL, "how long etcd may be unreachable before this scheduler stops taking graphs (whole seconds)")
	case "worker":
		fs.StringVar(&schedAddr, "scheduler", "127.0.0.1:7100", "the scheduler's address")
		fs.StringVar(&listen, "listen", "127.0.0.1:0", "address to serve tasks and chunks on")
		fs.StringVar(&advertise, "advertise", "", "address the cluster reaches this worker at (host or host:port; default: the listen address)")
		fs.IntVar(&slots, "slots", cluster.DefaultSlots(), "chunk ops run at once (default: the CPUs this process may use, its cgroup's CPU limit included)")
		fs.Var(&mem, "memory", "memory budget, e.g. 4GiB (0: half of this machine's memory, or of its cgroup's memory limit when lower)")
		fs.StringVar(&spillDir, "spill-dir", "", "where chunks spill to disk (default: a temporary directory)")
		fs.Var(&dataRoots, "data-root", "a directory file ops (FromNpy, ToNpy) may read and write under; repeatable; none: file ops are refused")
		fs.Var(&etcd, "etcd", etcdUsage+" (replaces --scheduler)")
		fs.StringVar(&userCodeFlag, "allow-user-code", "auto", userCodeUsage)
		fs.DurationVar(&userCodeTimeout, "user-code-timeout", 0, userTimeoutUsage)
	case "web":
		fs.StringVar(&schedAddr, "scheduler", "127.0.0.1:7100", "the scheduler's address")
		fs.StringVar(&listen, "listen", "127.0.0.1:7103", "address of the REST API")
		maxReq.v = web.DefaultMaxRequestBytes
		fs.Var(&maxReq, "max-request-bytes", "largest request body accepted (a graph with its literal data)")
		fs.Var(&allowHosts, "allow-host", "a DNS name clients reach the REST API by (beside IP addresses, localhost and this machine's name); repeatable; * allows any")
		fs.Var(&etcd, "etcd", etcdUsage+" (replaces --scheduler)")
	case "etcd":
		fs.StringVar(&listen, "listen", "127.0.0.1:2379", "address etcd serves its clients (the roles) on")
		fs.StringVar(&spillDir, "data-dir", "", "where etcd keeps its data (default: a temporary directory, removed at exit)")
	case "cluster":
		fs.IntVar(&workers, "workers", 2, "worker processes")
		fs.IntVar(&schedulers, "schedulers", 1, "scheduler processes; more than 1 runs them on a consistent-hash ring over an etcd embedded in this process")
		fs.IntVar(&slots, "slots", 0, "slots per worker (0: GOMAXPROCS / workers)")
		fs.Var(&mem, "memory", "memory budget per worker (0: half of this machine's memory, shared)")
		fs.StringVar(&spillDir, "spill-dir", "", "parent of the workers' spill directories (default: temporary)")
		fs.StringVar(&listen, "listen", "127.0.0.1:0", "address of the REST API")
		fs.Var(&dataRoots, "data-root", "a directory the workers' file ops may use (passed to each worker); repeatable")
		fs.Var(&allowHosts, "allow-host", "a DNS name clients reach the REST API by (beside IP addresses, localhost and this machine's name); repeatable; * allows any")
		fs.StringVar(&userCodeFlag, "allow-user-code", "auto", userCodeUsage)
		fs.DurationVar(&userCodeTimeout, "user-code-timeout", 0, userTimeoutUsage)
		fs.BoolVar(&stopOnEOF, "stop-on-eof", false, "also stop when stdin ends: a parent holding the other end of a pipe (the Python client) has gone, however it went")
		fs.BoolVar(&oneProcess, "one-process", false, "run the scheduler, the workers and the web service in this process, their requests to each other in process (one scheduler, no TLS; a worker's failure stops the cluster)")
		fs.StringVar(&unixSocket, "unix-socket", "", "with --one-process, also serve the REST API on a Unix socket at this absolute path (made for this user alone; it must not exist): a client on this host skips TCP")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "phobos %s: unexpected argument %q\n", role, fs.Arg(0))
		return exitUsage
	}
	userCode, err := cluster.ParseUserCode(userCodeFlag)
	if err != nil {
		fmt.Fprintf(stderr, "phobos %s: %v\n", role, err)
		return exitUsage
	}
	log, err := roleLogger(stderr, *logLevel, *logFormat, role)
	if err != nil {
		fmt.Fprintf(stderr, "phobos %s: %v\n", role, err)
		return exitUsage
	}
	token, err := rpc.LoadToken(*tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "phobos %s: %v\n", role, err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fail := func(err error) int {
		log.Error("failed", "err", err)
		fmt.Fprintf(stderr, "phobos %s: %v\n", role, err)
		return exitFailed
	}
	switch role {
	case "scheduler":
		p, err := cluster.StartScheduler(cluster.SchedulerConfig{Listen: listen, MaxAttempts: maxAttempts, HeartbeatTimeout: hbTimeout, SessionIdleTimeout: idleOrNever(sessionIdle), ProgressTimeout: idleOrNever(progressTimeout), MaxFinishedGraphs: maxFinished, Token: token, TLS: tlsFiles, Exposure: exposure, Etcd: etcd.split(), Advertise: advertise, ID: schedID, LeaseTTL: leaseTTL, Logger: log})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, cluster.ReadyLine(role, p.URL()))
		log.Info("serving", "url", p.URL())
		if err := serveUntil(ctx, p.Err(), p.Close); err != nil {
			return fail(err)
		}
	case "worker":
		if slots < 1 {
			fmt.Fprintf(stderr, "phobos worker: --slots must be at least 1\n")
			return exitUsage
		}
		p, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Scheduler: schedAddr, Etcd: etcd.split(), Listen: listen, Advertise: advertise, Slots: slots, Memory: mem.v, SpillDir: spillDir, DataRoots: dataRoots, Token: token, TLS: tlsFiles, Exposure: exposure, UserCode: userCode, UserCodeTimeout: userCodeTimeout, Logger: log})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, cluster.ReadyLine(role, p.URL()))
		select {
		case <-ctx.Done():
			p.Close()
		case <-p.Done():
			p.Close()
			if err := p.Err(); err != nil {
				return fail(err)
			}
		}
	case "web":
		p, err := cluster.StartWeb(cluster.WebConfig{Scheduler: schedAddr, Etcd: etcd.split(), Listen: listen, MaxRequestBytes: maxReq.v, Version: version, Token: token, TLS: tlsFiles, Exposure: exposure, AllowedHosts: allowHosts.split(), Logger: log})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, cluster.ReadyLine(role, p.URL()))
		log.Info("serving", "url", p.URL())
		if err := serveUntil(ctx, p.Err(), p.Close); err != nil {
			return fail(err)
		}
	case "etcd":
		// etcd has no token: on an address other hosts reach, client
		// certificates of the cluster's CA are what admits the roles.
		if cluster.Exposed(listen) && !tlsFiles.Mutual() && !exposure.PlainHTTP {
			return fail(fmt.Errorf("refusing to serve etcd on %s without TLS: any host that reaches it could rewrite the ring of schedulers; "+
				"give --tls-cert, --tls-key and --tls-ca (clients then present a certificate of that CA), or accept plain HTTP with --insecure-no-tls", listen))
		}
		ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: spillDir, Client: listen, TLS: tlsFiles})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, cluster.ReadyLine(role, ee.Endpoint()))
		log.Info("serving", "url", ee.Endpoint())
		if err := serveUntil(ctx, ee.Err(), ee.Close); err != nil {
			return fail(err)
		}
	case "cluster":
		if workers < 1 {
			fmt.Fprintf(stderr, "phobos cluster: --workers must be at least 1\n")
			return exitUsage
		}
		if schedulers < 1 {
			fmt.Fprintf(stderr, "phobos cluster: --schedulers must be at least 1\n")
			return exitUsage
		}
		if mem.v == 0 {
			mem.v = storage.DefaultLimit() / int64(workers)
		}
		logArgs := []string{"--log-level", *logLevel, "--log-format", *logFormat}
		// A cluster started without a token makes its own, new at every
		// start, and hands it to whoever started it on stdout (the pipe a
		// parent program reads): never on a command line.
		madeToken := false
		if token == "" && !exposure.Open {
			if token, err = rpc.NewToken(); err != nil {
				return fail(err)
			}
			madeToken = true
		}
		// On an address other hosts reach, a cluster given no
		// certificates makes its own CA; its clients are told where it is.
		madeCA := ""
		if cluster.Exposed(listen) && token != "" && !tlsFiles.Enabled() && !exposure.PlainHTTP {
			f, dir, err := clusterCerts(spillDir, listen, 30)
			if err != nil {
				return fail(fmt.Errorf("making the cluster's TLS certificates: %w", err))
			}
			defer os.RemoveAll(dir)
			tlsFiles, madeCA = rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}, f.CA
		}
		if err := cluster.CheckExposure(listen, token, tlsFiles.Enabled(), exposure); err != nil {
			return fail(err)
		}
		if stopOnEOF {
			go func() {
				_, _ = io.Copy(io.Discard, os.Stdin)
				stop()
			}()
		}
		// The workers listen on loopback either way: whether users' code
		// runs is decided by the address clients reach the cluster at.
		if userCode == cluster.UserCodeAuto && cluster.Exposed(listen) {
			userCode = cluster.UserCodeOff
		}
		workerArgs := slices.Concat(logArgs, dataRoots.args("--data-root"), []string{"--allow-user-code=" + userCode.String()})
		if userCodeTimeout > 0 {
			workerArgs = append(workerArgs, "--user-code-timeout="+userCodeTimeout.String())
		}
		if oneProcess {
			return runOneProcess(ctx, stdout, stderr, log, cluster.OneProcessConfig{
				Workers: workers, Slots: slots, Memory: mem.v, SpillDir: spillDir, Listen: listen, Token: token, Exposure: exposure,
				AllowedHosts: allowHosts.split(), DataRoots: dataRoots, UserCode: userCode, UserCodeTimeout: userCodeTimeout,
				Version: version, Logger: log, UnixSocket: unixSocket,
			}, madeToken, schedulers, tlsFiles.Enabled())
		}
		if unixSocket != "" {
			fmt.Fprintln(stderr, "phobos cluster: --unix-socket is served by a --one-process cluster")
			return exitUsage
		}
		c, err := cluster.Launch(ctx, cluster.LaunchConfig{
			Workers: workers, Schedulers: schedulers, Slots: slots, Memory: mem.v, SpillDir: spillDir, Listen: listen, Stderr: stderr, Token: token, TLS: tlsFiles, Exposure: exposure, AllowedHosts: allowHosts.split(),
			ExtraArgs: map[string][]string{"scheduler": logArgs, "worker": workerArgs, "web": logArgs},
		})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, c.URL)
		if madeToken {
			fmt.Fprintln(stdout, "token", token)
		}
		if madeCA != "" {
			fmt.Fprintln(stdout, "ca", madeCA)
		}
		if link, err := cluster.LoginLink(ctx, c.URL, token, tlsFiles); err == nil {
			log.Info("dashboard (a one-time login link)", "url", link)
		} else {
			log.Warn("no dashboard login link", "err", err)
		}
		if c.Etcd != nil {
			log.Info("cluster ready", "web", c.URL, "schedulers", strings.Join(c.SchedulerURLs, " "), "etcd", c.Etcd.Endpoint(), "workers", strings.Join(c.WorkerURLs, " "))
		} else {
			log.Info("cluster ready", "web", c.URL, "scheduler", c.SchedulerURL, "workers", strings.Join(c.WorkerURLs, " "))
		}
		code := 0
	wait:
		for {
			select {
			case <-ctx.Done():
				log.Info("stopping")
				break wait
			case name := <-c.Died():
				if strings.HasPrefix(name, "scheduler-") {
					// One of a ring: the others carry on; its sessions
					// are lost until failover moves them.
					log.Error("a scheduler of the ring exited; the others go on", "child", name, "err", c.ChildErr(name))
					continue
				}
				if strings.HasPrefix(name, "worker") {
					// The scheduler notices and fails the graphs that needed it.
					log.Error("a worker exited; the cluster goes on without it", "child", name, "err", c.ChildErr(name))
					continue
				}
				log.Error("a role exited; stopping the cluster", "child", name, "err", c.ChildErr(name))
				code = exitFailed
				break wait
			}
		}
		if err := c.Stop(); err != nil {
			log.Warn("stopping", "err", err)
		}
		return code
	}
	return 0
}

// idleOrNever maps a flag's 0 ("never") to SchedulerConfig's negative.
func idleOrNever(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// split is the values with commas split out ("a,b" and "a" "b" alike).
func (l listFlag) split() []string {
	var out []string
	for _, v := range l {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// args repeats the flag for each value, to pass it on to a child.
func (l listFlag) args(flag string) []string {
	var out []string
	for _, v := range l {
		out = append(out, flag, v)
	}
	return out
}

// serveUntil waits for a signal (ctx) or a role's failure (errs), then
// closes the role; the failure, if that was it, is the result.
func serveUntil(ctx context.Context, errs <-chan error, close func()) error {
	var err error
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	close()
	return err
}
