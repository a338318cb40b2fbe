"""EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001)."""

from __future__ import annotations

from vosim.core.code_path import reference
from vosim.policies.base import CycleState, Decisions, Policy, register_policy
from vosim.policies.batch_windows import IdenticalSlots, NotIdentical, earliest_window, window_at
from vosim.policies.fcfs import start_heads, start_heads_counted

__all__ = ["EASY"]

_NO_BACKFILL = "EASY: no backfill window now"
_NO_HEAD_WINDOW = "EASY: no window for the queue's head within the scheduling interval"
_BLOCKED = "the queue's head does not fit now and nothing backfills"


@register_policy("easy")
class EASY(Policy):
    """EASY backfilling: the queue's head holds a reservation; later jobs may jump ahead.

    One pass at time ``t``: start heads while they fit. For the blocked head ``h`` the shadow
    time ``s`` is the earliest time at which ``n_h`` nodes are free for ``h``'s estimated run
    time; ``h``'s window at ``s`` is set aside. Each later job in queue order then starts now
    if a window at ``t`` fits beside it: it ends by ``s``, or it uses nodes the head does not
    need (on identical processors: ``p_j <= extra``, the processors free at ``s`` beyond
    ``p_h``, and ``extra`` shrinks by ``p_j``). The head's window is not reserved at the
    owners: it is computed again at the next pass.

    On identical processors this equals the count-based rule of Mu'alem & Feitelson
    (:mod:`vosim.policies.batch_windows` explains the tie rules that make node choice equivalent). A
    head that has no window in ``[t, t + L)`` (the slot list's interval) protects nothing;
    later jobs then backfill freely.

    Notes
    -----
    A pass costs ``O(q m)`` for ``q`` waiting jobs and ``m`` slots on the node form
    (:meth:`decide_by_nodes`). On identical processors (the traced machine) :meth:`decide`
    runs the count form (:meth:`decide_by_counts`, on
    :class:`~vosim.policies.batch_windows.IdenticalSlots`): ``O(m)`` vectorised once, ``O(1)``
    per waiting job and ``O(n)`` per job started, and once no processor is free the rest of
    the queue is passed over at once. Both forms give equal decisions: the node form is the
    count form's oracle in the tests.

    References
    ----------
    Lifka (1995), "The ANL/IBM SP scheduling system", JSSPP; Mu'alem & Feitelson (2001),
    "Utilization, predictability, workloads, and user runtime estimates in scheduling the IBM
    SP2 with backfilling", IEEE TPDS 12(6), §2 (EASY's shadow time and extra processors).
    """

    name = "easy"

    def decide(self, state: CycleState) -> Decisions:
        """Start heads, then backfill around the blocked head's reservation."""
        if not state.queue:  # nothing waits: no slot list needed
            return Decisions().settle()
        # the count form is a speed-up of the node form: VOSIM_REFERENCE=1 runs the latter
        decisions = None if reference() else self.decide_by_counts(state)
        return decisions if decisions is not None else self.decide_by_nodes(state)

    def decide_by_nodes(self, state: CycleState) -> Decisions:
        """:meth:`decide` on the slot list, node by node (any nodes, prices, budgets)."""
        decisions = Decisions()
        slots, k = start_heads(state, decisions)
        if k == len(state.queue):
            return decisions.settle()
        head = state.queue[k]
        shadow = earliest_window(slots, head, state.time)
        if shadow is None:
            decisions.reasons[head.index] = _NO_HEAD_WINDOW
        else:
            decisions.reasons[head.index] = f"EASY: queue head, reserved at {shadow.start:g}"
            decisions.stats["shadow_time"] = shadow.start
            slots = slots.cut(shadow)
        backfilled = 0
        for job in state.queue[k + 1 :]:
            window = window_at(slots, state.time, job)
            if window is None:
                decisions.reasons[job.index] = _NO_BACKFILL
                continue
            decisions.reserve.append((job.index, window))
            slots = slots.cut(window)
            backfilled += 1
        decisions.stats["backfilled"] = backfilled
        return decisions.settle(_BLOCKED)

    def decide_by_counts(self, state: CycleState) -> Decisions | None:
        """:meth:`decide` on identical processors held as counts; ``None`` where not that.

        Equal to :meth:`decide_by_nodes` whenever it returns decisions; ``None`` when the slot
        list or a job is outside :class:`~vosim.policies.batch_windows.IdenticalSlots`' form (the
        caller then uses the node form).

        References
        ----------
        Mu'alem & Feitelson (2001), §2: a later job backfills when ``p_j`` processors are
        free now and it ends by the shadow time or fits in the extra processors.
        """
        free = IdenticalSlots.of_state(state)
        if free is None:
            return None
        queue = state.queue
        decisions = Decisions()
        reasons = decisions.reasons
        try:
            k = start_heads_counted(free, queue, decisions)
            if k == len(queue):
                return decisions.settle()
            head = queue[k]
            shadow = free.hold_head(head)
            if shadow is None:
                reasons[head.index] = _NO_HEAD_WINDOW
            else:
                reasons[head.index] = f"EASY: queue head, reserved at {shadow:g}"
                decisions.stats["shadow_time"] = shadow
            backfilled = 0
            left = free.free_now
            rest = queue[k + 1 :]
            for i, job in enumerate(rest):
                if left == 0:  # nothing is free: no later job fits
                    reasons.update(dict.fromkeys([j.index for j in rest[i:]], _NO_BACKFILL))
                    break
                window = free.take_now(job) if job.n <= left else None
                if window is None:
                    reasons[job.index] = _NO_BACKFILL
                    continue
                decisions.reserve.append((job.index, window))
                left -= job.n
                backfilled += 1
        except NotIdentical:
            return None
        decisions.stats["backfilled"] = backfilled
        return decisions.settle(_BLOCKED)
