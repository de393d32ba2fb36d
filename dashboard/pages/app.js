// The Phobos dashboard: one page per view, each fed by one server-sent
// event stream (GET /api/events) that the web service samples at a fixed
// rate. Plain DOM and SVG, no libraries: the Go side computes every figure,
// this file only draws them.

const STATES = ["UNSCHEDULED", "READY", "RUNNING", "FINISHED", "FREED", "FATAL", "CANCELLING", "CANCELLED"];
const ENDED = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
const SVGNS = "http://www.w3.org/2000/svg";
const main = document.getElementById("main");
const live = document.getElementById("live");

// ---- small helpers -------------------------------------------------------

function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") el.addEventListener("click", v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) el.append(k instanceof Node ? k : String(k));
  return el;
}

function s(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, v);
  for (const k of kids.flat()) if (k !== null && k !== undefined) el.append(k instanceof Node ? k : String(k));
  return el;
}

function fmtBytes(n) {
  if (!n) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i === 0 ? Math.round(n) : n.toFixed(n < 10 ? 2 : 1)) + " " + u[i];
}
// One formatter for every number: toLocaleString makes one per call.
const numberFormat = new Intl.NumberFormat("en-US");
const fmtNum = (n) => numberFormat.format(Number(n || 0));
function fmtMs(ms) {
  if (ms > 0 && ms < 1) return Math.round(ms * 1000) + " µs";
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  return Math.floor(ms / 60000) + " min " + Math.round((ms % 60000) / 1000) + " s";
}
const stateColor = (st) => `var(--s-${st})`;
function typeColor(t) {
  let x = 0;
  for (const c of t) x = (x * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${x % 360}, 62%, ${48 + (x >> 9) % 14}%)`;
}
const sum = (xs, f = (x) => x) => xs.reduce((a, x) => a + f(x), 0);
const done = (counts) => (counts.FINISHED || 0) + (counts.FREED || 0);

function card(id, label, value, sub) {
  return h("div", { class: "card" }, h("div", { class: "label", text: label }),
    h("div", { class: "value", id, text: value }), sub !== undefined ? h("div", { class: "sub", id: id + "-sub", text: sub }) : null);
}

function setText(id, v) {
  const el = document.getElementById(id);
  if (el && el.textContent !== String(v)) el.textContent = v;
}

// stateBar is a bar of ops by state: one span per state, resized in place
// by updateBar.
function stateBar(counts, total) {
  const bar = h("div", { class: "bar" }, STATES.map((st) => h("span", { style: `width:0;background:${stateColor(st)}` })));
  return updateBar(bar, counts, total);
}

function updateBar(bar, counts, total) {
  total = total || sum(STATES, (k) => counts[k] || 0);
  const key = total + ":" + STATES.map((k) => counts[k] || 0).join(",");
  if (bar.phobosKey === key) return bar; // drawn as it is
  bar.phobosKey = key;
  bar.title = STATES.filter((k) => counts[k]).map((k) => `${k} ${counts[k]}`).join(", ");
  STATES.forEach((st, i) => {
    const n = counts[st] || 0;
    bar.children[i].style.width = n > 0 && total > 0 ? `${(100 * n) / total}%` : "0";
  });
  return bar;
}

function legend(items) {
  return h("div", { class: "legend" }, items.map(([name, color]) => h("span", {}, h("i", { style: `background:${color}` }), name)));
}
const stateLegend = () => legend(STATES.map((st) => [st.toLowerCase(), stateColor(st)]));

// ---- token and requests ---------------------------------------------------

async function login(token) {
  const r = await fetch("/api/login", { method: "POST", headers: { Authorization: "Bearer " + token }, credentials: "same-origin" });
  return r.ok;
}

function askToken() {
  const dlg = document.getElementById("login");
  if (dlg.open) return;
  document.getElementById("login-error").textContent = "";
  dlg.showModal();
}

document.getElementById("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const ok = await login(document.getElementById("login-token").value.trim());
  if (!ok) {
    document.getElementById("login-error").textContent = "The cluster refused this token.";
    return;
  }
  document.getElementById("login").close();
  route();
});

async function api(path, opts = {}) {
  const r = await fetch(path, { credentials: "same-origin", ...opts });
  if (r.status === 401) { askToken(); throw new Error("this cluster needs its token"); }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || `${r.status} ${r.statusText}`);
  return body;
}

// ---- the event streams of the page ----------------------------------------

// Feed is one event stream (GET /api/events) and what the page does with
// it. Drawing is the browser's cost, so a feed draws at most once per
// animation frame, only the newest event, and only when it differs from
// the last one drawn (a quiet feed, which draws nothing, reads each event
// as it comes). While the tab is hidden the feed closes its stream
// (a hidden dashboard costs neither the browser nor the web service
// anything) and opens it again when the tab is shown: the first event of a
// stream brings the plots' history back. ingest, when given, sees every
// event (for the plots' history) before draw sees the newest.
class Feed {
  constructor(query, { ingest = null, draw, failure = null, quiet = false }) {
    Object.assign(this, { query, ingest, draw, failure, quiet });
    this.es = null;
    this.pending = null;
    this.frame = 0;
    this.closed = false;
    feeds.add(this);
    if (!document.hidden) this.open();
  }

  open() {
    const es = new EventSource("/api/events?" + new URLSearchParams(this.query));
    this.es = es;
    countStreams(1);
    let got = false, last = "";
    es.addEventListener("update", (ev) => {
      if (es !== this.es) return;
      got = true;
      if (!this.quiet) {
        document.body.dataset.updates = 1 + (+document.body.dataset.updates || 0); // events seen, for tests and screenshots
        if (!live.classList.contains("on")) { live.textContent = "live"; live.classList.add("on"); }
      }
      if (ev.data === last) return; // nothing changed (an ended graph): nothing to draw
      last = ev.data;
      if (this.ingest) {
        const v = JSON.parse(ev.data);
        this.ingest(v);
        this.pending = v;
      } else {
        this.pending = ev.data; // parsed when drawn: an event replaced before its frame costs nothing
      }
      // A quiet feed (#/follow's watch for the next graph) changes the
      // page only to leave it: it reads its events as they come, and asks
      // the browser for no frame.
      if (this.quiet) this.flush();
      else if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
    });
    es.addEventListener("failure", (ev) => {
      if (es !== this.es) return;
      const e = JSON.parse(ev.data);
      last = "";
      if (e.status === 404) this.stop();
      if (this.failure) this.failure(e);
      else if (!this.quiet) showError(e.error);
    });
    es.onerror = async () => {
      if (es !== this.es || this.quiet) return;
      live.textContent = "reconnecting";
      live.classList.remove("on");
      if (!got) {
        // Find out why: a missing token is a 401 on any request.
        try { await api("/api/dashboard/cluster"); } catch (e) { showError(e.message); }
      }
    };
  }

  flush() {
    this.frame = 0;
    const v = this.pending;
    this.pending = null;
    if (v === null || this.closed) return;
    if (!this.quiet) clearError();
    this.draw(typeof v === "string" ? JSON.parse(v) : v);
  }

  // stop closes the stream for good.
  stop() {
    this.shut();
    feeds.delete(this);
  }

  shut() {
    if (this.es) { this.es.close(); countStreams(-1); }
    this.es = null;
  }

  close() {
    this.closed = true;
    this.stop();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  hide() {
    this.shut();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.pending = null;
  }

  show() { if (!this.es && !this.closed) this.open(); }
}

// countStreams keeps the number of event streams the page has open, for
// tests.
function countStreams(d) { document.body.dataset.streams = d + (+document.body.dataset.streams || 0); }

// feeds are the page's open feeds, for pausing them while it is hidden.
const feeds = new Set();
document.addEventListener("visibilitychange", () => {
  for (const f of feeds) if (document.hidden) f.hide(); else f.show();
  if (document.hidden) { live.textContent = "paused"; live.classList.remove("on"); }
});

// stream is the page's feed: opening one closes the last.
let stream = null;

function openStream(query, draw, opts = {}) {
  if (stream) stream.close();
  stream = new Feed(query, { draw, ...opts });
  return stream;
}

function showError(msg) {
  let box = document.getElementById("page-error");
  if (!box) { box = h("div", { class: "errorbox", id: "page-error" }); main.prepend(box); }
  box.textContent = msg;
}
function clearError() { document.getElementById("page-error")?.remove(); }

// ---- plots ----------------------------------------------------------------

// plot draws series [{name, color, points: [[tMs, v], ...]}] over the
// time they cover (30 s to 5 min), y from 0, into box id. The axes (ticks
// and labels) stay put once the window is full and the top steady, so
// when they are the ones drawn already only the lines' points change.
function plot(id, series, fmt, W = 560) {
  const box = document.getElementById(id);
  if (!box) return;
  const H = Math.round(W * 0.3), L = 62, R = 10, T = 8, B = 20;
  const all = series.flatMap((se) => se.points);
  const now = Math.max(0, ...all.map((p) => p[0]));
  const windowMs = Math.min(5 * 60000, Math.max(30000, now - Math.min(now, ...all.map((p) => p[0]))));
  const t0 = now - windowMs;
  const top = Math.max(0, ...all.filter((p) => p[0] >= t0).map((p) => p[1]));
  const ymax = (top > 0 ? top : 1) * 1.1;
  const x = (t) => L + ((t - t0) / windowMs) * (W - L - R);
  const y = (v) => T + (1 - v / ymax) * (H - T - B);
  const yTicks = [];
  for (let i = 0; i <= (top > 0 ? 3 : 0); i++) {
    const v = (ymax / 1.1) * (i / 3);
    yTicks.push([y(v), fmt(v)]);
  }
  const step = windowMs > 120000 ? 60000 : windowMs > 40000 ? 20000 : 10000;
  const xTicks = [];
  for (let d = 0; d <= windowMs; d += step) xTicks.push([x(now - d), d === 0 ? "now" : step >= 60000 ? `-${d / 60000} min` : `-${d / 1000} s`]);
  const lines = series.map((se) => se.points.filter((p) => p[0] >= t0).map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" "));
  const key = JSON.stringify([W, yTicks, xTicks, series.map((se, k) => [se.name, se.color, lines[k] !== ""])]);
  const drawn = box.phobosPlot;
  if (drawn && drawn.key === key) {
    drawn.lines.forEach((pl, k) => pl && pl.getAttribute("points") !== lines[k] && pl.setAttribute("points", lines[k]));
    return;
  }
  const g = s("svg", { class: "plot", viewBox: `0 0 ${W} ${H}` });
  for (const [yy, label] of yTicks) {
    g.append(s("line", { class: "axis", x1: L, x2: W - R, y1: yy, y2: yy }), s("text", { class: "tick", x: L - 6, y: yy + 3, "text-anchor": "end" }, label));
  }
  xTicks.forEach(([xx, label], k) => g.append(s("text", { class: "tick", x: xx, y: H - 5, "text-anchor": k === 0 ? "end" : "middle" }, label)));
  const pls = series.map((se, k) => {
    if (!lines[k]) return null;
    const pl = s("polyline", { fill: "none", stroke: se.color, "stroke-width": 1.8, "stroke-linejoin": "round", points: lines[k] });
    g.append(pl);
    return pl;
  });
  box.phobosPlot = { key, lines: pls };
  box.replaceChildren(h("div", {}, g, series.length > 1 ? legend(series.map((se) => [se.name, se.color])) : null));
}

function plotPanel(id, title) {
  return h("div", { class: "panel" }, h("h2", { text: title }), h("div", { id }));
}

function replace(id, el) {
  const box = document.getElementById(id);
  if (box) box.replaceChildren(el);
}

// replaceIf draws build() into box id unless what it draws from (key) is
// what the box shows already. A table drawn again with the same rows
// changes only the cells that differ (a worker's heartbeat age changes at
// every update, the rest of its row seldom).
function replaceIf(id, key, build) {
  const box = document.getElementById(id);
  if (!box || box.phobosKey === key) return;
  box.phobosKey = key;
  const el = build(), old = box.firstElementChild;
  if (!old || old.tagName !== "TABLE" || el.tagName !== "TABLE" || old.rows.length !== el.rows.length || box.children.length !== 1) {
    box.replaceChildren(el);
    return;
  }
  const olds = [...old.rows], news = [...el.rows];
  olds.forEach((a, r) => {
    const b = news[r];
    if (a.outerHTML === b.outerHTML) return;
    if (a.cells.length !== b.cells.length || a.attributes.length !== b.attributes.length || [...a.attributes].some((x) => b.getAttribute(x.name) !== x.value)) {
      a.replaceWith(b);
      return;
    }
    const ac = [...a.cells], bc = [...b.cells];
    ac.forEach((c, k) => { if (c.outerHTML !== bc[k].outerHTML) c.replaceWith(bc[k]); });
  });
}

// history keeps the samples a page plots: the stream's first event brings
// the web service's last minutes, each later one a new point.
class History {
  constructor() { this.points = []; }
  add(samples) {
    for (const smp of samples) {
      if (this.points.length && smp.t <= this.points[this.points.length - 1].t) continue;
      this.points.push(smp);
    }
    if (this.points.length > 2400) this.points.splice(0, this.points.length - 2400);
  }
  series(f) { return this.points.map((p) => [p.t, f(p)]); }
}

// ---- cluster page ---------------------------------------------------------

function clusterPage() {
  main.replaceChildren(
    h("h1", {}, "Cluster"),
    h("div", { class: "cards" },
      card("fig-workers", "Workers alive", "–", ""),
      card("fig-slots", "Slots busy", "–", ""),
      card("fig-memory", "Memory used", "–", ""),
      card("fig-store", "Store", "–", ""),
      card("fig-spill", "Spill files", "–", ""),
      card("fig-ops", "Chunk ops / s", "–", ""),
      card("fig-graphs", "Graphs running", "–", "")),
    h("div", { class: "grid2" }, plotPanel("plot-ops", "Chunk ops per second"), plotPanel("plot-mem", "Memory in the workers' stores")),
    h("div", { class: "panel" }, h("h2", { text: "Schedulers" }), h("div", { id: "schedulers" })),
    h("div", { class: "panel" }, h("h2", { text: "Workers" }), h("div", { id: "workers" })),
    h("div", { class: "panel" }, h("h2", {}, "Graphs ", h("a", { href: "#/graphs", text: "all sessions and graphs →" })), h("div", { id: "cluster-graphs" })));
  const hist = new History();
  const ingest = (c) => {
    if (c.history) hist.add(c.history.map((p) => ({ t: p.t, ops: p.ops_per_s, store: sum(p.workers || [], (w) => w.store_bytes) })));
    hist.add([{ t: c.t, ops: c.ops_per_s, store: sum(c.workers, (w) => w.store_bytes) }]);
  };
  openStream({ view: "cluster" }, (c) => {
    const alive = c.workers.filter((w) => w.alive);
    const slots = sum(alive, (w) => w.slots), busy = sum(alive, (w) => w.running);
    const used = sum(alive, (w) => w.store_bytes), limit = sum(alive, (w) => w.limit_bytes || w.memory_bytes);
    setText("fig-workers", `${alive.length} / ${c.workers.length}`);
    setText("fig-workers-sub", alive.length === c.workers.length ? "all alive" : `${c.workers.length - alive.length} dead`);
    setText("fig-slots", `${busy} / ${slots}`);
    setText("fig-slots-sub", `${sum(alive, (w) => w.queued)} queued`);
    setText("fig-memory", fmtBytes(used));
    setText("fig-memory-sub", `of ${fmtBytes(limit)} (${limit ? ((100 * used) / limit).toFixed(1) : 0}%)`);
    setText("fig-store", fmtNum(sum(alive, (w) => w.store_chunks)) + " chunks");
    setText("fig-store-sub", `peak ${fmtBytes(Math.max(0, ...alive.map((w) => w.peak_store_bytes)))} on one worker`);
    setText("fig-spill", fmtBytes(sum(alive, (w) => w.disk_bytes)));
    setText("fig-spill-sub", `${fmtBytes(sum(alive, (w) => w.spilled_bytes))} spilled, ${fmtBytes(sum(alive, (w) => w.loaded_bytes))} loaded`);
    setText("fig-ops", fmtNum(Math.round(c.ops_per_s)));
    setText("fig-ops-sub", `${fmtNum(c.ops_done)} done in all`);
    const running = c.graphs.filter((g) => !ENDED.has(g.state));
    setText("fig-graphs", String(running.length));
    setText("fig-graphs-sub", `${c.graphs_total} held`);
    plot("plot-ops", [{ name: "ops/s", color: "#2f6fde", points: hist.series((p) => p.ops) }], (v) => fmtNum(Math.round(v)));
    plot("plot-mem", [{ name: "stored", color: "#22a06b", points: hist.series((p) => p.store) }], fmtBytes);
    replaceIf("schedulers", JSON.stringify(c.schedulers || []), () => schedulersTable(c.schedulers || []));
    replaceIf("workers", JSON.stringify(c.workers), () => workersTable(c.workers));
    replaceIf("cluster-graphs", JSON.stringify(c.graphs.slice(-8)), () => graphsTable(c.graphs.slice(-8), false));
  }, { ingest });
}

// schedulersTable lists the ring's members (or the one scheduler): a
// scheduler not serving takes no graphs (its etcd lease lapsed).
function schedulersTable(ss) {
  return h("table", { id: "schedulers-table" },
    h("tr", {}, ["Scheduler", "State", "Address", "PID", "Ring members", "Live workers", "Sessions", "Graphs"].map((t, i) => h("th", { class: i >= 3 ? "num" : null, text: t }))),
    ss.map((sc) => {
      const serving = sc.state === "serving";
      return h("tr", { "data-scheduler": sc.id },
        h("td", { text: sc.id || "scheduler" }),
        h("td", {}, h("span", { class: "state " + (serving ? "alive" : "dead"), title: sc.state, text: serving ? "serving" : sc.state.split(":")[0] })),
        h("td", { class: "muted", text: sc.address }),
        h("td", { class: "num", text: sc.pid || "" }),
        h("td", { class: "num", text: sc.ring_members }),
        h("td", { class: "num", "data-fig": "live-workers", text: sc.live_workers }),
        h("td", { class: "num", "data-fig": "sessions", text: sc.sessions }),
        h("td", { class: "num", "data-fig": "graphs", text: sc.graphs }));
    }));
}

function workersTable(ws) {
  return h("table", { id: "workers-table" },
    h("tr", {}, ["Worker", "State", "Address", "Slots busy", "Queued", "Memory used", "Chunks", "Spill files", "Spilled", "Loaded", "Heartbeat"].map((t, i) => h("th", { class: i >= 3 ? "num" : null, text: t }))),
    ws.map((w) => {
      const limit = w.limit_bytes || w.memory_bytes;
      return h("tr", { "data-worker": w.id },
        h("td", {}, h("a", { href: `#/worker/${w.id}`, text: `worker ${w.id}` })),
        h("td", {}, h("span", { class: "state " + (w.alive ? "alive" : "dead"), title: w.dead_reason || "", text: w.alive ? "alive" : "dead" })),
        h("td", { class: "muted", text: w.url }),
        h("td", { class: "num", "data-fig": "slots", text: `${w.running} / ${w.slots}` }),
        h("td", { class: "num", text: w.queued }),
        h("td", { class: "num", "data-fig": "memory" }, `${fmtBytes(w.store_bytes)} / ${fmtBytes(limit)}`,
          h("div", { class: "meter" }, h("span", { style: `width:${limit ? Math.min(100, (100 * w.store_bytes) / limit) : 0}%` }))),
        h("td", { class: "num", text: fmtNum(w.store_chunks) }),
        h("td", { class: "num", text: fmtBytes(w.disk_bytes) }),
        h("td", { class: "num", text: fmtBytes(w.spilled_bytes) }),
        h("td", { class: "num", text: fmtBytes(w.loaded_bytes) }),
        h("td", { class: "num", text: fmtMs(w.last_heartbeat_ms_ago) + " ago" }));
    }));
}

