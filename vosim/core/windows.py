"""Resource requests, co-allocated windows and the result of a window search.

Types below both :mod:`vosim.market` (workloads make requests and hold reserved windows) and
:mod:`vosim.allocators` (which find the windows).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from vosim.core.results import Result, Status
from vosim.core.slots import Slot
from vosim.errors import RequestError

__all__ = ["ResourceRequest", "Spans", "Window", "Allocation", "distinct", "filled"]


def filled(n: int, value: float | int, dtype: type = float) -> np.ndarray:
    """``np.full(n, value, dtype)`` at a third of its cost (one of the hot paths' columns).

    Returns a new array of shape (n,), every entry ``value`` (in ``value``'s own units) as
    ``dtype``. Windows and owners' schedules build several such columns per job, and
    ``np.full``'s Python-level argument checks cost more than the fill of a short column
    (``docs/decisions.md`` has the measurement). vosim's own helper, no paper source.

    Raises
    ------
    ValueError
        ``n < 0`` (numpy's "negative dimensions are not allowed").
    """
    out = np.empty(n, dtype=dtype)
    out.fill(value)
    return out


def distinct(values: np.ndarray, *, ordered: bool = False) -> np.ndarray:
    """The distinct values of a 1-D array in increasing order: ``np.unique(values)``, faster.

    Returns a new array of shape (k,), ``values``' dtype and units. numpy 2's ``np.unique``
    takes a hash-table path that is slower than a sort and a mask of neighbours on the few
    thousand values the AEP scan asks about at every search (``docs/decisions.md``).
    ``ordered=True``: the caller's ``values`` are already in increasing order (a slot list's
    starts), and the sort is skipped (``O(m)``). Every NaN is kept (``np.unique`` merges
    them). Raises nothing (``np.sort``'s errors for a bad array). vosim's own helper, no
    paper source.
    """
    ordered = np.array(values) if ordered else np.sort(values)
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


@dataclass(frozen=True, slots=True)
class ResourceRequest:
    """A resource request of a parallel job: ``n`` concurrent slots within budget ``C``.

    The one type of a job's request: an allocator reads ``n``, the volume or time, the budget
    and the performance floor; a policy also reads which job it is (``index``), its user's
    criterion, its submission time and the account it spends from. Immutable: a job whose
    budget changes (a per-period balance) is given a new request.

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
    index : int
        Position of the job in the model's job list (trace order), ``-1`` for a request of no
        model job; policies' decisions name jobs by it.
    criterion : str
        The user's preferred criterion (``finish``, ``runtime``, ``cost``, ``availability``;
        empty when none).
    submit_time : float
        Submission time, model time units.
    account : int
        The per-period account the job spends from: its user's position among the model's
        users (``CycleState.balance``) when budgets are per-period accounts, else ``-1``.

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
    index: int = -1
    criterion: str = ""
    submit_time: float = 0.0
    account: int = -1

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

    @property
    def asks(self) -> tuple[int, float | None, float | None, float, float]:
        """What an allocator reads of the request: ``(n, volume, time, budget, min_performance)``.

        Two requests that ask the same get the same window from the same slots, whichever
        jobs they belong to. Units as the fields: slots, performance x time units, time
        units, cost units, performance. AEP §2.1 (``n`` slots, volume, budget); raises
        nothing.
        """
        return (self.n, self.volume, self.time, self.budget, self.min_performance)

    def durations(self, performance: np.ndarray) -> np.ndarray:
        """Return ``T_i`` for nodes of the given performance, shape like ``performance``."""
        performance = np.asarray(performance, dtype=float)
        if self.volume is not None:
            return self.volume / performance
        return np.full(performance.shape, float(self.time))


class Spans(Sequence[Slot]):
    """A window's slots held as numpy columns: a sequence of :class:`Slot` without the objects.

    Reads as the tuple of :class:`Slot` it stands for (length, indexing, iteration, equality
    and hash are the tuple's; the objects are made on the first such read and kept), while the
    columns serve code that works on all spans at once (the metascheduler reserving, settling
    and releasing a window: ``O(1)`` numpy calls instead of ``O(n)`` Python per window).

    Parameters
    ----------
    node : numpy.ndarray of int, shape (n,)
        Node (processor) id of each span.
    start, end : numpy.ndarray of float, shape (n,)
        Each span ``[start_i, end_i)``, model time units.
    price : numpy.ndarray of float, shape (n,)
        Price per time unit of each span's node, cost units.
    performance : numpy.ndarray of float, shape (n,)
        Performance of each span's node (> 0).

    The columns are not copied: the caller gives arrays it does not modify afterwards.

    References
    ----------
    AEP §2.1 (a window is ``n`` slots, one per node, that start together).

    Examples
    --------
    >>> sp = Spans(np.array([3, 5]), np.zeros(2), np.array([4.0, 5.0]), np.ones(2), np.ones(2))
    >>> sp[1], len(sp)
    (Slot(node=5, start=0.0, end=5.0, price=1.0, performance=1.0), 2)
    >>> sp == (Slot(3, 0.0, 4.0, 1.0, 1.0), Slot(5, 0.0, 5.0, 1.0, 1.0))
    True
    """

    __slots__ = ("_tuple", "end", "node", "performance", "price", "start")

    def __init__(
        self,
        node: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        price: np.ndarray,
        performance: np.ndarray,
    ) -> None:
        self.node, self.start, self.end = node, start, end
        self.price, self.performance = price, performance
        self._tuple: tuple[Slot, ...] | None = None

    @classmethod
    def of(cls, slots: Sequence[Slot]) -> Spans:
        """The columns of ``slots`` (a :class:`Spans` is returned as it is)."""
        if isinstance(slots, Spans):
            return slots
        n = len(slots)
        return cls(
            np.fromiter((s.node for s in slots), dtype=np.int64, count=n),
            np.fromiter((s.start for s in slots), dtype=float, count=n),
            np.fromiter((s.end for s in slots), dtype=float, count=n),
            np.fromiter((s.price for s in slots), dtype=float, count=n),
            np.fromiter((s.performance for s in slots), dtype=float, count=n),
        )

    def as_tuple(self) -> tuple[Slot, ...]:
        """The spans as :class:`Slot` objects (made once, then kept)."""
        if self._tuple is None:
            cols = (self.node, self.start, self.end, self.price, self.performance)
            self._tuple = tuple(Slot(*row) for row in zip(*(c.tolist() for c in cols), strict=True))
        return self._tuple

    def __len__(self) -> int:
        return self.node.size

    @overload
    def __getitem__(self, i: int) -> Slot: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Slot, ...]: ...
    def __getitem__(self, i):
        return self.as_tuple()[i]

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.as_tuple())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Spans):
            cols = ("node", "start", "end", "price", "performance")
            return all(np.array_equal(getattr(self, c), getattr(other, c)) for c in cols)
        if isinstance(other, tuple):
            return self.as_tuple() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return f"Spans({self.as_tuple()!r})"

    def __reduce__(self):
        return (Spans, (self.node, self.start, self.end, self.price, self.performance))


