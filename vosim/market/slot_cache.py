"""The slot list of each cycle from free spans kept between cycles, rebuilt per changed node."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import ModuleType
from typing import Protocol

import numpy as np

from vosim.core.code_path import kernels
from vosim.core.slots import SlotList
from vosim.errors import SlotError
from vosim.market.busy_time import BusyTime
from vosim.market.free_time import members_of
from vosim.market.slots import free_slots

__all__ = ["SlotListCache"]


class _Owner(Protocol):
    owner_id: int
    node_ids: np.ndarray

    @property
    def known_until(self) -> float: ...


class SlotListCache:
    """Builds the slot list of ``[now, now + L)`` from free spans kept between cycles.

    Between two cycles only a few nodes' busy time changes (a reservation, a release), and
    every other node's free spans over the time its busy time is known stay valid: the slot
    list of a later interval is those spans clipped to it. So the free spans of the owners'
    nodes up to ``upto`` (the earliest time some owner's local load is generated to) are
    kept, ordered by (start, node); each call recomputes only the nodes marked changed in the
    domain's busy time (:meth:`BusyTime.take_changes`), and everything once the interval
    reaches past ``upto``.

    Only the spans are kept: prices are read at every call (demand pricing changes them each
    cycle), and a change in the set of owners (one left the VO) rebuilds every span.

    Parameters
    ----------
    performance : numpy.ndarray of float, shape (N,)
        Performance of every node, by node id.
    pool : numpy.ndarray of int, shape (N,), optional
        Each node's pool (:attr:`~vosim.market.free_time.FreeTime.pool`) when the slot list
        is the count view (:func:`~vosim.market.free_time.count_view`): the spans kept are
        then each pool's levels, and a change on one resource recomputes its whole pool.

    Notes
    -----
    The result equals :func:`~vosim.market.slots.free_slots` over every owner's busy
    intervals for ``[now, until)`` exactly (the maximal free spans of each node, clipped),
    with ``pool`` its count view (levels clipped are the levels of the clipped counts): a
    test compares them cycle by cycle on whole runs.

    References
    ----------
    AEP §2.1: the slot list of the scheduling interval, ordered by non-decreasing start time.
    """

    def __init__(self, performance: np.ndarray, pool: np.ndarray | None = None) -> None:
        self.performance = np.asarray(performance, dtype=float)
        self.pool = None if pool is None else np.asarray(pool, dtype=np.int64)
        self._spans: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._upto = -math.inf
        self._owners: list[int] = []  # the owners' ids of the spans kept
        self._offered = np.zeros(self.performance.size, dtype=bool)  # their nodes, by id

    def slots(
        self,
        owners: Sequence[_Owner],
        busy: BusyTime,
        now: float,
        until: float,
        price: np.ndarray,
        nodes: np.ndarray | None = None,
    ) -> SlotList:
        """The free slots of every owner's nodes over ``[now, until)`` (model time units).

        Call after each owner's ``prepare(until)`` (which generates its local load up to
        ``until``); ``now`` never decreases between calls. ``owners``: the owners in the VO
        now (``owner_id``, ``node_ids``, ``known_until``). ``busy``: the domain's busy time,
        whose marks of changed resources this call reads and clears. ``price`` (float,
        shape (N,), by node id): each node's price per time unit now. ``nodes`` (node ids,
        shape (r,)) keeps only those nodes' slots: what a question about a few nodes needs,
        for a fraction of the cost.
        """
        ids = [o.owner_id for o in owners]
        if until > self._upto or ids != self._owners:
            known = min((o.known_until for o in owners), default=math.inf)
            self._upto = max(until, known) if math.isfinite(known) else 2 * until - now
            self._owners = ids
            self._offered[:] = False
            for o in owners:
                self._offered[o.node_ids] = True
            self._spans = self._free(busy, now)
        else:
            dirty, rows = busy.take_changes(self.pool)
            if dirty.size:
                self._spans = self._update(dirty, rows, now)
        node, start, end = self._spans
        if nodes is not None:
            mark = np.zeros(self.performance.size, dtype=bool)
            mark[nodes] = True
            keep = mark[node]
            node, start, end = node[keep], start[keep], end[keep]
        # rows starting at or before now start at now, re-ordered by node; prices read now
        price = np.asarray(price, dtype=float)
        return SlotList.trusted(
            *_kernels().clipped(node, start, end, float(now), float(until), price, self.performance)
        )

    def _free(self, busy: BusyTime, now: float):
        """Free spans over ``[now, upto)`` of the owners' nodes, sorted (start, node)."""
        node, a, b, _ = busy.intervals()
        busy.clear_changes()
        offered = np.flatnonzero(self._offered)
        if not offered.size:  # every owner has left the VO
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        if self.pool is not None:  # the levels of every pool, from nothing kept
            none = np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
            return self._levels(none, self._offered.copy(), (node, a, b), now)
        unpriced = np.zeros_like(self.performance)  # spans only: prices are read per call
        sl = free_slots(offered, unpriced, self.performance, node, a, b, now, self._upto)
        return sl.node, sl.start, sl.end

    def _update(self, dirty: np.ndarray, rows: tuple[np.ndarray, ...], now: float):
        """The kept spans with those of the ``dirty`` nodes (the owners' only) recomputed.

        ``rows``: every busy interval ``(node, a, b)`` on the dirty nodes. Their free spans
        are rebuilt and merged into the kept rows in one compiled pass
        (:func:`~vosim.market.slot_cache_kernels.update_spans`: the rows
        :func:`~vosim.market.slots.free_slots` and :func:`~vosim.core.slots.merge_rows`
        give) instead of re-sorting every row.
        """
        mark = np.zeros(self.performance.size, dtype=bool)
        mark[dirty] = True
        mark &= self._offered  # a node that left the VO has no slot (its VO work still ends)
        if self.pool is not None:
            return self._levels(self._spans, mark, rows, now)
        node, a, b = rows
        return _kernels().update_spans(
            *self._spans, mark, node, a, b, float(now), float(self._upto)
        )

    def _levels(self, kept: tuple, mark: np.ndarray, rows: tuple, now: float):
        """``kept`` with the levels of the ``mark``-ed pools recomputed from busy ``rows``.

        ``mark``: every resource of each pool to recompute; ``rows``: ``(node, a, b)``, the
        busy intervals on them (:func:`~vosim.market.slot_cache_kernels.update_levels`). Raises
        :class:`~vosim.errors.SlotError` if busy rows leave a pool more free than it holds.
        """
        first, members = members_of(self.pool)
        node, a, b = rows
        *spans, over = _kernels().update_levels(
            *kept, mark, node, a, b, float(now), float(self._upto), self.pool, first, members
        )
        if over >= 0:
            raise SlotError(f"slot list: busy rows overlap on a resource of pool {over}")
        return tuple(spans)


def _kernels() -> ModuleType:
    """The compiled update and clip, imported at the first slot list (numba loads then)."""
    return kernels("vosim.market.slot_cache_kernels")