// ---- sessions and graphs --------------------------------------------------

function graphsPage() {
  main.replaceChildren(h("h1", {}, "Sessions and graphs ", h("small", {}, h("a", { href: "#/follow", text: "follow the newest running graph →" }))), stateLegend(), h("div", { class: "panel" }, h("div", { id: "graphs" })));
  openStream({ view: "cluster" }, (c) => replaceIf("graphs", JSON.stringify(c.graphs), () => graphsTable(c.graphs.slice().reverse(), true)));
}

function graphsTable(graphs, withTypes) {
  if (!graphs.length) return h("p", { class: "muted", text: "No graphs yet." });
  const rows = [];
  for (const g of graphs) {
    rows.push(h("tr", { "data-graph": g.graph_id, "data-session": g.session_id },
      h("td", { class: "muted", title: g.session_id, text: g.session_id.slice(0, 8) }),
      h("td", {}, h("a", { href: `#/graph/${g.session_id}/${g.graph_id}`, text: g.graph_id })),
      h("td", {}, h("span", { class: "state " + g.state, text: g.state })),
      h("td", {}, stateBar(g.progress, g.chunk_ops)),
      h("td", { class: "num", "data-fig": "done", text: `${fmtNum(done(g.progress))} / ${fmtNum(g.chunk_ops)}` }),
      h("td", { class: "num", text: fmtBytes(g.moved_bytes) }),
      h("td", { class: "num", text: fmtMs(g.prepare_ms) }),
      h("td", { class: "num", text: fmtMs(g.run_ms) }),
      h("td", { class: "error", title: g.error || "", text: (g.error || "").slice(0, 80) })));
    if (withTypes && g.types && g.types.length) {
      rows.push(h("tr", { class: "types" }, h("td"), h("td", { colspan: 8 }, typesTable(g.types, true))));
    }
  }
  return h("table", {},
    h("tr", {}, ["Session", "Graph", "State", "Progress", "Ops done", "Moved", "Prepare", "Run", "Error"].map((t, i) => h("th", { class: i >= 4 && i < 8 ? "num" : null, text: t }))),
    rows);
}

