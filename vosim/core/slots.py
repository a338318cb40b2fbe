"""Slots (free time spans of nodes) and slot lists ordered by start time.

The types below both :mod:`vosim.market` (which builds slot lists from the owners' busy
intervals, :func:`vosim.market.slots.free_slots`) and :mod:`vosim.allocators` (which search
them for windows).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.errors import SlotError

__all__ = ["Slot", "SlotList", "lexsort_order", "merge_rows"]


@dataclass(frozen=True, slots=True)
class Slot:
    """A time span ``[start, end)`` during which one node is free.

    Parameters
    ----------
    node : int
        Node id.
    start, end : float
        Bounds in model time units, ``start < end``.
    price : float
        Price of the node, cost per time unit (>= 0).
    performance : float
        Node performance (> 0): a task of volume ``V`` needs ``V / performance`` time units.

    References
    ----------
    AEP §2.1: "a single slot is a time span that can be assigned to a task".
    """

    node: int
    start: float
    end: float
    price: float
    performance: float

    @property
    def length(self) -> float:
        """Slot length ``end - start`` in model time units."""
        return self.end - self.start


class _HasSlots(Protocol):
    slots: Sequence[Slot]


_FIELDS = ("node", "start", "end", "price", "performance")


def lexsort_order(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """Indices sorting by ``primary`` then ``secondary`` (stable), like ``np.lexsort``.

    Parameters
    ----------
    primary, secondary : numpy.ndarray, shape (m,)
        The sort keys; one of them must be node ids (integers >= 0), the other e.g. start
        times (model time units).

    Returns
    -------
    numpy.ndarray of int, shape (m,)
        The order, as ``np.lexsort((secondary, primary))`` gives it.

    Notes
    -----
    Two stable argsorts, the node key as int16 when ids allow it (numpy then uses a radix
    sort): 2-3x faster than ``np.lexsort`` on the ~1,000 rows of a slot list, which is built
    every scheduling cycle.

    Examples
    --------
    >>> lexsort_order(np.array([5.0, 1.0, 5.0]), np.array([2, 7, 0])).tolist()
    [1, 2, 0]
    """
    ints = primary if primary.dtype.kind in "iu" else secondary
    if ints.size and int(ints.max()) < np.iinfo(np.int16).max:
        ints16 = ints.astype(np.int16)
        primary = ints16 if primary is ints else primary
        secondary = ints16 if secondary is ints else secondary
    order = np.argsort(secondary, kind="stable")
    return order[np.argsort(primary[order], kind="stable")]


class SlotList:
    """An immutable list of slots ordered by non-decreasing start time (ties by node id).

    Stored as parallel numpy arrays (``node``, ``start``, ``end``, ``price``, ``performance``,
    each of shape ``(m,)``) so allocators can scan it vectorised; iterating or indexing yields
    :class:`Slot` objects. Slots of one node must not overlap (they may touch).

    Parameters
    ----------
    slots : iterable of Slot
        In any order; they are sorted by start time.

    Raises
    ------
    SlotError
        A slot with ``end <= start``, a negative price, a non-positive performance, a non-finite
        bound, or two overlapping slots on one node.

    References
    ----------
    AEP §2.1: the slot list of the scheduling interval ordered by non-decreasing start time.

    Examples
    --------
    >>> sl = SlotList([Slot(1, 50.0, 100.0, 2.0, 4.0), Slot(0, 0.0, 100.0, 1.0, 2.0)])
    >>> [s.node for s in sl]
    [0, 1]
    >>> len(sl.cut([Slot(0, 20.0, 30.0, 1.0, 2.0)]))
    3
    """

    __slots__ = _FIELDS

    def __init__(self, slots: Iterable[Slot] = ()) -> None:
        rows = [(s.node, s.start, s.end, s.price, s.performance) for s in slots]
        cols = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
        self._set(*(np.asarray(c, dtype=np.int64 if i == 0 else float) for i, c in enumerate(cols)))
        self._validate()

    @classmethod
    def from_arrays(
        cls,
        node: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        price: np.ndarray,
        performance: np.ndarray,
        *,
        validate: bool = True,
    ) -> SlotList:
        """Build a slot list from parallel arrays of shape ``(m,)`` (any order).

        ``validate=False`` skips the checks of the constructor (for arrays vosim built itself).
        """
        obj = cls.__new__(cls)
        obj._set(
            np.asarray(node, dtype=np.int64),
            np.asarray(start, dtype=float),
            np.asarray(end, dtype=float),
            np.asarray(price, dtype=float),
            np.asarray(performance, dtype=float),
        )
        if validate:
            obj._validate()
        return obj

    @classmethod
    def trusted(cls, *columns: np.ndarray) -> SlotList:
        """A slot list from columns already ordered by (start, node) and valid.

        ``columns``: the arrays ``node, start, end, price, performance`` (shape ``(m,)``);
        neither sorted nor checked.
        """
        obj = cls.__new__(cls)
        for field, column in zip(_FIELDS, columns, strict=True):
            setattr(obj, field, column)
        return obj

    @classmethod
    def concat(cls, lists: Sequence[SlotList]) -> SlotList:
        """Merge slot lists of disjoint node sets into one list ordered by start time."""
        if not lists:
            return cls()
        cols = [np.concatenate([getattr(sl, f) for sl in lists]) for f in _FIELDS]
        return cls.from_arrays(*cols, validate=False)

    def _set(self, node, start, end, price, performance) -> None:
        order = lexsort_order(start, node)
        self.node = node[order]
        self.start = start[order]
        self.end = end[order]
        self.price = price[order]
        self.performance = performance[order]

    def _validate(self) -> None:
        if not (np.isfinite(self.start).all() and np.isfinite(self.end).all()):
            raise SlotError("slot bounds must be finite")
        bad = np.flatnonzero(self.end <= self.start)
        if bad.size:
            raise SlotError(f"slot {self[int(bad[0])]} has end <= start")
        bad = np.flatnonzero(~(self.price >= 0))
        if bad.size:
            raise SlotError(f"slot {self[int(bad[0])]} has a negative price")
        bad = np.flatnonzero(~(self.performance > 0))
        if bad.size:
            raise SlotError(f"slot {self[int(bad[0])]} has a non-positive performance")
        order = np.lexsort((self.start, self.node))
        node, start, end = self.node[order], self.start[order], self.end[order]
        clash = np.flatnonzero((node[1:] == node[:-1]) & (start[1:] < end[:-1]))
        if clash.size:
            i = int(clash[0])
            raise SlotError(
                f"slots overlap on node {int(node[i])}: [{start[i]}, {end[i]}) and "
                f"[{start[i + 1]}, {end[i + 1]})"
            )

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def __getitem__(self, i: int) -> Slot:
        return Slot(
            int(self.node[i]),
            float(self.start[i]),
            float(self.end[i]),
            float(self.price[i]),
            float(self.performance[i]),
        )

    def __iter__(self) -> Iterator[Slot]:
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"SlotList({len(self)} slots on {np.unique(self.node).size} nodes)"

    def until(self, end: float) -> SlotList:
        """The slot list of the shorter interval ending at ``end``: every slot clipped to it.

        Slots starting at or after ``end`` are dropped and the others end at
        ``min(slot end, end)``: the same list the owners' schedules give for the interval
        ``[t, end)``. ``O(log m)`` to find the cut (slots are ordered by start), ``O(k)`` to
        copy the ``k`` slots kept; ``self`` itself when no slot reaches past ``end``.

        Parameters
        ----------
        end : float
            The interval's end, model time units.

        References
        ----------
        AEP §2.1: the slot list of the scheduling interval; a job's own interval is
        :class:`~vosim.policies.cyclic_scheme.CyclicScheme`'s ``look_ahead``.

        Examples
        --------
        >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 60.0, 90.0, 1.0, 2.0)])
        >>> [(s.start, s.end) for s in sl.until(50.0)]
        [(0.0, 50.0)]
        """
        k = int(np.searchsorted(self.start, end, side="left"))
        if k == len(self) and (k == 0 or self.end.max() <= end):
            return self
        return SlotList.trusted(
            self.node[:k],
            self.start[:k],
            np.minimum(self.end[:k], end),
            self.price[:k],
            self.performance[:k],
        )

    def cut(self, window: _HasSlots | Iterable[Slot]) -> SlotList:
        """Return a new slot list with the reserved spans of ``window`` removed.

        Each reserved span ``[a, b)`` on node ``k`` must lie inside one slot of node ``k``; that
        slot is replaced by its remainders ``[start, a)`` and ``[b, end)`` (empty ones dropped).

        Parameters
        ----------
        window : Window or iterable of Slot
            The reserved spans (a :class:`~vosim.core.windows.Window` or its ``slots``).

        Raises
        ------
        SlotError
            A reserved span lies in no free slot of its node.

        References
        ----------
        AEP §3.1 (CSA) and VO Preferences §2: found windows are cut out of the slot list so
        later alternatives and jobs cannot take them.
        """
        spans = window.slots if hasattr(window, "slots") else list(window)
        columns = getattr(spans, "node", None)  # a window's Spans: its columns, no Slot objects
        if isinstance(columns, np.ndarray):
            node = columns
            ordered = np.sort(node)
            if (ordered[1:] != ordered[:-1]).all():
                return self._cut_distinct_nodes(spans, node, spans.start, spans.end)
        elif len({span.node for span in spans}) == len(spans):
            node = np.array([x.node for x in spans], dtype=np.int64)
            a = np.array([x.start for x in spans], dtype=float)
            b = np.array([x.end for x in spans], dtype=float)
            return self._cut_distinct_nodes(spans, node, a, b)
        keep = np.ones(len(self), dtype=bool)
        # Remainders of earlier spans, searched too: several spans may share one free slot.
        extra: list[tuple[int, float, float, float, float]] = []
        for span in spans:
            piece = next(
                (
                    k
                    for k, (node, s, e, _, _) in enumerate(extra)
                    if node == span.node and s <= span.start and e >= span.end
                ),
                None,
            )
            if piece is not None:
                node, s, e, p, perf = extra.pop(piece)
            else:
                hit = np.flatnonzero(
                    (self.node == span.node)
                    & (self.start <= span.start)
                    & (self.end >= span.end)
                    & keep
                )
                if hit.size == 0:
                    raise span_outside(span)
                i = int(hit[0])
                keep[i] = False
                node, s, e, p, perf = (
                    int(self.node[i]),
                    float(self.start[i]),
                    float(self.end[i]),
                    float(self.price[i]),
                    float(self.performance[i]),
                )
            if span.start > s:
                extra.append((node, s, span.start, p, perf))
            if e > span.end:
                extra.append((node, span.end, e, p, perf))
        cols = [getattr(self, f)[keep] for f in _FIELDS]
        if extra:
            add = list(zip(*extra, strict=True))
            cols = [
                np.concatenate([c, np.asarray(a, dtype=c.dtype)])
                for c, a in zip(cols, add, strict=True)
            ]
        return SlotList.from_arrays(*cols, validate=False)

    def _cut_distinct_nodes(
        self, spans: Sequence[Slot], node: np.ndarray, a: np.ndarray, b: np.ndarray
    ) -> SlotList:
        """:meth:`cut` for spans on distinct nodes (a window): all spans at once.

        ``node``, ``a``, ``b``: the spans' nodes and ``[a, b)`` as columns, shape (n,).
        Compiled (:mod:`vosim.core.slot_kernels`); the numpy below runs under
        ``VOSIM_REFERENCE=1``.
        """
        if not node.size:
            return self
        if len(self) and not reference():  # compiled: the same rows in the same order
            bad, *columns = kernels("vosim.core.slot_kernels").cut_distinct(
                self.node, self.start, self.end, self.price, self.performance, node, a, b
            )
            if bad >= 0:
                span = spans[bad]
                raise span_outside(span)
            return SlotList.trusted(*columns)
        inside = (
            (self.node[None, :] == node[:, None])
            & (self.start[None, :] <= a[:, None])
            & (self.end[None, :] >= b[:, None])
        )
        found = inside.any(axis=1)
        if not found.all():
            bad = spans[int(np.flatnonzero(~found)[0])]
            raise span_outside(bad)
        hit = inside.argmax(axis=1)  # slots of one node are disjoint: one holds the span
        # The remainder [start, a) of a hit slot keeps its (start, node) key, so it stays in
        # the hit slot's row; only the remainders [b, end) need placing.
        old_end = self.end[hit]
        end = self.end.copy()
        end[hit] = a
        right = old_end > b
        extra = [
            node[right],
            b[right],
            old_end[right],
            self.price[hit][right],
            self.performance[hit][right],
        ]
        cols = [self.node, self.start, end, self.price, self.performance]
        gone = hit[a <= self.start[hit]]  # empty remainders [start, a)
        if gone.size:
            keep = np.ones(len(self), dtype=bool)
            keep[gone] = False
            cols = [c[keep] for c in cols]
        if extra[0].size > 1:
            order = lexsort_order(extra[1], extra[0])
            extra = [e[order] for e in extra]
        return SlotList.trusted(*merge_rows(cols, extra))


def span_outside(span: Slot) -> SlotError:
    """The error for a reserved ``span`` that lies in no free slot of its node.

    Returned, not raised, so that every cut raises it with one message. Source: AEP §3.1
    (a window is cut from the free slots that hold it).
    """
    return SlotError(f"reserved span {span} lies in no free slot of node {span.node}")


def merge_rows(cols: list[np.ndarray], extra: list[np.ndarray]) -> list[np.ndarray]:
    """Merge rows ``extra`` into ``cols``, both ordered by (start, node), without a full sort.

    ``cols`` and ``extra`` are parallel columns (``node``, ``start``, then any others, of
    shapes ``(m,)`` and ``(k,)``), each ordered by (start, node) with no (start, node) pair in
    both. Each new row goes where a binary search on its start (then on its node among equal
    starts) puts it: ``O(m + k log m)`` instead of re-sorting ``m + k`` rows.

    Parameters
    ----------
    cols, extra : list of numpy.ndarray
        ``[node (int), start (model time units), ...]`` and any further columns; ``extra``'s
        columns are cast to ``cols``' dtypes.

    Returns
    -------
    list of numpy.ndarray
        The ``m + k`` rows in (start, node) order, one array per column. Raises nothing; the
        orders are the caller's promise (a test checks the result against sorting all rows).

    References
    ----------
    AEP §2.1: the slot list is ordered by non-decreasing start time.
    """
    k = extra[0].size
    if k == 0:
        return cols
    node, start = cols[0], cols[1]
    lo = start.searchsorted(extra[1], side="left")
    hi = start.searchsorted(extra[1], side="right")
    extra = [e.astype(c.dtype, copy=False) for c, e in zip(cols, extra, strict=True)]
    if k <= _FEW:  # a cycle's cut or update adds a few rows: splice them in
        at, to, ids = lo.tolist(), hi.tolist(), extra[0].tolist()
        for i in range(k):
            if to[i] > at[i]:  # equal starts: by node id
                at[i] += int(node[at[i] : to[i]].searchsorted(ids[i]))
        return [_splice(c, e, at) for c, e in zip(cols, extra, strict=True)]
    tied = np.flatnonzero(hi > lo)
    if tied.size:  # equal starts: by node id, one search on a (start run, node) key
        run = np.zeros(start.size, dtype=np.int64)
        np.cumsum(start[1:] != start[:-1], out=run[1:])
        width = int(max(node.max(), extra[0][tied].max())) + 1
        key = run * width + node
        lo[tied] = key.searchsorted(run[lo[tied]] * width + extra[0][tied])
    # output position of each new row (after the kept rows before it and the new rows
    # before it), then of each kept row; one gather per column
    new_at = lo + np.arange(k)
    is_new = np.zeros(start.size + k, dtype=bool)
    is_new[new_at] = True
    source = np.empty(start.size + k, dtype=np.int64)
    source[~is_new] = np.arange(start.size)
    source[new_at] = start.size + np.arange(k)
    return [np.concatenate([c, e])[source] for c, e in zip(cols, extra, strict=True)]


#: Up to this many new rows, :func:`merge_rows` splices slices (fewer numpy calls).
_FEW = 3


def _splice(column: np.ndarray, new: np.ndarray, at: list[int]) -> np.ndarray:
    """``column`` with ``new[i]`` inserted before position ``at[i]`` (``at`` non-decreasing)."""
    parts, prev = [], 0
    for i, p in enumerate(at):
        parts.append(column[prev:p])
        parts.append(new[i : i + 1])
        prev = p
    parts.append(column[prev:])
    return np.concatenate(parts)
