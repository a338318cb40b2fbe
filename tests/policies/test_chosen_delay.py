"""A job's wait split in two: the delay its user chose, and queueing (no earlier window)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.agents.execution import Execution
from vosim.model import VOModel


def _run(**kwargs):
    noted = []
    reserve = Execution.reserve

    def spy(self, job, window, uncertain=None):
        noted.append(
            (job.index, self.model.ledger.earliest_start[job.index], window.start, self.model.time)
        )
        return reserve(self, job, window, uncertain)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Execution, "reserve", spy)
        model = VOModel(trace="UniLu-Gaia-2014-2", jobs=300, rng=2, **kwargs)
        model.run()
    return model, np.array(noted)


def test_a_run_splits_every_wait_into_chosen_delay_and_queueing():
    model, noted = _run()
    # at a job's first reservation (a move keeps it) the earliest affordable start lies
    # between the pass and the window
    _, first = np.unique(noted[:, 0], return_index=True)
    _, earliest, start, now = noted[first].T
    assert (now <= earliest).all() and (earliest <= start).all()
    jobs = model.job_frame()
    ran = jobs["starting_time"].notna()
    chosen = jobs.loc[ran, "chosen_delay"]
    assert (chosen >= 0).all() and (chosen <= jobs.loc[ran, "waiting_time"] + 1e-9).all()
    assert jobs.loc[~ran, "chosen_delay"].isna().all()
    assert chosen.max() > 0  # cost- and runtime-minded users choose later windows
    summary = model.summary()
    assert math.isclose(
        summary["mean_wait"],
        summary["mean_chosen_delay"] + summary["mean_queue_wait"],
        rel_tol=1e-12,
    )


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_batch_policies_choose_no_delay(policy):
    model, _ = _run(policy=policy)
    jobs = model.job_frame()
    assert (jobs["chosen_delay"].dropna() == 0).all()
    summary = model.summary()
    assert summary["mean_chosen_delay"] == 0
    assert summary["mean_queue_wait"] == summary["mean_wait"]
