"""Errors of the Phobos client: the server's refusals become the exceptions
NumPy raises for the same mistake."""

import numpy as np

try:
    AxisError = np.exceptions.AxisError
except AttributeError:  # NumPy < 1.25
    AxisError = np.AxisError


class PhobosError(RuntimeError):
    """A graph failed on the cluster, or the cluster answered unexpectedly."""


class Unavailable(PhobosError):
    """HTTP 503: the cluster cannot answer now (the session's scheduler
    died and another is taking it over, or it is cut off from etcd); the
    session retries these for a while (Session.FAILOVER_WAIT)."""


_KINDS = {
    "TypeError": TypeError,
    "ValueError": ValueError,
    "IndexError": IndexError,
    "NotImplementedError": NotImplementedError,
    "AxisError": AxisError,
    "ZeroDivisionError": ZeroDivisionError,
    "PermissionError": PermissionError,
    "FileNotFoundError": FileNotFoundError,
    "OSError": OSError,
}


def from_response(status, body, what):
    """The exception for an error answer: status, its JSON body (a dict, or
    None when it was not JSON) and what the request was."""
    msg = what
    kind = None
    if isinstance(body, dict):
        msg = body.get("error") or what
        kind = body.get("kind")
    if kind in _KINDS:
        cls = _KINDS[kind]
        if cls is AxisError:
            return cls(msg)
        return cls(msg)
    if status == 400:
        return ValueError(msg)
    if status == 401:
        return PermissionError(f"{msg} (HTTP 401: the cluster wants a token: new_session(url, token=...))")
    if status == 404:
        return LookupError(f"{msg} (HTTP 404)")
    if status == 413:
        return ValueError(f"{msg} (HTTP 413)")
    if status == 503:
        return Unavailable(f"{msg} (HTTP 503)")
    return PhobosError(f"{msg} (HTTP {status})")


_USER_RAISED = " user function raised "


def graph_error(msg):
    """The exception for a failed graph: the user's own exception class when
    a user function raised it (the message keeps the function's traceback),
    else PhobosError."""
    import importlib
    import re
    m = re.search(r"user function raised ([\w.]+): ", msg)
    if m:
        name = m.group(1)
        mod, _, cls = name.rpartition(".")
        try:
            obj = importlib.import_module(mod or "builtins")
            for part in cls.split("."):
                obj = getattr(obj, part)
            if isinstance(obj, type) and issubclass(obj, BaseException):
                try:
                    return obj(msg)
                except Exception:  # noqa: BLE001 - a class that wants other arguments
                    pass
        except (ImportError, AttributeError):
            pass
    return PhobosError(msg)
