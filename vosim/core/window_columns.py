"""Reserved windows kept as columns by job index, written in place as reservations change.

A re-planning pass (:func:`~vosim.policies.compression.compress`) reads every unstarted
reservation as columns: each job's ``n``, task volume, budget and window (start, runtime,
cost) and the spans of every window, concatenated in priority order. Built from the window
objects at every pass, that costs a Python loop over every reservation and one
concatenation per column, the same work for reservations that did not change since the last
pass. :class:`WindowColumns` keeps the columns between passes instead: the job ledger writes
a job's row when its window is reserved or re-bound and clears it when the window is let go,
and a pass gathers the rows of its reservations with a few array operations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vosim.core.windows import ResourceRequest, Window

__all__ = ["WindowColumns"]

#: Span rows held before the first growth; the store doubles when it has no room left.
_FIRST_ROOM = 1024


class WindowColumns:
    """Each job's window and its spans as columns, kept across passes.

    Row ``j`` (a job index) holds the job's task count ``n``, task volume, and its window's
    start, runtime and cost; its spans sit in a shared store of span rows (node, start,
    end, price, performance) at ``at[j] .. at[j] + count[j]``. A window written again (a
    re-binding) takes new span rows at the store's end; the old ones are garbage until the
    store is compacted, which happens when it is full and at most half of it is live.

    Parameters
    ----------
    size : int
        Number of job indices (``0 .. size - 1``), >= 0.

    Raises
    ------
    ValueError
        ``size`` is negative.

    Notes
    -----
    :meth:`write` and :meth:`clear` are ``O(k)`` for a window of ``k`` spans (amortised:
    a compaction is ``O(live spans + size)``); :meth:`columns` is ``O(R + S)`` for ``R``
    jobs of ``S`` spans.

    References
    ----------
    AEP §2.1-2.2 (a window: ``n`` spans with a common start, its runtime the longest span,
    its cost the sum of the spans' costs); keeping them as columns is vosim's.
    """

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size!r}")
        self.n = np.zeros(size, dtype=np.int64)
        self.volume = np.zeros(size)
        self.start = np.zeros(size)
        self.runtime = np.zeros(size)
        self.cost = np.zeros(size)
        self.at = np.zeros(size, dtype=np.int64)
        self.count = np.zeros(size, dtype=np.int64)
        self._spans = _span_store(_FIRST_ROOM)
        self._top = 0  # span rows used, live or garbage
        self._live = 0  # span rows of windows held

    @classmethod
    def of(cls, reserved: Sequence[tuple[ResourceRequest, Window]]) -> WindowColumns:
        """The columns of ``reserved`` ((request, window) pairs), sized by its largest index.

        Raises ``ValueError`` for a negative job index (it is named).
        """
        low = min((job.index for job, _ in reserved), default=0)
        if low < 0:
            raise ValueError(f"job indices must be >= 0, got {low}")
        size = max((job.index for job, _ in reserved), default=-1) + 1
        held = cls(size)
        for job, window in reserved:
            held.write(job.index, job.n, job.volume, window)
        return held

    def write(self, job: int, n: int, volume: float, window: Window) -> None:
        """Hold ``window`` as job ``job``'s (its request: ``n`` tasks of ``volume`` each).

        Replaces what the job held. ``job`` must be in ``0 .. size - 1``: ``IndexError`` for
        one >= ``size`` (a negative one counts from the end, as numpy indexes).
        """
        spans = window.spans
        k = spans.node.size
        self._live -= int(self.count[job])
        self.count[job] = 0
        if self._top + k > self._spans[0].size:
            self._make_room(k)
        top = self._top
        for column, values in zip(
            self._spans,
            (spans.node, spans.start, spans.end, spans.price, spans.performance),
            strict=True,
        ):
            column[top : top + k] = values
        self.n[job], self.volume[job] = n, volume
        self.start[job], self.runtime[job], self.cost[job] = (
            window.start,
            window.runtime,
            window.cost,
        )
        self.at[job], self.count[job] = top, k
        self._top += k
        self._live += k

    def clear(self, job: int) -> None:
        """Let job ``job``'s window go (its span rows become garbage); ``job`` as in ``write``."""
        self._live -= int(self.count[job])
        self.count[job] = 0

    def columns(self, jobs: np.ndarray, budget: np.ndarray) -> tuple[np.ndarray, ...]:
        """The rows of ``jobs`` (job indices, shape (R,), in the pass's order) as columns.

        ``budget`` (float, shape (R,), cost units) is what each job may spend on a new
        window. Returns, each a new contiguous array: ``n`` (int64), ``volume``, ``budget``,
        ``start``, ``runtime``, ``cost`` (float, shape (R,)); ``offsets`` (int64, shape
        (R + 1,): job ``r``'s spans are rows ``offsets[r] .. offsets[r + 1]``); and the
        spans' ``node`` (int64), ``start``, ``end``, ``price`` and ``performance`` (shape
        (S,)). Model time units for times, cost units for costs. Raises ``IndexError`` for
        an index >= ``size``. A job that holds no window has no span.
        """
        jobs = np.asarray(jobs, dtype=np.int64)
        offsets, rows = _rows(self.at[jobs], self.count[jobs])
        return (
            self.n[jobs],
            self.volume[jobs],
            np.array(budget, dtype=float),
            self.start[jobs],
            self.runtime[jobs],
            self.cost[jobs],
            offsets,
            *(column[rows] for column in self._spans),
        )

    def _make_room(self, k: int) -> None:
        """Room for ``k`` more span rows: compact the live ones, into a larger store if needed."""
        live = np.flatnonzero(self.count)
        room = self._spans[0].size
        while room < 2 * (self._live + k):
            room *= 2
        offsets, rows = _rows(self.at[live], self.count[live])
        store = _span_store(room)
        for new, old in zip(store, self._spans, strict=True):
            new[: rows.size] = old[rows]
        self._spans = store
        self.at[live] = offsets[:-1]
        self._top = rows.size


def _rows(at: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (shape (R + 1,)) and the store's rows of ``R`` windows held at ``at``, ``count``."""
    offsets = np.zeros(at.size + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    return offsets, np.repeat(at - offsets[:-1], count) + np.arange(offsets[-1])


def _span_store(room: int) -> tuple[np.ndarray, ...]:
    """Empty span columns for ``room`` rows: node (int64), start, end, price, performance."""
    return (np.zeros(room, dtype=np.int64), *(np.zeros(room) for _ in range(4)))
