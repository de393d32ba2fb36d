"""Failover seen from the Python client: the scheduler that owns the
session is SIGKILLed while a graph runs; another scheduler of the ring
takes the session over, and execute() returns NumPy's result after a
pause, with no error."""

import os
import signal
import threading
import time

import numpy as np

import phobos
import phobos.tensor as mt


def _owner(s):
    for ls in s._json("GET", "/api/sessions")["sessions"]:
        if ls["session_id"] == s.session_id:
            return ls
    return None


def test_owner_killed_mid_graph():
    # Not the default session: the other tests' default keeps its data root.
    s = phobos.new_session(workers=3, cluster_args=["--schedulers", "3"], default=False)
    try:
        n = 3_000_000
        x = mt.arange(n, chunks=5_000)
        want = ((np.arange(n) * 3) % 7).sum()
        assert int(((x * 3) % 7).sum().execute(session=s).fetch()) == want  # a clean run first

        got = {}

        def run():
            try:
                got["v"] = int(((x * 3) % 7).sum().execute(session=s).fetch())
            except BaseException as e:  # reported by the main thread
                got["err"] = e

        t = threading.Thread(target=run)
        t.start()
        owner = None
        deadline = time.monotonic() + 60
        while t.is_alive() and time.monotonic() < deadline:
            ls = _owner(s)
            if ls and ls["running"] > 0:
                owner = ls["scheduler"]
                break
            time.sleep(0.005)
        assert owner is not None, f"the graph was not seen running: {got}"
        os.kill(owner["pid"], signal.SIGKILL)
        t.join(120)
        assert not t.is_alive()
        assert "err" not in got, got.get("err")
        assert got["v"] == want
        after = _owner(s)
        assert after is not None and after["scheduler"]["id"] != owner["id"]
    finally:
        s.close()