@dataclass(frozen=True, slots=True)
class Window:
    """A co-allocated window: ``n`` slots on distinct nodes that start together.

    Parameters
    ----------
    slots : tuple of Slot, or Spans
        The reserved spans: slot ``i`` is ``[start, start + T_i)`` on its node, with the node's
        price and performance (:class:`Spans`: the same held as numpy columns).
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

    slots: tuple[Slot, ...] | Spans
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
    def spans(self) -> Spans:
        """The slots as numpy columns (:class:`Spans`; made from the tuple when needed)."""
        return Spans.of(self.slots)

    @property
    def nodes(self) -> tuple[int, ...]:
        """Node ids of the window's slots."""
        if isinstance(self.slots, Spans):
            return tuple(self.slots.node.tolist())
        return tuple(s.node for s in self.slots)

    @property
    def proc_time(self) -> float:
        """Total processor time ``sum_i T_i`` (AEP §3.1, minProcTime)."""
        return float(sum(s.length for s in self.slots))


@dataclass(frozen=True, slots=True)
class Allocation(Result):
    """Result of a window search: a window, or ``None`` with the reason nothing fits.

    Parameters
    ----------
    window : Window or None
        The chosen window.
    reason : str
        Empty on success; otherwise why no window was found.
    criterion : str
        The registered name of the criterion used.
    stats : dict
        Diagnostics, e.g. ``{"slots": m, "candidates": K}``; ``stats["truncated"]`` is
        ``True`` when a limit stopped the search early.
    exact : bool
        ``True`` when the criterion returns the optimum over the whole interval (the exact
        AEP criteria); ``False`` (default) for heuristics and user criteria.
    value : float
        The value of ``window`` under the criterion, the one it minimises: a start or finish
        time or a runtime (model time units), a cost (cost units), a processor time, or a
        user key's value; for maximum availability ``P_a^w`` (a probability, maximised). NaN
        (default) when no window was found or the criterion gives none (AEP §2.2).

    Attributes
    ----------
    status : Status
        ``INFEASIBLE`` without a window; ``LIMIT`` when ``stats["truncated"]`` (the best
        window of the part searched); otherwise ``OPTIMAL`` for an exact criterion and
        ``FEASIBLE`` for any other.
    message : str
        ``reason`` when there is one, else the status's default message.

    References
    ----------
    AEP §2.1–2.2 (the window search); ``scipy.optimize.OptimizeResult`` for ``status`` and
    ``message``.

    Examples
    --------
    >>> none = Allocation(None, "no 2 concurrent slots", "amp")
    >>> none.status, none.message
    (<Status.INFEASIBLE: 'infeasible'>, 'no 2 concurrent slots')
    >>> w = Window((Slot(0, 0.0, 10.0, 1.0, 1.0),), 0.0, 10.0, 10.0)
    >>> Allocation(w, criterion="amp", exact=True).status
    <Status.OPTIMAL: 'optimal'>
    """

    window: Window | None
    reason: str = ""
    criterion: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    exact: bool = False
    value: float = math.nan

    @property
    def solution(self) -> Any:
        """The window found (``window``; ``None`` if none)."""
        return self.window

    @property
    def objective(self) -> float:
        """The criterion's value of the window found (``value``; NaN if none)."""
        return self.value

    @property
    def success(self) -> bool:
        """``True`` when a window was found."""
        return self.window is not None

    @property
    def status(self) -> Status:
        """How the search ended (see the class's Attributes)."""
        if self.window is None:
            return Status.INFEASIBLE
        if self.stats.get("truncated"):
            return Status.LIMIT
        return Status.OPTIMAL if self.exact else Status.FEASIBLE

    @property
    def message(self) -> str:
        """``reason``, or the status's default message when there is none."""
        return self.reason or self.status.default_message
