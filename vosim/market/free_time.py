"""The domain's free time as counts: each pool of interchangeable processors as a profile.

A *pool* is the resources (processors, or whole nodes) that share owner, performance and
price. Its resources are interchangeable, so what the domain's free time is, for a search
or a batch rule, is how many of each pool's resources are free at each time: a
:class:`~vosim.market.profile.FreeProfile` per pool. :class:`FreeTime` reads those counts
from the domain's one record of busy time (``VOModel.busy_time``, a
:class:`~vosim.market.busy_time.BusyTime`): it keeps no copy of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.core.slots import SlotList
from vosim.core.windows import distinct
from vosim.errors import SlotError
from vosim.market.busy_time import BusyTime
from vosim.market.profile import FreeProfile

__all__ = ["FreeTime", "count_view", "members", "members_of", "pools_of"]


def pools_of(
    owner: Sequence[int] | np.ndarray,
    performance: Sequence[float] | np.ndarray,
    price: Sequence[float] | np.ndarray,
    node: Sequence[int] | np.ndarray | None = None,
) -> np.ndarray:
    """Each resource's pool: resources of one node, owner, performance and price share one.

    Parameters
    ----------
    owner, performance, price : array_like, shape (R,)
        Each resource's owner (int), performance and price per time unit.
    node : array_like of int, shape (R,), optional
        Each resource's physical node: resources of different nodes never share a pool
        (a Gaia node's processors are one pool; LCG-2005-1's one-processor nodes are pools
        of one, even when a site's nodes share a price). ``None``: any node.

    Returns
    -------
    numpy.ndarray of int64, shape (R,)
        Pool ids ``0 .. P-1``, numbered in the order of ``(owner, performance, price)``.

    Raises
    ------
    SlotError
        The three arrays differ in length, or there is no resource.

    Notes
    -----
    Demand pricing changes an owner's prices by one factor (:meth:`ExponentialPricing.update
    <vosim.market.pricing.ExponentialPricing.update>` is elementwise, one step per owner),
    so resources of one pool keep one price: pools made at the start stay pools.

    References
    ----------
    Mu'alem & Feitelson (2001), §2: identical processors are counted, not named. The pools
    of a heterogeneous VO domain are vosim's; that they stop at a node's bounds too is
    vosim's choice (``docs/decisions.md``, "Pools stop at a node's bounds").
    """
    owner = np.asarray(owner, dtype=float)
    performance = np.asarray(performance, dtype=float)
    price = np.asarray(price, dtype=float)
    host = np.zeros(owner.shape) if node is None else np.asarray(node, dtype=float)
    if not (owner.shape == performance.shape == price.shape == host.shape) or owner.ndim != 1:
        raise SlotError(
            f"owner, performance, price and node must be 1-d of one length, got shapes "
            f"{owner.shape}, {performance.shape}, {price.shape} and {host.shape}"
        )
    if owner.size == 0:
        raise SlotError("a domain needs at least one resource")
    key = np.stack([owner, performance, price, host], axis=1)
    _, pool = np.unique(key, axis=0, return_inverse=True)
    return pool.ravel().astype(np.int64)


class FreeTime:
    """Free resources of every pool over time: the count view of the domain's busy time.

    Parameters
    ----------
    pool : array_like of int, shape (R,)
        Each resource's pool id, ``0 .. P-1`` (:func:`pools_of`); every pool has a resource.
    busy : BusyTime
        The domain's busy time (its rows' resource ids index ``pool``), read at each call.

    Raises
    ------
    SlotError
        ``pool`` is empty or skips a pool id; from :meth:`profile`, a pool whose busy rows
        exceed its resources somewhere (rows overlap on a resource).

    Notes
    -----
    :meth:`profile` costs ``O(r + e log e)`` for the ``r`` rows of the domain and the
    ``e`` of the pool.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (a profile of free processors over
    time); VO Preferences §2 (the owners' schedules of local jobs and VO reservations).

    Examples
    --------
    >>> busy = BusyTime([0, 0, 0], [1.0] * 3, [1.0] * 3)
    >>> ft = FreeTime([0, 0, 1], busy)  # two interchangeable resources, and one other
    >>> busy.reserve([0, 1], 10.0, [20.0, 20.0], 7)
    >>> ft.profile(0, 0.0).steps()
    [(0.0, 2), (10.0, 0), (20.0, 2)]
    >>> busy.release(7, [1], [15.0], 10.0)  # one task ended early
    >>> ft.profile(0, 0.0).steps()
    [(0.0, 2), (10.0, 0), (15.0, 1), (20.0, 2)]
    """

    def __init__(self, pool: Sequence[int] | np.ndarray, busy: BusyTime) -> None:
        pool = np.asarray(pool, dtype=np.int64)
        if pool.ndim != 1 or pool.size == 0:
            raise SlotError(f"pool must be a non-empty 1-d array of ids, got shape {pool.shape}")
        capacity = np.bincount(pool)
        if pool.min() < 0 or (capacity == 0).any():
            raise SlotError("pool ids must be 0 .. P-1, each with at least one resource")
        #: Each resource's pool, shape (R,).
        self.pool = pool
        #: Resources per pool, shape (P,).
        self.capacity = capacity
        self.busy = busy

    @property
    def pools(self) -> int:
        """Number of pools ``P``."""
        return self.capacity.size

    @property
    def counted(self) -> bool:
        """Some pool holds more than one resource: searches read :func:`count_view`."""
        return bool(self.capacity.max() > 1)

    def members(self, resources: np.ndarray) -> np.ndarray:
        """Every resource of the pools of ``resources``: :func:`members` of :attr:`pool`."""
        return members(self.pool, resources)

    def profile(self, pool: int, now: float) -> FreeProfile:
        """The free count of ``pool`` over time from ``now`` on (model time units), new.

        Raises :class:`~vosim.errors.SlotError` if the pool's busy rows leave fewer than 0
        resources free at some time.
        """
        node, a, b, _ = self.busy.intervals()
        mine = (self.pool[node] == pool) & (b > now)
        a, b = np.maximum(a[mine], now), b[mine]
        ends = b[np.isfinite(b)]
        return FreeProfile.of_changes(
            int(self.capacity[pool]),
            float(now),
            np.concatenate([a, ends]),
            np.concatenate([np.full(a.size, -1, np.int64), np.ones(ends.size, np.int64)]),
        )


def members(pool: np.ndarray, resources: np.ndarray) -> np.ndarray:
    """Every resource of the pools of ``resources`` (ids, shape (r,)), ids ascending.

    ``pool``: each resource's pool, shape (R,). What a count view reads together: time freed
    on one processor of a pool is time of the pool's count. Raises ``IndexError`` for an id
    outside ``pool``. Source: vosim's (Mu'alem & Feitelson (2001), §2: counted processors).
    """
    mark = np.zeros(int(pool.max()) + 1, dtype=bool)
    mark[pool[np.asarray(resources, dtype=np.int64)]] = True
    return np.flatnonzero(mark[pool])


def count_view(
    slots: SlotList, pool: Sequence[int] | np.ndarray, pools: np.ndarray | None = None
) -> SlotList:
    """The slot list with each pool's processors re-assigned: the free time as counts.

    Within a pool the processors are interchangeable, so what a search may use is how many
    are free at each time, not which. Here each pool's free spans in ``slots`` are summed into
    its free count, and the count's levels (:func:`~vosim.market.profile.level_spans`) are
    given to the pool's processors in increasing id order: level ``l`` to its ``l``-th
    processor. ``k`` tasks then fit on a pool over ``[s, e)`` in the result exactly when at
    least ``k`` of its processors are free at every time of ``[s, e)`` in ``slots``, whether
    or not ``k`` particular processors are free throughout.

    Parameters
    ----------
    slots : SlotList
        Free slots, ``m`` rows: one per processor and free span, or any rows whose count
        per pool and time is the free count (a count view with a window's spans put back
        on their processors, which may overlap a level's: they are summed, then re-levelled).
    pool : array_like of int, shape (R,)
        Each resource's pool (:func:`pools_of`), by resource id; resources of one pool have
        one performance, and one price but in a window's spans put back (reserved at an
        earlier price under demand pricing): a pool's levels take its rows' least price.
    pools : numpy.ndarray of int, shape (q,), optional
        Re-level only these pools; the other rows are kept as they are. ``None``: every pool.

    Returns
    -------
    SlotList
        The count view, ordered as a slot list is; its free processor-time per pool and
        time equals ``slots``'.

    Raises
    ------
    IndexError
        A slot's node has no entry in ``pool``.
    SlotError
        A pool has more processors free at once than it holds (rows of ``slots`` overlap
        on a processor).

    Notes
    -----
    Compiled: ``O(m + k log k)`` for ``k`` rows of the pools re-levelled (their levels are
    sorted and merged into the other rows in one pass). The plain
    form below (``VOSIM_REFERENCE=1``), ``O(m log m)`` numpy over every pool at once, is
    its oracle.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (identical processors are counted, not named); AEP §2.1
    (the slot list). The re-assignment is vosim's.

    Examples
    --------
    Two processors of one pool, free in turn; one task of 10 from 5 fits only by count:

    >>> from vosim.core.slots import Slot
    >>> sl = SlotList([Slot(0, 0.0, 10.0, 1.0, 1.0), Slot(1, 10.0, 20.0, 1.0, 1.0)])
    >>> [(s.node, s.start, s.end) for s in count_view(sl, [0, 0])]
    [(0, 0.0, 20.0)]
    """
    pool = np.asarray(pool, dtype=np.int64)
    if not reference():  # compiled: the same rows, sorted here
        top = int(slots.node.max()) if len(slots) else -1
        if top >= pool.size:  # the kernel would read outside pool: the plain path's error
            raise IndexError(f"node {top} has no entry in pool (of size {pool.size})")
        first, ids = members_of(pool)
        relevel = np.ones(first.size - 1, dtype=np.bool_)
        if pools is not None:
            relevel[:] = False
            relevel[pools[pools < relevel.size]] = True
        *rows, over = kernels("vosim.market.count_kernels").count_view_rows(
            slots.node, slots.start, slots.end, slots.price, slots.performance,
            pool, relevel, first, ids,
        )  # fmt: skip
        if over >= 0:
            _too_many(over, int(first[over + 1] - first[over]))
        return SlotList.trusted(*rows)
    of = pool[slots.node]
    which = distinct(of) if pools is None else np.intersect1d(distinct(of), pools)
    mine = np.isin(of, which)
    rows = np.flatnonzero(mine)
    if not rows.size:
        return slots
    # each pool's free count: +1 at a row's start, -1 at its end, summed per (pool, time);
    # the cumulative sum runs over the pools in turn (each pool's changes sum to 0)
    p_ev = np.concatenate([of[rows], of[rows]])
    t_ev = np.concatenate([slots.start[rows], slots.end[rows]])
    d_ev = np.repeat([1, -1], rows.size)
    order = np.lexsort((t_ev, p_ev))
    p_ev, t_ev, d_ev = p_ev[order], t_ev[order], d_ev[order]
    last = np.ones(p_ev.size, dtype=bool)  # the last change of each (pool, time)
    last[:-1] = (p_ev[1:] != p_ev[:-1]) | (t_ev[1:] != t_ev[:-1])
    free = np.cumsum(d_ev)[last]
    seg_pool, seg_start = p_ev[last], t_ev[last]
    # the segment from each change to the pool's next one holds `free` processors
    follows = np.flatnonzero(seg_pool[1:] == seg_pool[:-1])
    seg_pool, seg_start, seg_end, free = (
        seg_pool[follows],
        seg_start[follows],
        seg_start[follows + 1],
        free[follows],
    )
    first, members_all = members_of(pool)
    size = first[seg_pool + 1] - first[seg_pool]
    over = np.flatnonzero(free > size)
    if over.size:  # a slice would drop the levels above silently
        _too_many(int(seg_pool[over[0]]), int(size[over[0]]))
    # level l of a pool: the maximal runs of its segments holding at least l processors
    used = np.flatnonzero(free > 0)
    seg = np.repeat(used, free[used])
    level = np.arange(seg.size) - np.repeat(np.cumsum(free[used]) - free[used], free[used]) + 1
    order = np.lexsort((seg_start[seg], level, seg_pool[seg]))
    seg, level = seg[order], level[order]
    new = np.ones(seg.size, dtype=bool)
    new[1:] = (
        (seg_pool[seg[1:]] != seg_pool[seg[:-1]])
        | (level[1:] != level[:-1])
        | (seg_start[seg[1:]] != seg_end[seg[:-1]])
    )
    head = np.flatnonzero(new)
    tail = np.append(head[1:], seg.size) - 1
    lp = seg_pool[seg[head]]
    # each pool's least price (a window put back keeps its own) and performance
    by_pool = rows[np.argsort(of[rows], kind="stable")]
    starts = np.flatnonzero(np.diff(of[by_pool], prepend=-1))
    least = np.full(first.size - 1, np.inf)
    least[of[by_pool[starts]]] = np.minimum.reduceat(slots.price[by_pool], starts)
    perf = np.zeros(first.size - 1)
    perf[of[by_pool[starts]]] = slots.performance[by_pool[starts]]
    kept = ~mine
    return SlotList.from_arrays(
        np.concatenate([slots.node[kept], members_all[first[lp] + level[head] - 1]]),
        np.concatenate([slots.start[kept], seg_start[seg[head]]]),
        np.concatenate([slots.end[kept], seg_end[seg[tail]]]),
        np.concatenate([slots.price[kept], least[lp]]),
        np.concatenate([slots.performance[kept], perf[lp]]),
        validate=False,  # rows kept as given may overlap on a processor (see slots)
    )


def _too_many(p: int, size: int) -> None:
    """Raise the :class:`SlotError` of a pool ``p`` of ``size`` with more free at once."""
    raise SlotError(
        f"count_view: pool {p} has more processors free at once than the {size} it holds"
    )


_MEMBERS: list = [None, None]  # the last pool array read, and its members


def members_of(pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pool's resources as ``members[first[p]:first[p + 1]]``, ascending.

    ``pool``: each resource's pool, int64, shape (R,). Returns ``(first, members)``, shapes
    (P + 1,) and (R,). Kept for the last ``pool`` array read (a run reads one). Raises
    ``ValueError`` for an empty or negative ``pool``. Source: vosim's.
    """
    if _MEMBERS[0] is not pool:
        first = np.zeros(int(pool.max()) + 2, dtype=np.int64)
        np.cumsum(np.bincount(pool), out=first[1:])
        _MEMBERS[:] = [pool, (first, np.argsort(pool, kind="stable").astype(np.int64))]
    return _MEMBERS[1]
