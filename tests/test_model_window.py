"""first_job: a run on a window of the trace, not only its prefix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vosim.data import trace_path
from vosim.errors import ParameterError
from vosim.market.swf import read_swf
from vosim.model import VOModel

NASA, LCG = "NASA-iPSC-1993-3.1-cln", "LCG-2005-1"


def test_a_window_runs_as_the_same_rows_given_as_a_frame():
    """The jobs after the first 300 run exactly as those rows handed over as a frame."""
    window = VOModel(trace=NASA, jobs=40, first_job=300, rng=2)
    window.run()
    whole = read_swf(trace_path(NASA))
    rows = whole.iloc[300:340].copy()
    rows.attrs = whole.attrs  # the header: MaxProcs, MaxNodes
    given = VOModel(trace=rows, jobs=None, rng=2)
    given.run()
    jobs = window.job_frame()
    assert jobs["job_id"].tolist() == whole["job_id"].iloc[300:340].tolist()
    assert jobs["submission_time"].min() == whole["submit_time"].iloc[300]
    named = ["workload_name"]  # the trace's name, or the frame's path
    pd.testing.assert_frame_equal(jobs.drop(columns=named), given.job_frame().drop(columns=named))
    pd.testing.assert_frame_equal(window.task_frame(), given.task_frame())
    assert window.job_frame()["state"].eq("completed").mean() > 0.9


def test_a_window_differs_from_the_prefix():
    prefix = VOModel(trace=NASA, jobs=40, rng=2).job_frame()["job_id"]
    window = VOModel(trace=NASA, jobs=40, first_job=40, rng=2).job_frame()["job_id"]
    assert set(prefix).isdisjoint(window) and window.min() == prefix.max() + 1


def test_without_jobs_the_window_runs_to_the_trace_end():
    model = VOModel(trace=NASA, jobs=None, first_job=18_200, rng=1)
    total = len(read_swf(trace_path(NASA)))
    assert len(model.jobs) == total - 18_200


def test_a_window_past_the_trace_end_is_refused_naming_value_and_length():
    with pytest.raises(ParameterError, match=r"below the trace's 18239 jobs, got 18239"):
        VOModel(trace=NASA, jobs=10, first_job=18_239, rng=1)


def test_sites_are_estimated_from_the_whole_trace_in_any_window():
    head = VOModel(trace=LCG, jobs=50, owners="trace", rng=1)
    later = VOModel(trace=LCG, jobs=50, first_job=100_000, owners="trace", rng=1)
    np.testing.assert_array_equal(head.sites.capacity, later.sites.capacity)
    assert later.job_frame()["job_id"].min() > head.job_frame()["job_id"].max()
