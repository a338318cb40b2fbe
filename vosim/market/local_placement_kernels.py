"""The compiled form of :func:`vosim.market.local_placement.place_local_job` (numba).

A separate module so that importing vosim does not import numba: only a run with an online
local job flow loads it. :func:`place` reads the owner's busy rows straight from the busy
time's schedules (the VO's reservations, filtered to the owner's resources, and the owner's
local jobs) instead of gathering them first, and decides as the plain function decides,
step for step: the plain function is its oracle (``VOSIM_REFERENCE=1`` runs it, and a test
compares the two on random owners).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry, f8, i8

_jit = numba.njit(cache=True, nogil=True)

#: The priority rules' codes, in the order of ``local_placement.LOCAL_PRIORITIES``.
DISPLACE, QUEUE, PREEMPT = 0, 1, 2


@_jit
def _owner_rows(resources, rnode, ra, rb, rtag, owner_of, owner, lnode, la, lb, ltag, now):
    """The owner's busy rows not ended by ``now``: ``(pos, a, b, tag)``, shape (r,) each.

    ``pos``: each row's processor position in ``resources``. The local jobs' rows first,
    then the reservations on the owner's resources (the order does not change a placement).
    """
    n = 0
    for r in range(lb.size):
        n += lb[r] > now
    for r in range(rb.size):
        n += rb[r] > now and owner_of[rnode[r]] == owner
    pos = np.empty(n, dtype=np.int64)
    a = np.empty(n)
    b = np.empty(n)
    tag = np.empty(n, dtype=np.int64)
    k = 0
    for r in range(lb.size):
        if lb[r] > now:
            pos[k], a[k], b[k], tag[k] = lnode[r], la[r], lb[r], ltag[r]
            k += 1
    for r in range(rb.size):
        if rb[r] > now and owner_of[rnode[r]] == owner:
            pos[k], a[k], b[k], tag[k] = rnode[r], ra[r], rb[r], rtag[r]
            k += 1
    return np.searchsorted(resources, pos), a, b, tag


# Complexity above 15: compiled (numba): the plain function's steps in one kernel, so that a
# local job's placement makes no numpy call from Python.
@entry((I8, I8, F8, F8, I8, I8, i8, I8, F8, F8, I8, f8, i8, f8, i8))
@_jit
def place(  # noqa: C901 - pragma: no cover - compiled
    resources, rnode, ra, rb, rtag, owner_of, owner, lnode, la, lb, ltag, now, size, length, rule
):
    """``place_local_job`` over the owner's rows of the busy time's schedules.

    ``resources`` (int, shape (m,), ascending): the owner's processors, ``m >= size``;
    ``rnode, ra, rb, rtag`` (shape (r,)): the VO's reservations over every resource, and
    ``owner_of`` (shape (R,)) each resource's owner, of which ``owner``'s are read;
    ``lnode, la, lb, ltag`` (shape (l,)): the owner's local jobs; times in model time
    units. ``now``: the arrival; ``size`` processors (>= 1) for ``length`` (> 0); ``rule``:
    :data:`DISPLACE`, :data:`QUEUE` or :data:`PREEMPT`.

    Returns ``(start, taken, displaced, killed)``: the start (model time units), the
    processors taken (resource ids, ascending, shape (size,)), the tags of reservations in
    the way not started at ``now`` and of VO jobs running in the way (``PREEMPT``), each
    ascending and distinct. Raises nothing (compiled; the caller checks the arguments).
    Source: as ``place_local_job`` (AEP §1, VO Preferences §2; the rule is vosim's).
    """
    pos, a, b, tag = _owner_rows(
        resources, rnode, ra, rb, rtag, owner_of, owner, lnode, la, lb, ltag, now
    )
    m = resources.size
    none = np.empty(0, dtype=np.int64)
    # the usual case: enough processors with nothing at all in [now, now + length)
    busy = np.zeros(m, dtype=np.bool_)
    until = now + length
    for r in range(pos.size):
        if a[r] < until:
            busy[pos[r]] = True
    clear = np.flatnonzero(~busy)
    if clear.size >= size:
        return now, resources[clear[:size]], none, none
    running = a <= now
    if rule == QUEUE:
        hard = np.ones(a.size, dtype=np.bool_)
    elif rule == DISPLACE:
        hard = (tag < 0) | running
    else:
        hard = tag < 0
    starts = np.empty(1 + a.size)
    starts[0] = now
    c = 1
    for r in range(a.size):
        if hard[r]:
            starts[c] = b[r]
            c += 1
    blocked = np.zeros(m, dtype=np.bool_)
    start, end = now, until
    for start in np.unique(starts[:c]):
        end = start + length
        blocked[:] = False
        for r in range(a.size):
            if hard[r] and a[r] < end and b[r] > start:
                blocked[pos[r]] = True
        if m - np.count_nonzero(blocked) >= size:
            break
    soft = ~hard & (a < end) & (b > start)
    # preference: 2 nothing in the way, 1 a reservation in the way (later first), 0 running
    rank = np.full(m, 2, dtype=np.int64)
    first = np.full(m, np.inf)
    for r in range(a.size):
        if soft[r] and a[r] < first[pos[r]]:
            first[pos[r]] = a[r]
    for p in range(m):
        if np.isfinite(first[p]):
            rank[p] = 1
    for r in range(a.size):
        if soft[r] and running[r]:
            rank[pos[r]] = 0
    for p in range(m):
        if blocked[p]:
            rank[p] = -1
    # np.lexsort((arange(m), -first, -rank)): stable sorts, the last key first
    order = np.argsort(-first, kind="mergesort")
    order = order[np.argsort(-rank[order], kind="mergesort")]
    chosen = order[:size]
    taken = np.zeros(m, dtype=np.bool_)
    taken[chosen] = True
    hit = soft & taken[pos]
    return (
        start,
        np.sort(resources[chosen]),
        np.unique(tag[hit & ~running]),
        np.unique(tag[hit & running]),
    )
