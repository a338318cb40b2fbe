"""What a scheduling policy sees in one cycle, what it decides, and the registry by name."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from vosim.allocators.base import Window
from vosim.allocators.fallback import FallbackLog
from vosim.core import ResourceRequest, Result, SlotList, Status, registry
from vosim.core.window_columns import WindowColumns
from vosim.errors import UnknownAllocatorError
from vosim.market.utilization_schedule import UtilizationSchedule

__all__ = [
    "CycleState",
    "Decisions",
    "DecisionStatus",
    "Replanned",
    "Policy",
    "register_policy",
    "policies",
    "make_policy",
    "policy_names",
]


class _Lazy:
    """A :class:`CycleState` field given as a value or as a callable computing it on first read.

    A non-data descriptor: the value, once known, sits in the instance's ``__dict__`` under the
    field's name and is read from there; the raw argument stays readable as
    ``_<name>_source``. Without ``default`` the field is required.
    """

    _REQUIRED = object()

    def __init__(self, default: Any = _REQUIRED) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.source = name, f"_{name}_source"

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            if self.default is self._REQUIRED:
                raise AttributeError(self.name)  # dataclasses: the field has no default
            return self.default
        value = obj.__dict__[self.name] = obj.__dict__[self.source]()
        return value


_EMPTY = np.empty(0, dtype=np.int64)
_EMPTY.flags.writeable = False


@dataclass(frozen=True, init=False)
class CycleState:
    """The state of the VO at one scheduling pass, as a pure policy sees it.

    ``slots``, ``queue``, ``reserved``, ``arrived``, ``availability`` and ``processors`` may
    be given as callables; they
    are then built on first read, so a pass that needs none of them (e.g. a cyclic scheme whose
    request classes all sleep) costs nothing per waiting job.

    Parameters
    ----------
    time : float
        The pass's time ``t``, model time units.
    until : float
        End of the interval the slot list covers, ``t + L`` (model time units).
    slots : SlotList, or callable (nodes: numpy.ndarray of int or None) -> SlotList
        Free slots of the domain's nodes in ``[t, t + L)``: every known busy interval is
        taken out, i.e. owners' local jobs and VO tasks to their estimated (reserved) end,
        unstarted reservations included. A running task releases its node at its actual end,
        which is the reserved end or earlier. A callable is called with no argument for
        every node's slots (and by :meth:`slots_of` with node ids).
    queue : sequence of ResourceRequest, or callable () -> sequence of ResourceRequest
        Waiting jobs (no reservation) in priority order: submission order, ties by trace
        order. Budgets are what each job may spend now: ``C``, or ``min(C, balance)`` under
        per-period accounts.
    reserved : sequence of (ResourceRequest, Window), or callable () -> that sequence
        Reservations not yet started (window start > ``t``), in priority order.
    owner : numpy.ndarray of int, shape (n_nodes,), optional
        The resource owner of each node, indexed by node id (every node id in ``slots`` is
        an index). Policies that group nodes by owner (the knapsack policies, whose clusters
        are the owners) read it; ``None`` (default): unknown, the domain counts as one owner.
    arrived : sequence of ResourceRequest, or callable () -> sequence of ResourceRequest
        Jobs that joined the queue since the previous pass (submitted, or back after a
        failure or a cancellation), in trace order, each with its budget ``C``. Policies that
        keep their own queue between passes (the cyclic scheme's request classes) read it.
    freed : numpy.ndarray of int, shape (k,)
        Nodes on which reserved time was released since the previous pass (early ends,
        failures, cancellations).
    refreshed : bool
        Users' balances were replenished since the previous pass (jobs that could not pay
        may now).
    left : numpy.ndarray of int, shape (k,)
        Jobs (model indices) that left the queue without a window since the previous pass
        (withdrawn by their users); policies that keep their own queue drop them.
    balance : numpy.ndarray of float, shape (users,), optional
        Each user's balance under per-period accounts, cost units (``ResourceRequest.account``
        indexes it); ``None``: budgets are per job only. A policy must not modify it.
    availability : UtilizationSchedule, or callable () -> UtilizationSchedule, optional
        Owners' local jobs as uncertain event chains (ICCS 2023 §2.2) when windows can fail;
        ``None``: every node is available (``P_a = 1``).
    processors : tuple, or callable () -> tuple or None, optional
        The slot list in count form when the domain is identical processors whose only busy
        time is VO tasks started by ``t`` (the traced machine): ``(E, price, performance,
        free, later)`` with ``E`` = ``until``, ``free`` the ids of the processors free at
        ``t`` (ascending, shape (f,)) and ``later`` a tuple, or a callable returning it, of
        the processors busy at ``t`` that free up before ``E``: their release times
        (ascending) and ids, ties by id, shape (m - f,) each: the same slots as ``slots``, as
        :class:`~vosim.policies.batch_windows.IdenticalSlots` reads them. ``None`` (default): not
        known in this form (read ``slots``).
    pool : numpy.ndarray of int, shape (n_nodes,), optional
        Each node's pool when ``slots`` is the count view
        (:func:`~vosim.market.free_time.count_view`: a pool's processors re-assigned as the
        levels of its free count, so a window's node ids are a count per pool until it is
        reserved); ``None`` (default): the slots are each processor's own.
    held : WindowColumns, optional
        The windows of ``reserved`` kept as columns by job index
        (:class:`~vosim.core.window_columns.WindowColumns`, the job ledger's), which a
        compiled re-planning pass gathers instead of reading every window; ``None``
        (default): read from ``reserved`` itself.

    References
    ----------
    VO Preferences §2: each cycle the metascheduler builds the slot list of ``[t, t + L)``
    from the owners' schedules and decides for the batch of waiting jobs.
    """

    time: float
    until: float
    slots: SlotList = _Lazy()  # type: ignore[assignment]
    queue: Sequence[ResourceRequest] = _Lazy()  # type: ignore[assignment]
    reserved: Sequence[tuple[ResourceRequest, Window]] = _Lazy(())  # type: ignore[assignment]
    owner: np.ndarray | None = field(default=None, compare=False)
    arrived: Sequence[ResourceRequest] = _Lazy(())  # type: ignore[assignment]
    freed: np.ndarray = field(default_factory=lambda: _EMPTY, compare=False)
    refreshed: bool = False
    left: np.ndarray = field(default_factory=lambda: _EMPTY, compare=False)
    balance: np.ndarray | None = field(default=None, compare=False)
    availability: UtilizationSchedule | None = _Lazy(None)  # type: ignore[assignment]
    processors: tuple | None = _Lazy(None)  # type: ignore[assignment]
    pool: np.ndarray | None = field(default=None, compare=False)
    held: WindowColumns | None = field(default=None, compare=False)

    def __init__(
        self,
        time: float,
        until: float,
        slots: SlotList | Callable[..., SlotList],
        queue: Sequence[ResourceRequest] | Callable[[], Sequence[ResourceRequest]],
        reserved: Sequence[tuple[ResourceRequest, Window]] | Callable[[], Sequence] = (),
        owner: np.ndarray | None = None,
        arrived: Sequence[ResourceRequest] | Callable[[], Sequence[ResourceRequest]] = (),
        freed: np.ndarray = _EMPTY,
        refreshed: bool = False,
        left: np.ndarray = _EMPTY,
        balance: np.ndarray | None = None,
        availability: UtilizationSchedule | Callable[[], UtilizationSchedule] | None = None,
        processors: tuple | Callable[[], tuple | None] | None = None,
        pool: np.ndarray | None = None,
        held: WindowColumns | None = None,
    ) -> None:
        # written straight into __dict__: a cycle builds one per pass, tens of thousands a run
        d = self.__dict__
        d.update(time=time, until=until, owner=owner, freed=freed, pool=pool, held=held)
        d.update(refreshed=refreshed, left=left, balance=balance)
        for name, value in (
            ("slots", slots),
            ("queue", queue),
            ("reserved", reserved),
            ("arrived", arrived),
            ("availability", availability),
            ("processors", processors),
        ):
            d[f"_{name}_source"] = value
            if not callable(value):
                d[name] = value

    def slots_of(self, nodes: np.ndarray) -> SlotList:
        """The free slots of ``nodes`` only (node ids, shape (r,)), as in :attr:`slots`.

        Asks the slot source for just those nodes when ``slots`` was given as a callable
        (a fraction of the cost of every node's slots), else filters :attr:`slots`.
        """
        source = self.__dict__["_slots_source"]
        if callable(source):
            return source(nodes)
        sl = self.slots
        keep = np.isin(sl.node, nodes)
        return SlotList.trusted(*(getattr(sl, f)[keep] for f in SlotList.__slots__))


class DecisionStatus(enum.IntEnum):
    """Outcome of a policy's pass (:attr:`Decisions.outcome`; its ``status`` follows it)."""

    #: At least one window reserved or moved.
    DECIDED = 0
    #: Nothing to do: the queue is empty and no reservation can move.
    IDLE = 1
    #: Waiting jobs, none of which can get a window now.
    BLOCKED = 2


@dataclass
class Decisions(Result):
    """What a policy decided in one pass; the metascheduler only applies it.

    A :class:`~vosim.core.results.Result` like every allocator's: ``status`` is ``FEASIBLE``
    when the pass decided something or had nothing to decide (a policy proves no optimum)
    and ``INFEASIBLE`` when jobs wait and none can get a window now; :attr:`outcome` tells
    the three cases apart. ``solution`` is :attr:`reserve`; ``objective`` the VO's total
    criterion value of the windows chosen (``stats["vo_total"]``, the cyclic scheme's step
    2), NaN for a policy that optimises none.

    Parameters
    ----------
    reserve : list of (int, Window)
        Windows to reserve, by job model index, in the order they were decided. A job
        whose reservation is cancelled in the same pass may be reserved again (moved).
    cancel : list of int
        Model indices of jobs whose unstarted reservations are cancelled first.
    outcome : DecisionStatus
        See :class:`DecisionStatus` (set by :meth:`settle`).
    message : str
        A sentence on the pass (e.g. why the queue's head is blocked); :meth:`settle` gives
        a pass without one its status's default sentence.
    stats : dict
        Diagnostics, e.g. ``{"shadow_time": s, "backfilled": k}``.
    reasons : dict of int to str
        Why each searched job that got no window did not (by model index).
    evaluations : dict of int to (int, numpy.ndarray, float)
        For a job reserved after a choice among alternatives (the cyclic scheme's step 2):
        the chosen alternative's position, the user evaluations ``U`` of all of them (shape
        (alternatives,)) and the scale that maps ``U`` to [0, 1] (VO Preferences §3). A job
        not listed had one alternative with ``U = 0``.
    earliest : dict of int to float
        For a job reserved after a choice by its user's criterion (the cyclic scheme): the
        earliest start of any window it could afford on the slots its search saw (AMP's,
        AEP §2.2), model time units. A job not listed took the earliest start its policy
        gave it (no chosen delay).
    """

    reserve: list[tuple[int, Window]] = field(default_factory=list)
    cancel: list[int] = field(default_factory=list)
    outcome: DecisionStatus = DecisionStatus.IDLE
    message: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    evaluations: dict[int, tuple[int, np.ndarray, float]] = field(default_factory=dict)
    earliest: dict[int, float] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        """``INFEASIBLE`` when the pass was blocked, else ``FEASIBLE`` (see the class)."""
        return Status.INFEASIBLE if self.outcome is DecisionStatus.BLOCKED else Status.FEASIBLE

    @property
    def solution(self) -> list[tuple[int, Window]]:
        """The windows reserved, :attr:`reserve`."""
        return self.reserve

    @property
    def objective(self) -> float:
        """The VO's total criterion value of the pass (``stats["vo_total"]``; NaN if none)."""
        return float(self.stats.get("vo_total", math.nan))

    def settle(self, blocked_message: str = "") -> Decisions:
        """Set :attr:`outcome` from what was decided, and ``message``; returns self.

        ``blocked_message`` is the message of a blocked pass that has none of its own; any
        other pass without one gets its status's default sentence.
        """
        if self.reserve or self.cancel:
            self.outcome = DecisionStatus.DECIDED
        elif self.reasons:
            self.outcome = DecisionStatus.BLOCKED
            self.message = self.message or blocked_message
        else:
            self.outcome = DecisionStatus.IDLE
        self.message = self.message or _OUTCOME_MESSAGES[self.outcome]
        return self


#: The message of a pass that has none of its own, by outcome.
_OUTCOME_MESSAGES = {
    DecisionStatus.DECIDED: "windows reserved or cancelled",
    DecisionStatus.IDLE: "nothing to decide: no job waits and no reservation can move",
    DecisionStatus.BLOCKED: "jobs wait; none can get a window now",
}


@dataclass(frozen=True)
class Replanned:
    """What :func:`replan` decided: the moves and the pass's state after them.

    Parameters
    ----------
    decisions : Decisions
        The moves: each moved job's index in ``cancel`` and, in the same order, its new window
        in ``reserve``; ``stats["moved"]`` their number.
    slots : SlotList or None
        The free slots after the moves; ``None`` when nothing moved (the state's slots hold).
    reserved : list of (ResourceRequest, Window)
        The unstarted reservations after the moves, in priority order.
    freed : numpy.ndarray of int, shape (k,)
        Nodes of the moved jobs' old windows (sorted, unique): their reserved time is free.
    """

    decisions: Decisions
    slots: SlotList | None
    reserved: list[tuple[ResourceRequest, Window]]
    freed: np.ndarray


class Policy(Protocol):
    """A scheduling policy: one pass's decisions from the VO's state, with no side effects.

    Everything the metascheduler asks of a policy is declared here. Policies subclass this
    protocol and inherit the defaults of all but :meth:`decide`:

    - ``replans`` (class attribute, default ``False``): the policy re-plans the unstarted
      reservations of ``CycleState.reserved`` itself (conservative backfilling's
      compression), so the metascheduler runs no :class:`~vosim.policies.replan.Replanner`
      before it; otherwise it does, unless ``VOModel(replan="never")``.
    - ``records_searches`` (class attribute, default ``False``): the policy keeps each job's
      last search itself (:meth:`last_code`); otherwise the metascheduler keeps the reasons
      of ``Decisions.reasons``.
    - ``criterion_allocators`` (default ``None``): the AEP criterion each user criterion's
      window search uses (``{criterion: allocator name}``), for a policy that searches by
      users' criteria (the cyclic scheme); ``None`` for one that does not.
    - ``fallbacks`` (default ``None``): the calls and fallbacks of the policy's fallback
      chains (:class:`~vosim.allocators.fallback.FallbackLog`), if it has any.

    References
    ----------
    VO Preferences §2 (the metascheduler's cycle asks the policy for the batch's windows);
    Mu'alem & Feitelson (2001) §2 (a policy that compresses its own reservations).
    """

    name: str
    replans: ClassVar[bool] = False
    records_searches: ClassVar[bool] = False
    criterion_allocators: dict[str, str] | None = None
    fallbacks: FallbackLog | None = None

    def decide(self, state: CycleState) -> Decisions:
        """Decide the windows to reserve and the reservations to cancel at ``state.time``."""
        ...

    def last_code(self, index: int) -> tuple[int, str]:
        """The screening or allocator code of job ``index``'s last search, and its reason.

        Asked only of a policy with ``records_searches``; ``(0, "")`` for a job never
        searched (the default, for a policy that keeps no record).
        """
        return 0, ""


#: The values a model offers every policy (:func:`policy_options` picks a policy's own):
#: ``jobs`` (int, jobs in the run), ``price`` and ``performance`` (float arrays by node id,
#: cost units per time unit and relative speed), ``scheduling_interval`` and ``look_ahead``
#: (``L``, model time units; ``k`` requested times), ``criterion_allocators`` (user criterion
#: -> AEP criterion), ``vo_policy`` (:class:`~vosim.allocators.vo_choice.VOPolicy`), ``static``
#: (bool: fixed prices, no owner exit), ``availability_method``,
#: ``fallback_after``, ``reference_performance`` and ``utility_policy``.
MODEL_VALUES = (
    "jobs",
    "price",
    "performance",
    "scheduling_interval",
    "look_ahead",
    "criterion_allocators",
    "vo_policy",
    "static",
    "availability_method",
    "fallback_after",
    "reference_performance",
    "utility_policy",
)


def register_policy(
    name: str, *, options: tuple[str, ...] = ()
) -> Callable[[Callable[..., Policy]], Callable[..., Policy]]:
    """Register a policy factory (a class or function taking keyword options) under ``name``.

    ``options``: the names of :data:`MODEL_VALUES` the factory takes from the model, each
    a keyword of the factory; the model passes exactly these (:func:`policy_options`).

    Raises
    ------
    ValueError
        ``name`` is already registered, or ``options`` names a value the model does not
        offer.
    """
    unknown = [o for o in options if o not in MODEL_VALUES]
    if unknown:
        raise ValueError(f"policy {name!r}: no model value {', '.join(map(repr, unknown))}")

    def deco(factory: Callable[..., Policy]) -> Callable[..., Policy]:
        registry.register("policy", name, (factory, tuple(options)))  # with what it takes
        return factory

    return deco


def policy_options(name: str) -> tuple[str, ...]:
    """The model values the policy registered as ``name`` takes (:data:`MODEL_VALUES`).

    Raises
    ------
    UnknownAllocatorError
        ``name`` is not registered.

    References
    ----------
    No paper: vosim's registry (each policy states what it needs from the model).
    """
    return _entry(name)[1]


def _entry(name: str) -> tuple[Callable[..., Policy], tuple[str, ...]]:
    try:
        return registry.entry("policy", name)
    except KeyError:
        raise UnknownAllocatorError(
            f"unknown policy {name!r}; registered: {', '.join(policies())}"
        ) from None


def policies() -> list[str]:
    """Return the registered policy names, sorted."""
    return registry.names("policy")


#: The VO's own policies, listed first: the cyclic scheduling scheme and its availability
#: variant (VO Preferences §2; ICCS 2021).
VO_POLICIES = ("css", "availability")


def policy_names() -> list[str]:
    """Every name ``VOModel(policy=...)`` and ``vosim run --policy`` accept.

    The VO's own policies (:data:`VO_POLICIES`) first, then the other registered ones
    (:func:`policies`).
    """
    return [*VO_POLICIES, *(p for p in policies() if p not in VO_POLICIES)]


def make_policy(name: str, **options: Any) -> Policy:
    """Build the policy registered as ``name`` with keyword ``options``.

    Raises
    ------
    UnknownAllocatorError
        ``name`` is not registered (the message lists the registered names).
    """
    return _entry(name)[0](**options)
