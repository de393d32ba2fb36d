"""Wrappers around users' functions, pickled with them (by reference, so
an executor imports this small module, not the client): the arrays' blocks
are put back among the other positional arguments, keywords the function
does not take are dropped, and map_overlap's borders are trimmed from each
result block."""


class BlockFn:
    """func called on one block: spec lists each positional argument as
    (True, None) for the next block or (False, value); want names the
    block keywords func takes; trim is map_overlap's (depth, trim outer
    edges?, blocks) per axis, or None."""

    def __init__(self, func, spec, kwargs=None, want=(), trim=None, index_first=False):
        self.func = func
        self.spec = spec
        self.kwargs = dict(kwargs or {})
        self.want = tuple(want)
        self.trim = trim
        self.index_first = index_first

    def __call__(self, *blocks, **kw):
        it = iter(blocks)
        full = [next(it) if is_block else v for is_block, v in self.spec]
        block_id = kw.get("block_id")
        extra = {k: v for k, v in kw.items() if k in self.want}
        if self.index_first:
            full.insert(0, block_id)
        res = self.func(*full, **self.kwargs, **extra)
        if self.trim is None:
            return res
        sl = []
        for ax, (d, outer, n) in enumerate(self.trim):
            b = block_id[ax]
            lo = d if (outer or b > 0) else 0
            hi = d if (outer or b < n - 1) else 0
            sl.append(slice(lo, res.shape[ax] - hi))
        return res[tuple(sl)]