// typesTable is Mars's chart: per op type, its ops by state.
function typesTable(types, compact) {
  return h("table", { class: "types-table" },
    compact ? null : h("tr", {}, ["Op type", "Progress", "Done", ...STATES.map((st) => st.toLowerCase())].map((t, i) => h("th", { class: i >= 2 ? "num" : null, text: t }))),
    types.map((tc) => {
      const total = sum(STATES, (k) => tc.counts[k] || 0);
      return h("tr", { "data-type": tc.type },
        h("td", {}, h("i", { style: `display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:6px;background:${typeColor(tc.type)}` }), tc.type),
        h("td", { style: "width:40%" }, stateBar(tc.counts, total)),
        h("td", { class: "num", text: `${fmtNum(done(tc.counts))} / ${fmtNum(total)}` }),
        compact ? null : STATES.map((st) => h("td", { class: "num muted", text: tc.counts[st] ? fmtNum(tc.counts[st]) : "" })));
    }));
}

// updateTypes shows the graph page's types table, changing the cells of the
// one drawn when the types are the same (the usual case: every update of a
// running graph) instead of building it again.
function updateTypes(id, types) {
  const box = document.getElementById(id);
  if (!types.length) {
    if (box.dataset.key !== "") { box.dataset.key = ""; box.replaceChildren(h("p", { class: "muted", text: "No chunk ops yet: the graph is being prepared." })); }
    return;
  }
  const key = types.map((tc) => tc.type).join("\n");
  if (box.dataset.key !== key) { box.dataset.key = key; box.replaceChildren(typesTable(types, false)); return; }
  const rows = box.querySelectorAll("tr[data-type]");
  types.forEach((tc, i) => {
    const cells = rows[i].children;
    const total = sum(STATES, (k) => tc.counts[k] || 0);
    updateBar(cells[1].firstChild, tc.counts, total);
    const d = `${fmtNum(done(tc.counts))} / ${fmtNum(total)}`;
    if (cells[2].textContent !== d) cells[2].textContent = d;
    STATES.forEach((st, j) => {
      const v = tc.counts[st] ? fmtNum(tc.counts[st]) : "";
      if (cells[3 + j].textContent !== v) cells[3 + j].textContent = v;
    });
  });
}

