"""Shared types of the window allocators and the registry of criteria by name."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vosim.errors import RequestError, UnknownAllocatorError
from vosim.market.slots import Slot, SlotList

__all__ = [
    "ResourceRequest",
    "Window",
    "Allocation",
    "register_criterion",
    "criteria",
    "allocate_window",
]


@dataclass(frozen=True, slots=True)
class ResourceRequest:
    """A resource request of a parallel job: ``n`` concurrent slots within budget ``C``.

    Give either ``volume`` (heterogeneous nodes: the task on node ``i`` needs
    ``T_i = volume / performance_i`` time units) or ``time`` (the reservation time ``T``, the same
    on every node).

    Parameters
    ----------
    n : int
        Node count, the number of concurrent slots (>= 1).
    volume : float, optional
        Computation volume ``V`` of each task, in performance x time units (> 0).
    time : float, optional
        Reservation time ``T`` in model time units (> 0), independent of performance.
    budget : float
        Budget ``C``: the maximum total window cost (>= 0; ``inf`` for no limit).
    min_performance : float
        Only nodes with at least this performance qualify (>= 0).

    Raises
    ------
    RequestError
        ``n < 1``, both or neither of ``volume``/``time``, a non-positive volume or time, a
        negative or NaN budget, or a negative ``min_performance``.

    References
    ----------
    AEP §2.1: "n concurrent time-slots ... reserved for a time span T_i"; total cost bounded by
    the budget ``S``; VO Preferences §2.

    Examples
    --------
    >>> r = ResourceRequest(n=5, volume=750.0, budget=1500.0)
    >>> r.durations(np.array([5.0, 10.0])).tolist()
    [150.0, 75.0]
    """

    n: int
    volume: float | None = None
    time: float | None = None
    budget: float = math.inf
    min_performance: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise RequestError(f"node count n must be an integer >= 1, got {self.n!r}")
        if (self.volume is None) == (self.time is None):
            raise RequestError("give exactly one of volume (V) and time (T)")
        amount = self.volume if self.volume is not None else self.time
        if not (
            isinstance(amount, (int, float, np.number)) and math.isfinite(amount) and amount > 0
        ):
            name = "volume V" if self.volume is not None else "reservation time T"
            raise RequestError(f"{name} must be a finite number > 0, got {amount!r}")
        if not self.budget >= 0:  # also rejects NaN
            raise RequestError(f"budget C must be >= 0, got {self.budget!r}")
        if not self.min_performance >= 0:
            raise RequestError(f"min_performance must be >= 0, got {self.min_performance!r}")

    def durations(self, performance: np.ndarray) -> np.ndarray:
        """Return ``T_i`` for nodes of the given performance, shape like ``performance``."""
        performance = np.asarray(performance, dtype=float)
        if self.volume is not None:
            return self.volume / performance
        return np.full(performance.shape, float(self.time))


@dataclass(frozen=True, slots=True)
class Window:
    """A co-allocated window: ``n`` slots on distinct nodes that start together.

    Parameters
    ----------
    slots : tuple of Slot
        The reserved spans: slot ``i`` is ``[start, start + T_i)`` on its node, with the node's
        price and performance.
    start : float
        Common start time, model time units.
    runtime : float
        ``max_i T_i`` (the longest slot).
    cost : float
        ``sum_i price_i * T_i``.

    References
    ----------
    AEP §2.1–2.2: window runtime is its longest slot; cost is the sum of slot usage costs.
    """

    slots: tuple[Slot, ...]
    start: float
    runtime: float
    cost: float

    @property
    def finish(self) -> float:
        """Finish time ``start + runtime``."""
        return self.start + self.runtime

    @property
    def end(self) -> float:
        """Same as :attr:`finish`."""
        return self.finish

    @property
    def nodes(self) -> tuple[int, ...]:
        """Node ids of the window's slots."""
        return tuple(s.node for s in self.slots)

    @property
    def proc_time(self) -> float:
        """Total processor time ``sum_i T_i`` (AEP §3.1, minProcTime)."""
        return float(sum(s.length for s in self.slots))


@dataclass(frozen=True, slots=True)
class Allocation:
    """Result of an allocator: a window, or ``None`` with the reason nothing fits.

    Parameters
    ----------
    window : Window or None
        The chosen window.
    reason : str
        Empty on success; otherwise why no window was found.
    criterion : str
        The registered name of the criterion used.
    stats : dict
        Diagnostics, e.g. ``{"slots": m, "candidates": K}``.
    """

    window: Window | None
    reason: str = ""
    criterion: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        """``True`` when a window was found."""
        return self.window is not None


Criterion = Callable[[SlotList, ResourceRequest], Allocation]
_CRITERIA: dict[str, Criterion] = {}


def register_criterion(name: str) -> Callable[[Criterion], Criterion]:
    """Register a window-search function under ``name`` (decorator).

    The function takes ``(slots: SlotList, request: ResourceRequest)`` and returns an
    :class:`Allocation`. Raises ``ValueError`` if ``name`` is taken.
    """

    def deco(fn: Criterion) -> Criterion:
        if name in _CRITERIA:
            raise ValueError(f"criterion {name!r} is already registered")
        _CRITERIA[name] = fn
        return fn

    return deco


def criteria() -> list[str]:
    """Return the registered criterion names, sorted."""
    return sorted(_CRITERIA)


def allocate_window(
    slots: SlotList, request: ResourceRequest, criterion: str = "amp"
) -> Allocation:
    """Find a window for ``request`` in ``slots`` with the named criterion.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval.
    request : ResourceRequest
        The job's resource request.
    criterion : str
        A registered name, see :func:`criteria` (e.g. ``"amp"``, ``"min_cost"``).

    Returns
    -------
    Allocation
        ``window`` is ``None`` with a ``reason`` when nothing fits.

    Raises
    ------
    UnknownAllocatorError
        ``criterion`` is not registered.
    TypeError
        ``slots`` is not a SlotList or ``request`` not a ResourceRequest.

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 4.0)])
    >>> w = allocate_window(sl, ResourceRequest(n=2, volume=80.0), "amp").window
    >>> (w.start, w.runtime, w.cost)
    (10.0, 40.0, 60.0)
    """
    try:
        fn = _CRITERIA[criterion]
    except KeyError:
        raise UnknownAllocatorError(
            f"unknown criterion {criterion!r}; registered: {', '.join(criteria())}"
        ) from None
    if not isinstance(slots, SlotList):
        raise TypeError(f"slots must be a SlotList, got {type(slots).__name__}")
    if not isinstance(request, ResourceRequest):
        raise TypeError(f"request must be a ResourceRequest, got {type(request).__name__}")
    return fn(slots, request)
