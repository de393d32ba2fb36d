"""Mars's tensor examples, run as written: the examples of Mars's README,
its getting-started and user guides, its API reference (docstrings) and the
design documents Phobos was seeded from, each with only its import lines
changed (`import mars.tensor as mt` -> `import phobos.tensor as mt`,
`import mars` -> `import phobos as mars`, `from mars.x import y` ->
`from phobos.x import y`), and each compared with NumPy.

An example's value is that of its last line when that line is an
expression (what the interpreter shows), of the name given as `value`, or
what it prints. Its NumPy counterpart is its own text read for NumPy (mt.
and LA. as np. and np.linalg., mt.tensor as np.array, .execute(),
.fetch() and .to_numpy() dropped, chunk_size= arguments, which NumPy
lacks, removed), unless the example gives NumPy code of its own: that code
runs on the values of the example's variables (tensors fetched), so that
random data are the same on both sides.

The terminal summary prints how many examples ran (conftest.py)."""

import ast
import contextlib
import io
import math
import re
import textwrap

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos.session import get_default_session


class Example:
    def __init__(self, where, mars, numpy=None, value=None, printed=False, rtol=1e-10, atol=None):
        self.where, self.mars, self.numpy = where, _code(mars), numpy
        self.value, self.printed, self.rtol, self.atol = value, printed, rtol, atol


def _code(text):
    """Doctest text (>>> and ... prompts) or plain code, as code."""
    lines = textwrap.dedent(text).strip("\n").splitlines()
    if any(line.startswith(">>>") for line in lines):
        lines = [re.sub(r"^(>>>|\.\.\.) ?", "", line) for line in lines if line.startswith((">>>", "..."))]
    return "\n".join(lines)


_IMPORT = re.compile(r"^(\s*)(import|from) mars(\b.*)$")


def as_phobos(code):
    """The example with its import lines changed, and nothing else."""
    out = []
    for line in code.splitlines():
        m = _IMPORT.match(line)
        if m:
            indent, kw, rest = m.groups()
            line = f"{indent}import phobos as mars" if kw == "import" and rest == "" else f"{indent}{kw} phobos{rest}"
        out.append(line)
    return "\n".join(out)