// ---- one graph ------------------------------------------------------------

// graphPage shows one graph; onState, when given, hears its state at each
// update, and GONE once the web service no longer knows the graph (its
// program released it after reading its results: a graph that ended).
const GONE = "GONE";

function graphPage(sid, gid, onState) {
  if (onState && document.getElementById("graph-page")) {
    // #/follow going from one graph to the next keeps the page and resets
    // its figures: the browser redraws what changes, not the whole page.
    const h1 = document.querySelector("#graph-page h1");
    h1.firstChild.data = `Graph ${gid}`;
    h1.querySelector("small").textContent = `session ${sid}`;
    const st = document.getElementById("graph-state");
    st.textContent = "…";
    st.className = "state";
    document.getElementById("cancel").disabled = true;
    for (const id of ["fig-total", "fig-done", "fig-running", "fig-moved", "fig-prepare", "fig-run", "fig-recomputed"]) setText(id, "–");
    document.getElementById("graph-error").replaceChildren();
    setText("graph-note", "");
    setText("detail-title", "Click a chunk op to see it");
    document.getElementById("detail").replaceChildren();
  } else {
    main.replaceChildren(
      h("div", { class: "toolbar", id: "graph-page" },
        h("h1", {}, `Graph ${gid}`, h("small", { text: `session ${sid}` })),
        h("span", { id: "graph-note", class: "muted" }),
        h("span", { id: "graph-state", class: "state", text: "…" }),
        h("button", { id: "cancel", class: "danger", disabled: true }, "Cancel")),
      h("div", { id: "graph-error" }),
      h("div", { class: "cards" },
        card("fig-total", "Chunk ops", "–"),
        card("fig-done", "Done", "–"),
        card("fig-running", "Running", "–"),
        card("fig-moved", "Bytes moved", "–"),
        card("fig-prepare", "Prepare", "–"),
        card("fig-run", "Run", "–"),
        card("fig-recomputed", "Recomputed", "–")),
      h("div", { class: "panel" }, h("h2", { text: "Progress by op type" }), h("div", { id: "types" })),
      h("div", { class: "grid2" },
        h("div", { class: "panel" }, h("h2", { text: "Tensor ops (as submitted)" }), h("div", { id: "dag-tileable" })),
        h("div", { class: "panel" }, h("h2", { id: "chunks-title", text: "Chunk ops after fusion" }), stateLegend(), h("div", { id: "dag-chunks" }))),
      h("div", { class: "panel detail" }, h("h2", { id: "detail-title", text: "Click a chunk op to see it" }), h("div", { id: "detail" })));
  }
  document.getElementById("cancel").onclick = () => cancelGraph(sid, gid);
  const dags = { tileable: new DagView("dag-tileable", null), chunks: new DagView("dag-chunks", (n, summarised) => showOps(sid, gid, n, summarised)) };
  // A graph followed (onState) that its program released is no error:
  // the page says so and #/follow moves on.
  let drawn = false;
  const failure = onState ? (e) => {
    if (e.status !== 404) { showError(e.error); return; }
    if (!drawn) {
      // Released before its first update: nothing of the graph shown
      // before (a page kept from the last one) is this graph's.
      for (const id of ["types", "dag-tileable", "dag-chunks"]) document.getElementById(id).replaceChildren();
      delete document.getElementById("types").dataset.key;
      setText("chunks-title", "Chunk ops after fusion");
    }
    // in the toolbar's line, so that the page below does not move
    setText("graph-note", "released by its program: following the next graph");
    document.getElementById("cancel").disabled = true; // nothing left to cancel
    onState(GONE);
  } : null;
  openStream({ view: "graph", session: sid, graph: gid }, (g) => {
    drawn = true;
    if (onState) onState(g.state);
    const st = document.getElementById("graph-state");
    setText("graph-state", g.state);
    if (st.className !== "state " + g.state) st.className = "state " + g.state;
    const cancel = document.getElementById("cancel");
    const off = ENDED.has(g.state) || g.state === "CANCELLING";
    if (cancel.disabled !== off) cancel.disabled = off;
    const errBox = document.getElementById("graph-error");
    if (g.error) { if (errBox.textContent !== g.error) errBox.replaceChildren(h("div", { class: "errorbox", text: g.error })); } else if (errBox.firstChild) errBox.replaceChildren();
    setText("fig-total", fmtNum(g.chunk_ops));
    setText("fig-done", fmtNum(done(g.progress)));
    setText("fig-running", fmtNum(g.progress.RUNNING || 0));
    setText("fig-moved", fmtBytes(g.moved_bytes));
    setText("fig-prepare", fmtMs(g.prepare_ms));
    setText("fig-run", fmtMs(g.run_ms));
    setText("fig-recomputed", fmtNum(g.recomputed));
    updateTypes("types", g.types);
    if (g.tileable) dags.tileable.update(g.tileable);
    if (g.chunks) {
      setText("chunks-title", g.chunks.summarised ? `Chunk ops after fusion: ${fmtNum(g.chunks.ops)} ops, summarised by type` : `Chunk ops after fusion: ${fmtNum(g.chunks.ops)} ops`);
      dags.chunks.update(g.chunks);
    }
  }, { failure });
}

