"""Re-planning of unstarted reservations before a policy's pass (compression).

Windows hold a job's requested time, and jobs mostly end long before it (on UniLu-Gaia the
median run time is 0.0034 of the request). A reservation ahead of its pass (the cyclic scheme
reserves anywhere in a job's own interval, up to ``[t, t + L)``) then waits for time that is
freed long before it starts. Each pass, :class:`Replanner` first searches the unstarted
reservations again, in priority order, and moves each to the earliest window that is no worse
for its user; the policy then decides for the waiting jobs on the slots left. Conservative
backfilling does the same itself (``replans = True``) and is left alone.

A move never delays a job: its own window is always still free (it is put back before the
search), and it moves only to a window that starts strictly earlier. It is also no worse on
any user criterion: the new window's longest task is no longer (every node at least as fast as
the old window's slowest, so it also finishes earlier), it costs no more than the old one
(nor more than the job may spend now), and with utilization uncertainty its ``P_a^w`` is no
lower.

Where this departs from the papers: the cyclic scheduling scheme of VO Preferences §2 and AEP
is studied over one scheduling cycle, and a window, once chosen, is never revised; moving
reservations is vosim's extension (``VOModel(replan="never")`` keeps the papers' scheme, as
the ``aep`` and ``vo-preferences`` presets do). A move may give the owners less revenue than
the window the VO's step 2 chose (``C -> max``): the users' earlier start comes first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, SlotList
from vosim.core.code_path import reference
from vosim.core.windows import distinct
from vosim.market.free_time import members
from vosim.market.uncertainty import window_availability
from vosim.policies.base import (
    CycleState,
    Decisions,
    DecisionStatus,
    Policy,
    Replanned,
)
from vosim.policies.batch_windows import (
    _EPS,
    candidate_starts,
    cut_window,
    release,
    task_starts,
    window_at,
)
from vosim.policies.compression import compress
from vosim.policies.slot_groups import SlotGroups, cheapest_totals, movable

__all__ = ["REPLAN_MODES", "Replanned", "Replanner", "earlier_window", "replan"]

#: Values of ``VOModel(replan=...)``: ``"always"`` re-plans every pass (:class:`Replanner`),
#: ``"never"`` keeps every reservation where it was made (the papers' single-cycle scheme).
REPLAN_MODES = ("always", "never")

_NONE = np.empty(0, dtype=np.int64)


def earlier_window(
    slots: SlotList,
    job: ResourceRequest,
    old: Window,
    not_before: float,
    freed: np.ndarray | None = None,
    groups: SlotGroups | None = None,
    pool: np.ndarray | None = None,
) -> Window | None:
    """The earliest window for ``job`` that starts before ``old`` and is no worse for its user.

    The window :func:`~vosim.policies.batch_windows.earliest_window` finds from ``not_before`` in
    ``slots`` with ``old`` put back (:func:`~vosim.policies.batch_windows.release`), on the nodes
    fast enough that no task runs longer than ``old``'s longest, within a budget of
    ``min(job.budget, old.cost)``. The search is exhaustive: if it finds nothing earlier than
    ``old.start``, no window starts earlier with a run time and a cost no greater.

    Three shortcuts give the same window at a fraction of the cost. Slots that cannot be part
    of such a window are dropped before ``old`` is put back: only slots starting before
    ``old.start`` hold a window that does, and a slot whose task costs more than the budget
    less ``n - 1`` of the cheapest tasks is never among the ``n`` cheapest of a window within
    budget (so never in :func:`~vosim.policies.batch_windows.window_at`'s choice either);
    the rows of ``old``'s nodes are all kept, since putting ``old`` back may join them. With
    ``freed``, only starts at which a slot of a freed node can hold a task are tried.

    Parameters
    ----------
    slots : SlotList
        Free slots of the pass, in which ``old``'s spans are busy.
    job : ResourceRequest
        The reserved job (``n`` tasks of ``volume``); ``budget`` is what it may spend on a new
        window once ``old`` is cancelled, cost units.
    old : Window
        Its reservation, starting after ``not_before`` (model time units).
    not_before : float
        The pass time ``t``, model time units.
    freed : numpy.ndarray of int, shape (k,), optional
        The only nodes whose free time may have grown since the same search found nothing
        (same ``job`` and ``old``; time has only been taken elsewhere since). A window found
        now must then use one of them, or it would have been found then; so the answer is the
        same as without ``freed``. ``None`` (default): no earlier search is known.
    groups : SlotGroups, optional
        ``slots`` grouped (built once per slot list and shared by the searches on it). With
        it, :func:`~vosim.policies.slot_groups.movable` first decides over the groups
        whether any start before ``old.start`` may hold the window, and the per-slot search
        runs only if one may: the same answer (a test compares), at a fraction of the cost
        where, as on processors, most searches find nothing.
    pool : numpy.ndarray of int, shape (n_nodes,), optional
        Each node's pool when ``slots`` is a count view: ``old`` is put back into its pools'
        counts (:func:`~vosim.policies.batch_windows.release` with ``pool``), whose rows are
        all kept, and ``groups`` is not used (its test reads ``old``'s spans as they are).

    Returns
    -------
    Window or None
        The window, with ``window.start < old.start``, ``window.runtime <= old.runtime``
        and ``window.cost <= min(job.budget, old.cost)`` (both up to a relative ``1e-9``);
        ``None`` when there is none. To apply it, cut it out of ``release(slots, old)``.

    Notes
    -----
    ``O(m)`` for ``m`` slots, plus ``O(k log k)`` for the ``k`` slots kept and ``O(k)`` per
    start tried.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2: compression of conservative
    backfilling, where a reservation moves earlier when jobs end before their estimates.

    Examples
    --------
    >>> from vosim.core import Slot
    >>> old = Window(slots=(Slot(0, 200.0, 300.0, 1.0, 1.0),), start=200.0, runtime=100.0,
    ...              cost=100.0)
    >>> free = SlotList([Slot(0, 150.0, 200.0, 1.0, 1.0), Slot(0, 300.0, 900.0, 1.0, 1.0),
    ...                  Slot(1, 0.0, 900.0, 5.0, 1.0)])  # node 1: earlier but 5x the cost
    >>> job = ResourceRequest(index=0, n=1, volume=100.0, budget=1e9)
    >>> w = earlier_window(free, job, old, 0.0)
    >>> w.nodes, w.start, w.cost
    ((0,), 150.0, 100.0)
    """
    if freed is not None and freed.size == 0:
        return None
    budget = min(job.budget, old.cost)
    spans = old.spans
    if groups is not None and pool is None:
        held = (spans.node, spans.start, spans.end, spans.price, spans.performance)
        if not movable(groups, held, job.volume, job.n, old.runtime, budget, old.start, not_before):
            return None
    low = _cheapest_task(slots, job, old)
    if not np.isfinite(low):
        return None
    bound = budget * (1 + 1e-6) - (job.n - 1) * low

    def usable(sl: SlotList) -> np.ndarray:
        cheap = _task_cost(sl, job) <= bound
        return (sl.start < old.start) & _fast(sl, job, old) & cheap

    nodes = spans.node if pool is None else members(pool, spans.node)
    free = release(_rows(slots, usable(slots) | np.isin(slots.node, nodes)), old, pool)
    free = _rows(free, usable(free))
    search = job if budget == job.budget else dataclasses.replace(job, budget=budget)
    starts = candidate_starts(free, search, not_before)
    if freed is not None and starts.size:  # starts where a freed node's slot holds a task
        lo, hi = task_starts(free, search, not_before)
        mine = np.isin(free.node, freed) & (lo <= hi)
        lo, hi = lo[mine], hi[mine]
        starts = starts[((lo <= starts[:, None]) & (starts[:, None] <= hi)).any(axis=1)]
    for t in _affordable(free, search, starts[starts < old.start], not_before):
        window = window_at(free, t, search)
        if window is not None:
            return window
    return None


def _affordable(
    slots: SlotList, job: ResourceRequest, starts: np.ndarray, not_before: float
) -> Iterator[float]:
    """The ``starts`` (ascending) at which the ``n`` cheapest tasks may fit ``job.budget``.

    For each start, the sum of the ``n`` cheapest task costs over the slots that can hold a
    task then, for all starts at once; a start where that sum exceeds the budget is one where
    :func:`~vosim.policies.batch_windows.window_at` finds no window (it takes the ``n`` cheapest),
    so only the others are yielded, in order. Slots are counted as usable a little beyond
    :func:`~vosim.policies.batch_windows.task_starts`' bound and the budget is loosened by
    ``1e-6``, so float rounding never drops a start that ``window_at`` takes. A few starts
    are yielded as they are (trying them costs less than the sums).

    Slots alike for the sums (one task cost and one range of task starts: on processors, the
    free processors of one node) are counted as one group with a multiplicity, which makes the
    sums 10-15 times less work on UniLu-Gaia's processors; a test compares the starts yielded
    with a plain sum of the ``n`` cheapest at each start.
    """
    if starts.size <= _FEW_STARTS:
        yield from starts.tolist()
        return
    cost = _task_cost(slots, job)
    lo, hi = task_starts(slots, job, not_before)
    hi = hi + 1e-9 * np.maximum(np.abs(hi), 1.0)
    holds = lo <= hi  # a slot that can hold no task is never usable
    cost, lo, hi = cost[holds], lo[holds], hi[holds]
    # groups of equal (cost, lo, hi), by cost: a count each
    order = np.lexsort((hi, lo, cost))
    cost, lo, hi = cost[order], lo[order], hi[order]
    new = np.ones(cost.size, dtype=bool)
    new[1:] = (cost[1:] != cost[:-1]) | (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    first = np.flatnonzero(new)
    count = np.diff(np.append(first, cost.size))
    cost, lo, hi = cost[first], lo[first], hi[first]
    limit = job.budget * (1 + 1e-6)
    for t, total in cheapest_totals(cost, lo, hi, count, starts, job.n):
        yield from t[total <= limit].tolist()


#: Up to this many candidate starts, :func:`_affordable` tries each (no sums).
_FEW_STARTS = 4


def _rows(slots: SlotList, keep: np.ndarray) -> SlotList:
    """The rows of ``slots`` where ``keep`` (bool, shape (m,)) holds, in order."""
    if keep.all():
        return slots
    return SlotList.trusted(*(getattr(slots, f)[keep] for f in SlotList.__slots__))


def _fast(slots: SlotList, job: ResourceRequest, old: Window) -> np.ndarray:
    """Slots whose node runs ``job``'s task no longer than ``old``'s longest (bool, (m,))."""
    return job.volume / slots.performance <= old.runtime * (1 + _EPS)


def _cheapest_task(slots: SlotList | SlotGroups, job: ResourceRequest, old: Window) -> float:
    """The least a task of ``job`` fast enough for ``old`` costs on a slot or on ``old``.

    A lower bound of every task of a window :func:`earlier_window` may find (its slots are
    those of ``slots`` with ``old`` put back), cost units; ``inf`` when no node is fast
    enough. ``O(m)`` for ``m`` slots.
    """
    spans = old.spans
    spans_fast = job.volume / spans.performance <= old.runtime * (1 + _EPS)
    fast = _fast(slots, job, old)
    return min(
        float(_task_cost(slots, job)[fast].min()) if fast.any() else np.inf,
        float((spans.price * (job.volume / spans.performance))[spans_fast].min())
        if spans_fast.any()
        else np.inf,
    )


def _cheapest_each(
    groups: SlotGroups, reserved: list[tuple[ResourceRequest, Window]]
) -> np.ndarray:
    """:func:`_cheapest_task` of every reservation of ``reserved`` at once, shape (R,).

    One (R, G) broadcast over the ``G`` groups of the pass's slots and one reduction over
    all the windows' spans, instead of one call per reservation; the same values (the same
    float operations on the same numbers).
    """
    volume = np.array([job.volume for job, _ in reserved])
    slow = np.array([old.runtime for _, old in reserved]) * (1 + _EPS)
    task = volume[:, None] / groups.performance
    low = np.where(task <= slow[:, None], groups.price * task, np.inf).min(axis=1, initial=np.inf)
    spans = [old.spans for _, old in reserved]
    size = np.array([len(sp) for sp in spans])
    task = np.repeat(volume, size) / np.concatenate([sp.performance for sp in spans])
    price = np.concatenate([sp.price for sp in spans])
    cost = np.where(task <= np.repeat(slow, size), price * task, np.inf)
    return np.minimum(low, np.minimum.reduceat(cost, np.cumsum(size) - size))


def _may_use(
    near_slots: SlotList,
    near: np.ndarray,
    job: ResourceRequest,
    old: Window,
    now: float,
    low: float = 0.0,
) -> bool:
    """Whether a slot of ``near`` nodes may hold one of ``job``'s tasks before ``old.start``.

    ``near_slots`` holds those nodes' free slots; a node of ``old`` among them always passes
    (putting ``old`` back may join its span to a slot). The task must also be fast enough
    and cost no more than the window may with its ``n - 1`` other tasks costing at least
    ``low`` each (:func:`_cheapest_task` of the pass's slots; 0 by default). A necessary
    condition of :func:`earlier_window` with ``freed=near`` finding a window.
    """
    if not set(near.tolist()).isdisjoint(old.spans.node.tolist()):
        return True
    sl = near_slots
    lo, hi = task_starts(sl, job, now)
    limit = min(job.budget, old.cost) * (1 + 1e-6) - (job.n - 1) * low
    cheap = _task_cost(sl, job) <= limit
    return bool(((sl.start < old.start) & _fast(sl, job, old) & (lo <= hi) & cheap).any())


def _may_use_each(
    near_slots: SlotList,
    near: np.ndarray,
    reserved: list[tuple[ResourceRequest, Window]],
    now: float,
    low: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`_may_use` for every reservation of ``reserved`` at once, bool shape (R,).

    ``low`` (shape (R,)): each reservation's ``low`` (default zeros). One broadcast over
    ``near_slots``' rows and the reservations instead of one call each; the same answers (a
    test compares them).
    """
    if not reserved:
        return np.zeros(0, dtype=bool)
    tasks = np.array([job.n - 1 for job, _ in reserved])
    low = np.zeros(len(reserved)) if low is None else low
    volume = np.array([job.volume for job, _ in reserved])[:, None]
    budget = np.array([min(job.budget, old.cost) for job, old in reserved])
    budget = (budget * (1 + 1e-6) - tasks * low)[:, None]
    start = np.array([old.start for _, old in reserved])[:, None]
    runtime = np.array([old.runtime for _, old in reserved])[:, None]
    sl = near_slots
    task = volume / sl.performance  # (R, m)
    usable = (
        (sl.start < start)
        & (task <= runtime * (1 + _EPS))
        & (np.maximum(sl.start, now) <= sl.end - task * (1 - _EPS))
        & (sl.price * task <= budget)
    ).any(axis=1)
    near_set = set(near.tolist())
    own = [not near_set.isdisjoint(old.spans.node.tolist()) for _, old in reserved]
    return usable | np.array(own, dtype=bool)


def _task_cost(slots: SlotList, job: ResourceRequest) -> np.ndarray:
    """What one of ``job``'s tasks costs on each slot's node, shape (m,), cost units."""
    return slots.price * (job.volume / slots.performance)


def replan(
    state: CycleState,
    known: Callable[[ResourceRequest, Window], bool] | None = None,
    freed: np.ndarray | None = None,
) -> Replanned:
    """Move the unstarted reservations of ``state`` to earlier windows, in priority order.

    Each reservation of ``state.reserved`` in turn is searched again
    (:func:`earlier_window`) on the slots left by the moves before it; with utilization
    uncertainty (``state.availability``) a move must also keep ``P_a^w`` no lower. A
    reservation not moved keeps its window.

    Parameters
    ----------
    state : CycleState
        The pass; reads ``time``, ``reserved``, ``slots`` (only if there is a reservation to
        search) and ``availability`` (only for a move found).
    known : callable (ResourceRequest, Window) -> bool, optional
        Whether a reservation was searched at an earlier pass with this window and found
        nothing, with no free time gained since but on ``freed``. Such a reservation is
        searched only for windows on ``freed`` or on the nodes of the moves before it in this
        pass (the same answer, :func:`earlier_window`), and not at all if there are none; a
        one-task job only among those nodes' slots (its window is one slot, on one of them).
        ``None`` (default): every reservation is searched in full.
    freed : numpy.ndarray of int, shape (k,), optional
        Nodes that gained free time since the previous pass (``state.freed``); read with
        ``known``.

    Returns
    -------
    Replanned
        The moves and the slots, reservations and freed nodes after them.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (compression: a reserved job moves earlier when jobs end
    before their estimates, never later); vosim's rule applies it to every policy's
    reservations.
    """
    decisions = Decisions()
    out: list[tuple[ResourceRequest, Window]] = []
    slots: SlotList | None = None
    moved: list[int] = []
    pool = state.pool
    gained = _NONE if freed is None else freed
    joined = gained  # gained and the nodes of the moves so far
    cached: tuple = (None, None, None)  # (near, slots, near's rows of slots)
    first: np.ndarray | None = None  # _may_use of each reservation before any move
    grouped: SlotGroups | None = None  # slots, grouped once per list (a move makes a new one)
    for i, (job, old) in enumerate(state.reserved):
        if slots is None:
            slots = state.slots
        if grouped is not None and grouped.slots is not slots:
            grouped = None  # a move made a new list
        near = None
        if known is not None and known(job, old):
            near = joined
            if near.size == 0:
                out.append((job, old))
                continue
            if cached[0] is not near or cached[1] is not slots:
                cached = (near, slots, _rows(slots, np.isin(slots.node, near)))
            grouped = grouped or SlotGroups(slots)
            if not moved and first is None:
                lows = _cheapest_each(grouped, state.reserved)
                first = _may_use_each(cached[2], near, state.reserved, state.time, lows)
            if moved:
                low = _cheapest_task(grouped, job, old)
                may = _may_use(cached[2], near, job, old, state.time, low)
            else:
                may = first[i]
            if not may:
                out.append((job, old))
                continue
        if near is not None and job.n == 1 and pool is None:
            # a one-task window found now lies on a node of near: one elsewhere was free at
            # the earlier search too, and would have been found then (earlier_window's freed)
            search, groups = cached[2], None
        else:
            grouped = grouped or SlotGroups(slots)
            search, groups = slots, grouped
        window = earlier_window(search, job, old, state.time, near, groups, pool)
        if window is not None and state.availability is not None:
            schedule = state.availability
            if window_availability(window, schedule) < window_availability(old, schedule):
                window = None
        if window is None:
            out.append((job, old))
            continue
        slots = cut_window(release(slots, old, pool), window, pool)
        decisions.cancel.append(job.index)
        decisions.reserve.append((job.index, window))
        moved.extend((old.spans.node if pool is None else members(pool, old.spans.node)).tolist())
        joined = np.union1d(gained, moved)  # one array per move: the rows cache holds
        out.append((job, window))
    decisions.stats["moved"] = len(decisions.reserve)
    if not moved:
        return Replanned(decisions.settle(), None, out, _NONE)
    return Replanned(decisions.settle(), slots, out, distinct(np.asarray(moved, dtype=np.int64)))


def _given(state: CycleState, name: str) -> Any:
    """A lazy field of ``state`` as given: its value if already built, else its source."""
    return state.__dict__.get(name, state.__dict__[f"_{name}_source"])


def _same(searched: Window | None, held: Window) -> bool:
    """Whether ``held`` is the window ``searched`` at the last pass: start, cost and nodes.

    The owners keep a reserved window in another form (its spans as columns), so a window
    a move found is not the object the next pass reads back.
    """
    if searched is held:
        return True
    return (
        searched is not None
        and searched.start == held.start
        and searched.cost == held.cost
        and np.array_equal(searched.spans.node, held.spans.node)
    )


class Replanner:
    """Runs :func:`replan` before a policy's pass and merges the moves into its decisions.

    The policy decides on the state after the moves: the slots left, the reservations moved,
    and ``freed`` joined by the moved jobs' old nodes (a policy that lets request classes
    sleep wakes them there). The merged decisions list the moves first (cancel and reserve),
    then the policy's own. When no reservation is pending (policies that only start jobs at
    the pass time, e.g. ``fcfs`` and ``easy``) the policy gets ``state`` itself: the same
    decisions as without re-planning, at no cost.

    Parameters
    ----------
    static : bool
        Prices and owners never change (fixed pricing, no owner exit): free time then grows
        only where reserved time is freed (``state.freed``: early ends, interruptions,
        cancellations, the moves, and windows decided but not taken), so a reservation
        searched before with its window is searched again only for windows on those nodes
        (:func:`replan`'s ``known``). That
        holds too for a window a move took at the previous pass: it was the earliest there,
        and a window earlier than it and no worse would have been no worse than the one it
        left, so found then unless it uses time freed since (the old window's nodes are
        among those freed). Otherwise, and after a budget refresh, every reservation is
        searched in full. Both give the same moves (a test compares them). Per-period
        accounts do not break this: a move costs at most the held window, so a balance never
        enables one. With utilization uncertainty (``state.availability``) a move must also keep
        ``P_a^w`` no lower, and ``P_a^w`` changes with the pass time alone; the same rule then
        decides when a reservation is searched again (where time was freed since its last
        search), so a move refused for ``P_a^w`` is retried only with freed time: a rule of
        vosim's, not the full search (which made 300 Gaia jobs 10x slower).

    Attributes
    ----------
    moved : int
        Reservations moved so far.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (compression); vosim's rule applies it to
    every policy's reservations.
    """

    def __init__(self, static: bool = False) -> None:
        self.static = static
        self.moved = 0
        self._seen: dict[int, Window] = {}  # job index -> window searched last pass

    def decide(self, policy: Policy, state: CycleState) -> Decisions:
        """Re-plan ``state.reserved``, then ``policy.decide`` on what is left; merged decisions.

        Parameters
        ----------
        policy : Policy
            The pass's policy (called exactly once).
        state : CycleState
            The pass.

        Returns
        -------
        Decisions
            The moves (``cancel`` and ``reserve`` first, ``stats["moved"]``), then the
            policy's decisions; ``outcome`` is ``DECIDED`` if anything moved.
        """
        if not state.reserved:
            self._seen = {}
            return policy.decide(state)
        seen = self._seen
        search = replan if reference() else compress  # the plain pass, or its compiled form
        if not self.static or state.refreshed:
            result = search(state)  # time or money may have appeared anywhere: search all
        elif not state.freed.size and all(_same(seen.get(j.index), w) for j, w in state.reserved):
            # nothing freed and every reservation searched as it is: the search would look
            # only where time was freed, so nothing moves (no slot list needed)
            result = Replanned(Decisions().settle(), None, list(state.reserved), _NONE)
        else:
            result = search(state, lambda job, w: _same(seen.get(job.index), w), state.freed)
        self._seen = {job.index: w for job, w in result.reserved}
        moves = result.decisions
        if result.slots is None:
            decisions = policy.decide(state)
        else:
            after = CycleState(
                state.time,
                state.until,
                result.slots,
                _given(state, "queue"),
                result.reserved,
                owner=state.owner,
                arrived=_given(state, "arrived"),
                freed=distinct(np.concatenate([state.freed, result.freed])),  # their union
                refreshed=state.refreshed,
                left=state.left,
                balance=state.balance,
                availability=_given(state, "availability"),
                processors=None,  # the count form described the slots before the moves
                pool=state.pool,
            )
            decisions = policy.decide(after)
        self.moved += len(moves.reserve)
        # a move is not an alternative: the count stays the policy's own
        decisions.stats.setdefault("alternatives", len(decisions.reserve))
        decisions.cancel[:0] = moves.cancel
        decisions.reserve[:0] = moves.reserve
        decisions.stats["moved"] = len(moves.reserve)
        if moves.reserve:
            decisions.outcome = DecisionStatus.DECIDED
        return decisions
