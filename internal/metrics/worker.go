package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// WorkerSource is what a worker's metrics read at scrape time.
type WorkerSource interface {
	// Load is the worker's slots, the tasks running on them and the tasks
	// queued.
	Load() (slots, running, queued int)
	// StoreStats is its store's figures (storage.Store.Stats).
	StoreStats() storage.Stats
}

// Worker is a worker role's metrics. It is the worker's worker.Observer
// (TaskEnded) and counts its peer fetches (PeerFetch).
type Worker struct {
	role
	ops        *prometheus.CounterVec
	opSeconds  *prometheus.HistogramVec
	peerBytes  prometheus.Counter
	peerOK     prometheus.Counter
	peerFailed prometheus.Counter
	peerTime   prometheus.Histogram
	byOp       sync.Map // op type -> *opSeries
}

// outcomes are the label values of protocol.Outcome.
var outcomes = [...]string{protocol.Started: "started", protocol.Succeeded: "succeeded", protocol.Failed: "failed", protocol.Cancelled: "cancelled"}

func outcomeName(o protocol.Outcome) string {
	if int(o) < len(outcomes) && outcomes[o] != "" {
		return outcomes[o]
	}
	return "unknown"
}

// NewWorker makes a worker role's metrics. Its own series are registered by
// Register, once the worker has its id; until then the registry serves the
// process's and the HTTP series only.
func NewWorker() *Worker {
	m := &Worker{
		role: newRole("worker"),
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "chunk_ops_total",
			Help: "Chunk ops this worker ended, by op type and outcome (succeeded, failed, cancelled).",
		}, []string{"op", "outcome"}),
		opSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "chunk_op_duration_seconds",
			Help:    "Time a chunk op held its slot (making room, loading inputs, the kernel, storing), by op type; ops that never ran are not observed.",
			Buckets: opBuckets,
		}, []string{"op"}),
		peerBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "peer_fetch_bytes_total",
			Help: "Bytes of input chunks this worker read from other workers.",
		}),
		peerOK: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "peer_fetches_total",
			Help: "Input chunks this worker read from other workers.",
		}),
		peerFailed: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "peer_fetch_errors_total",
			Help: "Reads of input chunks from other workers that failed.",
		}),
		peerTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "worker", Name: "peer_fetch_duration_seconds",
			Help:    "Time to read one input chunk from another worker.",
			Buckets: fetchBuckets,
		}),
	}
	return m
}

// Register adds the series of worker id, reading src at each scrape. Every
// one carries the id as its "worker" label, so series of several workers
// can be told apart once gathered together.
func (m *Worker) Register(id int, src WorkerSource) error {
	return prometheus.WrapRegistererWith(prometheus.Labels{"worker": strconv.Itoa(id)}, m.reg).Register(
		&multi{m.ops, m.opSeconds, m.peerBytes, m.peerOK, m.peerFailed, m.peerTime, &workerCollector{src: src}})
}

// multi registers several collectors as one, so Register adds all or none.
type multi []prometheus.Collector

func (c multi) Describe(ch chan<- *prometheus.Desc) {
	for _, x := range c {
		x.Describe(ch)
	}
}

func (c multi) Collect(ch chan<- prometheus.Metric) {
	for _, x := range c {
		x.Collect(ch)
	}
}

// TaskEnded implements worker.Observer.
func (m *Worker) TaskEnded(t *protocol.Task, res protocol.Result, ran time.Duration) {
	op := t.Op.Type()
	s := m.series(op)
	switch o := res.Outcome; o {
	case protocol.Succeeded, protocol.Failed, protocol.Cancelled:
		s.ended[o].Inc()
	default: // not an end: never seen from a worker's slot
		m.ops.WithLabelValues(op, outcomeName(o)).Inc()
	}
	if ran > 0 {
		s.seconds.Observe(ran.Seconds())
	}
}

// opSeries are the series of one op type, looked up once: TaskEnded runs
// for every chunk op, tens of thousands a second in graphs of tiny ops.
type opSeries struct {
	ended   [len(outcomes)]prometheus.Counter // by protocol.Outcome, the ends only
	seconds prometheus.Observer
}

func (m *Worker) series(op string) *opSeries {
	if s, ok := m.byOp.Load(op); ok {
		return s.(*opSeries)
	}
	s := &opSeries{seconds: m.opSeconds.WithLabelValues(op)}
	for _, o := range []protocol.Outcome{protocol.Succeeded, protocol.Failed, protocol.Cancelled} {
		s.ended[o] = m.ops.WithLabelValues(op, outcomeName(o))
	}
	got, _ := m.byOp.LoadOrStore(op, s)
	return got.(*opSeries)
}

