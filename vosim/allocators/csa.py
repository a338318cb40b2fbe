"""Alternatives: CSA (repeated AMP with slot cutting) and step 1 of the cyclic scheme.

An *alternative* is a window found for a job and cut out of the slot list, so alternatives
never share a slot: of one job (CSA, AEP §3.1) or of all the jobs of a batch (step 1 of the
cyclic scheduling scheme, VO Preferences §2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vosim.allocators.base import allocate_window
from vosim.allocators.request_screen import FITS_MAYBE, SCREEN_REASONS, batch_screen
from vosim.core.results import Result, Status
from vosim.core.slots import SlotList
from vosim.core.windows import Allocation, ResourceRequest, Window
from vosim.errors import RequestError, UnknownAllocatorError

__all__ = [
    "CSA_SEARCHES",
    "Alternatives",
    "BatchAlternatives",
    "find_alternatives",
    "csa",
    "csa_paper",
    "batch_alternatives",
]


@dataclass(frozen=True, slots=True)
class Alternatives(Result):
    """Alternatives of one job, disjoint in slots.

    Parameters
    ----------
    windows : tuple of Window
        In the order found.
    slots : SlotList
        The slot list with every alternative cut out.
    reason : str
        Why the search stopped: the limit was reached, or the allocator's reason for finding
        no further window.
    criterion : str
        The window criterion each alternative was searched with.

    Attributes
    ----------
    status : Status
        ``FEASIBLE`` when at least one alternative was found (alternatives are a first-fit
        set, not an optimum), else ``INFEASIBLE``.
    message : str
        ``reason``: why the search stopped.

    References
    ----------
    AEP §3.1 (CSA); ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    windows: tuple[Window, ...]
    slots: SlotList
    reason: str
    criterion: str

    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The alternatives found (``windows``, in the order found)."""
        return self.windows

    @property
    def objective(self) -> float:
        """NaN: a set of alternatives has no single value (each window has its own)."""
        return math.nan

    @property
    def status(self) -> Status:
        """``FEASIBLE`` when an alternative was found, else ``INFEASIBLE``."""
        return Status.FEASIBLE if self.windows else Status.INFEASIBLE

    @property
    def message(self) -> str:
        """``reason``, or the status's default message when it is empty."""
        return self.reason or self.status.default_message


def find_alternatives(
    slots: SlotList, request: ResourceRequest, criterion: str = "amp", limit: int | None = None
) -> Alternatives:
    """Find alternatives for one job: repeat the criterion, cutting each window out.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval (not modified).
    request : ResourceRequest
        The job's resource request.
    criterion : str
        A registered window criterion (see :func:`~vosim.allocators.base.criteria`).
    limit : int, optional
        At most this many alternatives (>= 1); ``None`` for all the interval holds.

    Returns
    -------
    Alternatives
        Windows in the order found (none if the first search fails; ``reason`` says why).

    Raises
    ------
    RequestError
        ``limit < 1``.
    UnknownAllocatorError
        ``criterion`` is not registered.

    Notes
    -----
    ``k`` alternatives cost ``k`` searches and ``k`` cuts, ``O(k * m * N)`` for AEP criteria
    over ``m`` slots on ``N`` nodes.

    References
    ----------
    AEP §3.1, item 6 (CSA: "a set of suitable alternatives, disjointed by the slots, is
    allocated for each job"); VO Preferences §2.
    """
    if limit is not None and limit < 1:
        raise RequestError(f"limit of alternatives must be >= 1 or None, got {limit!r}")
    windows: list[Window] = []
    while limit is None or len(windows) < limit:
        result = allocate_window(slots, request, criterion)
        if result.window is None:
            return Alternatives(tuple(windows), slots, result.reason, criterion)
        windows.append(result.window)
        slots = slots.cut(result.window)
    return Alternatives(tuple(windows), slots, f"limit of {limit} alternative(s)", criterion)


#: The AMP searches CSA can repeat: vosim's (the ``n`` cheapest slots at the earliest start)
#: and the paper's (the first ``n`` parallel slots in scan order within budget).
CSA_SEARCHES = ("amp", "amp_paper")


