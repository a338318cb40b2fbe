"""vosim's FCFS, EASY and conservative backfilling on the traced machine start every job when
the rules say.

The oracle is ``batch_oracle.py``: an independent, plain event loop written from the rules
alone (Mu'alem & Feitelson 2001). vosim runs the same jobs as a VOModel with ``machine=True``
and ``cycle_period=0``; every job's start time must be equal.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from batch_oracle import heavy_workload, simulate, swf_frame

from vosim.market.swf import read_swf
from vosim.model import VOModel


def vosim_starts(frame, policy):
    model = VOModel(trace=frame, jobs=None, machine=True, cycle_period=0, policy=policy, rng=1)
    model.run()
    jobs = model.job_frame()
    assert (jobs["state"] == "completed").all(), jobs["state"].value_counts()
    return jobs["starting_time"].to_numpy()


def trace_arrays(frame):
    """(submit, procs, estimate, runtime) as vosim maps a trace on its machine."""
    procs = np.where(
        frame["requested_processors"] > 0,
        frame["requested_processors"],
        frame["allocated_processors"],
    ).astype(np.int64)
    run = frame["run_time"].to_numpy(dtype=float)
    req = frame["requested_time"].to_numpy(dtype=float)
    estimate = np.where(req > 0, req, run)
    runtime = np.minimum(np.maximum(run, 0), estimate)
    return frame["submit_time"].to_numpy(dtype=float), procs, estimate, runtime


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("seed", [0, 1])
def test_heavy_synthetic_workload(policy, seed):
    submit, procs, estimate, runtime = heavy_workload(np.random.default_rng(seed), 600, 64)
    estimate = np.maximum(np.round(estimate), 1.0)  # SWF times are whole seconds
    runtime = np.minimum(np.round(runtime), estimate)
    submit = np.round(submit)
    expected = simulate(submit, procs, estimate, runtime, 64, policy)
    got = vosim_starts(swf_frame(submit, procs, estimate, runtime, 64), policy)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_gaia_prefix(policy):
    frame = read_swf(Path(__file__).parents[2] / "vosim/data/UniLu-Gaia-2014-2.swf.gz", 4000)
    frame.attrs["header"]["MaxProcs"] = "2004"
    submit, procs, estimate, runtime = trace_arrays(frame)
    expected = simulate(submit, procs, estimate, runtime, 2004, policy)
    got = vosim_starts(frame, policy)
    np.testing.assert_array_equal(got, expected)


# Hand-made cases where the choice of processors decides whether a long job may backfill:
# EASY counts processors, vosim reserves concrete ones, and only its tie rules (the head
# reserves processors busy now first; short backfills take the head's processors first) make
# the two agree. Columns: submit, procs, estimate, runtime; 10 processors.
CHOICE_CASES = {
    # the head's processors that are busy now have the highest ids: id order would give the
    # head the free ones and refuse B, which fits in EASY's extra processors
    "head takes busy processors": [
        (0, 5, 10, 10),
        (0, 5, 100, 100),
        (20, 8, 50, 50),
        (20, 2, 1000, 1000),
    ],
    # S ends before the shadow time and must take the head's processors, leaving the extra
    # ones for the long job L
    "short backfill takes the head's processors": [
        (0, 6, 100, 100),
        (0, 8, 50, 50),
        (0, 2, 10, 10),
        (0, 2, 1000, 1000),
    ],
}


@pytest.mark.parametrize("case", sorted(CHOICE_CASES))
def test_processor_choice_keeps_easy_count_rule(case):
    submit, procs, estimate, runtime = (np.array(c) for c in zip(*CHOICE_CASES[case], strict=True))
    expected = simulate(submit, procs, estimate, runtime, 10, "easy")
    got = vosim_starts(swf_frame(submit, procs, estimate, runtime, 10), "easy")
    np.testing.assert_array_equal(got, expected)
    head = int(np.argmax(procs == 8))
    assert expected[3] < expected[head]  # the long job backfilled ahead of the head


def test_conservative_counts_processors_and_never_lets_a_later_job_overtake():
    """4 processors: J1 (2 procs, estimate 100, runs 100) and J2 (2, 100, runs 30) at 0, J3 and
    J4 (2, 100) at 1 and 2, both promised 100. When J2 ends at 30, compression in queue order
    moves J3 to 30 and J4 keeps 100. Reservations bound to processors when made let J4 take
    J2's processors at 30 and J3 wait for J1's until 100: a later job overtook an earlier one."""
    submit, procs, estimate, runtime = (
        np.array(c) for c in ([0, 0, 1, 2], [2, 2, 2, 2], [100] * 4, [100, 30, 100, 100])
    )
    expected = simulate(submit, procs, estimate, runtime, 4, "conservative")
    np.testing.assert_array_equal(expected, [0, 0, 30, 100])
    got = vosim_starts(swf_frame(submit, procs, estimate, runtime, 4), "conservative")
    np.testing.assert_array_equal(got, expected)
