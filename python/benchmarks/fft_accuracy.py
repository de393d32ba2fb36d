"""Accuracy of mt.fft against numpy.fft (pocketfft) on long transforms: the relative 2-norm error
of fft, and of the irfft(rfft(x)) round trip beside NumPy's own, for powers of two, a 3^14, a prime
(Bluestein) and a length with a factor 7 (the generic Stockham pass), each in three chunks.

    PHOBOS_BIN=/path/to/phobos /usr/bin/python3 python/benchmarks/fft_accuracy.py   (from the repository root)
"""
import os, sys, numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import phobos, phobos.tensor as mt
s = phobos.new_session(workers=1)
rng = np.random.default_rng(0)
for n in [4096, 1 << 20, 1 << 24, 3**14, 1000003, 7 * 2**17]:
    x = rng.standard_normal(n)
    want = np.fft.fft(x)
    got = mt.fft.fft(mt.tensor(x, chunks=n // 3 + 1)).fetch()
    e = np.linalg.norm(got - want) / np.linalg.norm(want)
    wr = np.fft.irfft(np.fft.rfft(x), n)
    gr = mt.fft.irfft(mt.fft.rfft(mt.tensor(x, chunks=n // 3 + 1)), n).fetch()
    er = np.linalg.norm(gr - x) / np.linalg.norm(x); enp = np.linalg.norm(wr - x) / np.linalg.norm(x)
    print(f"n={n}: fft vs numpy rel L2 {e:.2e} ({e/np.log2(n):.2e} x log2 n); irfft(rfft) round trip {er:.2e} (numpy {enp:.2e})", flush=True)
s.close()
