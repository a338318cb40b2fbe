"""Conservative backfilling's node form: its static shortcut (held reservations searched again
only where a window before them may have appeared)."""

from __future__ import annotations

import pandas as pd

from vosim.model import VOModel
from vosim.policies import conservative as conservative_module


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
    # reservations skipped and searched (with a pool's processors counted, time freed on one
    # wakes the pool's reservations, so fewer are skipped than on processors alone)
    assert searched[False] > 0 and searched[True] > 0
    tasks = fast.task_frame()
    assert (tasks["attempt"] > 0).sum() > 0  # reservations moved (a move is a new attempt)
    pd.testing.assert_frame_equal(fast.job_frame(), full.job_frame())
    pd.testing.assert_frame_equal(tasks, full.task_frame())
    pd.testing.assert_frame_equal(fast.cycle_frame(), full.cycle_frame())