// PeerFetch counts one read of a chunk from another worker: its bytes
// when it succeeded, and how long it took.
func (m *Worker) PeerFetch(nbytes int64, took time.Duration, err error) {
	m.peerTime.Observe(took.Seconds())
	if err != nil {
		m.peerFailed.Inc()
		return
	}
	m.peerOK.Inc()
	m.peerBytes.Add(float64(nbytes))
}

// workerCollector makes the series read from the worker at scrape time.
type workerCollector struct{ src WorkerSource }

var (
	workerSlots       = desc("worker_slots", "Slots of this worker: chunk ops it runs at once.")
	workerSlotsBusy   = desc("worker_slots_busy", "Slots running a chunk op now.")
	workerQueued      = desc("worker_queued_ops", "Chunk ops queued on this worker, waiting for a slot or for memory.")
	storeChunks       = desc("worker_store_chunks", "Chunks in this worker's store, in memory or spilled.")
	storeMemory       = desc("worker_store_memory_bytes", "Bytes of chunks in this worker's store's memory tier now.")
	storeReserved     = desc("worker_store_reserved_bytes", "Bytes reserved in the store by running ops now.")
	storeLimit        = desc("worker_store_memory_limit_bytes", "The store's memory limit (0: none).")
	storePeak         = desc("worker_store_memory_peak_bytes", "Most bytes in the store's memory tier at once since the worker started.")
	storeDisk         = desc("worker_store_disk_bytes", "Bytes in spill files now.")
	storeSpilled      = desc("worker_store_spilled_bytes_total", "Bytes written to spill files.")
	storeSpills       = desc("worker_store_spills_total", "Chunks written to spill files.")
	storeSpillSeconds = desc("worker_store_spill_seconds_total", "Time spent writing spill files.")
	storeLoaded       = desc("worker_store_loaded_bytes_total", "Bytes read back from spill files.")
	storeLoads        = desc("worker_store_loads_total", "Chunks read back from spill files.")
	storeLoadSeconds  = desc("worker_store_load_seconds_total", "Time spent reading spill files back.")
	storeDropped      = desc("worker_store_dropped_bytes_total", "Bytes of generated chunks evicted without a copy, to be recomputed rather than spilled.")
	storeRecomputed   = desc("worker_store_recomputed_bytes_total", "Bytes of chunks regenerated after a drop or a lost spill file.")
	storeRecomputeSec = desc("worker_store_recompute_seconds_total", "Time spent regenerating dropped chunks.")
	storeSpillErrors  = desc("worker_store_spill_errors_total", "Spill files that could not be written.")
)

func (c *workerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{workerSlots, workerSlotsBusy, workerQueued, storeChunks, storeMemory, storeReserved, storeLimit, storePeak,
		storeDisk, storeSpilled, storeSpills, storeSpillSeconds, storeLoaded, storeLoads, storeLoadSeconds, storeDropped, storeRecomputed, storeRecomputeSec, storeSpillErrors} {
		ch <- d
	}
}

func (c *workerCollector) Collect(ch chan<- prometheus.Metric) {
	slots, running, queued := c.src.Load()
	st := c.src.StoreStats()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(workerSlots, float64(slots))
	gauge(workerSlotsBusy, float64(running))
	gauge(workerQueued, float64(queued))
	gauge(storeChunks, float64(st.Chunks))
	gauge(storeMemory, float64(st.Bytes))
	gauge(storeReserved, float64(st.Reserved))
	gauge(storeLimit, float64(st.Limit))
	gauge(storePeak, float64(st.PeakBytes))
	gauge(storeDisk, float64(st.DiskBytes))
	counter(storeSpilled, float64(st.SpilledBytes))
	counter(storeSpills, float64(st.SpillCount))
	counter(storeSpillSeconds, st.SpillTime.Seconds())
	counter(storeLoaded, float64(st.LoadedBytes))
	counter(storeLoads, float64(st.LoadCount))
	counter(storeLoadSeconds, st.LoadTime.Seconds())
	counter(storeDropped, float64(st.DroppedBytes))
	counter(storeRecomputed, float64(st.RecomputedBytes))
	counter(storeRecomputeSec, st.RecomputeTime.Seconds())
	counter(storeSpillErrors, float64(st.SpillErrors))
}

// Local is the metrics of an in-process cluster (a local session): its
// workers' series, each with its worker label, in one registry.
type Local struct{ role }

// NewLocal makes a local cluster's metrics; Worker adds each worker's.
func NewLocal() *Local { return &Local{newRole("local")} }

// Worker makes the metrics of one in-process worker in l's registry; its
// series appear once registered (Worker.Register).
func (l *Local) Worker() *Worker {
	m := NewWorker()
	m.role = l.role
	return m
}
