"""Busy intervals of a set of nodes (local jobs or VO reservations) and their free slots."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.core.slots import SlotList
from vosim.core.windows import distinct, filled
from vosim.errors import SlotError
from vosim.market.slots import free_slots

__all__ = ["NodeSchedule", "LOCAL"]

#: Tag of local-job intervals (VO reservations carry their job's index in the model, >= 0).
LOCAL = -1

#: :meth:`NodeSchedule.forget_ended` prunes once the rows reach this many and twice those the
#: last prune left, whatever the time since the last prune: ended rows are then at most about
#: half of those held (each pass and each bind reads every row), at amortised ``O(1)`` row
#: copies per row added.
MIN_PRUNE_ROWS = 1024


class _Column:
    """A column of :class:`NodeSchedule`'s busy rows: the rows in use, as a view, shape (r,)."""

    def __init__(self, index: int, doc: str) -> None:
        self.index = index
        self.__doc__ = doc

    def __get__(self, schedule: NodeSchedule | None, owner: type) -> np.ndarray:
        if schedule is None:  # read on the class (documentation tools)
            return self  # type: ignore[return-value]
        return schedule._cols[self.index][: schedule._n]


class NodeSchedule:
    """Disjoint busy intervals ``[a, b)`` of some nodes, stored as numpy columns.

    The domain's busy time (:class:`~vosim.market.busy_time.BusyTime`) keeps one for the
    VO's reservations over every node and one per owner for its local jobs.

    Parameters
    ----------
    nodes : sequence of int, length k
        Node ids this schedule covers.
    price, performance : sequences of float, length k
        Price per time unit and performance of each node (copied into the slots).

    Notes
    -----
    :meth:`add_many` writes its rows in place (the room doubles when it runs out: ``O(k)``
    amortised), :meth:`add` buffers single rows and :meth:`shorten` buffers shortenings until
    the rows are read; building the slot list is vectorised,
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
        # the rows' columns (node, a, b, tag) with room to grow: the first _n rows are in use
        self._cols = _empty_columns(0)
        self._n = 0
        self._pending: list[tuple[int, float, float, int]] = []  # rows of add(), not written
        #: Shortenings not applied yet, (tag, nodes, new ends) per :meth:`shorten` call.
        self._short: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._short_tags: set[int] = set()
        self._dirty_one: list[int] = []  # node ids add() changed, not taken yet
        self._dirty_parts: list[np.ndarray] = []  # node ids add_many/shorten/move changed
        self._pruned_at = -math.inf  # forget_ended's last prune, and the rows that call it
        self._prune_rows = MIN_PRUNE_ROWS

    node = _Column(0, "Node of each busy interval held, int, shape (r,) (flushed rows only).")
    a = _Column(1, "Start of each busy interval, model time units, shape (r,).")
    b = _Column(2, "End of each busy interval, model time units, shape (r,).")
    tag = _Column(3, "Tag of each interval (:data:`LOCAL` or a VO job's index), shape (r,).")

    @property
    def changed(self) -> bool:
        """Whether a node's busy time changed (add, shorten, move) since :meth:`take_changed`.

        Raises nothing. No paper: the schedules' bookkeeping for the slot list's reads.
        """
        return bool(self._dirty_parts or self._dirty_one)

    def take_changed(self) -> np.ndarray:
        """The nodes whose busy time changed since the last call, and forget them.

        Returns node ids (int64, shape (k,), repeats allowed, in no order), to be read, not
        written: with one change since the last call it is the array that change named.
        ``O(k)``: the marks are kept as the arrays the changes named, joined only here (a
        reader that never calls it keeps them all). Raises nothing. No paper: the schedules'
        bookkeeping for the slot list's reads (AEP §2.1: the slot list of each cycle).
        """
        parts = self._dirty_parts
        if self._dirty_one:
            parts.append(np.array(self._dirty_one, dtype=np.int64))
            self._dirty_one = []
        self._dirty_parts = []
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)

    def _flush(self) -> None:
        """Write the rows :meth:`add` buffered, then apply the buffered shortenings."""
        self._write_pending()
        if self._short:
            self._apply_shortenings()

    def _write_pending(self) -> None:
        """Write the rows :meth:`add` buffered (a list of tuples) into the columns."""
        if self._pending:
            node, a, b, tag = zip(*self._pending, strict=True)
            self._pending.clear()
            self._append(np.array(node, dtype=np.int64), np.array(a), np.array(b), np.array(tag))

    def _apply_shortenings(self) -> None:
        """End each buffered ``(tag, node)`` interval at its buffered end; drop empty ones.

        One pass over the rows for all shortenings buffered since the last read; of several
        ends buffered for one interval the earliest holds. Compiled
        (``vosim.market.schedule_kernels.shorten_rows``, in place); the numpy below runs
        under ``VOSIM_REFERENCE=1``.
        """
        short, self._short = self._short, []
        self._short_tags = set()
        tag = np.repeat(
            np.fromiter((t for t, _, _ in short), np.int64, len(short)),
            [nodes.size for _, nodes, _ in short],
        )
        node = np.concatenate([nodes for _, nodes, _ in short])
        end = np.concatenate([ends for _, _, ends in short])
        if not reference():  # compiled: one pass, in place (the same rows in the same order)
            self._n = kernels("vosim.market.schedule_kernels").shorten_rows(
                *self._cols, self._n, tag, node, end.astype(float, copy=False)
            )
            return
        tags = distinct(tag)  # sorted: each row's tag is found by a binary search
        tag_at = np.searchsorted(tags, tag)
        rows_tag = self.tag
        at_tag = np.minimum(np.searchsorted(tags, rows_tag), tags.size - 1)
        hit = np.flatnonzero(tags[at_tag] == rows_tag)
        if hit.size == 0:
            return
        # (tag, node) as one key: the tag's rank among the buffered tags, then the node
        width = int(max(node.max(), self.node[hit].max())) + 1
        key = tag_at * width + node
        order = np.lexsort((end, key))  # by key, the earliest end first
        key, end = key[order], end[order]
        first = np.ones(key.size, dtype=bool)
        first[1:] = key[1:] != key[:-1]
        key, end = key[first], end[first]
        row_key = at_tag[hit] * width + self.node[hit]
        at = np.minimum(np.searchsorted(key, row_key), key.size - 1)
        match = key[at] == row_key
        hit, at = hit[match], at[match]
        self.b[hit] = np.minimum(self.b[hit], end[at])
        empty = hit[self.b[hit] <= self.a[hit]]
        if empty.size:
            self._drop(empty)

    def add(self, node: int, a: float, b: float, tag: int) -> None:
        """Mark ``[a, b)`` busy on ``node`` with ``tag`` (:data:`LOCAL` or a VO job's index).

        The caller guarantees the interval lies in free time (in a slot of this schedule).
        """
        if b > a:
            if tag in self._short_tags:  # a shortening buffered for this tag acts first
                self._flush()
            self._pending.append((node, a, b, tag))
            self._dirty_one.append(node)

    def add_many(self, nodes, a: float, b, tag: int) -> None:
        """:meth:`add` ``[a, b_i)`` on each of ``nodes``, one ``tag``.

        ``nodes`` (int) and ``b`` (model time units) are sequences or arrays of one length,
        shape (k,). One call per window instead of one per task (a job's tasks start
        together), written in place into the columns; empty spans (``b_i <= a``) are skipped
        as :meth:`add` skips them.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        b = np.asarray(b, dtype=float)
        if nodes.size == 0:
            return
        if tag in self._short_tags:  # a shortening buffered for this tag acts first
            self._flush()
        else:
            self._write_pending()  # rows stay in the order they were added
        self._dirty_parts.append(nodes)
        keep = b > a
        if not keep.all():
            nodes, b = nodes[keep], b[keep]
        self._append(nodes, float(a), b, int(tag))

    def shorten(self, tag: int, nodes, new_ends) -> None:
        """End the intervals of ``tag`` on ``nodes`` at ``new_ends`` (dropped if empty).

        ``nodes`` (int) and ``new_ends`` (model time units) are scalars or sequences of one
        length, one end per node; an interval already ending earlier keeps its end. Buffered
        (``O(1)`` numpy calls) and applied at the next read of the rows, all buffered
        shortenings in one vectorised pass (a job releases all its tasks' nodes at once, and
        on the traced machine nothing reads the rows between most releases).
        """
        if type(nodes) is not np.ndarray or nodes.dtype != np.int64 or nodes.ndim != 1:
            nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        ends = new_ends if type(new_ends) is np.ndarray else np.asarray(new_ends, dtype=float)
        if ends.shape != nodes.shape:  # one end for every node
            ends = filled(nodes.size, ends.item())
        self._dirty_parts.append(nodes)
        self._short.append((tag, nodes, ends))
        self._short_tags.add(tag)

    def move(self, tag: int, old: np.ndarray, new: np.ndarray) -> None:
        """Move the intervals of ``tag`` on ``old[i]`` to ``new[i]``, their spans unchanged.

        ``old`` and ``new`` (int resource ids, shape (k,)): a reservation's tasks given other
        processors of their pools (the caller guarantees each ``new[i]`` is free over the
        span). On each ``old[i]`` the last interval of ``tag`` moves: the reservation's own,
        since an earlier attempt's rows (an interrupted job's) come before it. The rows
        leave their place and follow the others in the order of ``old``, as a shortening to
        nothing and an :meth:`add_many` would leave them, but no buffered shortening of
        another tag is applied here. Both sets of nodes are marked changed (:meth:`take_changed`).
        Compiled (``vosim.market.schedule_kernels.move_rows``, in place); the numpy below
        runs under ``VOSIM_REFERENCE=1``.

        Raises
        ------
        KeyError
            Some ``old[i]`` holds no interval of ``tag``.
        """
        if tag in self._short_tags:  # a shortening buffered for this tag acts first
            self._flush()
        else:
            self._write_pending()
        old = np.asarray(old, dtype=np.int64)
        new = np.asarray(new, dtype=np.int64)
        if not reference():  # compiled: the same rows in the same order, in place
            at = kernels("vosim.market.schedule_kernels").move_rows(
                *self._cols, self._n, int(tag), old, new
            )
            if at >= 0:
                raise KeyError(int(old[at]))
            self._dirty_parts += [old, new]
            return
        mine = np.flatnonzero(self.tag == tag)
        row = dict(zip(self.node[mine].tolist(), mine.tolist(), strict=True))
        rows = np.array([row[k] for k in old.tolist()], dtype=np.int64)
        n, k = self._n, rows.size
        keep = np.ones(n, dtype=bool)
        keep[rows] = False
        for col, moved in zip(self._cols, (new, self.a[rows], self.b[rows], None), strict=True):
            col[: n - k] = col[:n][keep]  # in place: the room past the rows in use stays
            col[n - k : n] = tag if moved is None else moved
        self._dirty_parts += [old, new]

    def _append(self, node: np.ndarray, *columns: np.ndarray | float | int) -> None:
        """Rows ``(node, a, b, tag)`` after the rows in use.

        ``node`` has shape (k,); each other column shape (k,) or one value for every row.
        Written in place into the room left, which doubles when it runs out: ``O(k)``
        amortised, where joining new arrays copied every row at each flush (a local job read
        the rows at each arrival).
        """
        k = node.size
        n, need = self._n, self._n + k
        if need > self._cols[0].size:
            grown = _empty_columns(max(2 * self._cols[0].size, need, 64))
            for old, new in zip(self._cols, grown, strict=True):
                new[:n] = old[:n]
            self._cols = grown
        for col, new in zip(self._cols, (node, *columns), strict=True):
            col[n : n + k] = new
        self._n = need

    def _drop(self, rows: np.ndarray) -> None:
        """Remove ``rows`` (positions in the columns, shape (k,))."""
        keep = np.ones(self._n, dtype=bool)
        keep[rows] = False
        n = int(np.count_nonzero(keep))
        for col in self._cols:  # in place: the room past the rows in use stays
            col[:n] = col[: self._n][keep]
        self._n = n

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

    def forget_ended(self, now: float, spacing: float = math.inf) -> None:
        """:meth:`prune` ``(now, min_share=0.25)`` when it is due.

        Due ``spacing`` model time units after the last prune (a pass calls it with a
        fraction of its scheduling interval), or once the rows held reach twice those the
        last prune left and at least :data:`MIN_PRUNE_ROWS` (a release calls it with the
        default ``inf``: on the traced machine's count form no pass reads the rows, and
        this bounds them). Pruning is bookkeeping: no slot list changes.
        """
        if now >= self._pruned_at + spacing or self.rows >= self._prune_rows:
            self.prune(now, min_share=0.25)
            self._pruned_at = now
            self._prune_rows = max(2 * self.rows, MIN_PRUNE_ROWS)

    @property
    def rows(self) -> int:
        """Busy intervals held, buffered ones included (ended ones until :meth:`prune`)."""
        return self._n + len(self._pending)

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


def _empty_columns(size: int) -> list[np.ndarray]:
    """Room for ``size`` rows: node (int), a, b (float), tag (int) columns, uninitialised."""
    return [
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.empty(size),
        np.empty(size, dtype=np.int64),
    ]