def csa(
    slots: SlotList, request: ResourceRequest, limit: int | None = None, *, search: str = "amp"
) -> Alternatives:
    """CSA: all alternatives of one job by repeated AMP with the found windows cut out.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval (not modified).
    request : ResourceRequest
        The job's resource request.
    limit : int, optional
        At most this many alternatives; ``None`` for every alternative of the interval.
    search : {"amp", "amp_paper"}
        The AMP that finds each alternative: vosim's :func:`~vosim.allocators.aep.amp`
        (default) or the paper's :func:`~vosim.allocators.aep.amp_paper`.

    Returns
    -------
    Alternatives
        ``criterion=search``. The best alternative by any criterion is then a ``min`` over
        ``windows`` (e.g. ``min(a.windows, key=lambda w: w.finish)``): CSA optimises at the
        selection stage.

    Raises
    ------
    RequestError
        ``limit < 1``.
    UnknownAllocatorError
        ``search`` is not one of :data:`CSA_SEARCHES`.

    References
    ----------
    AEP §3.1, item 6 ("Common Stats, AMP"), Tables 1-2 (alternatives found and working time).

    Examples
    --------
    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 4.0)])
    >>> alts = csa(sl, ResourceRequest(n=2, time=30.0))
    >>> [(w.start, w.nodes) for w in alts.windows]
    [(0.0, (0, 1)), (30.0, (0, 1)), (60.0, (0, 1))]
    """
    if search not in CSA_SEARCHES:
        raise UnknownAllocatorError(
            f"CSA repeats AMP: search must be one of {', '.join(CSA_SEARCHES)}, got {search!r}"
        )
    return find_alternatives(slots, request, search, limit)


def csa_paper(slots: SlotList, request: ResourceRequest, limit: int | None = None) -> Alternatives:
    """The paper's CSA: repeated paper's AMP (first ``n`` parallel slots) with cuts.

    ``csa(slots, request, limit, search="amp_paper")``: each alternative is the window of
    :func:`~vosim.allocators.aep.amp_paper` in what the earlier ones left, until none fits.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval (not modified).
    request : ResourceRequest
        The job's resource request (``n`` slots, volume or time, budget ``C``).
    limit : int, optional
        At most this many alternatives (>= 1); ``None`` for every alternative of the interval.

    Returns
    -------
    Alternatives
        ``criterion="amp_paper"``; windows disjoint in slots, each within ``C``.

    Raises
    ------
    RequestError
        ``limit < 1``.

    References
    ----------
    AEP §3.1, item 6: "the scheme for searching multiple alternatives using AMP ... a set of
    suitable alternatives, disjointed by the slots"; §2.2 (AMP); Tables 1-2.

    Examples
    --------
    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 3.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 2.0),
    ...                Slot(2, 0.0, 100.0, 1.0, 2.0)])
    >>> alts = csa_paper(sl, ResourceRequest(n=2, time=50.0, budget=200.0))
    >>> [(w.start, w.nodes) for w in alts.windows]
    [(0.0, (0, 1)), (50.0, (0, 2))]
    """
    return csa(slots, request, limit, search="amp_paper")