// cancelGraph is DELETE on the graph, as the REST API has it: a running
// graph turns CANCELLING, then CANCELLED once its ops have stopped, and is
// then forgotten, so the page waits for the end with the long-poll and
// closes its stream.
async function cancelGraph(sid, gid) {
  const btn = document.getElementById("cancel");
  const st = document.getElementById("graph-state");
  btn.disabled = true;
  const show = (state) => { st.textContent = state; st.className = "state " + state; };
  try {
    const url = `/api/sessions/${sid}/graphs/${gid}`;
    let g = await api(url, { method: "DELETE" });
    if (stream) { stream.close(); stream = null; }
    show(g.state);
    try {
      while (!ENDED.has(g.state)) { g = await api(url + "?wait_timeout=10"); show(g.state); }
    } catch (e) {
      // Forgotten once stopped: the record went after it turned CANCELLED.
      show("CANCELLED");
    }
    live.textContent = "deleted";
    live.classList.remove("on");
  } catch (e) {
    showError("cancel: " + e.message);
    btn.disabled = false;
  }
}

async function showOps(sid, gid, node, summarised) {
  const q = summarised ? `type=${encodeURIComponent(node.type)}` : `nodes=${node.id}`;
  setText("detail-title", summarised ? `Chunk ops of type ${node.type} (the first 200)` : `Chunk op ${node.id}`);
  try {
    const r = await api(`/api/sessions/${sid}/graphs/${gid}/ops?${q}`);
    replace("detail", h("table", { id: "ops-table" },
      h("tr", {}, ["Op", "Type", "State", "Worker", "Held by", "Shape", "Dtype", "Bytes", "Attempt", "Inputs", "Started", "Took"].map((t) => h("th", { text: t }))),
      r.ops.map((o) => h("tr", { "data-node": o.node },
        h("td", { text: o.node }), h("td", { text: o.type }),
        h("td", {}, h("span", { class: "state", style: `background:${stateColor(o.state)}`, text: o.state })),
        h("td", {}, o.worker >= 0 ? h("a", { href: `#/worker/${o.worker}`, text: o.worker }) : "–"),
        h("td", { text: o.holder >= 0 ? o.holder : "–" }),
        h("td", { text: `(${o.shape.join(", ")})` }), h("td", { text: o.dtype }),
        h("td", { class: "num", text: o.nbytes ? fmtBytes(o.nbytes) : "–" }),
        h("td", { class: "num", text: o.attempt }),
        h("td", { text: o.inputs.length ? o.inputs.slice(0, 8).join(", ") + (o.inputs.length > 8 ? ", …" : "") : "–" }),
        h("td", { text: o.started_us ? new Date(o.started_us / 1000).toLocaleTimeString() : "–" }),
        h("td", { class: "num", text: o.started_us && o.ended_us ? fmtMs((o.ended_us - o.started_us) / 1000) : o.started_us ? "running" : "–" })))));
  } catch (e) {
    replace("detail", h("p", { class: "error", text: e.message }));
  }
}

