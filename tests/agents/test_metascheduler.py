"""The metascheduler's passes: event-driven runs skip the passes that could decide nothing
(no job waiting), and a pass runs after every other event of its time, inline or as its
own event."""

from __future__ import annotations

import pytest

from vosim.agents.execution import Execution
from vosim.agents.metascheduler import MetaschedulerAgent
from vosim.model import VOModel


def _run(policy: str, every_pass: bool, monkeypatch):
    """A drained event-driven run; with ``every_pass`` a pass follows every end as before."""
    if every_pass:
        init = MetaschedulerAgent.__init__

        def forced(self, *args, **kwargs):
            init(self, *args, **kwargs)
            self._passes_act = True  # as if a pass always acted: never skipped

        monkeypatch.setattr(MetaschedulerAgent, "__init__", forced)
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=1500, machine=True, cycle_period=0, policy=policy, rng=5
    )
    model.run(replayed=False)  # the agents' passes, not the machine's compiled replay
    monkeypatch.undo()
    return model


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_skipped_passes_change_no_record(policy, monkeypatch):
    """Jobs and tasks are equal with and without the passes after ends with an empty queue;
    the skipped passes are exactly the cycles whose batch was empty and decided nothing."""
    every = _run(policy, True, monkeypatch)
    lean = _run(policy, False, monkeypatch)
    assert lean.job_frame().equals(every.job_frame())
    tasks = lean.metascheduler.execution.task_frame()
    assert tasks.equals(every.metascheduler.execution.task_frame())
    all_cycles, cycles = every.cycle_frame(), lean.cycle_frame()
    assert len(cycles) < len(all_cycles)
    idle = (all_cycles["batch_size"] == 0) & (all_cycles["jobs_scheduled"] == 0)
    kept = all_cycles[~idle].reset_index(drop=True)
    assert kept.equals(cycles[cycles["batch_size"] > 0].reset_index(drop=True))
    assert (cycles["batch_size"] > 0).all()  # no pass ran with nothing waiting


@pytest.mark.parametrize(("exit_revenue", "asked"), [(None, False), (1.0, True)])
def test_a_pass_with_nothing_waiting_is_asked_only_where_it_acts(exit_revenue, asked):
    """With owners who may leave, every pass reviews them: an end with nothing waiting still
    asks for one; without, it does not."""
    model = VOModel(
        trace="NASA-iPSC-1993-3.1-cln",
        jobs=20,
        cycle_period=0,
        owner_exit_revenue=exit_revenue,
        rng=2,
    )
    ms = model.metascheduler
    assert len(ms.queue) == 0 and not ms.execution.ahead
    ms.request_pass()
    assert (ms._pass_at == model.time) is asked


def _late_at_every_pass(monkeypatch, kwargs):
    """Run ``VOModel(**kwargs)``; at each pass, list what of its time had not happened yet."""
    late, inline = [], []
    cycle = MetaschedulerAgent.cycle

    def checked(self):
        model, now = self.model, self.model.time
        pending = [e for e in model._event_list._events if not e.CANCELED and e.time <= now]
        due = [
            u for u in model.users if u._next < len(u.jobs) and u.jobs[u._next].submit_time <= now
        ]
        ends = [
            job
            for finish, _, attempt, job in self.execution._completions
            if finish <= now
            and model.ledger[job.index].attempt == attempt
            and model.ledger[job.index].state == "scheduled"
        ]
        if pending or due or ends:
            late.append((now, len(pending), len(due), len(ends)))
        inline.append(not any(e.fn() == self.cycle for e in pending))
        cycle(self)

    monkeypatch.setattr(MetaschedulerAgent, "cycle", checked)
    model = VOModel(cycle_period=0, **kwargs)
    model.run(replayed=False)  # the agents' passes, not the machine's compiled replay
    return model, late, inline


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(trace="UniLu-Gaia-2014-2", jobs=1500, machine=True, policy="easy", rng=5),
        # patience 2 days: NASA's 128-node jobs starve behind the owners' local jobs and
        # would wait out the default 30 days (a month of passes over one unchanged queue)
        dict(trace="NASA-iPSC-1993-3.1-cln", jobs=300, rng=2, patience=2 * 86400.0),
        dict(trace="LCG-2005-1", jobs=400, policy="conservative", rng=3),
    ],
)
def test_every_pass_comes_after_its_times_ends_and_arrivals(kwargs, monkeypatch):
    """At every pass no end, arrival or other event of its time is still to come, whether the
    pass ran inside the last event of its time or as an event of its own; both happen."""
    model, late, inline = _late_at_every_pass(monkeypatch, kwargs)
    assert model.metascheduler.cycles > 0
    assert late == []
    assert any(inline)  # most passes run inside the event that asked for them


