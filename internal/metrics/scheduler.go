package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
)

// SchedulerFigures are the scheduler role's figures at one moment.
type SchedulerFigures struct {
	Sessions int
	// Graphs counts the graph records held, by state (PREPARING, RUNNING,
	// SUCCEEDED, ...).
	Graphs map[string]int
	// Ops counts the chunk ops of the runs held (running, or ended with
	// results not yet released), by operand state.
	Ops     map[scheduler.State]int64
	Workers []WorkerFigures
	Results scheduler.Stats
}

// WorkerFigures is one registered worker as the scheduler sees it.
type WorkerFigures struct {
	ID           int
	Alive        bool
	HeartbeatAge time.Duration
	Slots        int
	// From the worker's last heartbeat.
	Running, Queued int
	StoreBytes      int64
	MemoryBytes     int64 // the worker's budget
}

// SchedulerSource is what the scheduler's metrics read at scrape time.
type SchedulerSource interface {
	Figures() SchedulerFigures
}

// Scheduler is the scheduler role's metrics.
type Scheduler struct {
	role
	results     *prometheus.CounterVec
	byOutcome   [len(outcomes)]prometheus.Counter // by protocol.Outcome
	graphsEnded *prometheus.CounterVec
	graphTime   *prometheus.HistogramVec
}

// NewScheduler makes the scheduler role's metrics, reading src at each
// scrape.
func NewScheduler(src SchedulerSource) *Scheduler {
	m := &Scheduler{
		role: newRole("scheduler"),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "chunk_op_results_total",
			Help: "Results of chunk ops the scheduler took from workers, by outcome (started, succeeded, failed, cancelled), whether or not they changed anything.",
		}, []string{"outcome"}),
		graphsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "graphs_ended_total",
			Help: "Graphs that reached a final state (SUCCEEDED, FAILED, CANCELLED).",
		}, []string{"state"}),
		graphTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "graph_phase_duration_seconds",
			Help:    "Time graphs spent in each phase: prepare (decode, tile, optimise, submit) and run (until the run ended).",
			Buckets: requestBuckets,
		}, []string{"phase"}),
	}
	// Present from the start, at 0, and looked up once: Result runs for
	// every result.
	for o := protocol.Started; o <= protocol.Cancelled; o++ {
		m.byOutcome[o] = m.results.WithLabelValues(outcomeName(o))
	}
	m.reg.MustRegister(m.results, m.graphsEnded, m.graphTime, &schedulerCollector{src: src})
	return m
}

// Result counts one result taken from a worker.
func (m *Scheduler) Result(o protocol.Outcome) {
	if int(o) < len(m.byOutcome) && m.byOutcome[o] != nil {
		m.byOutcome[o].Inc()
		return
	}
	m.results.WithLabelValues(outcomeName(o)).Inc()
}

// GraphEnded counts a graph that reached a final state, with the time it
// spent preparing and running (0: it did not get that far).
func (m *Scheduler) GraphEnded(state string, prepare, run time.Duration) {
	m.graphsEnded.WithLabelValues(state).Inc()
	if prepare > 0 {
		m.graphTime.WithLabelValues("prepare").Observe(prepare.Seconds())
	}
	if run > 0 {
		m.graphTime.WithLabelValues("run").Observe(run.Seconds())
	}
}

type schedulerCollector struct{ src SchedulerSource }

var (
	schedSessions     = desc("scheduler_sessions", "Open sessions.")
	schedGraphs       = desc("scheduler_graphs", "Graph records held, by state.", "state")
	schedOps          = desc("scheduler_chunk_ops", "Chunk ops of the runs held (running, or ended with results kept), by operand state.", "state")
	schedWorkers      = desc("scheduler_workers", "Registered workers, by whether they are alive.", "alive")
	schedSlots        = desc("scheduler_slots", "Slots of the live workers.")
	schedSlotsBusy    = desc("scheduler_slots_busy", "Chunk ops running on the live workers, as of their last heartbeats (ops under worker.DefaultQuietStartBytes are not seen starting).")
	schedQueued       = desc("scheduler_queued_ops", "Chunk ops queued on the live workers, as of their last heartbeats.")
	schedStoreBytes   = desc("scheduler_store_memory_bytes", "Bytes in the live workers' stores, as of their last heartbeats.")
	schedMemoryBytes  = desc("scheduler_memory_limit_bytes", "The live workers' memory budgets, summed.")
	schedHeartbeatAge = desc("scheduler_worker_heartbeat_age_seconds", "Time since each live worker's last heartbeat.", "worker")
	schedIgnored      = desc("scheduler_results_ignored_total", "Results that changed nothing, by why: duplicate, stale, from_dead, unknown, invalid.", "reason")
	schedStalled      = desc("scheduler_graphs_stalled_total", "Graphs failed by progress supervision (nothing changed for --progress-timeout).")
	schedBugs         = desc("scheduler_graphs_failed_on_bugs_total", "Graphs failed on a transition the state machine refused or a panic in the event loop.")
)

func (c *schedulerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{schedSessions, schedGraphs, schedOps, schedWorkers, schedSlots, schedSlotsBusy, schedQueued,
		schedStoreBytes, schedMemoryBytes, schedHeartbeatAge, schedIgnored, schedStalled, schedBugs} {
		ch <- d
	}
}

// graphStates are the states a graph record can be in, each reported even
// at 0 so that a dashboard's query finds it.
var graphStates = []string{"PREPARING", "RUNNING", "CANCELLING", "SUCCEEDED", "FAILED", "CANCELLED"}

func (c *schedulerCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.src.Figures()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(schedSessions, float64(f.Sessions))
	for _, s := range graphStates {
		gauge(schedGraphs, float64(f.Graphs[s]), s)
	}
	for s := scheduler.Unscheduled; s <= scheduler.Cancelled; s++ {
		gauge(schedOps, float64(f.Ops[s]), s.String())
	}
	var alive, dead, slots, busy, queued int
	var store, mem int64
	for _, w := range f.Workers {
		if !w.Alive {
			dead++
			continue
		}
		alive++
		slots += w.Slots
		busy += w.Running
		queued += w.Queued
		store += w.StoreBytes
		mem += w.MemoryBytes
		gauge(schedHeartbeatAge, w.HeartbeatAge.Seconds(), strconv.Itoa(w.ID))
	}
	gauge(schedWorkers, float64(alive), "true")
	gauge(schedWorkers, float64(dead), "false")
	gauge(schedSlots, float64(slots))
	gauge(schedSlotsBusy, float64(busy))
	gauge(schedQueued, float64(queued))
	gauge(schedStoreBytes, float64(store))
	gauge(schedMemoryBytes, float64(mem))
	r := f.Results
	counter(schedIgnored, float64(r.Duplicates), "duplicate")
	counter(schedIgnored, float64(r.Stale), "stale")
	counter(schedIgnored, float64(r.FromDead), "from_dead")
	counter(schedIgnored, float64(r.Unknown), "unknown")
	counter(schedIgnored, float64(r.Invalid), "invalid")
	counter(schedStalled, float64(r.Stalled))
	counter(schedBugs, float64(r.Bugs+r.Panics))
}