// DagView lays a DAG out once per shape (layers by longest path, ordered
// by their inputs' mean position) and, on each update, recolours the nodes
// whose counts changed, changing attributes only. The last layout of each
// box is kept (dagLayouts), so following graph after graph of one program
// (#/follow) lays their common shape out once.
class DagView {
  constructor(boxId, onClick) { this.boxId = boxId; this.onClick = onClick; this.key = ""; this.selected = null; this.byId = new Map(); }

  update(dag) {
    const key = `${dag.summarised}/${dag.nodes.map((n) => n.id + ":" + n.type).join("|")}/${dag.edges.map((e) => e.join(",")).join(";")}`;
    this.summarised = dag.summarised;
    this.byId = new Map(dag.nodes.map((n) => [String(n.id), n]));
    if (key !== this.key) { this.key = key; this.layout(dag, key); }
    for (const n of dag.nodes) this.paint(n, dag.summarised);
  }

  // click selects node g and shows its op(s).
  click(g) {
    const n = this.byId.get(g.dataset.id);
    if (!n || !this.onClick) return;
    for (const o of this.nodes.values()) o.g.classList.remove("selected");
    g.classList.add("selected");
    this.selected = n.id;
    this.onClick(n, this.summarised);
  }

  layout(dag, key) {
    const kept = dagLayouts.get(this.boxId);
    if (kept && kept.key === key) {
      kept.owner = this;
      this.nodes = kept.nodes;
      for (const o of this.nodes.values()) o.g.classList.toggle("selected", this.selected === o.id);
      const box = document.getElementById(this.boxId);
      if (box && kept.svg.parentNode !== box) box.replaceChildren(kept.svg);
      return;
    }
    const idx = new Map(dag.nodes.map((n, i) => [n.id, i]));
    const rank = new Array(dag.nodes.length).fill(0);
    const preds = dag.nodes.map(() => []);
    for (const [f, t] of dag.edges) {
      const a = idx.get(f), b = idx.get(t);
      if (a !== undefined && b !== undefined && a < b) preds[b].push(a);
    }
    dag.nodes.forEach((_, i) => { for (const p of preds[i]) rank[i] = Math.max(rank[i], rank[p] + 1); });
    const layers = [];
    dag.nodes.forEach((_, i) => (layers[rank[i]] ||= []).push(i));
    const pos = new Array(dag.nodes.length).fill(0);
    layers.forEach((layer, r) => {
      if (r > 0) layer.sort((a, b) => (preds[a].length ? sum(preds[a], (p) => pos[p]) / preds[a].length : a) - (preds[b].length ? sum(preds[b], (p) => pos[p]) / preds[b].length : b) || a - b);
      layer.forEach((n, k) => (pos[n] = k / Math.max(1, layer.length - 1)));
    });
    const widest = Math.max(...layers.map((l) => l.length));
    const W = 640;
    const labelled = dag.summarised || widest <= 6;
    const nw = labelled ? Math.min(150, W / widest - 10) : Math.max(6, Math.min(40, W / widest - 4));
    const nh = labelled ? (dag.summarised ? 34 : 26) : Math.max(6, Math.min(16, nw));
    const gapY = labelled ? 36 : Math.max(14, nh * 1.6);
    const H = layers.length * (nh + gapY) + 10;
    const slotOf = new Map();
    layers.forEach((layer) => layer.forEach((n, k) => slotOf.set(n, k)));
    const xy = dag.nodes.map((_, i) => {
      const slot = W / layers[rank[i]].length;
      return [slot * slotOf.get(i) + (slot - nw) / 2, 8 + rank[i] * (nh + gapY)];
    });
    const svgEl = s("svg", { class: "dag", viewBox: `0 0 ${W} ${H}`, height: Math.min(H, 640) });
    const edges = s("g");
    const maxCount = Math.max(1, ...dag.edges.map((e) => e[2]));
    for (const [f, t, c] of dag.edges) {
      const a = idx.get(f), b = idx.get(t);
      if (a === undefined || b === undefined) continue;
      const x1 = xy[a][0] + nw / 2, y1 = xy[a][1] + nh, x2 = xy[b][0] + nw / 2, y2 = xy[b][1];
      const back = a >= b;
      const my = (y1 + y2) / 2;
      edges.append(s("path", {
        class: "edge", d: back ? `M${x1},${y1} C${x1 + 60},${y1 + 40} ${x2 + 60},${y2 - 40} ${x2},${y2}` : `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`,
        "stroke-width": dag.summarised ? 1 + 2.5 * Math.log10(1 + (9 * c) / maxCount) : 1, "stroke-dasharray": back ? "4 3" : null,
      }, s("title", {}, `${c} edge${c === 1 ? "" : "s"}`)));
    }
    svgEl.append(edges);
    this.nodes = new Map();
    dag.nodes.forEach((n, i) => {
      const g = s("g", { class: "node", transform: `translate(${xy[i][0].toFixed(1)},${xy[i][1].toFixed(1)})`, "data-id": n.id, "data-type": n.type });
      const title = s("title", {}, n.type);
      g.append(title);
      const frame = s("rect", { width: nw, height: nh, rx: 4, fill: this.onClick ? "#fff" : typeColor(n.type), "fill-opacity": this.onClick ? 1 : 0.18, stroke: "#9aa3af" });
      g.append(frame);
      const fills = s("g");
      g.append(fills);
      if (labelled) {
        const maxChars = Math.floor(nw / 6.2);
        const label = n.type.length > maxChars ? n.type.slice(0, Math.max(1, maxChars - 1)) + "…" : n.type;
        g.append(s("text", { class: "label", x: 6, y: dag.summarised ? 13 : nh / 2 + 4 }, label));
      }
      if (this.selected === n.id) g.classList.add("selected");
      svgEl.append(g);
      this.nodes.set(n.id, { id: n.id, g, frame, fills, title, nw, nh, labelled, last: "" });
    });
    // One listener for the whole DAG, calling whichever view shows it now.
    const kept2 = { key, svg: svgEl, nodes: this.nodes, owner: this };
    if (this.onClick) svgEl.addEventListener("click", (ev) => {
      const g = ev.target.closest("g.node");
      if (g) kept2.owner.click(g);
    });
    dagLayouts.set(this.boxId, kept2);
    replace(this.boxId, svgEl);
  }

