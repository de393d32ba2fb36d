"""Phobos from Python: sessions on a Phobos cluster and, in phobos.tensor,
NumPy's and Mars's tensor API (Mars code runs with its import line changed:
`import phobos as mars`, `import phobos.tensor as mt`).

    import phobos.tensor as mt
    a = mt.random.rand(100, chunk_size=100)   # or chunks=100
    print((a + 1).sum().execute())
"""

from .session import Session, new_session, get_default_session, execute, fetch  # noqa: F401
from ._executable import ExecutableTuple  # noqa: F401
from ._errors import PhobosError  # noqa: F401

__version__ = "0.1.0"