def _drop_keyword(code, name):
    """code without its name=... arguments (up to the next comma or closing
    bracket of the same depth)."""
    while True:
        m = re.search(r",\s*" + name + r"\s*=", code)
        if not m:
            return code
        depth, i = 0, m.end()
        while i < len(code):
            c = code[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        code = code[:m.start()] + code[i:]


def as_numpy(code):
    """The example read for NumPy (see the module's docstring)."""
    code = "\n".join(line for line in code.splitlines() if not _IMPORT.match(line))
    code = _drop_keyword(code, "chunk_size")
    for old, new in ((r"\bLA\.", "np.linalg."), (r"\bmt\.tensor\(", "np.array("), (r"\bmt\.", "np."),
                     (r"\.execute\(\)", ""), (r"\.fetch\(\)", ""), (r"\.to_numpy\(\)", "")):
        code = re.sub(old, new, code)
    return code


def run(code, ns):
    """Runs code in ns as the interpreter would: the value of its last line
    when that is an expression; and what it printed."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, "<example>", "exec"), ns)
        value = eval(compile(ast.Expression(last.value), "<example>", "eval"), ns) if last else None
    return value, out.getvalue()


def numpy_value(x):
    """x with tensors as their NumPy values (tuples of them as lists)."""
    if isinstance(x, mt.Tensor):
        return x.fetch()
    if isinstance(x, (tuple, list)):
        return [numpy_value(v) for v in x]
    return x


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")


def same(got, want, rtol, where="", atol=None):
    """got (Phobos's) is want (NumPy's): the same structure, shapes, dtypes
    and values (floats to rtol of the largest, or to atol)."""
    got = numpy_value(got)
    if isinstance(want, str):  # printed text: the same words, numbers to rtol
        assert _NUMBER.sub("#", got) == _NUMBER.sub("#", want), f"{where}: printed {got!r}, NumPy {want!r}"
        same([float(v) for v in _NUMBER.findall(got)], [float(v) for v in _NUMBER.findall(want)], rtol, where, atol)
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{where}: {got!r} is not {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, rtol, f"{where}[{i}]", atol)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape}, NumPy's {w.shape}"
    if not isinstance(want, (bool, int, float, complex)):  # NumPy's dtype, not a Python number's
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, NumPy's {w.dtype}"
    if w.dtype.kind in "fc":
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale if atol is None else atol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


# The README's Monte Carlo π, as written: 2e8 points (3.2 GB of doubles)
# are too many to fetch for NumPy, so NumPy checks the estimate's
# first 4e6 points (Phobos's count there against NumPy's on the same
# values), and the whole estimate is within 6 standard deviations of π.
def _check_pi(ns, printed):
    a, N = ns["a"], ns["N"]
    head = a[:4_000_000]
    ours = int(((mt.linalg.norm(head, axis=1) < 1).sum()).execute())
    numpy = int((np.linalg.norm(head.fetch(), axis=1) < 1).sum())
    assert ours == numpy
    est = float(printed)
    sigma = 4 * math.sqrt(math.pi / 4 * (1 - math.pi / 4) / N)
    assert abs(est - math.pi) < 6 * sigma, est


# An SVD is unique up to the signs of its singular vectors: NumPy's singular
# values, and the factors orthonormal and multiplying back to a.
def _check_svd(ns, printed):
    a, (u, s, v) = ns["a"].fetch(), (x.fetch() for x in (ns["u"], ns["s"], ns["v"]))
    same(s, np.linalg.svd(a, compute_uv=False), 1e-10, "s")
    same(u.T @ u, np.eye(u.shape[1]), 1e-10, "u orthonormal")
    same((u[:, :s.size] * s) @ v, a, 1e-10, "u s v")


EXAMPLES = [
    # Mars's design documents (the seeds of Phobos), verbatim. ------------------
    Example("design: operand fusion (chunk_size)", """
        import mars.tensor as mt
        a = mt.random.rand(100, chunk_size=100)
        b = mt.random.rand(100, chunk_size=100)
        c = (a + b).sum()
        """, numpy="np.sum(a + b)", value="c"),
    Example("design: operand fusion (chunks)", """
        import mars.tensor as mt
        a = mt.random.rand(100, chunks=100)
        b = mt.random.rand(100, chunks=100)
        c = (a + b).sum()
        """, numpy="np.sum(a + b)", value="c"),
    # The README. ----------------------------------------------------------------
    Example("README: Monte Carlo pi", """
        import mars.tensor as mt
        N = 200_000_000
        a = mt.random.uniform(-1, 1, size=(N, 2))
        print(((mt.linalg.norm(a, axis=1) < 1)
                .sum() * 4 / N).execute())
        """, numpy=_check_pi, printed=True),
    Example("README (0.1): a sum along an axis", """
        import mars.tensor as mt
        a = mt.random.rand(1000, 2000)
        (a + 1).sum(axis=1).execute()
        """, numpy="(a + 1).sum(axis=1)"),
    Example("README (0.4): threaded", """
        >>> import mars.tensor as mt
        >>> a = mt.ones((10, 10))
        >>> a.execute()
        """),
    Example("README (0.4): sessions", """
        >>> import mars.tensor as mt
        >>> a = mt.ones((10, 10))
        >>> from mars.session import new_session
        >>> session = new_session()
        >>> (a * 2).execute(session=session)
        >>> # session will be released when out of with statement
        >>> with new_session() as session2:
        >>>     (a / 3).execute(session=session2)
        >>> (a * 2).execute(session=session)
        """, numpy="a * 2"),
    Example("README (0.4): distributed", """
        >>> import mars.tensor as mt
        >>> from mars.session import new_session
        >>> sess = new_session('http://<web_ip>:<ui_port>')
        >>> a = mt.ones((2000, 2000), chunk_size=200)
        >>> b = mt.inner(a, a)
        >>> b.execute(session=sess)
        """, numpy="np.inner(np.ones((2000, 2000)), np.ones((2000, 2000)))"),
    Example("deploy: a cluster's default session", """
        import mars
        import mars.tensor as mt
        # create a default session that connects to the cluster
        mars.new_session('http://<web_ip>:<web_port>')
        a = mt.random.rand(2000, 2000, chunk_size=200)
        b = mt.inner(a, a)
        b.execute()  # submit tensor to cluster
        """, numpy="np.inner(a, a)"),
    Example("Ray: a seeded sum", """
        import mars.tensor as mt
        mt.random.RandomState(0).rand(1000_0000, 5).sum().execute()
        """, numpy="mt.random.RandomState(0).rand(1000_0000, 5).fetch().sum()", rtol=1e-9),
    # Getting started: tensors, sessions, lazy evaluation. -----------------------
    Example("getting started: tensor from NumPy", """
        >>> import mars.tensor as mt
        >>> import numpy as np
        >>> t = mt.tensor(np.random.rand(4, 4))
        >>> (t - (t + 1).sum()).execute()
        """, numpy="t - (t + 1).sum()"),
    Example("getting started: to_numpy", """
        >>> import mars.tensor as mt
        >>> import numpy as np
        >>> t = mt.tensor(np.random.rand(4, 4))
        >>> t.to_numpy()
        """, numpy="t"),
    Example("getting started: execute().fetch()", """
        >>> import mars.tensor as mt
        >>> import numpy as np
        >>> t = mt.tensor(np.random.rand(4, 4))
        >>> type(t.execute()), type(t.execute().fetch()), t.execute().fetch()
        """, numpy="[mt.Tensor, np.ndarray, t]"),
    Example("getting started: mars.execute", """
        >>> import mars
        >>> import mars.tensor as mt
        >>> z = mt.zeros((3, 3))
        >>> t = mt.ones((3, 3))
        >>> mars.execute(z, t)
        """, numpy="[np.zeros((3, 3)), np.ones((3, 3))]"),
    Example("session: execute and fetch on a session", """
        >>> import mars
        >>> import mars.tensor as mt
        >>> sess = mars.new_session(default=False)
        >>> t = mt.random.rand(3, 2)
        >>> t.execute(session=sess)
        >>> t.fetch(session=sess)
        """, numpy="t"),
    Example("lazy evaluation: wait=False", """
        >>> import mars.tensor as mt
        >>> a = mt.random.rand(100, 10)
        >>> future = a.mean().execute(wait=False)
        >>> future.result()
        """, numpy="a.mean()"),
    Example("user guide: chunk_size=3", """
        import mars.tensor as mt
        import numpy as np
        data = np.array([[0, 9, 6, 7, 6, 6], [5, 7, 5, 6, 9, 0], [1, 6, 7, 8, 6, 1], [8, 0, 9, 9, 9, 3],
                         [5, 4, 3, 5, 8, 2], [6, 2, 2, 6, 9, 3], [4, 2, 4, 6, 2, 0], [6, 8, 2, 6, 5, 4]])
        t = mt.tensor(data, chunk_size=3)
        t.nsplits, t.execute()
        """, numpy="[((3, 3, 2), (3, 3)), data]"),
    Example("user guide: chunk_size=2", """
        import mars.tensor as mt
        import numpy as np
        data = np.arange(48).reshape(8, 6)
        t = mt.tensor(data, chunk_size=2)
        t.nsplits, t.execute()
        """, numpy="[((2, 2, 2, 2), (2, 2, 2)), data]"),
    Example("user guide: chunk_size=(3, 2)", """
        import mars.tensor as mt
        import numpy as np
        data = np.arange(48).reshape(8, 6)
        t = mt.tensor(data, chunk_size=(3, 2))
        t.nsplits, t.execute()
        """, numpy="[((3, 3, 2), (2, 2, 2)), data]"),
    Example("user guide: chunk_size=((3, 1, 2, 2), (3, 2, 1))", """
        import mars.tensor as mt
        import numpy as np
        data = np.arange(48).reshape(8, 6)
        t = mt.tensor(data, chunk_size=((3, 1, 2, 2), (3, 2, 1)))
        t.nsplits, (t * 2).sum(axis=0).execute()
        """, numpy="[((3, 1, 2, 2), (3, 2, 1)), (data * 2).sum(axis=0)]"),
    Example("user guide: ones with chunk_size", """
        import mars.tensor as mt
        t = mt.ones((10, 10), chunk_size=5)
        t.nsplits, (t + t.T).sum(axis=1).execute()
        """, numpy="[((5, 5), (5, 5)), (np.ones((10, 10)) + np.ones((10, 10)).T).sum(axis=1)]"),
    Example("rechunk", """
        import mars.tensor as mt
        t = mt.arange(30, chunk_size=7).reshape(5, 6)
        r = t.rechunk(4)
        r2 = mt.rechunk(t, chunk_size=(2, 3))
        r.nsplits, r2.nsplits, (r + r2).execute()
        """, numpy="[((4, 1), (4, 2)), ((2, 2, 1), (3, 3)), 2 * np.arange(30).reshape(5, 6)]"),
    Example("issue 36: svd of random data", """
        import mars.tensor as mt
        a = mt.random.rand(1000, 20, chunk_size=100)
        u, s, v = mt.linalg.svd(a)
        mt.ExecutableTuple([u, s, v]).execute()
        """, numpy=_check_svd),
    # The API reference's examples (Mars's docstrings). --------------------------
    Example("mt.ones", ">>> import mars.tensor as mt\n>>> mt.ones(5).execute()"),
    Example("mt.ones dtype=int", ">>> import mars.tensor as mt\n>>> mt.ones((5,), dtype=int).execute()"),
    Example("mt.ones (2, 1)", ">>> import mars.tensor as mt\n>>> mt.ones((2, 1)).execute()"),
    Example("mt.ones_like", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(6)
        >>> x = x.reshape((2, 3))
        >>> x.execute()
        >>> mt.ones_like(x).execute()
        """),
    Example("mt.ones_like float", """
        >>> import mars.tensor as mt
        >>> y = mt.arange(3, dtype=float)
        >>> mt.ones_like(y).execute()
        """),
    Example("mt.arange", ">>> import mars.tensor as mt\n>>> mt.arange(3).execute()"),
    Example("mt.arange float", ">>> import mars.tensor as mt\n>>> mt.arange(3.0).execute()"),
    Example("mt.arange start stop", ">>> import mars.tensor as mt\n>>> mt.arange(3,7).execute()"),
    Example("mt.arange step", ">>> import mars.tensor as mt\n>>> mt.arange(3,7,2).execute()"),
    Example("mt.linspace", ">>> import mars.tensor as mt\n>>> mt.linspace(2.0, 3.0, num=5).execute()"),
    Example("mt.linspace endpoint", """
        >>> import mars.tensor as mt
        >>> mt.linspace(2.0, 3.0, num=5, endpoint=False).execute()
        """),
    Example("mt.linspace retstep", """
        >>> import mars.tensor as mt
        >>> mt.linspace(2.0, 3.0, num=5, retstep=True).execute()
        """),
    Example("mt.linspace chunk_size (stats.ks)", """
        >>> import mars.tensor as mt
        >>> x = mt.linspace(-15, 15, 9, chunk_size=5)
        >>> x.execute()
        """),
    Example("mt.eye", ">>> import mars.tensor as mt\n>>> mt.eye(2, dtype=int).execute()"),
    Example("mt.eye k", ">>> import mars.tensor as mt\n>>> mt.eye(3, k=1).execute()"),
    Example("mt.array", ">>> import mars.tensor as mt\n>>> mt.array([1, 2, 3]).execute()"),
    Example("mt.array upcast", ">>> import mars.tensor as mt\n>>> mt.array([1, 2, 3.0]).execute()"),
    Example("mt.array 2-d", ">>> import mars.tensor as mt\n>>> mt.array([[1, 2], [3, 4]]).execute()"),
    Example("mt.array complex", ">>> import mars.tensor as mt\n>>> mt.array([1, 2, 3], dtype=complex).execute()"),
    Example("mt.asarray", ">>> import mars.tensor as mt\n>>> a = [1, 2]\n>>> mt.asarray(a).execute()"),
    Example("mt.asarray is", """
        >>> import mars.tensor as mt
        >>> a = mt.array([1, 2], dtype=mt.float32)
        >>> mt.asarray(a, dtype=mt.float32) is a, mt.asarray(a, dtype=mt.float64) is a
        """),
    Example("mt.ascontiguousarray", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(6).reshape(2,3)
        >>> mt.ascontiguousarray(x, dtype=mt.float32).execute()
        """),
    Example("mt.sum", ">>> import mars.tensor as mt\n>>> mt.sum([0.5, 1.5]).execute()"),
    Example("mt.sum dtype", ">>> import mars.tensor as mt\n>>> mt.sum([0.5, 0.7, 0.2, 1.5], dtype=mt.int32).execute()"),
    Example("mt.sum 2-d", ">>> import mars.tensor as mt\n>>> mt.sum([[0, 1], [0, 5]]).execute()"),
    Example("mt.sum axis=0", ">>> import mars.tensor as mt\n>>> mt.sum([[0, 1], [0, 5]], axis=0).execute()"),
    Example("mt.sum axis=1", ">>> import mars.tensor as mt\n>>> mt.sum([[0, 1], [0, 5]], axis=1).execute()"),
    Example("mt.sum int8 overflow", ">>> import mars.tensor as mt\n>>> mt.ones(128, dtype=mt.int8).sum(dtype=mt.int8).execute()"),
    Example("mt.mean", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 2], [3, 4]])
        >>> mt.mean(a).execute(), mt.mean(a, axis=0).execute(), mt.mean(a, axis=1).execute()
        """),
    Example("mt.mean float32", """
        >>> import mars.tensor as mt
        >>> a = mt.zeros((2, 512*512), dtype=mt.float32)
        >>> a[0, :] = 1.0
        >>> a[1, :] = 0.1
        >>> mt.mean(a).execute(), mt.mean(a, dtype=mt.float64).execute()
        """, rtol=1e-6),
    Example("mt.std", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 2], [3, 4]])
        >>> mt.std(a).execute(), mt.std(a, axis=0).execute(), mt.std(a, axis=1).execute()
        """),
    Example("mt.cumsum", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1,2,3], [4,5,6]])
        >>> mt.cumsum(a).execute(), mt.cumsum(a, dtype=float).execute()
        """),
    Example("mt.cumsum axes", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1,2,3], [4,5,6]])
        >>> mt.cumsum(a,axis=0).execute(), mt.cumsum(a,axis=1).execute()
        """),
    Example("mt.argmax", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(6).reshape(2,3)
        >>> mt.argmax(a).execute(), mt.argmax(a, axis=0).execute(), mt.argmax(a, axis=1).execute()
        """),
    Example("mt.argmax first occurrence", """
        >>> import mars.tensor as mt
        >>> b = mt.arange(6)
        >>> b[1] = 5
        >>> b.execute()
        >>> mt.argmax(b).execute()  # Only the first occurrence is returned.
        """),
    Example("mt.nansum", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 1], [1, mt.nan]])
        >>> mt.nansum(a).execute(), mt.nansum(a, axis=0).execute(), mt.nansum([1, mt.nan, mt.inf]).execute()
        """),
    Example("mt.percentile", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[10, 7, 4], [3, 2, 1]])
        >>> mt.percentile(a, 50).execute(), mt.percentile(a, 50, axis=0).execute()
        """),
    Example("mt.percentile keepdims", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[10, 7, 4], [3, 2, 1]])
        >>> mt.percentile(a, 50, axis=1, keepdims=True).execute()
        """),
    Example("mt.median", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[10, 7, 4], [3, 2, 1]])
        >>> mt.median(a).execute(), mt.median(a, axis=0).execute(), mt.median(a, axis=1).execute()
        """),
    Example("mt.cov", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[0, 2], [1, 1], [2, 0]]).T
        >>> mt.cov(x).execute()
        """),
    Example("mt.cov printed", """
        >>> import mars.tensor as mt
        >>> x = [-2.1, -1,  4.3]
        >>> y = [3,  1.1,  0.12]
        >>> X = mt.stack((x, y), axis=0)
        >>> print(mt.cov(X).execute())
        >>> print(mt.cov(x, y).execute())
        >>> print(mt.cov(x).execute())
        """, printed=True),
    Example("mt.average", """
        >>> import mars.tensor as mt
        >>> data = list(range(1,5))
        >>> mt.average(data).execute(), mt.average(range(1,11), weights=range(10,0,-1)).execute()
        """),
    Example("mt.average weights", """
        >>> import mars.tensor as mt
        >>> data = mt.arange(6).reshape((3,2))
        >>> mt.average(data, axis=1, weights=[1./4, 3./4]).execute()
        """),
    Example("mt.histogram", ">>> import mars.tensor as mt\n>>> mt.histogram([1, 2, 1], bins=[0, 1, 2, 3]).execute()"),
    Example("mt.histogram density", """
        >>> import mars.tensor as mt
        >>> mt.histogram(mt.arange(4), bins=mt.arange(5), density=True).execute()
        """),
    Example("mt.histogram sums", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(5)
        >>> hist, bin_edges = mt.histogram(a, density=True)
        >>> hist.execute()
        >>> hist.sum().execute(), mt.sum(hist * mt.diff(bin_edges)).execute()
        """),
    Example("mt.histogram_bin_edges", """
        >>> import mars.tensor as mt
        >>> arr = mt.array([0, 0, 0, 1, 2, 3, 3, 4, 5])
        >>> mt.histogram_bin_edges(arr, bins=2).execute()
        """),
    Example("mt.repeat", ">>> import mars.tensor as mt\n>>> mt.repeat(3, 4).execute()"),
    Example("mt.repeat axes", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[1,2],[3,4]])
        >>> mt.repeat(x, 2).execute(), mt.repeat(x, 3, axis=1).execute(), mt.repeat(x, [1, 2], axis=0).execute()
        """),
    Example("mt.tile", """
        >>> import mars.tensor as mt
        >>> a = mt.array([0, 1, 2])
        >>> mt.tile(a, 2).execute(), mt.tile(a, (2, 2)).execute(), mt.tile(a, (2, 1, 2)).execute()
        """),
    Example("mt.tile 2-d", """
        >>> import mars.tensor as mt
        >>> b = mt.array([[1, 2], [3, 4]])
        >>> mt.tile(b, 2).execute(), mt.tile(b, (2, 1)).execute()
        """),
    Example("mt.roll", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(10)
        >>> x2 = mt.reshape(x, (2,5))
        >>> mt.roll(x, 2).execute(), mt.roll(x2, 1).execute(), mt.roll(x2, 1, axis=0).execute()
        """),
    Example("mt.transpose", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(4).reshape((2,2))
        >>> mt.transpose(x).execute(), mt.transpose(mt.ones((1, 2, 3)), (1, 0, 2)).shape
        """),
    Example("mt.squeeze", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[[0], [1], [2]]])
        >>> x.shape, mt.squeeze(x).shape, mt.squeeze(x, axis=0).shape, mt.squeeze(x, axis=2).shape
        """),
    Example("mt.concatenate", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 2], [3, 4]])
        >>> b = mt.array([[5, 6]])
        >>> mt.concatenate((a, b), axis=0).execute(), mt.concatenate((a, b.T), axis=1).execute()
        """),
    Example("mt.stack shapes", """
        >>> import mars.tensor as mt
        >>> arrays = [mt.random.randn(3, 4) for _ in range(10)]
        >>> mt.stack(arrays, axis=0).shape, mt.stack(arrays, axis=1).shape, mt.stack(arrays, axis=2).shape
        """),
    Example("mt.stack", """
        >>> import mars.tensor as mt
        >>> a = mt.array([1, 2, 3])
        >>> b = mt.array([2, 3, 4])
        >>> mt.stack((a, b)).execute(), mt.stack((a, b), axis=-1).execute()
        """),
    Example("mt.split", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(9.0)
        >>> mt.split(x, 3).execute()
        """),
    Example("mt.split at indices", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(8.0)
        >>> mt.split(x, [3, 5, 6, 10]).execute()
        """),
    Example("mt.where", """
        >>> import mars.tensor as mt
        >>> mt.where([[True, False], [True, True]],
        ...          [[1, 2], [3, 4]],
        ...          [[9, 8], [7, 6]]).execute()
        """),
    Example("mt.where one argument", ">>> import mars.tensor as mt\n>>> mt.where([[0, 1], [1, 0]]).execute()"),
    Example("mt.where broadcasting", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(9.).reshape(3, 3)
        >>> mt.where( x > 5 ).execute(), mt.where(x < 5, x, -1).execute()
        """),
    Example("mt.where with isin", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(9.).reshape(3, 3)
        >>> goodvalues = [3, 4, 7]
        >>> ix = mt.isin(x, goodvalues)
        >>> ix.execute()
        >>> mt.where(ix).execute()
        """),
    Example("mt.nonzero", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[1,0,0], [0,2,0], [1,1,0]])
        >>> mt.nonzero(x).execute()
        """),
    Example("mt.nonzero of a condition", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1,2,3],[4,5,6],[7,8,9]])
        >>> (a > 3).execute()
        >>> mt.nonzero(a > 3).execute(), (a > 3).nonzero().execute()
        """),
    Example("mt.isin", """
        >>> import mars.tensor as mt
        >>> element = 2*mt.arange(4).reshape((2, 2))
        >>> test_elements = [1, 2, 4, 8]
        >>> mask = mt.isin(element, test_elements)
        >>> mask.execute()
        >>> element[mask].execute()
        """),
    Example("mt.isin invert", """
        >>> import mars.tensor as mt
        >>> element = 2*mt.arange(4).reshape((2, 2))
        >>> test_elements = [1, 2, 4, 8]
        >>> mask = mt.isin(element, test_elements, invert=True)
        >>> mask.execute()
        """),
    Example("mt.in1d", """
        >>> import mars.tensor as mt
        >>> test = mt.array([0, 1, 2, 5, 0])
        >>> states = [0, 2]
        >>> mask = mt.in1d(test, states)
        >>> mask.execute()
        >>> test[mask].execute()
        """),
    Example("mt.unique", ">>> import mars.tensor as mt\n>>> mt.unique([1, 1, 2, 2, 3, 3]).execute()"),
    Example("mt.unique 2-d", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 1], [2, 3]])
        >>> mt.unique(a).execute()
        """),
    Example("mt.unique return_inverse", """
        >>> import mars.tensor as mt
        >>> a = mt.array([1, 2, 6, 4, 2, 3, 2])
        >>> u, indices = mt.unique(a, return_inverse=True)
        >>> u.execute()
        >>> indices.execute()
        """),
    Example("mt.unique return_counts", """
        >>> import mars.tensor as mt
        >>> x = mt.tensor([3, 1, 3, 2, 3, 1], chunk_size=4)
        >>> mt.unique(x, return_counts=True).execute()
        """),
    Example("mt.unique return_counts fetch", """
        >>> import mars.tensor as mt
        >>> x = mt.tensor([3, 1, 3, 2, 3, 1], chunk_size=4)
        >>> mt.unique(x, return_index=True, return_counts=True).fetch()
        """),
    Example("mt.sort", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1,4],[3,1]])
        >>> mt.sort(a).execute(), mt.sort(a, axis=None).execute(), mt.sort(a, axis=0).execute()
        """),
    Example("mt.argsort", """
        >>> import mars.tensor as mt
        >>> x = mt.array([3, 1, 2])
        >>> mt.argsort(x).execute()
        """),
    Example("mt.argsort axes", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[0, 3], [2, 2]])
        >>> ind = mt.argsort(x, axis=0)  # sorts along first axis (down)
        >>> ind.execute()
        >>> ind = mt.argsort(x, axis=1)  # sorts along last axis (across)
        >>> ind.execute()
        """),
    Example("mt.topk", """
        >>> import mars.tensor as mt
        >>> a = mt.array([3, 4, 2, 1, 7, 5])
        >>> mt.topk(a, 3).execute(), mt.argtopk(a, 3).execute()
        """, numpy="[np.sort(a)[::-1][:3], np.argsort(-a, kind='stable')[:3]]"),
    Example("mt.searchsorted", """
        >>> import mars.tensor as mt
        >>> mt.searchsorted([1,2,3,4,5], 3).execute(), mt.searchsorted([1,2,3,4,5], 3, side='right').execute()
        """),
    Example("mt.searchsorted many", ">>> import mars.tensor as mt\n>>> mt.searchsorted([1,2,3,4,5], [-10, 10, 2, 3]).execute()"),
    Example("mt.take", """
        >>> import mars.tensor as mt
        >>> a = [4, 3, 5, 7, 6, 8]
        >>> indices = [0, 1, 4]
        >>> mt.take(a, indices).execute()
        """),
    Example("mt.take fancy", """
        >>> import mars.tensor as mt
        >>> a = mt.array([4, 3, 5, 7, 6, 8])
        >>> indices = [0, 1, 4]
        >>> a[indices].execute(), mt.take(a, [[0, 1], [2, 3]]).execute()
        """),
    Example("mt.choose", """
        >>> import mars.tensor as mt
        >>> choices = [[0, 1, 2, 3], [10, 11, 12, 13],
        ...   [20, 21, 22, 23], [30, 31, 32, 33]]
        >>> mt.choose([2, 3, 1, 0], choices
        ... # the first element of the result will be the first element of the
        ... # third (2+1) "array" in choices, namely, 20; the second element
        ... # will be the second element of the fourth (3+1) choice array, i.e.,
        ... # 31, etc.
        ... ).execute()
        """),
    Example("mt.choose clip and wrap", """
        >>> import mars.tensor as mt
        >>> choices = [[0, 1, 2, 3], [10, 11, 12, 13],
        ...   [20, 21, 22, 23], [30, 31, 32, 33]]
        >>> mt.choose([2, 4, 1, 0], choices, mode='clip').execute(), mt.choose([2, 4, 1, 0], choices, mode='wrap').execute()
        """),
    Example("mt.choose broadcast", """
        >>> import mars.tensor as mt
        >>> a = [[1, 0, 1], [0, 1, 0], [1, 0, 1]]
        >>> choices = [-10, 10]
        >>> mt.choose(a, choices).execute()
        """),
    Example("mt.diff", """
        >>> import mars.tensor as mt
        >>> x = mt.array([1, 2, 4, 7, 0])
        >>> mt.diff(x).execute(), mt.diff(x, n=2).execute()
        """),
    Example("mt.diff uint8", """
        >>> import mars.tensor as mt
        >>> u8_arr = mt.array([1, 0], dtype=mt.uint8)
        >>> mt.diff(u8_arr).execute()
        >>> i16_arr = u8_arr.astype(mt.int16)
        >>> mt.diff(i16_arr).execute()
        """),
    Example("mt.diff axis", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[1, 3, 6, 10], [0, 5, 6, 8]])
        >>> mt.diff(x).execute(), mt.diff(x, axis=0).execute()
        """),
    Example("mt.diag", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(9).reshape((3,3))
        >>> mt.diag(x).execute(), mt.diag(x, k=1).execute(), mt.diag(x, k=-1).execute(), mt.diag(mt.diag(x)).execute()
        """),
    Example("mt.triu", ">>> import mars.tensor as mt\n>>> mt.triu([[1,2,3],[4,5,6],[7,8,9],[10,11,12]], -1).execute()"),
    Example("mt.tril", ">>> import mars.tensor as mt\n>>> mt.tril([[1,2,3],[4,5,6],[7,8,9],[10,11,12]], -1).execute()"),
    Example("mt.frexp", """
        >>> import mars.tensor as mt
        >>> x = mt.arange(9)
        >>> y1, y2 = mt.frexp(x)
        >>> y1_result, y2_result = mt.ExecutableTuple([y1, y2]).execute()
        >>> y1_result, y2_result, (y1 * 2**y2).execute()
        """, numpy="[np.frexp(x)[0], np.frexp(x)[1], x.astype(float)]"),
    Example("mt.modf", ">>> import mars.tensor as mt\n>>> mt.modf([0, 3.5]).execute()"),
    Example("mt.modf scalar", ">>> import mars.tensor as mt\n>>> mt.modf(-0.5).execute()"),
    Example("mt.dot", ">>> import mars.tensor as mt\n>>> mt.dot(3, 4).execute()"),
    Example("mt.dot complex", ">>> import mars.tensor as mt\n>>> mt.dot([2j, 3j], [2j, 3j]).execute()"),
    Example("mt.dot 2-d", """
        >>> import mars.tensor as mt
        >>> a = [[1, 0], [0, 1]]
        >>> b = [[4, 1], [2, 2]]
        >>> mt.dot(a, b).execute()
        """),
    Example("mt.dot n-d", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(3*4*5*6).reshape((3,4,5,6))
        >>> b = mt.arange(3*4*5*6)[::-1].reshape((5,4,6,3))
        >>> mt.dot(a, b)[2,3,2,1,2,2].execute(), mt.sum(a[2,3,2,:] * b[1,2,:,2]).execute()
        """),
    Example("mt.matmul", """
        >>> import mars.tensor as mt
        >>> a = [[1, 0], [0, 1]]
        >>> b = [[4, 1], [2, 2]]
        >>> mt.matmul(a, b).execute()
        """),
    Example("mt.matmul vector", """
        >>> import mars.tensor as mt
        >>> a = [[1, 0], [0, 1]]
        >>> b = [1, 2]
        >>> mt.matmul(a, b).execute(), mt.matmul(b, a).execute()
        """),
    Example("mt.matmul stacks", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(2*2*4).reshape((2,2,4))
        >>> b = mt.arange(2*2*4).reshape((2,4,2))
        >>> mt.matmul(a,b).shape, mt.matmul(a,b)[0,1,1].execute(), mt.sum(a[0,1,:] * b[0,:,1]).execute()
        """),
    Example("mt.tensordot", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(60.).reshape(3,4,5)
        >>> b = mt.arange(24.).reshape(4,3,2)
        >>> c = mt.tensordot(a,b, axes=([1,0],[0,1]))
        >>> c.shape
        >>> r = c.execute()
        >>> r
        """),
    Example("mt.linalg.norm", """
        >>> from mars.tensor import linalg as LA
        >>> import mars.tensor as mt
        >>> a = mt.arange(9) - 4
        >>> b = a.reshape((3, 3))
        >>> LA.norm(a).execute(), LA.norm(b).execute(), LA.norm(b, 'fro').execute(), LA.norm(a, mt.inf).execute()
        """),
    Example("mt.linalg.norm orders", """
        >>> from mars.tensor import linalg as LA
        >>> import mars.tensor as mt
        >>> a = mt.arange(9) - 4
        >>> b = a.reshape((3, 3))
        >>> (LA.norm(b, mt.inf).execute(), LA.norm(a, -mt.inf).execute(), LA.norm(b, -mt.inf).execute(),
        ...  LA.norm(a, 1).execute(), LA.norm(b, 1).execute(), LA.norm(a, -1).execute(), LA.norm(b, -1).execute())
        """),
    Example("mt.linalg.norm 2 and p", """
        >>> from mars.tensor import linalg as LA
        >>> import mars.tensor as mt
        >>> a = mt.arange(9) - 4
        >>> b = a.reshape((3, 3))
        >>> (LA.norm(a, 2).execute(), LA.norm(b, 2).execute(), LA.norm(b, -2).execute(),
        ...  LA.norm(a, 3).execute(), LA.norm(a, -3).execute())
        """, atol=1e-14),  # b is singular: its -2 norm is rounding noise, around 2e-16
    Example("mt.linalg.norm axes", """
        >>> from mars.tensor import linalg as LA
        >>> import mars.tensor as mt
        >>> c = mt.array([[ 1, 2, 3],
        ...               [-1, 1, 4]])
        >>> LA.norm(c, axis=0).execute(), LA.norm(c, axis=1).execute(), LA.norm(c, ord=1, axis=1).execute()
        """),
    Example("mt.linalg.norm matrices", """
        >>> from mars.tensor import linalg as LA
        >>> import mars.tensor as mt
        >>> m = mt.arange(8).reshape(2,2,2)
        >>> LA.norm(m, axis=(1,2)).execute()
        >>> LA.norm(m[0, :, :]).execute(), LA.norm(m[1, :, :]).execute()
        """),
    Example("mt.linalg.qr", """
        >>> import mars.tensor as mt
        >>> a = mt.random.randn(9, 6)
        >>> q, r = mt.linalg.qr(a)
        >>> mt.allclose(a, mt.dot(q, r)).execute()  # a does equal qr
        """),
    Example("mt.linalg.inv", """
        >>> import mars.tensor as mt
        >>> import numpy as np
        >>> a = np.array([[1., 2.], [3., 4.]])
        >>> ainv = mt.linalg.inv(a)
        >>> mt.allclose(mt.dot(a, ainv), mt.eye(2)).execute(), mt.allclose(mt.dot(ainv, a), mt.eye(2)).execute()
        >>> ainv.execute()
        """),
    Example("mt.linalg.lu", """
        >>> import mars.tensor as mt
        >>> A = mt.array([[1,2],[2,3]])
        >>> P, L, U = mt.linalg.lu(A)
        >>> mt.dot(P.dot(L), U).execute() # verify that PL * U = A
        """, numpy="A.astype(float)"),
    Example("mt.linalg.solve", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[3, 2, 0], [1, -1, 0], [0, 5, 1]])
        >>> b = mt.array([2, 4, -1])
        >>> x = mt.linalg.solve(a, b)
        >>> x.execute(), mt.dot(a, x).execute()  # Check the result
        """),
    Example("mt.fft.fft", """
        >>> import mars.tensor as mt
        >>> mt.fft.fft(mt.exp(2j * mt.pi * mt.arange(8) / 8)).execute()
        """, rtol=1e-9),
    Example("mt.fft.fftfreq", """
        >>> import mars.tensor as mt
        >>> signal = mt.array([-2, 8, 6, 4, 1, 0, 3, 5], dtype=float)
        >>> fourier = mt.fft.fft(signal)
        >>> n = signal.size
        >>> timestep = 0.1
        >>> freq = mt.fft.fftfreq(n, d=timestep)
        >>> freq.execute(), fourier.execute()
        """),
    Example("ufunc: add", ">>> import mars.tensor as mt\n>>> mt.add(1.0, 4.0).execute()"),
    Example("ufunc: add broadcast", """
        >>> import mars.tensor as mt
        >>> x1 = mt.arange(9.0).reshape((3, 3))
        >>> x2 = mt.arange(3.0)
        >>> mt.add(x1, x2).execute()
        """),
    Example("ufunc: sqrt", ">>> import mars.tensor as mt\n>>> mt.sqrt([1,4,9]).execute()"),
    Example("ufunc: exp2 and log2", ">>> import mars.tensor as mt\n>>> mt.exp2([2, 3]).execute(), mt.log2([1, 2, 4]).execute()"),
    Example("ufunc: floor_divide", ">>> import mars.tensor as mt\n>>> mt.floor_divide([1., 2., 3., 4.], 2.5).execute()"),
    Example("ufunc: power", """
        >>> import mars.tensor as mt
        >>> x1 = range(6)
        >>> mt.power(x1, 3).execute()
        >>> x2 = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]
        >>> mt.power(x1, x2).execute()
        """),
    Example("ufunc: isclose", ">>> import mars.tensor as mt\n>>> mt.isclose([1e10,1e-7], [1.00001e10,1e-8]).execute()"),
    Example("ufunc: allclose", ">>> import mars.tensor as mt\n>>> mt.allclose([1e10,1e-8], [1.00001e10,1e-9]).execute()"),
    Example("ufunc: clip", """
        >>> import mars.tensor as mt
        >>> a = mt.arange(10)
        >>> mt.clip(a, 1, 8).execute(), mt.clip(a, 3, 6).execute()
        """),
    Example("ufunc: around", ">>> import mars.tensor as mt\n>>> mt.around([0.37, 1.64], decimals=1).execute()"),
]