  paint(n, summarised) {
    const v = this.nodes.get(n.id);
    if (!v || !this.onClick) return;
    const counts = n.counts || {};
    const key = STATES.map((k) => counts[k] || 0).join(",");
    if (v.last === key) return; // unchanged since drawn: nothing to touch
    v.last = key;
    const total = sum(STATES, (k) => counts[k] || 0);
    if (summarised) {
      // a bar of the type's ops by state under its name: one rect per
      // state, made once, resized
      if (!v.bars) {
        v.bars = STATES.map((st) => s("rect", { y: 19, height: 8, width: 0, style: `fill:${stateColor(st)}` }));
        v.fills.append(...v.bars);
      }
      let x = 6;
      const bw = v.nw - 12;
      STATES.forEach((st, i) => {
        const c = counts[st] || 0;
        const w = c && total ? (bw * c) / total : 0;
        v.bars[i].setAttribute("x", x);
        v.bars[i].setAttribute("width", w);
        x += w;
      });
      v.g.setAttribute("data-done", done(counts));
      v.g.setAttribute("data-total", total);
      v.title.textContent = `${n.type}: ${done(counts)} of ${total} done` + STATES.filter((k) => counts[k]).map((k) => `\n${k.toLowerCase()}: ${counts[k]}`).join("");
    } else {
      const st = STATES.find((k) => counts[k]) || "UNSCHEDULED";
      v.frame.style.fill = stateColor(st);
      v.frame.setAttribute("fill-opacity", st === "UNSCHEDULED" ? 0.6 : 0.85);
      v.g.setAttribute("data-state", st);
      v.title.textContent = `op ${n.id}: ${n.type} (${st.toLowerCase()})`;
    }
  }
}

// dagLayouts keeps the last DAG drawn in each box: {key, svg, nodes, owner}.
const dagLayouts = new Map();

// ---- one worker -----------------------------------------------------------

function workerPage(id) {
  main.replaceChildren(
    h("h1", {}, `Worker ${id}`, h("small", { id: "worker-url" })),
    h("div", { class: "cards" },
      card("fig-state", "State", "–"),
      card("fig-slots", "Slots busy", "–"),
      card("fig-queued", "Queued", "–"),
      card("fig-memory", "Memory used", "–", ""),
      card("fig-disk", "Spill files", "–"),
      card("fig-spilled", "Spilled", "–"),
      card("fig-loaded", "Loaded back", "–")),
    h("div", { class: "grid3" }, plotPanel("plot-tasks", "Ops running and queued"), plotPanel("plot-store", "Memory in its store"), plotPanel("plot-spill", "Spilled and loaded (total)")),
    h("div", { class: "panel" }, h("h2", { text: "Task stream: its slots, up to the last minute, coloured by op type" }), h("div", { id: "stream" })),
    h("div", { class: "panel" }, h("h2", { text: "Running now" }), h("div", { id: "running" })));
  const hist = new History();
  const ingest = (v) => {
    const w = v.worker;
    const pick = (p) => ({ t: p.t, ...(p.workers && p.workers[0]) });
    if (v.history) hist.add(v.history.filter((p) => p.workers && p.workers.length).map(pick));
    hist.add([{ t: v.t, running: w.running, queued: w.queued, store_bytes: w.store_bytes, spilled_bytes: w.spilled_bytes, loaded_bytes: w.loaded_bytes }]);
  };
  openStream({ view: "worker", worker: id }, (v) => {
    const w = v.worker;
    setText("worker-url", w.url);
    setText("fig-state", w.alive ? "alive" : "dead");
    setText("fig-slots", `${w.running} / ${w.slots}`);
    setText("fig-queued", fmtNum(w.queued));
    setText("fig-memory", fmtBytes(w.store_bytes));
    setText("fig-memory-sub", `of ${fmtBytes(w.limit_bytes || w.memory_bytes)}, peak ${fmtBytes(w.peak_store_bytes)}`);
    setText("fig-disk", fmtBytes(w.disk_bytes));
    setText("fig-spilled", fmtBytes(w.spilled_bytes));
    setText("fig-loaded", fmtBytes(w.loaded_bytes));
    plot("plot-tasks", [{ name: "running", color: "#3b82f6", points: hist.series((p) => p.running || 0) }, { name: "queued", color: "#f2c14e", points: hist.series((p) => p.queued || 0) }], (x) => x.toFixed(x < 10 ? 1 : 0), 420);
    plot("plot-store", [{ name: "stored", color: "#22a06b", points: hist.series((p) => p.store_bytes || 0) }], fmtBytes, 420);
    plot("plot-spill", [{ name: "spilled", color: "#dc3545", points: hist.series((p) => p.spilled_bytes || 0) }, { name: "loaded", color: "#8b5cf6", points: hist.series((p) => p.loaded_bytes || 0) }], fmtBytes, 420);
    replace("stream", taskStream(v, w.slots, hist));
    replace("running", v.running.length ? h("table", {},
      h("tr", {}, ["Graph", "Op", "Type", "Running for"].map((t) => h("th", { text: t }))),
      v.running.map((e) => h("tr", {},
        h("td", {}, e.graph_id ? h("a", { href: `#/graph/${e.session_id}/${e.graph_id}`, text: e.graph_id }) : "–"),
        h("td", { text: e.node }), h("td", { text: e.type }), h("td", { class: "num", text: fmtMs(v.t - e.started_us / 1000) }))))
      : h("p", { class: "muted", text: `Nothing running; ${v.queued} queued.` }));
  }, { ingest });
}

