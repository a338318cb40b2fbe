"""Event-driven runs skip the passes that could decide nothing (no job waiting)."""

from __future__ import annotations

import pytest

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
    model.run()
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
