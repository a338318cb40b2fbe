"""FCFS: the queue's heads start in order while they fit; the first that does not blocks all."""

from __future__ import annotations

from vosim.policies.base import CycleState, Decisions, register_policy
from vosim.policies.windows import window_at

__all__ = ["FCFS", "start_heads"]


def start_heads(state: CycleState, decisions: Decisions):
    """Start queue heads at ``state.time`` while each fits; returns ``(slots, k)``.

    ``slots`` is the slot list with the started windows cut out and ``k`` the queue position
    of the first job that did not fit (``len(queue)`` if all did). Decisions are appended to
    ``decisions.reserve``.
    """
    slots = state.slots
    for k, job in enumerate(state.queue):
        window = window_at(slots, state.time, job)
        if window is None:
            return slots, k
        decisions.reserve.append((job.index, window))
        slots = slots.cut(window)
    return slots, len(state.queue)


@register_policy("fcfs")
class FCFS:
    """First come, first served: start heads while they fit, in submission order.

    Parameters
    ----------
    (none)

    Notes
    -----
    A pass is ``O(k m)`` for ``k`` jobs started and ``m`` slots. Processors are chosen as in
    :mod:`vosim.policies.windows` (cheapest within the budget, tightest fit on ties).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1-2: FCFS as the baseline of backfilling.
    """

    name = "fcfs"

    def decide(self, state: CycleState) -> Decisions:
        """Start the queue's heads at ``state.time`` while they fit."""
        decisions = Decisions()
        _, k = start_heads(state, decisions)
        if k < len(state.queue):
            head = state.queue[k]
            decisions.reasons[head.index] = "FCFS: not enough free nodes now (queue head)"
            decisions.stats["blocked_head"] = head.index
        return decisions.settle("the queue's head does not fit now")