def test_simultaneous_arrivals_meet_in_one_pass(monkeypatch):
    """Two users submitting at one time are seen by one pass (the first user's event does not
    run it at once: the second user's event is still to come)."""
    batches = {}
    cycle = MetaschedulerAgent.cycle

    def counted(self):
        batches.setdefault(self.model.time, []).append(len(self.queue.arrived))
        cycle(self)

    monkeypatch.setattr(MetaschedulerAgent, "cycle", counted)  # before the agent is made
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=400, machine=True, policy="easy", rng=1, cycle_period=0
    )
    by_time: dict[float, set[int]] = {}
    for job in model.jobs:
        by_time.setdefault(job.submit_time, set()).add(job.user)
    shared = sorted(t for t, users in by_time.items() if len(users) > 1)
    assert shared, "the prefix has a time at which two users submit"
    model.run(replayed=False)  # the agents' passes, not the machine's compiled replay
    first = shared[0]
    arrivals = sum(
        1
        for j in model.jobs
        if j.submit_time == first and model.ledger[j.index].state != "rejected"
    )
    assert arrivals >= 2 and batches[first][0] == arrivals


@pytest.mark.parametrize("moved", [False, True])
def test_a_window_decided_but_not_bound_frees_its_nodes_for_the_next_pass(moved, monkeypatch):
    """A decided window no packing binds (a move's with ``moved``, else a new reservation's)
    stays free, but the pass's later searches saw it taken: its nodes must be in ``freed`` at
    the next pass, or a search that found nothing because of it (the static market's
    shortcut, a sleeping request class) is never made again. The job waits and completes."""
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=120, rng=1)
    meta = model.metascheduler
    bind, apply = meta.execution.bind, meta._apply
    target: list = []  # the window refused, then whether its nodes were freed

    def refuse(window):
        return None if target and window is target[0] else bind(window)

    def applied(decisions, state):
        if not target:  # on nodes no cancellation frees (those are freed anyway)
            held = model.ledger.window
            cancelled = {p for k in decisions.cancel for p in held[k].spans.node.tolist()}
            kind = [
                w
                for k, w in decisions.reserve
                if (k in decisions.cancel) == moved and cancelled.isdisjoint(w.spans.node.tolist())
            ]
            target.extend(kind[:1])
        count = apply(decisions, state)
        if len(target) == 1:
            nodes = set(target[0].spans.node.tolist())
            target.append(sorted(nodes - meta._freed))
        return count

    monkeypatch.setattr(meta.execution, "bind", refuse)
    monkeypatch.setattr(meta.execution, "bind_in_order", lambda windows: [])  # each alone
    monkeypatch.setattr(meta, "_apply", applied)
    model.run()
    assert len(target) == 2, "no window of this kind was decided"
    assert target[1] == [], f"nodes {target[1]} of the window not bound are not freed"
    assert (model.job_frame()["state"] == "completed").all()


def _bound(seed: int, one_by_one: bool, monkeypatch) -> tuple[VOModel, dict[str, int]]:
    """Gaia's first 1,500 jobs with the defaults (pooled processors, local flows); with
    ``one_by_one`` every window is bound alone (``Execution.bind``) after the earlier ones
    were reserved, the plain order the one call replaces. Counts the windows each way."""
    counts = {"alone": 0, "in order": 0}
    bind, in_order = Execution.bind, Execution.bind_in_order

    def alone(self, window):
        counts["alone"] += 1
        return bind(self, window)

    def together(self, windows):
        got = [] if one_by_one else in_order(self, windows)
        counts["in order"] += len(got)
        return got

    monkeypatch.setattr(Execution, "bind", alone)
    monkeypatch.setattr(Execution, "bind_in_order", together)
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=1500, rng=seed)
    model.run()
    monkeypatch.undo()
    return model, counts


@pytest.mark.parametrize("seed", [1, 2])
def test_windows_bound_in_one_call_give_the_one_by_one_run(seed, monkeypatch):
    """Jobs, tasks and cycles are equal whether a pass's windows are bound in one call or
    one by one; both runs bind windows in one call and alone (after a packing) on the way."""
    plain, alone = _bound(seed, True, monkeypatch)
    fast, counts = _bound(seed, False, monkeypatch)
    assert counts["in order"] > 1000 and 0 < counts["alone"] < alone["alone"]
    assert fast.job_frame().equals(plain.job_frame())
    assert fast.task_frame().equals(plain.task_frame())
    assert fast.cycle_frame().equals(plain.cycle_frame())
