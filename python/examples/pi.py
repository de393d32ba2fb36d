"""Mars's README Monte Carlo π through Phobos: the program is Mars's, with
chunks given, after `import phobos.tensor as mt`.

    python3 examples/pi.py [N] [cluster URL]

Prints π on stdout and the seconds `execute` took on stderr."""

import sys
import time

import phobos
import phobos.tensor as mt

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 200_000_000
if len(sys.argv) > 2:
    phobos.new_session(sys.argv[2])
else:
    phobos.get_default_session()  # start the local cluster before the clock

t0 = time.perf_counter()
a = mt.random.uniform(-1, 1, size=(N, 2), chunks=(10_000_000, 2))
print(((mt.linalg.norm(a, axis=1) < 1)
        .sum() * 4 / N).execute())
print(f"{time.perf_counter() - t0:.3f}", file=sys.stderr)
