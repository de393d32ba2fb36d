"""Mars's spellings beside Dask's and NumPy's: chunk_size= is chunks=
(the same chunks, values and errors), and the ExecutableTuple that
execute(a, b), session.execute and functions of several results return."""

import concurrent.futures

import numpy as np
import pytest

import phobos
import phobos.tensor as mt

DATA = np.arange(7 * 5, dtype=np.float64).reshape(7, 5) / 4 - 3

# (name, a function of chunks keywords, its NumPy value): each takes chunks= and chunk_size=.
MAKERS = [
    ("tensor", lambda **k: mt.tensor(DATA, **k), DATA),
    ("array", lambda **k: mt.array(DATA, **k), DATA),
    ("asarray", lambda **k: mt.asarray(DATA, **k), DATA),
    ("ones", lambda **k: mt.ones((7, 5), **k), np.ones((7, 5))),
    ("zeros", lambda **k: mt.zeros((7, 5), dtype=int, **k), np.zeros((7, 5), dtype=int)),
    ("full", lambda **k: mt.full((7, 5), 2.5, **k), np.full((7, 5), 2.5)),
    ("ones_like", lambda **k: mt.ones_like(DATA, **k), np.ones_like(DATA)),
    ("full_like", lambda **k: mt.full_like(DATA, 3, **k), np.full_like(DATA, 3)),
    ("eye", lambda **k: mt.eye(7, 5, k=1, **k), np.eye(7, 5, k=1)),
    ("rechunk", lambda **k: mt.tensor(DATA).rechunk(**k), DATA),
    ("mt.rechunk", lambda **k: mt.rechunk(mt.tensor(DATA, chunks=2), **k), DATA),
    ("arange", lambda **k: mt.arange(35, **k), np.arange(35)),
    ("linspace", lambda **k: mt.linspace(0, 1, 35, **k), np.linspace(0, 1, 35)),
    ("fftfreq", lambda **k: mt.fft.fftfreq(35, **k), np.fft.fftfreq(35)),
]

# odd sizes, single elements, one per axis (or every chunk's), chunks
# larger than the array; for the 7x5 tensors and for the 35-element ones
CHUNKS = [3, 1, 100, ((2, 4), (4,)), (((3, 4), (1, 2, 2)), ((10, 25),))]


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
@pytest.mark.parametrize("name,make,want", MAKERS, ids=[m[0] for m in MAKERS])
def test_chunk_size_is_chunks(session, name, make, want, chunks):
    if not isinstance(chunks, int):
        chunks = chunks[0] if want.ndim == 2 else chunks[1]
    a, b = make(chunks=chunks), make(chunk_size=chunks)
    assert a.nsplits == b.nsplits
    np.testing.assert_array_equal(b.to_numpy(), want)
    np.testing.assert_array_equal(a.to_numpy(), want)


@pytest.mark.parametrize("chunks", [3, 1, 100, (2, 4), ((3, 4), (1, 2, 2))], ids=str)
def test_random_chunk_size(session, chunks):
    rs1, rs2 = mt.random.RandomState(3), mt.random.RandomState(3)
    a = rs1.uniform(-1, 1, size=(7, 5), chunks=chunks)
    b = rs2.uniform(-1, 1, size=(7, 5), chunk_size=chunks)
    assert a.nsplits == b.nsplits
    # a stream's values do not depend on its chunks
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    c = mt.random.rand(7, 5, chunk_size=chunks)
    assert c.nsplits == a.nsplits and c.to_numpy().shape == (7, 5)


def test_chunk_size_errors_are_chunks_errors(session):
    with pytest.raises(TypeError, match="both chunks and chunk_size"):
        mt.ones((3, 3), chunks=2, chunk_size=2)
    with pytest.raises(TypeError, match="both chunks and chunk_size"):
        mt.ones((3, 3), None, 2, chunk_size=2)  # chunks given by position
    with pytest.raises(TypeError, match="both chunks and chunk_size"):
        mt.random.rand(3, chunks=1, chunk_size=1)
    for bad in (0, (2, 0, 1), -2):
        with pytest.raises(ValueError) as by_chunks:
            mt.ones((3, 3), chunks=bad)
        with pytest.raises(ValueError) as by_chunk_size:
            mt.ones((3, 3), chunk_size=bad)
        assert str(by_chunks.value) == str(by_chunk_size.value)


def test_execute_returns_executable_tuple(session):
    x = mt.tensor(DATA, chunk_size=3)
    s, m = x.sum(), x.mean(axis=0)
    r = phobos.execute(s, m)
    assert isinstance(r, phobos.ExecutableTuple) and r[0] is s and r[1] is m
    np.testing.assert_allclose(r.fetch()[1], DATA.mean(axis=0), rtol=1e-14)
    r2 = session.execute([x.max(), x.min()])  # one list: its tensors
    assert [float(v) for v in session.fetch(*r2)] == [DATA.max(), DATA.min()]
    assert phobos.execute(s) is s
    got = session.fetch(x + 1, x * 2)
    assert isinstance(got, list)
    np.testing.assert_array_equal(got[1], DATA * 2)
    np.testing.assert_array_equal(session.run(x - 1), DATA - 1)


def test_multi_output_functions_are_executable(session):
    x = mt.tensor(np.array([3, 1, 3, 2, 3, 1]), chunk_size=4)
    u = mt.unique(x, return_counts=True)
    assert isinstance(u, mt.ExecutableTuple)
    assert u.execute() is u
    got, want = u.fetch(), np.unique([3, 1, 3, 2, 3, 1], return_counts=True)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    a = mt.tensor(DATA, chunk_size=(3, 5))
    for r in (mt.linalg.svd(a, full_matrices=False), mt.linalg.qr(a), mt.split(a, 7), mt.frexp(a),
              mt.nonzero(a > 0)):
        assert isinstance(r, mt.ExecutableTuple)
    m = np.random.default_rng(5).standard_normal((7, 5))
    svd = mt.linalg.svd(mt.tensor(m, chunk_size=(3, 5)), full_matrices=False)
    assert svd.S is svd[1]  # the Array API's names on Mars's tuple
    vals = svd.execute().fetch()
    np.testing.assert_allclose(vals.S, np.linalg.svd(m, compute_uv=False), rtol=1e-12)


def test_execute_wait_false(session):
    t = mt.tensor(DATA, chunk_size=2).sum()
    f = t.execute(wait=False)
    assert isinstance(f, concurrent.futures.Future)
    assert f.result() is t
    assert float(t.fetch()) == pytest.approx(DATA.sum(), rel=1e-15)
    tup = mt.ExecutableTuple([mt.tensor(DATA).max(), 7])
    assert tup.execute(wait=False).result() is tup
    assert tup.fetch() == [DATA.max(), 7]
