"""FCFS: the queue's heads start in order while they fit; the first that does not blocks all."""

from __future__ import annotations

from collections.abc import Sequence

from vosim.core import ResourceRequest
from vosim.core.code_path import reference
from vosim.policies.base import CycleState, Decisions, Policy, register_policy
from vosim.policies.batch_windows import IdenticalSlots, NotIdentical, window_at

__all__ = ["FCFS", "start_heads", "start_heads_counted"]


def start_heads(state: CycleState, decisions: Decisions):
    """Start queue heads at ``state.time`` while each fits; returns ``(slots, k)``.

    ``slots`` is the slot list with the started windows cut out and ``k`` the queue position
    of the first job that did not fit (``len(queue)`` if all did). Decisions are appended to
    ``decisions.reserve``. Each head costs a :func:`~vosim.policies.batch_windows.window_at` and a
    cut, ``O(m)`` for ``m`` slots (the node form; :func:`start_heads_counted` is the count
    form).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1: FCFS starts jobs in arrival order.
    """
    slots = state.slots
    for k, job in enumerate(state.queue):
        window = window_at(slots, state.time, job)
        if window is None:
            return slots, k
        decisions.reserve.append((job.index, window))
        slots = slots.cut(window)
    return slots, len(state.queue)


def start_heads_counted(
    free: IdenticalSlots, queue: Sequence[ResourceRequest], decisions: Decisions
) -> int:
    """:func:`start_heads` on identical processors held as counts; returns ``k``.

    Takes the heads' processors from ``free`` (:meth:`IdenticalSlots.take_now`, ``O(n)`` per
    head, the same windows as :func:`start_heads`) and appends them to
    ``decisions.reserve``; ``k`` is the position of the first head that does not fit
    (``len(queue)`` if all did).

    Raises
    ------
    NotIdentical
        A head outside what the count form covers (see :class:`IdenticalSlots`).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1: FCFS starts jobs in arrival order.
    """
    for k, job in enumerate(queue):
        window = free.take_now(job)
        if window is None:
            return k
        decisions.reserve.append((job.index, window))
    return len(queue)


@register_policy("fcfs")
class FCFS(Policy):
    """First come, first served: start heads while they fit, in submission order.

    Parameters
    ----------
    (none)

    Notes
    -----
    A pass is ``O(k m)`` for ``k`` jobs started and ``m`` slots. Processors are chosen as in
    :mod:`vosim.policies.batch_windows` (cheapest within the budget, tightest fit on ties). On
    identical processors (the traced machine) the pass runs on counts
    (:class:`~vosim.policies.batch_windows.IdenticalSlots`): ``O(m)`` once, then ``O(n)`` per job
    started, with the same decisions (:meth:`decide_by_nodes` is its oracle in the tests).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1-2: FCFS as the baseline of backfilling.
    """

    name = "fcfs"

    def decide(self, state: CycleState) -> Decisions:
        """Start the queue's heads at ``state.time`` while they fit."""
        if not state.queue:  # nothing waits: no slot list needed
            return Decisions().settle()
        # the count form is a speed-up of the node form: VOSIM_REFERENCE=1 runs the latter
        decisions = None if reference() else self.decide_by_counts(state)
        return decisions if decisions is not None else self.decide_by_nodes(state)

    def decide_by_nodes(self, state: CycleState) -> Decisions:
        """:meth:`decide` on the slot list, node by node (any nodes, prices, budgets)."""
        decisions = Decisions()
        _, k = start_heads(state, decisions)
        return self._blocked(state, k, decisions)

    def decide_by_counts(self, state: CycleState) -> Decisions | None:
        """:meth:`decide` on identical processors held as counts; ``None`` where not that.

        Equal to :meth:`decide_by_nodes` whenever it returns decisions; ``None`` when the slot
        list or a job is outside :class:`~vosim.policies.batch_windows.IdenticalSlots`' form.

        References
        ----------
        Mu'alem & Feitelson (2001), §1: FCFS on identical processors counts free processors.
        """
        free = IdenticalSlots.of_state(state)
        if free is None:
            return None
        decisions = Decisions()
        try:
            k = start_heads_counted(free, state.queue, decisions)
        except NotIdentical:
            return None
        return self._blocked(state, k, decisions)

    @staticmethod
    def _blocked(state: CycleState, k: int, decisions: Decisions) -> Decisions:
        if k < len(state.queue):
            head = state.queue[k]
            decisions.reasons[head.index] = "FCFS: not enough free nodes now (queue head)"
            decisions.stats["blocked_head"] = head.index
        return decisions.settle("the queue's head does not fit now")
