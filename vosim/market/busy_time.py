"""The domain's busy time: the VO's reservations and each owner's local jobs, each row once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vosim.errors import SlotError
from vosim.market.schedule import NodeSchedule

__all__ = ["BusyTime"]


class BusyTime:
    """Every resource's busy intervals: one record, read by the owners, slot lists and the UI.

    Two kinds of rows, each held once: the VO's reservations, in one
    :class:`~vosim.market.schedule.NodeSchedule` over every resource (a window is written
    and shortened in one call, whichever owners it spans), and each owner's local jobs, in a
    schedule of that owner's resources (an owner's placement reads its own rows, not the
    domain's). Readers take the rows they need: all of them (:meth:`intervals`), an owner's
    (:meth:`owner_intervals`), or those of the resources changed since the last read
    (:meth:`take_changes`).

    Parameters
    ----------
    owner : array_like of int, shape (R,)
        Each resource's owner, ``0 .. K-1``; every owner has a resource.
    price, performance : array_like of float, shape (R,)
        Each resource's price per time unit and performance (copied into the schedules).

    Raises
    ------
    SlotError
        ``owner`` is empty, not 1-d, or skips an owner; shapes differ.

    References
    ----------
    VO Preferences §2: the owners' schedules hold their local jobs and the VO's reservations
    (AEP §1: local jobs have priority). vosim keeps each row once and reads the owners' and
    the VO's views from it.

    Examples
    --------
    >>> busy = BusyTime([0, 0, 1], [1.0] * 3, [1.0] * 3)
    >>> busy.reserve([1, 2], 10.0, [20.0, 20.0], 7)  # one window over both owners
    >>> busy.local[1].add(2, 30.0, 40.0, -1)  # owner 1's local job
    >>> busy.owner_intervals(1)[0].tolist(), busy.owner_intervals(1)[3].tolist()
    ([2, 2], [-1, 7])
    """

    def __init__(
        self,
        owner: Sequence[int] | np.ndarray,
        price: Sequence[float] | np.ndarray,
        performance: Sequence[float] | np.ndarray,
    ) -> None:
        owner = np.asarray(owner, dtype=np.int64)
        price = np.asarray(price, dtype=float)
        performance = np.asarray(performance, dtype=float)
        if (
            owner.ndim != 1
            or owner.size == 0
            or not owner.shape == price.shape == performance.shape
        ):
            raise SlotError(
                f"owner, price and performance must be 1-d of one non-empty length, got "
                f"shapes {owner.shape}, {price.shape} and {performance.shape}"
            )
        count = np.bincount(owner) if owner.min() >= 0 else np.zeros(0, dtype=np.int64)
        if count.size == 0 or (count == 0).any():
            raise SlotError("owner ids must be 0 .. K-1, each with at least one resource")
        #: Each resource's owner, shape (R,).
        self.owner = owner
        ids = np.arange(owner.size)
        #: The VO's reservations on every resource (tags: the jobs' indices, >= 0).
        self.reservations = NodeSchedule(ids, price, performance)
        #: Each owner's local jobs on its resources (tags < 0), by owner id.
        self.local = [
            NodeSchedule(ids[owner == k], price[owner == k], performance[owner == k])
            for k in range(count.size)
        ]

    def reserve(
        self,
        nodes: Sequence[int] | np.ndarray,
        start: float,
        ends: Sequence[float] | np.ndarray,
        job: int,
    ) -> None:
        """Hold ``[start, ends[i])`` on each of ``nodes`` for the VO job at index ``job``.

        ``nodes`` (resource ids) and ``ends`` (model time units) have shape (n,): a window's
        spans, which all start together; the caller guarantees they lie in free time (an
        overlap is not checked here: :class:`~vosim.market.free_time.FreeTime` refuses it
        when read). VO Preferences §2: the chosen windows are reserved at the owners.
        """
        self.reservations.add_many(nodes, start, ends, job)

    def release(
        self,
        job: int,
        nodes: Sequence[int] | np.ndarray,
        ends: Sequence[float] | np.ndarray,
        now: float,
    ) -> None:
        """End the reservation of job ``job`` on ``nodes`` at ``ends`` (shape (n,) each).

        An end at or before its start removes that span; an end past it changes nothing.
        ``now`` (model time units): the rows that ended by then are forgotten once they are
        many (the count rule of :meth:`NodeSchedule.forget_ended
        <vosim.market.schedule.NodeSchedule.forget_ended>`: on the traced machine's count
        form no pass reads them). Raises nothing; a job with no row on ``nodes`` changes
        nothing. Mu'alem & Feitelson (2001), §2: a job that ends early frees its processors.
        """
        self.reservations.shorten(job, nodes, ends)
        self.reservations.forget_ended(now)

    def forget_ended(self, now: float, spacing: float) -> None:
        """Forget the intervals that ended by ``now`` in every schedule, when due.

        :meth:`NodeSchedule.forget_ended <vosim.market.schedule.NodeSchedule.forget_ended>`
        with ``spacing`` (model time units). Bookkeeping: no slot list changes.
        """
        self.reservations.forget_ended(now, spacing)
        for schedule in self.local:
            schedule.forget_ended(now, spacing)

    @property
    def rows(self) -> int:
        """Busy intervals held in all schedules (ended ones until forgotten)."""
        return self.reservations.rows + sum(s.rows for s in self.local)

    def intervals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """All busy intervals ``(node, a, b, tag)``, shape (r,) each, new arrays.

        The reservations, then each owner's local jobs.
        """
        return _joined([self.reservations.intervals(), *(s.intervals() for s in self.local)])

    def owner_intervals(self, owner: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The busy intervals ``(node, a, b, tag)`` of ``owner``'s resources, shape (r,) each.

        Its local jobs in the order placed, then the VO's reservations on its resources in
        the order made. ``O(r_k + r_vo)`` for its own rows and the reservations'. Read them
        before the next change: without reservations on its resources they are views of its
        local jobs' columns, which a change may write in place. Raises ``IndexError`` for an
        owner id outside ``0 .. K-1``. VO Preferences §2: an owner's schedule.
        """
        node, a, b, tag = self.reservations.intervals()
        local = self.local[owner].intervals()
        at = np.flatnonzero(self.owner[node] == owner)
        if not at.size:  # no reservation on its resources: its local jobs' columns
            return local
        return _joined([local, (node[at], a[at], b[at], tag[at])])

    def local_rows(self, resources: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The local jobs' busy rows ``(node, a, b)`` of the owners of ``resources``.

        ``resources``: resource ids, int, shape (k,). Returns shape (r,) each, model time
        units for ``a`` and ``b``; one owner's are views of its columns (read them before the
        next change). ``O(k + r)``. Raises ``IndexError`` for an id outside ``0 .. R-1``.
        VO Preferences §2: the owners' schedules hold their local jobs.
        """
        parts = [self.local[k].intervals()[:3] for k in set(self.owner[resources].tolist())]
        if len(parts) == 1:
            return parts[0]
        if not parts:  # no resource: no owner, no rows
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        node, a, b = (np.concatenate(column) for column in zip(*parts, strict=True))
        return node, a, b

    def take_changes(
        self, pool: np.ndarray | None = None
    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The resources whose busy time changed since the last call, and their intervals.

        Returns ``(dirty, (node, a, b))``: the changed resource ids (ascending, shape (d,))
        and every busy interval on them, shape (r,) each, reservations first; with ``pool``
        (each resource's pool id, shape (R,)) every resource of a changed one's pool counts
        as changed (a count view reads a pool together). Clears the marks. ``O(r_vo)`` plus
        the rows of the owners of the changed resources; the marks are the arrays of node
        ids the changes named (:meth:`NodeSchedule.take_changed
        <vosim.market.schedule.NodeSchedule.take_changed>`), joined once. Raises nothing.
        vosim's speed-up; the slot list itself is AEP §2.1's.
        """
        changed = [s.take_changed() for s in (self.reservations, *self.local) if s.changed]
        if not changed:
            empty = np.empty(0)
            return np.empty(0, dtype=np.int64), (np.empty(0, dtype=np.int64), empty, empty)
        mark = np.zeros(self.owner.size, dtype=bool)
        mark[changed[0] if len(changed) == 1 else np.concatenate(changed)] = True
        if pool is not None:  # every resource of a marked one's pool
            changed_pool = np.zeros(int(pool.max()) + 1, dtype=bool)
            changed_pool[pool[mark]] = True
            mark = changed_pool[pool]
        dirty = np.flatnonzero(mark)
        seen = np.zeros(len(self.local), dtype=bool)
        seen[self.owner[dirty]] = True
        owners = np.flatnonzero(seen).tolist()  # their local jobs too
        parts = [self.reservations.intervals(), *(self.local[k].intervals() for k in owners)]
        hits = [np.flatnonzero(mark[p[0]]) for p in parts]  # rows on changed resources, in order
        node, a, b = (
            np.concatenate([p[c].take(h) for p, h in zip(parts, hits, strict=True)])
            for c in range(3)
        )
        return dirty, (node, a, b)

    def clear_changes(self) -> None:
        """Forget the marks of changed resources (a reader that rebuilt everything)."""
        for s in (self.reservations, *self.local):
            s.take_changed()


def _joined(parts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(node, a, b, tag)`` of several schedules (a list of such tuples), in order."""
    node, a, b, tag = (np.concatenate([p[k] for p in parts]) for k in range(4))
    return node, a, b, tag
