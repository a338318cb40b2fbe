"""Conservative backfilling's node form: its earliest-window search and its static shortcut."""

from __future__ import annotations

import math
import os
from unittest import mock

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core import Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.model import VOModel
from vosim.policies import conservative as conservative_module
from vosim.policies.base import QueuedJob
from vosim.policies.batch_windows import earliest_window


@st.composite
def _slots_and_job(draw):
    """A slot list of up to 8 nodes (free spans on a grid of 10) and a job that may fit."""
    nodes = draw(st.integers(1, 8))
    rows = []
    for node in range(nodes):
        price = draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))
        perf = draw(st.sampled_from([1.0, 2.0, 3.0]))
        line = draw(st.lists(st.booleans(), min_size=1, max_size=10))
        for k, is_free in enumerate(line):
            if not is_free:
                continue
            if rows and rows[-1][0] == node and rows[-1][2] == 10.0 * k:
                rows[-1][2] += 10.0
            else:
                rows.append([node, 10.0 * k, 10.0 * k + 10, price, perf])
    slots = SlotList([Slot(*r) for r in rows])
    n = draw(st.integers(1, max(1, nodes)))
    volume = draw(st.sampled_from([5.0, 10.0, 20.0, 30.0, 45.0]))
    budget = draw(st.sampled_from([10.0, 30.0, 60.0, 100.0, 1e9]))
    not_before = draw(st.sampled_from([0.0, 5.0, 20.0]))
    before = draw(st.sampled_from([math.inf, 10.0, 30.0, 60.0]))
    return slots, QueuedJob(index=0, n=n, volume=volume, budget=budget), not_before, before


@settings(max_examples=300, deadline=None)
@given(_slots_and_job())
def test_the_compiled_loop_finds_the_plain_loops_window(case):
    """``earliest_window``'s compiled search (candidate starts and the test at each) returns
    the very window of :func:`candidate_starts` and trying :func:`window_at` at each start
    in turn (the plain path), with and without a bound on the start."""
    slots, job, not_before, before = case
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        plain = earliest_window(slots, job, not_before, before)
    fast = earliest_window(slots, job, not_before, before)
    assert (plain is None) == (fast is None)
    if plain is not None:
        assert (plain.start, plain.nodes, plain.cost, plain.runtime) == (
            fast.start,
            fast.nodes,
            fast.cost,
            fast.runtime,
        )


def test_the_static_shortcut_searches_less_and_decides_as_searching_every_reservation(
    monkeypatch,
):
    """On a static market a held reservation is searched again only where a window before it
    may have appeared (time freed, or the interval grown past its slow nodes' reach); whole
    runs equal those that search every reservation at every pass."""
    searched = {True: 0, False: 0}
    plain = conservative_module.Conservative._may_move

    def counted(self, *args):
        result = plain(self, *args)
        searched[result] += 1
        return result

    monkeypatch.setattr(conservative_module.Conservative, "_may_move", counted)

    def run(static: bool) -> VOModel:
        model = VOModel(jobs=1200, offered_load=0.6, policy="conservative", rng=1)
        model.metascheduler.scheduler.static = static
        model.run()
        return model

    fast, full = run(True), run(False)
    assert searched[False] > searched[True] > 0  # skipped more than searched
    tasks = fast.task_frame()
    assert (tasks["attempt"] > 0).sum() > 0  # reservations moved (a move is a new attempt)
    pd.testing.assert_frame_equal(fast.job_frame(), full.job_frame())
    pd.testing.assert_frame_equal(tasks, full.task_frame())
    pd.testing.assert_frame_equal(fast.cycle_frame(), full.cycle_frame())
