"""Jobs are told apart by their position in the trace, never by their SWF id.

Before, two jobs with one id crashed the run or silently changed other jobs' rows, and an id
of -1 (SWF's "unknown") was the tag of owners' local jobs, so that job's early end cut their
local load short.
"""

from __future__ import annotations

import warnings

import pytest

from vosim.data import trace_path
from vosim.errors import TraceWarning
from vosim.market.swf import read_swf
from vosim.model import VOModel

JOBS = 300


def _run(ids=None, **options):
    trace = read_swf(trace_path("UniLu-Gaia-2014-2"), max_jobs=JOBS)
    if ids is not None:
        trace["job_id"] = ids
    model = VOModel(trace=trace, rng=4, **options)
    model.run()
    return model


@pytest.fixture(scope="module")
def reference():
    """The default VO scenario (owners' local load) with the trace's own distinct ids."""
    return _run()


def _same_but_ids(model, reference):
    """Every table equal to the reference's except the id columns."""
    jobs, want = model.job_frame(), reference.job_frame()
    assert jobs.drop(columns="job_id").equals(want.drop(columns="job_id"))
    tasks = model.metascheduler.execution.task_frame()
    want_tasks = reference.metascheduler.execution.task_frame()
    assert tasks.drop(columns="job_id").equals(want_tasks.drop(columns="job_id"))
    assert model.cycle_frame().equals(reference.cycle_frame())
    assert model.revenue == reference.revenue


def test_an_id_of_minus_one_leaves_local_load_alone(reference):
    ids = read_swf(trace_path("UniLu-Gaia-2014-2"), max_jobs=JOBS)["job_id"].to_numpy().copy()
    ids[0] = -1  # the first job ends early: it must not shorten owners' local jobs
    model = _run(ids)
    assert model.job_frame()["job_id"].iloc[0] == -1
    _same_but_ids(model, reference)


def test_one_id_for_every_job_changes_nothing_but_the_id_column(reference):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)
        model = _run([7] * JOBS)
    assert (model.job_frame()["job_id"] == 7).all()
    _same_but_ids(model, reference)


def test_repeated_ids_on_the_traced_machine_with_easy():
    """EASY's heaps broke ties between equal end times by id, then compared Job objects."""
    options = dict(machine=True, cycle_period=0, policy="easy")
    plain = _run(**options)
    model = _run([1, 1, 2, 2] * (JOBS // 4), **options)
    _same_but_ids(model, plain)
