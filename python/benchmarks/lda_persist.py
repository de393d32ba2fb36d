"""scikit-learn's LinearDiscriminantAnalysis(solver="svd") fit and predict
on a tall m x n float64 X: on Phobos tensors under
sklearn.set_config(array_api_dispatch=True) and on NumPy, in turns, and
where a Phobos fit's time goes: the graphs it submits (programs and
persists), the time spent in those requests, and how many chunk ops ran.
X is persisted on the cluster before timing (its upload is not timed);
predict is take(classes_, argmax(decision_function(X))), as
lda_tall.py explains.

    cd python && PHOBOS_BIN=... /usr/bin/python3 \\
        benchmarks/lda_persist.py [--m 2000000] [--n 50] [--reps 3]

On a machine with AVX-512, set OPENBLAS_CORETYPE=SkylakeX for both sides
(a machine without it stops with "Illegal instruction").

Prints one JSON line per system and repetition, then the medians. fit_cpu_s
is CPU time (user + system): NumPy's process, or the client's and the local
cluster process's, the figure to compare on a loaded machine; Phobos's
predict_cpu_s is the same for predict, and its requests are counted by kind
as the fit's are."""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import sklearn
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import phobos  # noqa: E402
import phobos.tensor as mt  # noqa: E402


def _cluster_cpu(s):
    """The CPU seconds (user + system) the session's local cluster process
    has used, or None when the session has none (or no /proc)."""
    local = getattr(s, "_local", None)
    proc = getattr(local, "proc", None)
    if proc is None:
        return None
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _by_kind(calls):
    """Requests per kind (method and the path's last named part) with
    their count and seconds."""
    out = {}
    for method, what, took in calls:
        n, t = out.get(f"{method} {what}", (0, 0.0))
        out[f"{method} {what}"] = (n + 1, round(t + took, 4))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=2_000_000)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--verbose", action="store_true",
                    help="print each graph's chunk ops, times and the local cluster's CPU seconds on stderr")
    args = ap.parse_args()

    rng = np.random.default_rng(3)
    y = rng.integers(0, args.classes, args.m)
    X = rng.standard_normal((args.m, args.n)) + y[:, None] * rng.uniform(0.2, 1.0, args.n)

    s = phobos.new_session(workers=args.workers)
    calls = []
    json_req = s._json

    submitted = {}

    def counting(method, path, payload=None, **kw):
        t0 = time.perf_counter()
        if args.verbose and method == "POST" and path.split("?")[0].endswith("/programs"):
            submitted["cpu"] = _cluster_cpu(s)  # the graph's CPU counts from its submission
        out = None
        try:
            out = json_req(method, path, payload, **kw)
            return out
        finally:
            if args.verbose and isinstance(out, dict) and out.get("state") == "SUCCEEDED" and "chunk_ops" in out:
                c0, c1 = submitted.get("cpu"), _cluster_cpu(s)
                print(json.dumps({"graph": out["graph_id"], "chunk_ops": out["chunk_ops"], "prepare_ms": out.get("prepare_ms"),
                                  "run_ms": out.get("run_ms"), "cluster_cpu_s": None if c0 is None or c1 is None else round(c1 - c0, 2),
                                  "results": [r["shape"] for r in out["results"]]}), file=sys.stderr)
            parts = [p for p in path.split("?")[0].split("/") if p]
            what = parts[-1] if parts[-1] in ("programs", "describe", "release", "workers") else "/".join(
                p for p in parts[2:] if not p[:1].isdigit() and not (p[:1] == "g" and p[1:].isdigit()) and len(p) < 20)
            calls.append((method, what, time.perf_counter() - t0))
    s._json = counting
    try:
        Xt = mt.asarray(X, chunks=(args.chunk, args.n)).persist()
        yt = mt.asarray(y, chunks=args.chunk).persist()
        results = {"numpy": [], "phobos": []}
        for _ in range(args.reps):
            t0, p0 = time.perf_counter(), time.process_time()
            want = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
            t1, p1 = time.perf_counter(), time.process_time()
            pred_np = want.predict(X)
            t2 = time.perf_counter()
            results["numpy"].append({"fit_s": t1 - t0, "predict_s": t2 - t1, "fit_cpu_s": p1 - p0})
            with sklearn.config_context(array_api_dispatch=True):
                calls.clear()
                t0, p0, c0 = time.perf_counter(), time.process_time(), _cluster_cpu(s)
                lda = LinearDiscriminantAnalysis(solver="svd").fit(Xt, yt)
                s.execute(lda.coef_, lda.intercept_, lda.scalings_, lda.xbar_)
                t1, p1, c1 = time.perf_counter(), time.process_time(), _cluster_cpu(s)
                fit_calls = list(calls)
                calls.clear()
                scores = lda.decision_function(Xt)
                idx = mt.argmax(scores, axis=1) if scores.ndim == 2 else mt.astype(scores > 0, mt.int64)
                pred = mt.take(lda.classes_, idx, axis=0).fetch()
                t2, p2, c2 = time.perf_counter(), time.process_time(), _cluster_cpu(s)
                predict_calls = list(calls)
            programs = [c for c in fit_calls if c[1] == "programs"]
            results["phobos"].append({
                "fit_s": t1 - t0, "predict_s": t2 - t1,
                # the client's CPU and the local cluster's
                "fit_cpu_s": (p1 - p0) + (c1 - c0 if c0 is not None and c1 is not None else 0.0),
                "fit_requests": len(fit_calls), "fit_graphs": len(programs),
                "fit_request_s": sum(c[2] for c in fit_calls),
                "fit_graph_s": sum(c[2] for c in programs),
                "requests_by_kind": _by_kind(fit_calls),
                "predict_cpu_s": (p2 - p1) + (c2 - c1 if c1 is not None and c2 is not None else 0.0),
                "predict_requests": len(predict_calls),
                "predict_graphs": sum(1 for c in predict_calls if c[1] == "programs"),
                "predict_requests_by_kind": _by_kind(predict_calls)})
            np.testing.assert_array_equal(pred, pred_np)
            np.testing.assert_allclose(lda.coef_.fetch(), want.coef_, rtol=1e-10, atol=1e-10 * np.abs(want.coef_).max())
            for system in ("numpy", "phobos"):
                print(json.dumps({"system": system, **results[system][-1]}), flush=True)
        for system in ("numpy", "phobos"):
            keys = ("fit_s", "predict_s", "fit_cpu_s") + (("predict_cpu_s",) if system == "phobos" else ())
            med = {k: statistics.median(r[k] for r in results[system]) for k in keys}
            print(json.dumps({"name": "lda_persist", "system": system, "median": med,
                              "params": vars(args), "sklearn": sklearn.__version__}), flush=True)
    finally:
        s.close()


if __name__ == "__main__":
    main()