@dataclass(frozen=True, slots=True)
class BatchAlternatives(Result):
    """Alternatives of every job of a batch, disjoint in slots across the whole batch.

    Parameters
    ----------
    windows : list of list of Window
        ``windows[i]``: the alternatives of job ``i`` in the order found (maybe empty).
    slots : SlotList
        The slot list with every alternative of every job cut out.
    reasons : list of str
        Per job, why its search stopped (its limit, or why no further window fits).

    Attributes
    ----------
    status : Status
        ``FEASIBLE`` when some job got an alternative, else ``INFEASIBLE``.
    message : str
        How many jobs got alternatives; when none did, why (the jobs' reason when they share
        one).

    References
    ----------
    VO Preferences §2 (step 1 of the cyclic scheme); ``scipy.optimize.OptimizeResult`` for
    ``status`` and ``message``.
    """

    windows: list[list[Window]]
    slots: SlotList
    reasons: list[str]

    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The alternatives of every job (``windows``, one list per job)."""
        return self.windows

    @property
    def objective(self) -> float:
        """NaN: sets of alternatives have no single value (each window has its own)."""
        return math.nan

    @property
    def status(self) -> Status:
        """``FEASIBLE`` when some job got an alternative, else ``INFEASIBLE``."""
        return Status.FEASIBLE if any(self.windows) else Status.INFEASIBLE

    @property
    def message(self) -> str:
        """A sentence on the batch (see the class's Attributes)."""
        jobs = len(self.windows)
        if self.status is Status.FEASIBLE:
            found = sum(1 for w in self.windows if w)
            return f"alternatives found for {found} of {jobs} job(s)"
        if not jobs:
            return "no job in the batch"
        text = f"no alternative for any of the {jobs} job(s)"
        shared = set(self.reasons)
        return f"{text}: {self.reasons[0]}" if len(shared) == 1 and self.reasons[0] else text


def batch_alternatives(
    slots: SlotList,
    requests: Sequence[ResourceRequest],
    criteria: Sequence[str | Callable[[SlotList, ResourceRequest], Allocation]],
    max_alternatives: int | None,
    cut: Callable[[SlotList, Window], SlotList] = SlotList.cut,
) -> BatchAlternatives:
    """Step 1 of the cyclic scheduling scheme: alternatives for a batch in queue order.

    Passes over the batch in queue order; in each pass every job that has fewer than
    ``max_alternatives`` and has not run out gets one more alternative by its own criterion
    (first fit in the VO Preferences sense: the window its criterion finds in what is left),
    and that window is cut out of the slot list so that no two alternatives, of one job or of
    different jobs, share a slot. Passes repeat until no job gets a new alternative.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval (not modified).
    requests : sequence of ResourceRequest
        The batch, in queue order (shape (J,)).
    criteria : sequence of str or callable
        A registered window criterion per job (shape (J,)), e.g. the one matching the user's
        criterion: ``min_finish``, ``min_runtime`` or ``min_cost``; or a function
        ``(slots, request) -> Allocation`` (e.g. a maximum-availability search).
    max_alternatives : int or None
        At most this many alternatives per job (>= 1); ``None``: until the slots run out.
    cut : callable (SlotList, Window) -> SlotList
        How a window found leaves the slot list: :meth:`SlotList.cut` (default); a count
        view's ``cut_window``, which also re-levels the window's pools.

    Returns
    -------
    BatchAlternatives

    Raises
    ------
    RequestError
        ``max_alternatives < 1`` or ``criteria`` and ``requests`` differ in length.
    UnknownAllocatorError
        A criterion is not registered.

    Notes
    -----
    The paper searches "one first-fit alternative for each job, in turn" and reserves its
    slots; the round-robin passes are that rule repeated, so early jobs keep the priority of
    queue order (their first alternatives are found before any later job's) without one job
    taking all the resources for its ``k``-th alternative before the next job's first. At
    most ``J * max_alternatives`` searches. After every cut the batch is screened again with
    :func:`~vosim.allocators.request_screen.screen_batch` (necessary conditions,
    ``O(m + J log N)``),
    and requests that can no longer fit are not searched: the windows found are the same.

    References
    ----------
    VO Preferences §2: "alternatives are searched sequentially, one first-fit alternative per
    job; the slots of each found alternative are reserved ... so different alternatives never
    conflict"; Toporkov et al. (2012) for the cyclic scheme.

    Examples
    --------
    Two nodes free on [0, 100) hold two 40-long tasks each; the jobs take turns:

    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 4.0)])
    >>> batch = batch_alternatives(sl, [ResourceRequest(n=1, time=40.0)] * 2, ["amp"] * 2, 3)
    >>> [[(w.start, w.nodes) for w in alts] for alts in batch.windows]
    [[(0.0, (0,)), (40.0, (0,))], [(0.0, (1,)), (40.0, (1,))]]
    """
    if max_alternatives is not None and max_alternatives < 1:
        raise RequestError(f"max_alternatives must be >= 1 or None, got {max_alternatives!r}")
    if len(criteria) != len(requests):
        raise RequestError(f"{len(requests)} requests but {len(criteria)} criteria")
    windows: list[list[Window]] = [[] for _ in requests]
    limit = max_alternatives if max_alternatives is not None else math.inf
    reasons = [f"limit of {max_alternatives} alternative(s)"] * len(requests)
    active = list(range(len(requests)))
    codes = None  # screening codes against the current slot list (None before any cut)
    screen = None
    while active:
        still = []
        for i in active:
            if codes is not None and codes[i] != FITS_MAYBE:
                reasons[i] = SCREEN_REASONS[int(codes[i])]
                continue
            criterion = criteria[i]
            if callable(criterion):
                result = criterion(slots, requests[i])
            else:
                result = allocate_window(slots, requests[i], criterion)
            if result.window is None:
                reasons[i] = result.reason
                continue
            windows[i].append(result.window)
            slots = cut(slots, result.window)
            # Cuts only shrink slots: rule out, in one vectorised pass, the requests that can
            # no longer fit, instead of letting each allocator find that out on its own.
            screen = screen or batch_screen(requests)
            codes = screen(slots)
            if len(windows[i]) < limit:
                still.append(i)
        active = still
    return BatchAlternatives(windows, slots, reasons)
