"""What a scheduling policy sees in one cycle, what it decides, and the registry by name."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vosim.allocators.base import Window
from vosim.errors import UnknownAllocatorError
from vosim.market.slots import SlotList

__all__ = [
    "QueuedJob",
    "CycleState",
    "Decisions",
    "DecisionStatus",
    "Policy",
    "register_policy",
    "policies",
    "make_policy",
    "policy_names",
]


@dataclass(frozen=True, slots=True)
class QueuedJob:
    """One waiting job as a policy sees it: its resource request and place in the queue.

    Parameters
    ----------
    index : int
        Position of the job in the model's job list (trace order); decisions name jobs by it.
    n : int
        Concurrent slots (processors or nodes) requested, >= 1.
    volume : float
        Work of each task, performance x time units: on a node of performance ``p`` a task is
        estimated to take ``volume / p`` time units (the requested time on a node of the
        reference performance; the job is killed at that estimate).
    budget : float
        What the job may spend on a window, cost units (``inf``: no limit).
    criterion : str
        The user's preferred criterion (``finish``, ``runtime``, ``cost``, ``availability``).
    submit_time : float
        Submission time, model time units.

    References
    ----------
    AEP §2.1 and VO Preferences §2 (resource request: ``n`` slots, volume, budget ``C``).
    """

    index: int
    n: int
    volume: float
    budget: float
    criterion: str = ""
    submit_time: float = 0.0


@dataclass(frozen=True)
class CycleState:
    """The state of the VO at one scheduling pass, as a pure policy sees it.

    Parameters
    ----------
    time : float
        The pass's time ``t``, model time units.
    until : float
        End of the interval the slot list covers, ``t + L`` (model time units).
    slots : SlotList
        Free slots of the domain's nodes in ``[t, t + L)``: every known busy interval is
        taken out, i.e. owners' local jobs and VO tasks to their estimated (reserved) end,
        unstarted reservations included. A running task releases its node at its actual end,
        which is the reserved end or earlier.
    queue : sequence of QueuedJob
        Waiting jobs (no reservation) in priority order: submission order, ties by trace
        order.
    reserved : sequence of (QueuedJob, Window)
        Reservations not yet started (window start > ``t``), in priority order.
    owner : numpy.ndarray of int, shape (n_nodes,), optional
        The resource owner of each node, indexed by node id (every node id in ``slots`` is
        an index). Policies that group nodes by owner (the knapsack policies, whose clusters
        are the owners) read it; ``None`` (default): unknown, the domain counts as one owner.

    References
    ----------
    VO Preferences §2: each cycle the metascheduler builds the slot list of ``[t, t + L)``
    from the owners' schedules and decides for the batch of waiting jobs.
    """

    time: float
    until: float
    slots: SlotList
    queue: Sequence[QueuedJob]
    reserved: Sequence[tuple[QueuedJob, Window]] = ()
    owner: np.ndarray | None = field(default=None, compare=False)


class DecisionStatus(enum.IntEnum):
    """Outcome of a policy's pass (the ``status`` of :class:`Decisions`)."""

    #: At least one window reserved or moved.
    DECIDED = 0
    #: Nothing to do: the queue is empty and no reservation can move.
    IDLE = 1
    #: Waiting jobs, none of which can get a window now.
    BLOCKED = 2


@dataclass
class Decisions:
    """What a policy decided in one pass; the metascheduler only applies it.

    Parameters
    ----------
    reserve : list of (int, Window)
        Windows to reserve, by job model index, in the order they were decided. A job
        whose reservation is cancelled in the same pass may be reserved again (moved).
    cancel : list of int
        Model indices of jobs whose unstarted reservations are cancelled first.
    status : DecisionStatus
        See :class:`DecisionStatus`.
    message : str
        A sentence on the pass (e.g. why the queue's head is blocked).
    stats : dict
        Diagnostics, e.g. ``{"shadow_time": s, "backfilled": k}``.
    reasons : dict of int to str
        Why each searched job that got no window did not (by model index).
    """

    reserve: list[tuple[int, Window]] = field(default_factory=list)
    cancel: list[int] = field(default_factory=list)
    status: DecisionStatus = DecisionStatus.IDLE
    message: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)

    def settle(self, blocked_message: str = "") -> Decisions:
        """Set ``status`` from what was decided (and ``message`` if blocked); returns self."""
        if self.reserve or self.cancel:
            self.status = DecisionStatus.DECIDED
        elif self.reasons:
            self.status = DecisionStatus.BLOCKED
            self.message = self.message or blocked_message
        else:
            self.status = DecisionStatus.IDLE
        return self


class Policy(Protocol):
    """A scheduling policy: one pass's decisions from the VO's state, with no side effects."""

    name: str

    def decide(self, state: CycleState) -> Decisions:
        """Decide the windows to reserve and the reservations to cancel at ``state.time``."""
        ...


_POLICIES: dict[str, Callable[..., Policy]] = {}


def register_policy(name: str) -> Callable[[Callable[..., Policy]], Callable[..., Policy]]:
    """Register a policy factory (a class or function taking keyword options) under ``name``.

    Raises
    ------
    ValueError
        ``name`` is already registered.
    """

    def deco(factory: Callable[..., Policy]) -> Callable[..., Policy]:
        if name in _POLICIES:
            raise ValueError(f"policy {name!r} is already registered")
        _POLICIES[name] = factory
        return factory

    return deco


def policies() -> list[str]:
    """Return the registered policy names, sorted."""
    return sorted(_POLICIES)


#: Policies the metascheduler runs itself: the cyclic scheduling scheme and its availability
#: variant (VO Preferences §2; ICCS 2021).
BUILT_IN = ("css", "availability")


def policy_names() -> list[str]:
    """Every name ``VOModel(policy=...)`` and ``vosim run --policy`` accept.

    The built-in CSS and its availability variant (:data:`BUILT_IN`), then the registered
    policies (:func:`policies`).
    """
    return [*BUILT_IN, *policies()]


def make_policy(name: str, **options: Any) -> Policy:
    """Build the policy registered as ``name`` with keyword ``options``.

    Raises
    ------
    UnknownAllocatorError
        ``name`` is not registered (the message lists the registered names).
    """
    try:
        factory = _POLICIES[name]
    except KeyError:
        raise UnknownAllocatorError(
            f"unknown policy {name!r}; registered: {', '.join(policies())}"
        ) from None
    return factory(**options)
