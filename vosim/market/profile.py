"""Free processors of a pool of identical processors over time: a step-function profile.

A pool's processors are interchangeable (one owner, performance and price), so what a
schedule needs to know of them is how many are free at each time, not which. Reservations
hold a *count* over ``[a, b)``; processor numbers are chosen only when a job starts.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from vosim.errors import SlotError

__all__ = ["FreeProfile", "level_spans"]


class FreeProfile:
    """The free-processor count of one pool as a step function of time, updated in place.

    ``free[i]`` processors are free over ``[times[i], times[i + 1])``; the last step lasts for
    ever. Holding and releasing a count over an interval splits steps at its ends; adjacent
    equal steps are merged, so the profile has at most one step per distinct end point of
    what it holds.

    Parameters
    ----------
    capacity : int
        Processors of the pool (>= 0).
    start : float, default 0.0
        Time from which the profile is kept (model time units); nothing before it is known.

    Raises
    ------
    SlotError
        ``capacity`` is negative; from :meth:`hold`, a count over more than is free; from
        :meth:`release`, a release beyond ``capacity``; an interval before ``start`` or with
        ``b < a``, or a negative count.

    Notes
    -----
    Each operation costs ``O(k)`` for ``k`` steps (list insertions), ``O(log k)`` to find its
    place.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2: conservative backfilling keeps "a
    profile of expected processor usage" and inserts each job at the first point where
    enough processors are free for its estimated run time.

    Examples
    --------
    >>> p = FreeProfile(4)
    >>> p.hold(2, 0.0, 100.0); p.hold(2, 0.0, 30.0)
    >>> p.steps()
    [(0.0, 0), (30.0, 2), (100.0, 4)]
    >>> p.earliest(2, 100.0, after=1.0)  # two processors for 100: free from 30 on
    30.0
    >>> p.earliest(3, 100.0, after=1.0)
    100.0
    """

    def __init__(self, capacity: int, start: float = 0.0) -> None:
        if capacity < 0:
            raise SlotError(f"a pool's capacity must be >= 0, got {capacity!r}")
        self.capacity = int(capacity)
        self.times: list[float] = [float(start)]
        self.free: list[int] = [self.capacity]

    @classmethod
    def of_changes(
        cls,
        capacity: int,
        time: float,
        at: np.ndarray | Sequence[float],
        delta: np.ndarray | Sequence[int],
    ) -> FreeProfile:
        """The profile from ``time`` on whose free count changes by ``delta[i]`` at ``at[i]``.

        Free processors at ``t`` are ``capacity + sum(delta[at <= t])``: a processor busy
        until ``r`` is ``(time, -1), (r, +1)``; ``count`` held over ``[a, b)`` is
        ``(a, -count), (b, +count)`` (a change at ``inf`` may be left out). ``at`` and
        ``delta`` have shape ``(c,)``; model time units. ``O(c log c)``, vectorised.

        Raises
        ------
        SlotError
            A change before ``time``, or a free count below 0 or above ``capacity``.
        """
        at = np.asarray(at, dtype=float).ravel()
        delta = np.asarray(delta, dtype=np.int64).ravel()
        if at.size and at.min() < time:
            raise SlotError(f"a change at {at.min():g} lies before the profile's start {time:g}")
        every = np.concatenate([[time], at])
        order = np.argsort(every, kind="stable")
        every = every[order]
        running = np.cumsum(np.concatenate([[0], delta])[order])
        last = np.flatnonzero(np.append(every[1:] != every[:-1], True))  # of each distinct time
        when, free = every[last], capacity + running[last]
        if free.size and not (0 <= free.min() and free.max() <= capacity):
            bad = free[(free < 0) | (free > capacity)][0]
            raise SlotError(f"the changes leave {bad} of {capacity} processors free")
        keep = np.concatenate([[True], free[1:] != free[:-1]])  # merge equal steps
        profile = cls(capacity, time)
        profile.times = when[keep].tolist()
        profile.free = free[keep].tolist()
        return profile

    def steps(self) -> list[tuple[float, int]]:
        """Every step as ``(from time, free processors)``, in time order."""
        return list(zip(self.times, self.free, strict=True))

    def free_at(self, t: float) -> int:
        """Processors free at time ``t`` (>= the profile's start)."""
        return self.free[self._index(t)]

    def free_over(self, a: float, b: float) -> int:
        """The fewest processors free at any time of ``[a, b)`` (all of them if ``b <= a``)."""
        if b <= a:
            return self.capacity
        i = self._index(a)
        j = bisect.bisect_left(self.times, b)
        return min(self.free[i:j])

    def hold(self, count: int, a: float, b: float) -> None:
        """Take ``count`` processors over ``[a, b)`` (model time units; ``b`` may be inf).

        Raises :class:`~vosim.errors.SlotError` if fewer than ``count`` are free somewhere
        in it (the profile is then unchanged).
        """
        self._change(-count, a, b)

    def release(self, count: int, a: float, b: float) -> None:
        """Give back ``count`` processors over ``[a, b)`` (the inverse of :meth:`hold`)."""
        self._change(count, a, b)

    def earliest(
        self,
        count: int,
        duration: float,
        after: float,
        own: tuple[float, float] | None = None,
    ) -> float | None:
        """The earliest ``s >= after`` with ``count`` processors free over ``[s, s + duration)``.

        With ``own = (a, b)``: the caller already holds ``count`` processors over ``[a, b)``
        (its current place, ``after <= a``). They count as free, and only a start before
        ``a`` is returned (the same answer as :meth:`release`, then this search, when that
        finds a start before ``a``; no change to the profile).

        ``None`` when there is none: ``count`` exceeds the capacity, processors are held for
        ever (``b = inf``) where it would have to fit, or no start before ``own``'s. A job of
        no processors or no length fits at ``after``.
        """
        if count > self.capacity:
            return None
        if count <= 0 or duration <= 0:
            return max(after, self.times[0])
        times, free = self.times, self.free
        k = len(times)
        a, b = own if own is not None else (math.inf, math.inf)
        s = max(after, times[0])
        i = self._index(s)
        while s < a:
            end = s + duration
            j = i
            while j < k and times[j] < end:
                if free[j] + (count if a <= times[j] < b else 0) < count:
                    break
                j += 1
            else:
                return s
            # step j is too full: no start before its end can fit; try from there
            if j + 1 == k:  # the last step lasts for ever: held without an end
                return None
            i = j + 1
            s = times[i]
        return None

    def levels(self, a: float, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The level decomposition of the free count over ``[a, b)``: rows ``(start, end, count)``.

        For every level ``l = 1 .. max c``, the maximal spans of ``[a, b)`` where at least ``l``
        processors are free, each clipped to ``[a, b)``; the spans of consecutive levels that
        coincide are one row with their number as ``count``. So ``k`` tasks of length ``d``
        fit at ``s`` (``a <= s``, ``s + d <= b``) exactly when the rows covering
        ``[s, s + d)`` hold ``count`` ``>= k`` between them, that is when
        ``free_over(s, s + d) >= k``: the processors re-assigned so that processor ``l`` is
        free wherever ``l`` are (a staircase), as a slot list of a pool would show them.

        Parameters
        ----------
        a, b : float
            The interval, model time units (``a >=`` the profile's start; ``b`` may be inf).

        Returns
        -------
        start, end : numpy.ndarray of float, shape (r,)
            Each row's span (``start < end``), rows ordered by start, then by end.
        count : numpy.ndarray of int, shape (r,)
            Levels sharing the span (>= 1); every ``(start, end)`` appears once.

        Raises
        ------
        SlotError
            ``a`` before the profile's start.

        Notes
        -----
        One pass over the ``k`` steps with a stack of open spans (the histogram's rectangle
        decomposition): ``O(k)``, at most one row per step boundary.

        References
        ----------
        AEP §2.1 (the slot list: each resource's free spans); the decomposition is vosim's,
        for pools of interchangeable processors.

        Examples
        --------
        >>> p = FreeProfile(3)
        >>> p.hold(2, 10.0, 20.0)
        >>> [tuple(map(float, r)) for r in zip(*p.levels(0.0, 30.0))]
        [(0.0, 10.0, 2.0), (0.0, 30.0, 1.0), (20.0, 30.0, 2.0)]
        """
        self._index(a)  # a before the start is an error even for an empty interval
        out = sorted(
            (t, u, hi - lo + 1) for t, u, lo, hi in level_spans(self.times, self.free, a, b)
        )
        if not out:  # no processor free anywhere in [a, b)
            return np.empty(0), np.empty(0), np.empty(0, dtype=np.int64)
        start, end, count = zip(*out, strict=True)
        return np.array(start), np.array(end), np.array(count, dtype=np.int64)

    def forget(self, now: float) -> None:
        """Drop what lies before ``now`` (later than the start): the profile starts at ``now``."""
        i = self._index(now)
        if i > 0 or now > self.times[0]:
            del self.times[:i], self.free[:i]
            self.times[0] = float(now)

    def _index(self, t: float) -> int:
        if t < self.times[0]:
            raise SlotError(f"time {t:g} lies before the profile's start {self.times[0]:g}")
        return bisect.bisect_right(self.times, t) - 1

    def _split(self, t: float) -> int:
        """Make ``t`` a step boundary; return its step's index."""
        i = self._index(t)
        if self.times[i] != t:
            i += 1
            self.times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
        return i

    def _change(self, delta: int, a: float, b: float) -> None:
        if delta == 0 or b <= a:
            if b < a:
                raise SlotError(f"interval [{a:g}, {b:g}) ends before it starts")
            return
        if math.isnan(a) or math.isnan(b):
            raise SlotError("an interval bound is NaN")
        i, j = self._index(a), bisect.bisect_left(self.times, b)
        most = self.capacity - max(delta, 0)  # a release must not exceed the capacity
        bad = next((f for f in self.free[i:j] if not -delta <= f <= most), None)
        if bad is not None:
            verb = "hold" if delta < 0 else "release"
            raise SlotError(
                f"cannot {verb} {abs(delta)} of {self.capacity} processors over "
                f"[{a:g}, {b:g}): {bad} are free there"
            )
        i = self._split(a)
        j = self._split(b) if math.isfinite(b) else len(self.times)
        for m in range(i, j):
            self.free[m] += delta
        self._merge(max(i - 1, 0), min(j + 1, len(self.times)))

    def _merge(self, i: int, j: int) -> None:
        """Merge equal adjacent steps among ``i .. j - 1``."""
        m = j - 1
        while m > i:
            if self.free[m] == self.free[m - 1]:
                del self.times[m], self.free[m]
            m -= 1


def level_spans(
    times: Sequence[float], free: Sequence[int], a: float, b: float
) -> list[tuple[float, float, int, int]]:
    """The levels of a free count over ``[a, b)``: spans ``(start, end, lowest, highest)``.

    Level ``l`` (``1 <= l <= max free``) is free wherever at least ``l`` processors are; each
    returned span is a maximal span of ``[a, b)`` shared by levels ``lowest .. highest`` (a
    level's spans are disjoint, and level ``l + 1``'s lie inside level ``l``'s). Giving level
    ``l`` to the ``l``-th processor of a pool re-assigns its processors so that ``k`` tasks fit
    over ``[s, e)`` exactly when ``k`` levels are free over all of it.

    Parameters
    ----------
    times : sequence of float, shape (k,)
        Step starts, increasing, model time units; the last step lasts for ever.
    free : sequence of int, shape (k,)
        Processors free in each step (>= 0).
    a, b : float
        The interval, model time units (``a >= times[0]``; ``b`` may be inf).

    Returns
    -------
    list of (float, float, int, int)
        The spans, in the order they close (not sorted); empty when ``a >= b`` or nothing
        is free.

    Raises nothing (``a`` before ``times[0]`` is read as ``times[0]``; the caller checks it,
    as :meth:`FreeProfile.levels` does).

    Notes
    -----
    One pass over the steps with a stack of open spans (the histogram's rectangle
    decomposition): ``O(k)``, at most one span per step boundary.

    References
    ----------
    AEP §2.1 (the slot list: each resource's free spans); Mu'alem & Feitelson (2001), §2
    (a profile of free processors). The decomposition is vosim's, for pools of
    interchangeable processors.

    Examples
    --------
    >>> level_spans([0.0, 10.0, 20.0], [3, 1, 3], 0.0, 30.0)
    [(0.0, 10.0, 2, 3), (20.0, 30.0, 2, 3), (0.0, 30.0, 1, 1)]
    """
    out: list[tuple[float, float, int, int]] = []
    stack: list[list] = []  # open spans [start, lowest level, highest level], levels rising
    i = max(bisect.bisect_right(times, a) - 1, 0)
    k = len(times) if a < b else i  # an empty interval: no step, no span
    while i < k and times[i] < b:
        t, c = max(times[i], a), free[i]
        top = stack[-1][2] if stack else 0
        while stack and stack[-1][2] > c:  # levels above c close at t
            span = stack[-1]
            lo = max(span[1], c + 1)
            out.append((span[0], t, lo, span[2]))
            if span[1] <= c:
                span[2] = c
            else:
                stack.pop()
            top = c
        if c > top:
            stack.append([t, top + 1, c])
        i += 1
    out += [(start, b, lo, hi) for start, lo, hi in reversed(stack)]
    return out