// taskStream draws the worker's tasks as bars on its slots (a task goes to
// the slot free the soonest), over the time they cover (5 s to a minute),
// with spill and load events below.
function taskStream(v, slots, hist) {
  const W = 1200, L = 36, R = 8, lane = 16;
  const end = v.t;
  const all = v.recent.concat(v.running).filter((e) => e.started_us).sort((a, b) => a.started_us - b.started_us);
  const first = all.length ? all[0].started_us / 1000 : end;
  const windowMs = Math.min(60000, Math.max(5000, end - first));
  const t0 = end - windowMs;
  const tasks = all.filter((e) => e.ended_us === 0 || e.ended_us / 1000 >= t0);
  const n = Math.max(slots, 1);
  const lanes = new Array(n).fill(-Infinity);
  const placed = tasks.map((e) => {
    const st = e.started_us / 1000, en = e.ended_us ? e.ended_us / 1000 : end;
    let k = 0;
    for (let j = 1; j < n; j++) if (lanes[j] < lanes[k]) k = j;
    lanes[k] = Math.max(lanes[k], en);
    return { e, st, en, k };
  });
  const H = n * (lane + 4) + 48;
  const x = (t) => L + ((t - t0) / windowMs) * (W - L - R);
  const g = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "dag", id: "task-stream" });
  for (let k = 0; k < n; k++) {
    g.append(s("rect", { x: L, y: 4 + k * (lane + 4), width: W - L - R, height: lane, fill: "#f3f4f6" }),
      s("text", { class: "tick", x: L - 6, y: 4 + k * (lane + 4) + 12, "text-anchor": "end" }, `slot ${k}`));
  }
  const types = new Map();
  for (const p of placed) {
    types.set(p.e.type, typeColor(p.e.type));
    const x1 = x(Math.max(p.st, t0)), x2 = Math.max(x1 + 1.5, x(p.en));
    g.append(s("rect", { x: x1, y: 4 + p.k * (lane + 4), width: x2 - x1, height: lane, fill: p.e.outcome === "FAILED" ? "#dc3545" : typeColor(p.e.type), "fill-opacity": p.e.ended_us ? 0.9 : 0.55, "data-type": p.e.type },
      s("title", {}, `${p.e.type}, op ${p.e.node} of ${p.e.graph_id || "a released graph"}: ${fmtMs(p.en - p.st)}${p.e.ended_us ? "" : " so far"} (${p.e.outcome.toLowerCase()})`)));
  }
  // spill and load events: where the totals grew between samples
  const y0 = 4 + n * (lane + 4) + 6;
  g.append(s("text", { class: "tick", x: L - 6, y: y0 + 8, "text-anchor": "end" }, "spill"), s("text", { class: "tick", x: L - 6, y: y0 + 22, "text-anchor": "end" }, "load"));
  const pts = hist.points.filter((p) => p.t >= t0);
  for (let i = 1; i < pts.length; i++) {
    for (const [f, row, color] of [["spilled_bytes", 0, "#dc3545"], ["loaded_bytes", 1, "#8b5cf6"]]) {
      const d = (pts[i][f] || 0) - (pts[i - 1][f] || 0);
      if (d > 0) g.append(s("rect", { x: x(pts[i - 1].t), y: y0 + row * 14, width: Math.max(2, x(pts[i].t) - x(pts[i - 1].t)), height: 10, fill: color, "class": "spill-event" }, s("title", {}, `${f === "spilled_bytes" ? "spilled" : "loaded"} ${fmtBytes(d)}`)));
    }
  }
  const step = windowMs > 30000 ? 10000 : windowMs > 10000 ? 5000 : 1000;
  for (let d = 0; d <= windowMs; d += step) g.append(s("text", { class: "tick", x: x(end - d), y: H - 4, "text-anchor": d === 0 ? "end" : "middle" }, d === 0 ? "now" : `-${d / 1000} s`));
  return h("div", {}, g, legend([...types.entries()].slice(0, 16)), tasks.length ? null : h("p", { class: "muted", text: "No task in the last minute." }));
}

// ---- following the newest graph --------------------------------------------

// follower watches the cluster view for #/follow while it looks for a
// graph to show (the same shared sampler as an open cluster page);
// followGen tells a pending look from one made for a later page.
let follower = null;
let followGen = 0;

// followPage shows the newest running graph's page and moves on to the
// next graph once the one shown has ended (or its program has released
// it, which is how most short graphs end as seen from here), for watching
// a program that submits graph after graph. While a graph is shown only
// its own stream is open; an ended graph stays on screen for
// followHoldMs, so graphs of a fraction of a second do not make the page
// flicker (nor the browser redraw it several times a second). The next
// graph reuses the page (graphPage).
const followHoldMs = 2000;

function followPage() {
  const gen = ++followGen;
  let cur = "";
  main.replaceChildren(h("h1", {}, "Following the newest graph"), h("p", { class: "muted", text: "Waiting for a graph to run." }));
  const look = () => {
    if (gen !== followGen) return; // the page was left
    const f = new Feed({ view: "cluster", history: "0" }, {
      quiet: true,
      draw: (c) => {
        if (f !== follower) return;
        const running = c.graphs.filter((g) => !ENDED.has(g.state));
        const g = running[running.length - 1];
        if (!g || g.session_id + "/" + g.graph_id === cur) return;
        cur = g.session_id + "/" + g.graph_id;
        f.close();
        follower = null;
        let ended = false;
        graphPage(g.session_id, g.graph_id, (state) => {
          if (ended || !(ENDED.has(state) || state === GONE)) return;
          ended = true;
          setTimeout(look, followHoldMs);
        });
        document.body.dataset.followed = 1 + (+document.body.dataset.followed || 0); // graphs followed, for tests
      },
    });
    follower = f;
  };
  look();
}

// ---- routing --------------------------------------------------------------

function route() {
  if (stream) { stream.close(); stream = null; }
  if (follower) { follower.close(); follower = null; }
  followGen++;
  clearError();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  let nav = "cluster";
  if (parts[0] === "worker" && /^\d+$/.test(parts[1] || "")) workerPage(Number(parts[1]));
  else if (parts[0] === "graph" && parts[1] && parts[2]) { graphPage(parts[1], parts[2]); nav = "graphs"; }
  else if (parts[0] === "graphs") { graphsPage(); nav = "graphs"; }
  else if (parts[0] === "follow") { followPage(); nav = "graphs"; }
  else clusterPage();
  for (const a of document.querySelectorAll("header nav a")) a.classList.toggle("active", a.dataset.nav === nav);
}

async function start() {
  // ?token=... once: it becomes the cookie, and leaves the address bar.
  const q = new URLSearchParams(location.search);
  if (q.has("token")) {
    const ok = await login(q.get("token"));
    q.delete("token");
    history.replaceState(null, "", location.pathname + (q.toString() ? "?" + q : "") + location.hash);
    if (!ok) askToken();
  }
  window.addEventListener("hashchange", route);
  route();
}

start();
