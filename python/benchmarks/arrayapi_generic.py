"""An Array-API-generic function (only `xp.` calls) on NumPy arrays and on
Phobos tensors: standardise the columns of X, then their covariance
Z.T @ Z / (n - 1), for a 2e6 x 50 float64 X (1e8 elements). On Phobos, Z.T @ Z
is a Gram product (ops.Gram, SYRK) and the column moments are chunked
reductions, on a local cluster started here; X is uploaded before timing
(its upload is cached by the session, so each timed run computes from the
chunks already in the cluster). The two results must agree to rtol 1e-10.

    cd python && OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 benchmarks/arrayapi_generic.py \\
        [--m 2000000] [--n 50] [--chunk 100000] [--workers 2] [--reps 5] [--form standardise|centred]

$PHOBOS_BIN names the phobos binary (else `phobos` on PATH). Prints one JSON
line per system: the wall seconds of each run and their median."""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import phobos  # noqa: E402
import phobos.tensor as mt  # noqa: E402


def standardised_covariance(X):
    """Array API only: the namespace comes from X."""
    xp = X.__array_namespace__()
    n = X.shape[0]
    mu = xp.mean(X, axis=0)
    sd = xp.std(X, axis=0, correction=1)
    Z = (X - mu) / sd
    return xp.matmul(xp.matrix_transpose(Z), Z) / (n - 1)


def centred_then_scaled(X):
    """The same matrix written as the covariance of the centred columns,
    scaled by the standard deviations afterwards (its diagonal): one
    centred Gram product (x - s).T @ (x - s), which Phobos folds into one
    SYRK pass, and no standardised copy of X."""
    xp = X.__array_namespace__()
    n = X.shape[0]
    Xc = X - xp.mean(X, axis=0)
    C = xp.matmul(xp.matrix_transpose(Xc), Xc) / (n - 1)
    sd = xp.sqrt(xp.linalg.diagonal(C))
    return C / (sd[:, None] * sd[None, :])


FORMS = {"standardise": standardised_covariance, "centred": centred_then_scaled}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=2_000_000)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--form", choices=sorted(FORMS), default="standardise",
                    help="standardise: Z = (X - mean) / std, then Z.T @ Z / (n - 1) (the default); "
                         "centred: the centred Gram product scaled by the std afterwards")
    args = ap.parse_args()

    rng = np.random.default_rng(1)
    X = rng.standard_normal((args.m, args.n)) * rng.uniform(0.5, 3.0, args.n) + rng.uniform(-2, 2, args.n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import numpy.array_api as npx  # NumPy 1.24's Array API namespace over the same data
    Xn = npx.asarray(X)

    session = phobos.new_session(workers=args.workers)
    try:
        Xt = mt.asarray(X, chunks=(args.chunk, args.n))
        t0 = time.perf_counter()
        float(mt.sum(Xt[:1, :1]))  # uploads X (the session caches the upload)
        upload = time.perf_counter() - t0

        results, medians = {}, {}
        for system, x, run in (("numpy", Xn, lambda c: np.asarray(c)),
                               ("phobos", Xt, lambda c: c.fetch())):
            walls = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                c = run(FORMS[args.form](x))
                walls.append(time.perf_counter() - t0)
            results[system] = c
            medians[system] = statistics.median(walls)
            print(json.dumps({"name": "arrayapi_generic", "system": system,
                              "params": {"m": args.m, "n": args.n, "chunk": args.chunk, "workers": args.workers,
                                         "form": args.form},
                              "wall_s": statistics.median(walls), "wall_s_all": walls,
                              **({"upload_s": upload} if system == "phobos" else {})}), flush=True)
        np.testing.assert_allclose(results["phobos"], results["numpy"], rtol=1e-10, atol=0)
        print(json.dumps({"name": "arrayapi_generic", "check": "equal to rtol 1e-10",
                          "numpy_over_phobos": medians["numpy"] / medians["phobos"]}), flush=True)
    finally:
        session.close()


if __name__ == "__main__":
    if os.environ.get("OPENBLAS_CORETYPE") != "SkylakeX":
        print("note: OPENBLAS_CORETYPE is not SkylakeX: NumPy's timings are not comparable", file=sys.stderr)
    main()
