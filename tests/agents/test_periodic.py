"""Periodic cycles skip idle stretches and decide exactly as every period."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from vosim.agents.metascheduler import MetaschedulerAgent
from vosim.data import trace_path
from vosim.model import VOModel

DAY = 86400.0


@pytest.fixture(scope="module")
def gap_trace(tmp_path_factory) -> str:
    """NASA's first 60 jobs of at most 16 processors, the last 30 moved 10 days later.

    Ten days are ten scheduling intervals of one day: the idle stretch between the halves
    crosses ten of the owners' local-load draws.
    """
    text = gzip.open(trace_path("NASA-iPSC-1993-3.1-cln"), "rt").read().splitlines()
    header = [line for line in text if line.startswith(";")]
    jobs = [line.split() for line in text if line.strip() and not line.startswith(";")]
    jobs = [f for f in jobs if int(f[4]) <= 16][:60]
    for fields in jobs[30:]:
        fields[1] = str(int(float(fields[1])) + 10 * int(DAY))
    path = tmp_path_factory.mktemp("gap") / "gap.swf"
    path.write_text("\n".join(header + [" ".join(f) for f in jobs]) + "\n")
    return str(path)


def _run(
    trace: str,
    policy: str,
    monkeypatch,
    every: bool = False,
    model_: str = "interval",
):
    """A drained run; ``every``: a cycle every period (the oracle: no cycle is skipped)."""
    with monkeypatch.context() as patch:
        if every:
            patch.setattr(MetaschedulerAgent, "can_act", lambda self: True)
        # the interval model: local load drawn per interval, which the skip must respect
        model = VOModel(
            trace=trace, scheduling_interval=DAY, policy=policy, local_model=model_, rng=3
        )
        model.run()
    return model


@pytest.mark.parametrize("local_model", ["interval", "online"])
@pytest.mark.parametrize("policy", ["css", "conservative"])
def test_skipped_cycles_change_no_record(gap_trace, policy, local_model, monkeypatch):
    """Jobs and tasks equal the every-period run's; the rows kept are its rows, unchanged,
    and the rows skipped are its idle cycles (nothing waited, nothing was scheduled)."""
    every = _run(gap_trace, policy, monkeypatch, every=True, model_=local_model)
    lean = _run(gap_trace, policy, monkeypatch, model_=local_model)
    pd.testing.assert_frame_equal(lean.job_frame(), every.job_frame())
    pd.testing.assert_frame_equal(lean.task_frame(), every.task_frame())
    rows, all_rows = lean.cycle_frame(), every.cycle_frame()
    assert len(rows) < len(all_rows) / 5
    kept = all_rows["time"].isin(rows["time"])
    pd.testing.assert_frame_equal(all_rows[kept].reset_index(drop=True), rows)
    idle = all_rows[~kept]
    assert (idle["batch_size"] == 0).all() and (idle["jobs_scheduled"] == 0).all()
    assert (idle["queue_length"] == 0).all()
    assert lean.metascheduler.cycles == len(rows) == lean.periodic.ran


def test_a_skip_past_idle_passes_that_would_draw_local_load_changes_no_job(gap_trace, monkeypatch):
    """Conservative backfilling reads the slot list even with nothing to do, so an idle
    cycle draws the owners' interval local load of each new interval; a skip past those
    cycles draws it later, from each owner's own stream in the same order: the same jobs."""
    every = _run(gap_trace, "conservative", monkeypatch, every=True)
    lean = _run(gap_trace, "conservative", monkeypatch)
    assert lean.periodic.ran < every.periodic.ran  # cycles were skipped
    pd.testing.assert_frame_equal(lean.job_frame(), every.job_frame())
    pd.testing.assert_frame_equal(lean.task_frame(), every.task_frame())
