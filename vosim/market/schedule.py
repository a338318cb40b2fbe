"""Busy intervals of a set of nodes (local jobs and VO reservations) and their free slots."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vosim.core.slots import SlotList
from vosim.errors import SlotError
from vosim.market.slots import free_slots

__all__ = ["NodeSchedule", "LOCAL"]

#: Tag of local-job intervals (VO reservations carry the job id, >= 0).
LOCAL = -1


class NodeSchedule:
    """Disjoint busy intervals ``[a, b)`` of some nodes, stored as numpy columns.

    Parameters
    ----------
    nodes : sequence of int, length k
        Node ids this schedule covers.
    price, performance : sequences of float, length k
        Price per time unit and performance of each node (copied into the slots).

    Notes
    -----
    Adding is ``O(1)`` amortised (rows are buffered); building the slot list is vectorised,
    ``O(r log r)`` for ``r`` intervals, which keeps a scheduling cycle cheap on long traces.

    Examples
    --------
    >>> s = NodeSchedule([0, 1], [1.0, 2.0], [2.0, 4.0])
    >>> s.add(0, 10.0, 20.0, LOCAL)
    >>> [(x.node, x.start, x.end) for x in s.free_slots(0.0, 30.0)]
    [(0, 0.0, 10.0), (1, 0.0, 30.0), (0, 20.0, 30.0)]
    """

    def __init__(self, nodes: Sequence[int], price: Sequence[float], performance: Sequence[float]):
        self.nodes = np.asarray(nodes, dtype=np.int64)
        if self.nodes.size == 0:
            raise SlotError("a node schedule needs at least one node")
        size = int(self.nodes.max()) + 1
        self._price = np.zeros(size)
        self._perf = np.ones(size)
        self._price[self.nodes] = np.asarray(price, dtype=float)
        self._perf[self.nodes] = np.asarray(performance, dtype=float)
        self.node = np.empty(0, dtype=np.int64)
        self.a = np.empty(0)
        self.b = np.empty(0)
        self.tag = np.empty(0, dtype=np.int64)
        self._pending: list[tuple[int, float, float, int]] = []
        #: Nodes whose busy time changed (add, shorten; not prune) since the last take_dirty().
        self.dirty: set[int] = set()

    def _flush(self) -> None:
        if self._pending:
            n, a, b, t = zip(*self._pending, strict=True)
            self.node = np.concatenate([self.node, np.asarray(n, dtype=np.int64)])
            self.a = np.concatenate([self.a, np.asarray(a, dtype=float)])
            self.b = np.concatenate([self.b, np.asarray(b, dtype=float)])
            self.tag = np.concatenate([self.tag, np.asarray(t, dtype=np.int64)])
            self._pending.clear()

    def add(self, node: int, a: float, b: float, tag: int) -> None:
        """Mark ``[a, b)`` busy on ``node`` with ``tag`` (:data:`LOCAL` or a VO job id).

        The caller guarantees the interval lies in free time (in a slot of this schedule).
        """
        if b > a:
            self._pending.append((node, a, b, tag))
            self.dirty.add(node)

    def add_many(self, nodes: Sequence[int], a: float, b: Sequence[float], tag: int) -> None:
        """:meth:`add` ``[a, b_i)`` on each of ``nodes`` (sequences of one length), one ``tag``.

        One call per window instead of one per task (a job's tasks start together); empty
        spans (``b_i <= a``) are skipped as :meth:`add` skips them.
        """
        rows = [(k, a, e, tag) for k, e in zip(nodes, b, strict=True) if e > a]
        self._pending += rows
        self.dirty.update([r[0] for r in rows])

    def shorten(self, tag: int, nodes, new_ends) -> None:
        """End the intervals of ``tag`` on ``nodes`` at ``new_ends`` (dropped if empty).

        ``nodes`` (int) and ``new_ends`` (model time units) are scalars or sequences of one
        length, one end per node; an interval already ending earlier keeps its end. One scan
        of the rows per call, whatever the number of nodes (a job releases all its tasks'
        nodes at once).
        """
        self._flush()
        nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        ends = np.atleast_1d(np.asarray(new_ends, dtype=float))
        self.dirty.update(nodes.tolist())
        hit = np.flatnonzero(self.tag == tag)
        if hit.size == 0:
            return
        if nodes.size == 1:  # the common case in the VO: no sort needed
            hit = hit[self.node[hit] == nodes[0]]
            self.b[hit] = np.minimum(self.b[hit], ends[0])
        else:
            order = np.argsort(nodes, kind="stable")
            nodes, ends = nodes[order], ends[order]
            at = np.minimum(np.searchsorted(nodes, self.node[hit]), nodes.size - 1)
            match = nodes[at] == self.node[hit]
            hit, at = hit[match], at[match]
            self.b[hit] = np.minimum(self.b[hit], ends[at])
        empty = hit[self.b[hit] <= self.a[hit]]
        if empty.size:
            self._drop(empty)

    def _drop(self, rows: np.ndarray) -> None:
        keep = np.ones(self.a.size, dtype=bool)
        keep[rows] = False
        self.node, self.a, self.b, self.tag = (
            self.node[keep],
            self.a[keep],
            self.b[keep],
            self.tag[keep],
        )

    def prune(self, now: float, min_share: float = 0.0) -> None:
        """Forget intervals that ended by ``now``.

        With ``min_share`` in (0, 1], only once the ended intervals are at least that share of
        the rows: ended intervals do no harm meanwhile (slot lists start at ``now`` or later),
        and dropping them in batches keeps the cost per call ``O(1)`` amortised copies.
        """
        self._flush()
        old = self.b <= now
        ended = int(np.count_nonzero(old))
        if ended and ended >= min_share * self.b.size:
            self._drop(np.flatnonzero(old))

    @property
    def rows(self) -> int:
        """Busy intervals held, buffered ones included (ended ones until :meth:`prune`)."""
        return self.a.size + len(self._pending)

    def intervals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """All busy intervals as arrays ``(node, a, b, tag)``, shape ``(r,)`` each."""
        self._flush()
        return self.node, self.a, self.b, self.tag

    def free_slots(self, start: float, end: float) -> SlotList:
        """The maximal free spans of every node inside ``[start, end)`` as a :class:`SlotList`.

        Raises
        ------
        SlotError
            ``end <= start``.
        """
        self._flush()
        return free_slots(
            self.nodes, self._price, self._perf, self.node, self.a, self.b, start, end
        )