# Mars examples that do not run on Phobos, and why; each still fails (a test
# checks), so that one that starts to run moves up to EXAMPLES.
UNSUPPORTED = [
    ("mt.nonzero as index", """
        >>> import mars.tensor as mt
        >>> x = mt.array([[1,0,0], [0,2,0], [1,1,0]])
        >>> x[mt.nonzero(x)].execute()
        """, "indexing with index tensors of a length known only once computed (Mars's docstring marks it TODO too)"),
    ("mt.array ndmin", ">>> import mars.tensor as mt\n>>> mt.array([1, 2, 3], ndmin=2).execute()",
     "mt.tensor takes no ndmin (nor order, gpu or sparse)"),
    ("mt.unique axis", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[1, 0, 0], [1, 0, 0], [2, 3, 4]])
        >>> mt.unique(a, axis=0).execute()
        """, "unique along an axis"),
    ("mt.unique of strings", """
        >>> import mars.tensor as mt
        >>> a = mt.array(['a', 'b', 'b', 'c', 'a'])
        >>> u, indices = mt.unique(a, return_index=True)
        """, "string dtypes"),
    ("mt.unique's inverse as an index", """
        >>> import mars.tensor as mt
        >>> a = mt.array([1, 2, 6, 4, 2, 3, 2])
        >>> u, indices = mt.unique(a, return_inverse=True)
        >>> u[indices].execute()
        """, "indexing a tensor of a length known only once computed"),
    ("mt.linalg.svd of a complex tensor", """
        >>> import mars.tensor as mt
        >>> a = mt.random.randn(9, 6) + 1j*mt.random.randn(9, 6)
        >>> u, s, vh = mt.linalg.svd(a)
        """, "complex QR and SVD"),
    ("mt.linalg.cholesky lower=", """
        >>> import mars.tensor as mt
        >>> A = mt.array([[1,-2j],[2j,5]])
        >>> L = mt.linalg.cholesky(A, lower=True)
        """, "Mars's lower= (NumPy's cholesky is lower; the Array API's takes upper=)"),
    ("eye(sparse=True)", """
        import mars.tensor as mt
        a = mt.eye(1000, sparse=True)
        """, "sparse tensors"),
    ("random on GPU", """
        import mars.tensor as mt
        a = mt.random.rand(1000, 2000, gpu=True)
        """, "GPUs"),
    ("from_hdf5", """
        >>> import mars.tensor as mt
        >>> t = mt.from_hdf5('t.hdf5', dataset='t')
        """, "HDF5 files (.npy and Zarr are read: from_npy, from_zarr)"),
    ("mt.percentile out=", """
        >>> import mars.tensor as mt
        >>> a = mt.array([[10, 7, 4], [3, 2, 1]])
        >>> m = mt.percentile(a, 50, axis=0)
        >>> out = mt.zeros_like(m)
        >>> mt.percentile(a, 50, axis=0, out=out).execute()
        """, "out= (tensors are immutable)"),
]


@pytest.fixture
def example_session(session):
    """The tests' session as the default one again after each example (an
    example may make another the default), and the sessions an example
    started closed."""
    before = set(map(id, _sessions()))
    yield session
    for s in _sessions():
        if id(s) not in before and s is not session:
            s.close()
    session.as_default()


def _sessions():
    import gc
    return [o for o in gc.get_objects() if isinstance(o, phobos.Session) and not o._closed]


def _fill_placeholders(code, url):
    # a documentation's cluster address placeholders name the tests' cluster
    return re.sub(r"http://<web_ip>:<(ui|web)_port>", url, code)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_mars_example(example_session, ex, record_property):
    code = _fill_placeholders(as_phobos(ex.mars), example_session.url)
    # only import lines changed
    changed = [(a, b) for a, b in zip(ex.mars.splitlines(), code.splitlines()) if a != b]
    assert all(_IMPORT.match(a) or "<web_ip>" in a for a, _ in changed), changed
    ns = {}
    got, printed = run(code, ns)
    if ex.printed:
        got = printed
    elif ex.value is not None:
        got = ns[ex.value]
    if callable(ex.numpy):
        ex.numpy(ns, printed)
    elif ex.numpy is not None:
        env = {k: numpy_value(v) for k, v in ns.items() if not k.startswith("__")}
        env.update(np=np, mt=mt)
        want, _ = run(ex.numpy, env)
        same(got, want, ex.rtol, ex.where, ex.atol)
    else:
        want, want_printed = run(as_numpy(ex.mars), {"np": np})
        same(got, want_printed if ex.printed else want, ex.rtol, ex.where, ex.atol)
    record_property("mars_example", ex.where)


@pytest.mark.parametrize("where,mars,why", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_mars_example_unsupported(example_session, where, mars, why, record_property):
    with pytest.raises((TypeError, ValueError, IndexError, NotImplementedError, AttributeError)):
        run(as_phobos(_code(mars)), {})
    record_property("mars_example_unsupported", where)


def test_seed_example_prints_numpy_value(example_session):
    """The seed's example with chunk_size=100, as written, then printed:
    what NumPy prints for the same data, to the last digit (a run of up to
    128 float64 is summed in NumPy's own order), for a few draws."""
    seed = _code("""
        import mars.tensor as mt
        a = mt.random.rand(100, chunk_size=100)
        b = mt.random.rand(100, chunk_size=100)
        c = (a + b).sum()
        """)
    for draw in range(8):
        ns = {}
        _, printed = run(as_phobos(seed) + "\nprint(c.execute())", ns)
        numpy = str(np.sum(ns["a"].fetch() + ns["b"].fetch()))
        if draw == 0:
            print(f"seed example: phobos prints {printed.strip()}, NumPy {numpy}")
        assert printed.strip() == numpy


def test_every_chunks_function_takes_chunk_size():
    assert mt._mars.missing_chunk_size([mt, mt.random, mt.fft, mt.linalg]) == []
