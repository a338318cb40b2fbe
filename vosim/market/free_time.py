"""The domain's free time as counts: each pool of interchangeable processors as a profile.

A *pool* is the resources (processors, or whole nodes) that share owner, performance and
price. Its resources are interchangeable, so what the domain's free time is, for a search
or a batch rule, is how many of each pool's resources are free at each time: a
:class:`~vosim.market.profile.FreeProfile` per pool. :class:`FreeTime` keeps those counts
across scheduling passes as a log of changes, added to on every change of busy time (a VO
reservation made, shortened or cancelled; a local job placed) and summed per pool when read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vosim.errors import SlotError
from vosim.market.profile import FreeProfile

__all__ = ["FOLD_AFTER", "FreeTime", "pools_of"]

#: Changes waiting before a lazy :meth:`FreeTime.forget` folds them (a memory bound, not a
#: model parameter: no result depends on it).
FOLD_AFTER = 4096


def pools_of(
    owner: Sequence[int] | np.ndarray,
    performance: Sequence[float] | np.ndarray,
    price: Sequence[float] | np.ndarray,
) -> np.ndarray:
    """Each resource's pool: resources of one owner, performance and price share one.

    Parameters
    ----------
    owner, performance, price : array_like, shape (R,)
        Each resource's owner (int), performance and price per time unit.

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
    of a heterogeneous VO domain are vosim's.
    """
    owner = np.asarray(owner, dtype=float)
    performance = np.asarray(performance, dtype=float)
    price = np.asarray(price, dtype=float)
    if not (owner.shape == performance.shape == price.shape) or owner.ndim != 1:
        raise SlotError(
            f"owner, performance and price must be 1-d of one length, got shapes "
            f"{owner.shape}, {performance.shape} and {price.shape}"
        )
    if owner.size == 0:
        raise SlotError("a domain needs at least one resource")
    key = np.stack([owner, performance, price], axis=1)
    _, pool = np.unique(key, axis=0, return_inverse=True)
    return pool.ravel().astype(np.int64)


class FreeTime:
    """Free resources of every pool over time, kept across passes and updated in place.

    Each change of busy time is logged as changes of its pools' free counts (``-1`` per
    resource at a hold's start, ``+1`` at its end); the log is sorted and summed per pool
    only when read (:meth:`profile`) or folded into the pools' counts (:meth:`forget`), in
    vectorised passes. A change costs a few list appends, so keeping the structure costs a
    run little whether or not a pass reads it. The record of what each VO job holds is its
    window (the job ledger's); a release names the span it gives back.

    Parameters
    ----------
    pool : array_like of int, shape (R,)
        Each resource's pool id, ``0 .. P-1`` (:func:`pools_of`); every pool has a resource.
    start : float, default 0.0
        Time from which free time is kept, model time units.

    Raises
    ------
    SlotError
        ``pool`` is empty or skips a pool id; from :meth:`profile`, a pool whose holds
        exceed its resources somewhere (more held than was free) or that gets back more
        than it holds.

    Notes
    -----
    :meth:`hold` and :meth:`release` cost ``O(k)`` numpy work for ``k`` resources named;
    :meth:`profile` and :meth:`forget` ``O(e log e)`` for ``e`` changes logged.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (a profile of free processors over
    time); VO Preferences §2 (the owners' schedules of local jobs and VO reservations).

    Examples
    --------
    >>> ft = FreeTime([0, 0, 1])  # two interchangeable resources, and one other
    >>> ft.hold([0, 1], 10.0, [20.0, 20.0])
    >>> ft.profile(0).steps()
    [(0.0, 2), (10.0, 0), (20.0, 2)]
    >>> ft.release([1], 10.0, [20.0], [15.0])  # one task ended early
    >>> ft.profile(0).steps()
    [(0.0, 2), (10.0, 0), (15.0, 1), (20.0, 2)]
    """

    def __init__(self, pool: Sequence[int] | np.ndarray, start: float = 0.0) -> None:
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
        #: The time from which free time is kept (model time units).
        self.start = float(start)
        self._free = capacity.copy()  # each pool's free count at ``start``
        # the folded log after ``start``, sorted by (pool, time): pool, time, change
        self._log = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0, dtype=np.int64))
        # changes not folded into the log yet, as the calls gave them
        self._held: list[tuple] = []  # (resources, a, ends array)
        self._held_to: list[tuple] = []  # (resources, a, one end)
        self._released: list[tuple] = []  # (resources, a, ends, new ends)

    @property
    def pools(self) -> int:
        """Number of pools ``P``."""
        return self.capacity.size

    def hold(self, resources, a: float, ends) -> None:
        """Take each of ``resources`` over ``[a, ends[i])``.

        Parameters
        ----------
        resources : array_like of int, shape (k,)
            Resource ids (each once, free over its span: checked when read).
        a : float
            Start, model time units.
        ends : float or numpy.ndarray of float, shape (k,)
            Each resource's end (one for all if a float), model time units (inf: for
            ever); an empty span (``end <= a``) holds nothing.
        """
        if isinstance(ends, (int, float)):
            self._held_to.append((resources, a, ends))
        else:
            self._held.append((resources, a, ends))

    def release(self, resources: np.ndarray, a: float, ends: np.ndarray, new_ends) -> None:
        """Give back the tails ``[max(new_ends[i], a), ends[i])`` of spans held by :meth:`hold`.

        Parameters
        ----------
        resources : numpy.ndarray of int, shape (k,)
            Resource ids.
        a : float
            The spans' start, model time units.
        ends : numpy.ndarray of float, shape (k,)
            Each span's end as held, model time units.
        new_ends : float or numpy.ndarray of float, shape (k,)
            Each span's new end, model time units; at or before ``a`` the whole span is
            given back, at or past ``ends[i]`` nothing.
        """
        self._released.append((resources, a, ends, new_ends))

    def profile(self, pool: int) -> FreeProfile:
        """The free count of ``pool`` over time from :attr:`start` on, a new profile.

        Raises :class:`~vosim.errors.SlotError` if the pool's holds leave fewer than 0 or
        more than its resources free at some time.
        """
        pools, times, change = self._fold()
        lo, hi = np.searchsorted(pools, [pool, pool + 1])
        capacity = int(self.capacity[pool])
        return FreeProfile.of_changes(
            capacity,
            self.start,
            np.concatenate([[self.start], times[lo:hi]]),
            np.concatenate([[int(self._free[pool]) - capacity], change[lo:hi]]),
        )

    def forget(self, now: float, lazy: bool = False) -> None:
        """Fold every change up to ``now`` into the pools' counts; keep time from ``now`` on.

        ``now``: model time units; nothing later than ``now`` changes (an earlier ``now``
        does nothing). ``lazy``: only once :data:`FOLD_AFTER` changes are waiting (what a
        run calls as it goes: forgetting only bounds the log's memory, and a fold costs
        about the same for one change as for thousands).
        """
        waiting = len(self._held) + len(self._held_to) + len(self._released)
        if now <= self.start or (lazy and waiting < FOLD_AFTER):
            return
        pools, times, change = self._fold()
        old = times <= now
        self._free += np.bincount(pools[old], change[old], minlength=self.pools).astype(np.int64)
        self._log = (pools[~old], times[~old], change[~old])
        self.start = float(now)

    def _fold(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The log with every change made since the last fold, sorted by (pool, time).

        One entry per (pool, time), the changes summed and zero sums dropped. Ends at inf
        are dropped, and changes at or before :attr:`start` go into the counts (held or
        freed from before the kept time). One vectorised pass over all of them.
        """
        if not (self._held or self._held_to or self._released):
            return self._log
        parts = [self._log]
        if self._held:
            parts.append(self._spans(*_columns(self._held)))
        if self._held_to:
            res, a, b = _columns(self._held_to)
            parts.append(self._spans(res, a, np.broadcast_to(b, a.shape)))
        if self._released:
            res, a, ends, new = _columns(self._released)
            cut = np.maximum(new, a)
            tail = cut < ends
            freed = self._spans(res[tail], cut[tail], ends[tail])
            parts.append((freed[0], freed[1], -freed[2]))
        self._held, self._held_to, self._released = [], [], []
        pools, times, change = (np.concatenate(c) for c in zip(*parts, strict=True))
        keep = times < np.inf
        early = keep & (times <= self.start)
        if early.any():
            self._free += np.bincount(pools[early], change[early], minlength=self.pools).astype(
                np.int64
            )
            keep &= ~early
        order = np.flatnonzero(keep)
        order = order[np.lexsort((times[order], pools[order]))]
        pools, times, change = pools[order], times[order], change[order]
        if pools.size:  # one entry per (pool, time): the changes summed, zero sums dropped
            first = np.ones(pools.size, dtype=bool)
            first[1:] = (pools[1:] != pools[:-1]) | (times[1:] != times[:-1])
            at = np.flatnonzero(first)
            pools, times, change = pools[at], times[at], np.add.reduceat(change, at)
            live = change != 0
            pools, times, change = pools[live], times[live], change[live]
        self._log = (pools, times, change)
        return self._log

    def _spans(self, resources: np.ndarray, a: np.ndarray, b: np.ndarray):
        """The log entries of holding each resource over ``[a_i, b_i)``: -1 at a, +1 at b."""
        live = b > a
        pools = self.pool[resources[live]]
        ones = np.ones(pools.size, dtype=np.int64)
        return (
            np.concatenate([pools, pools]),
            np.concatenate([a[live], b[live]]),
            np.concatenate([-ones, ones]),
        )


def _columns(calls: list[tuple]) -> tuple[np.ndarray, ...]:
    """The calls' arguments as columns: resources joined, scalars repeated per resource.

    ``calls``: tuples whose first item is an array of resource ids, each other item a float
    or an array of one value per resource. Returns one array per item, shape (total,).
    """
    resources = [c[0] if isinstance(c[0], np.ndarray) else np.asarray(c[0]) for c in calls]
    sizes = np.fromiter((r.size for r in resources), np.int64, len(resources))
    out = [np.concatenate(resources).astype(np.int64, copy=False)]
    for k in range(1, len(calls[0])):
        items = [c[k] for c in calls]
        scalar = [
            isinstance(x, (int, float, np.number)) or (isinstance(x, np.ndarray) and not x.ndim)
            for x in items
        ]
        if all(scalar):
            out.append(np.repeat(np.array(items, dtype=float), sizes))
        elif not any(scalar):
            out.append(np.concatenate(items).astype(float, copy=False))
        else:  # a mix: one value per resource
            out.append(
                np.concatenate(
                    [
                        np.full(n, float(x)) if one else np.asarray(x, float).ravel()
                        for x, n, one in zip(items, sizes.tolist(), scalar, strict=True)
                    ]
                )
            )
    return tuple(out)
