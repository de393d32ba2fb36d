"""scikit-learn's LinearDiscriminantAnalysis(solver="svd") fitted on a tall
2e6 x 50 float64 X with a few classes: on Phobos tensors under
sklearn.set_config(array_api_dispatch=True) (the user's code unchanged) and
plain scikit-learn on NumPy arrays (the fitted coef_, intercept_, scalings_
and xbar_ computed within the time). X and y are uploaded before timing
(the session caches uploads). The fit must run on the cluster (its SVD is
TSQR over X's row chunks): every result the client fetches during a fit is
recorded, and the script fails if any is larger than a small bound (the
classes, counts and ranks scikit-learn reads as numbers), i.e. if X, a
class's rows or the centred data came to the client. Predictions must be
equal and coefficients equal to rtol 1e-10 of their largest (the predicted classes are
computed as predict() does, through the namespace's take: scikit-learn
1.2's own take wrapper builds one call per sample).

    cd python && OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 benchmarks/lda_tall.py \\
        [--m 2000000] [--n 50] [--classes 3] [--chunk 200000] [--workers 2] [--reps 3]

$PHOBOS_BIN names the phobos binary (else `phobos` on PATH). Prints one JSON
line per system: the wall seconds of each fit and their median."""

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=2_000_000)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()

    rng = np.random.default_rng(3)
    y = rng.integers(0, args.classes, args.m)
    X = rng.standard_normal((args.m, args.n)) + y[:, None] * rng.uniform(0.2, 1.0, args.n)

    session = phobos.new_session(workers=args.workers)
    fetched = []
    take_result = session._take_result

    def recording_take(res):
        v = take_result(res)
        fetched.append(v.nbytes)
        return v
    session._take_result = recording_take
    # the largest result a fit may fetch: the classes and their counts
    # (int64 each), a rank, a 0-d float; far below one row block of X
    bound = 8 * args.n * max(args.n, args.classes)
    try:
        Xt = mt.asarray(X, chunks=(args.chunk, args.n))
        yt = mt.asarray(y, chunks=args.chunk)
        float(mt.sum(Xt[:1, :1])) + float(mt.sum(yt[:1]))  # uploads X and y
        fetched.clear()

        walls = {"numpy": [], "phobos": []}
        for _ in range(args.reps):
            t0 = time.perf_counter()
            want = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
            walls["numpy"].append(time.perf_counter() - t0)
        most = 0
        with sklearn.config_context(array_api_dispatch=True):
            for _ in range(args.reps):
                fetched.clear()
                t0 = time.perf_counter()
                lda = LinearDiscriminantAnalysis(solver="svd").fit(Xt, yt)
                # a fit on tensors is lazy where scikit-learn reads no
                # number: the fitted model's arrays are computed in the time
                session.execute(lda.coef_, lda.intercept_, lda.scalings_, lda.xbar_)
                walls["phobos"].append(time.perf_counter() - t0)
                most = max([most] + fetched)
                if most > bound:
                    raise SystemExit(f"the fit fetched a result of {most} bytes (bound {bound}): data came to the client")
            # predict() is take(classes_, argmax(decision_function(X))), but
            # scikit-learn 1.2's take wrapper indexes one sample at a time
            # (a graph of m calls) for any namespace but numpy.array_api: the
            # same composition here, with the namespace's own take
            scores = lda.decision_function(Xt)
            idx = mt.argmax(scores, axis=1) if scores.ndim == 2 else mt.astype(scores > 0, mt.int64)
            got = mt.take(lda.classes_, idx, axis=0).fetch()
            coef, intercept = lda.coef_.fetch(), lda.intercept_.fetch()
        np.testing.assert_array_equal(got, want.predict(X))
        # relative to each array's scale: a coefficient near 0 (a class
        # mean's component that cancels) differs by rounding alone
        np.testing.assert_allclose(coef, want.coef_, rtol=1e-10, atol=1e-10 * np.abs(want.coef_).max())
        np.testing.assert_allclose(intercept, want.intercept_, rtol=1e-10, atol=1e-10 * np.abs(want.intercept_).max())
        for system in ("numpy", "phobos"):
            print(json.dumps({"name": "lda_tall", "system": system,
                              "params": {"m": args.m, "n": args.n, "classes": args.classes, "chunk": args.chunk,
                                         "workers": args.workers},
                              "wall_s": statistics.median(walls[system]), "wall_s_all": walls[system],
                              **({"largest_fetch_bytes": most} if system == "phobos" else {}),
                              "sklearn": sklearn.__version__}), flush=True)
        print(json.dumps({"name": "lda_tall", "check": "predictions equal, coef_ and intercept_ to 1e-10 of their largest",
                          "numpy_over_phobos": statistics.median(walls["numpy"]) / statistics.median(walls["phobos"])}),
              flush=True)
    finally:
        session.close()


if __name__ == "__main__":
    if os.environ.get("OPENBLAS_CORETYPE") != "SkylakeX":
        print("note: OPENBLAS_CORETYPE is not SkylakeX: NumPy's timings are not comparable", file=sys.stderr)
    main()
