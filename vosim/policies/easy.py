"""EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001)."""

from __future__ import annotations

from vosim.policies.base import CycleState, Decisions, register_policy
from vosim.policies.fcfs import start_heads
from vosim.policies.windows import earliest_window, window_at

__all__ = ["EASY"]


@register_policy("easy")
class EASY:
    """EASY backfilling: the queue's head holds a reservation; later jobs may jump ahead.

    One pass at time ``t``: start heads while they fit. For the blocked head ``h`` the shadow
    time ``s`` is the earliest time at which ``n_h`` nodes are free for ``h``'s estimated run
    time; ``h``'s window at ``s`` is set aside. Each later job in queue order then starts now
    if a window at ``t`` fits beside it: it ends by ``s``, or it uses nodes the head does not
    need (on identical processors: ``p_j <= extra``, the processors free at ``s`` beyond
    ``p_h``, and ``extra`` shrinks by ``p_j``). The head's window is not reserved at the
    owners: it is computed again at the next pass.

    On identical processors this equals the count-based rule of the issue and the papers
    (:mod:`vosim.policies.windows` explains the tie rules that make node choice equivalent). A
    head that has no window in ``[t, t + L)`` (the slot list's interval) protects nothing;
    later jobs then backfill freely.

    Notes
    -----
    A pass costs ``O(q m)`` for ``q`` waiting jobs and ``m`` slots.

    References
    ----------
    Lifka (1995), "The ANL/IBM SP scheduling system", JSSPP; Mu'alem & Feitelson (2001),
    "Utilization, predictability, workloads, and user runtime estimates in scheduling the IBM
    SP2 with backfilling", IEEE TPDS 12(6), §2 (EASY's shadow time and extra processors).
    """

    name = "easy"

    def decide(self, state: CycleState) -> Decisions:
        """Start heads, then backfill around the blocked head's reservation."""
        decisions = Decisions()
        slots, k = start_heads(state, decisions)
        if k == len(state.queue):
            return decisions.settle()
        head = state.queue[k]
        shadow = earliest_window(slots, head, state.time)
        if shadow is None:
            decisions.reasons[head.index] = (
                "EASY: no window for the queue's head within the scheduling interval"
            )
        else:
            decisions.reasons[head.index] = f"EASY: queue head, reserved at {shadow.start:g}"
            decisions.stats["shadow_time"] = shadow.start
            slots = slots.cut(shadow)
        backfilled = 0
        for job in state.queue[k + 1 :]:
            window = window_at(slots, state.time, job)
            if window is None:
                decisions.reasons[job.index] = "EASY: no backfill window now"
                continue
            decisions.reserve.append((job.index, window))
            slots = slots.cut(window)
            backfilled += 1
        decisions.stats["backfilled"] = backfilled
        return decisions.settle("the queue's head does not fit now and nothing backfills")
