"""numpy.argsort, partition, argpartition and the set operations of
numpy's arraysetops (union1d, intersect1d, setdiff1d, setxor1d), through
the cluster's registry. Results of a length known only once computed have
shape None until then."""

import operator

from ._core import call, astensor

NAMES = ["argsort", "partition", "argpartition", "union1d", "intersect1d", "setdiff1d", "setxor1d"]


def _kth(kth):
    try:
        return operator.index(kth)
    except TypeError:
        return [operator.index(k) for k in kth]


def argsort(a, axis=-1, kind=None, order=None):
    """numpy.argsort, stable (as kind='stable', a valid answer for every kind)."""
    if order is not None:
        raise NotImplementedError("phobos: argsort(order=...): tensors have no fields")
    a = astensor(a)
    if axis is None:
        return call("argsort", call("ravel", a), axis=0, kind=kind)
    return call("argsort", a, axis=operator.index(axis), kind=kind)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy.partition; the arrangement given is the sorted one, which is one
    of those NumPy allows."""
    if order is not None:
        raise NotImplementedError("phobos: partition(order=...): tensors have no fields")
    a = astensor(a)
    if axis is None:
        return call("partition", call("ravel", a), _kth(kth), axis=0, kind=kind)
    return call("partition", a, _kth(kth), axis=operator.index(axis), kind=kind)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy.argpartition; the positions given are those of the stable sort."""
    if order is not None:
        raise NotImplementedError("phobos: argpartition(order=...): tensors have no fields")
    a = astensor(a)
    if axis is None:
        return call("argpartition", call("ravel", a), _kth(kth), axis=0, kind=kind)
    return call("argpartition", a, _kth(kth), axis=operator.index(axis), kind=kind)


def union1d(ar1, ar2):
    return call("union1d", astensor(ar1), astensor(ar2))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        raise NotImplementedError("phobos: intersect1d(return_indices=True) is not supported")
    return call("intersect1d", astensor(ar1), astensor(ar2), assume_unique=bool(assume_unique))


def setdiff1d(ar1, ar2, assume_unique=False):
    return call("setdiff1d", astensor(ar1), astensor(ar2), assume_unique=bool(assume_unique))


def setxor1d(ar1, ar2, assume_unique=False):
    return call("setxor1d", astensor(ar1), astensor(ar2), assume_unique=bool(assume_unique))
