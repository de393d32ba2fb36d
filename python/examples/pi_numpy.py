"""Mars's README Monte Carlo π in NumPy, to time beside examples/pi.py."""

import sys
import time

import numpy as np

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 200_000_000
t0 = time.perf_counter()
a = np.random.uniform(-1, 1, size=(N, 2))
print(((np.linalg.norm(a, axis=1) < 1)
        .sum() * 4 / N))
print(f"{time.perf_counter() - t0:.3f}", file=sys.stderr)
