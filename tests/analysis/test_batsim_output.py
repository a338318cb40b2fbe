"""Batsim-compatible job output: the Batsim columns, ``--csv`` and evalys.

Batsim's ``_jobs.csv`` columns (Batsim docs, "Jobs" output file) lead ``jobs.parquet``;
``vosim run --csv`` writes them alone to ``jobs.csv``, which evalys (Batsim's analysis
library) loads with ``JobSet.from_csv``. Its utilisation of the VO jobs, the integral over
time of the resources their ``allocated_resources`` hold from ``starting_time`` to
``finish_time``, must equal vosim's: the node-seconds the jobs' tasks used (``node_time``, the
numerator of ``summary.json``'s ``utilization``), and over time the nodes vosim's task
records (``tasks.parquet``) show busy. On the traced machine (``--machine``) every node has the
reference performance, so a job's tasks all end with it and the two must agree exactly.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from evalys.jobset import JobSet
from hypothesis import given
from hypothesis import strategies as st
from job_cases import CASES, Owner, hand_ledger
from procset import ProcSet

from vosim.agents.ledger import (
    BATSIM_COLUMNS,
    BATSIM_FINAL_STATES,
    JOB_COLUMNS,
    _node_strings,
    batsim_final_state,
)
from vosim.analysis.metrics import batsim_jobs, run_summary
from vosim.runs.cli import build_parser, main

#: Batsim's jobs output columns, in its order (Batsim docs, "Jobs" output file).
BATSIM_DOC_COLUMNS = (
    "job_id workload_name profile submission_time requested_number_of_resources "
    "requested_time success final_state starting_time execution_time finish_time waiting_time "
    "turnaround_time stretch allocated_resources consumed_energy metadata"
).split()

GAIA_RUN = ["--trace", "UniLu-Gaia-2014-2", "--jobs", "200", "--machine", "--policy", "easy"]


@pytest.fixture(scope="module")
def hand_table() -> pd.DataFrame:
    owners = [Owner(k // 2) for k in range(6)]
    return hand_ledger([c[0] for c in CASES]).table(owners, workload_name="hand-made")


@pytest.fixture(scope="module")
def gaia_out(tmp_path_factory):
    """``vosim run`` on 200 Gaia jobs on the traced machine with EASY, with ``--csv``."""
    out = tmp_path_factory.mktemp("gaia") / "out"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["run", *GAIA_RUN, "--csv", "--quiet", "--out", str(out)]) == 0
    return out, printed.getvalue()


# -- the columns ----------------------------------------------------------------------------------
def test_batsim_columns_lead_jobs_parquet_in_batsim_order():
    assert list(BATSIM_COLUMNS) == BATSIM_DOC_COLUMNS
    assert list(JOB_COLUMNS)[: len(BATSIM_COLUMNS)] == BATSIM_DOC_COLUMNS
    assert all(JOB_COLUMNS[c] for c in BATSIM_COLUMNS), "every column is described"


def test_batsim_columns_are_typed(hand_table):
    df = hand_table
    assert list(df.columns) == list(JOB_COLUMNS)
    assert df["success"].dtype == np.int64
    assert isinstance(df["final_state"].dtype, pd.CategoricalDtype)
    assert list(df["final_state"].cat.categories) == list(BATSIM_FINAL_STATES)
    assert df["consumed_energy"].dtype == np.float64 and df["consumed_energy"].isna().all()
    for col in ("workload_name", "profile", "metadata", "allocated_resources"):
        assert pd.api.types.is_string_dtype(df[col]), col
    assert (df["workload_name"] == "hand-made").all()
    assert df["profile"].tolist()[:2] == ["delay_50", "delay_100"]


def test_allocated_resources_are_batsim_interval_sets(hand_table):
    assert hand_table["allocated_resources"].tolist() == ["0-1 3", "4", "", "", "2", "2", "", ""]


@given(st.lists(st.sets(st.integers(min_value=0, max_value=300), min_size=1, max_size=40)))
def test_interval_sets_parse_back_in_batsim_s_canonical_form(windows):
    """procset (evalys's interval sets) reads each job's ids and writes the same string."""
    owners = [Owner(0)] * 301
    nodes = [sorted(w, reverse=True) for w in windows]  # any order in a window
    ids = np.array([i for w in nodes for i in w], dtype=np.int64)
    job = np.repeat(np.arange(len(nodes)), [len(w) for w in nodes])
    sets, _ = _node_strings(ids, job, len(nodes), owners)
    for ids, text in zip(windows, sets, strict=True):
        parsed = ProcSet.from_str(text)
        assert set(parsed) == ids
        assert str(parsed) == text


# -- the states -----------------------------------------------------------------------------------
def test_final_state_success_and_metadata(hand_table):
    assert hand_table["final_state"].astype(str).tolist() == [c[1] for c in CASES]
    assert hand_table["success"].tolist() == [c[2] for c in CASES]
    assert hand_table["metadata"].tolist() == [c[3] for c in CASES]
    # Batsim's success: completed before its walltime, i.e. exactly COMPLETED_SUCCESSFULLY
    ok = hand_table["final_state"] == "COMPLETED_SUCCESSFULLY"
    assert (hand_table["success"] == ok.astype(int)).all()


@pytest.mark.parametrize(
    ("state", "run_time", "kwargs", "expected"),
    [
        ("completed", 99.9, {}, "COMPLETED_SUCCESSFULLY"),
        ("completed", 100.0, {}, "COMPLETED_WALLTIME_REACHED"),  # a delay = walltime reaches it
        ("rejected", 10.0, {}, "REJECTED"),
        ("withdrawn", 10.0, {}, "REJECTED"),
        ("unfinished", 10.0, {"started": True}, "RUNNING"),
        ("unfinished", 10.0, {}, "SUBMITTED"),
        ("unfinished", 10.0, {"submitted": False}, "NOT_SUBMITTED"),
        ("pending", 10.0, {}, "NOT_SUBMITTED"),
        ("waiting", 10.0, {}, "SUBMITTED"),
        ("scheduled", 10.0, {"started": True}, "RUNNING"),
    ],
)
def test_batsim_final_state_maps_every_vosim_state(state, run_time, kwargs, expected):
    assert batsim_final_state(state, run_time, 100.0, **kwargs) == expected
    assert expected in BATSIM_FINAL_STATES


def test_batsim_final_state_rejects_an_unknown_state():
    with pytest.raises(ValueError, match="unknown job state 'lost'"):
        batsim_final_state("lost", 1.0, 2.0)


# -- vosim run --csv ------------------------------------------------------------------------------
def test_csv_is_off_by_default():
    assert build_parser().parse_args(["run"]).csv is False


def test_run_csv_writes_the_batsim_columns_of_jobs_parquet(gaia_out):
    out, printed = gaia_out
    assert "jobs.csv" in printed.splitlines()[-1]
    with open(out / "jobs.csv") as f:
        assert f.readline().rstrip("\n").split(",") == BATSIM_DOC_COLUMNS
    csv = pd.read_csv(out / "jobs.csv", dtype=str, keep_default_na=False)  # fields as written
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(csv) == len(jobs) == 200
    want = batsim_jobs(jobs)
    for col in BATSIM_COLUMNS:
        got, exp = csv[col], want[col]
        if pd.api.types.is_float_dtype(exp):  # NaN is an empty field, as Batsim leaves it
            np.testing.assert_array_equal(
                got.replace("", "nan").astype(float), exp.to_numpy(float), err_msg=col
            )
        else:
            assert got.tolist() == exp.astype(str).tolist(), col
    assert (jobs["workload_name"] == "UniLu-Gaia-2014-2").all()
    # the prefix has jobs killed at their walltime as well as ones that ended before it
    assert set(jobs["final_state"].astype(str)) == {
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_WALLTIME_REACHED",
    }
    assert (jobs["run_time"] >= jobs["requested_time"]).sum() == (jobs["success"] == 0).sum()


def test_run_without_csv_writes_no_jobs_csv(tmp_path):
    out = tmp_path / "o"
    with contextlib.redirect_stdout(io.StringIO()):
        args = ["run", "--trace", "NASA-iPSC-1993-3.1-cln", "--jobs", "20", "--quiet"]
        assert main([*args, "--out", str(out)]) == 0
    assert (out / "jobs.parquet").exists() and not (out / "jobs.csv").exists()
    # the per-group tables: every job in one group; each group's site shares sum to 1
    groups = pd.read_parquet(out / "groups.parquet")
    assert groups["jobs_read"].sum() == 20
    pairs = pd.read_parquet(out / "group_sites.parquet")
    assert set(pairs["placement"]) == {"run"}
    np.testing.assert_allclose(pairs.groupby("group")["share"].sum(), 1.0)


# -- evalys ---------------------------------------------------------------------------------------
# evalys 4.0.7 renames a column in place, which pandas 3.1 deprecates (it still works)
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.rename:DeprecationWarning")
def test_evalys_utilisation_of_the_vo_jobs_equals_vosim_s(gaia_out):
    """evalys's load integral = vosim's node_time; its load curve = vosim's busy tasks."""
    out, _ = gaia_out
    nodes = json.loads((out / "summary.json").read_text())["nodes"]
    jobs = pd.read_parquet(out / "jobs.parquet")
    tasks = pd.read_parquet(out / "tasks.parquet")
    assert jobs["failures"].sum() == 0  # one attempt each: tasks.parquet is the schedule

    js = JobSet.from_csv(str(out / "jobs.csv"), resource_bounds=(0, nodes - 1))
    assert len(js.df) == 200 and js.MaxProcs == nodes
    load = js.utilisation  # resources in use from each event on, and that times the duration
    area = float(load["area"].sum())
    assert area == pytest.approx(float(jobs["node_time"].sum()), rel=1e-12)

    # over time: at every event evalys counts the nodes vosim's task records show busy
    times = load.index.to_numpy(float)
    busy = [int(((tasks["start"] <= t) & (t < tasks["end"])).sum()) for t in times]
    assert load["load"].tolist() == busy

    # as a fraction: vosim's utilization over the first submission to the last completion
    first, last = float(jobs["submission_time"].min()), float(jobs["finish_time"].max())
    vosim = run_summary(jobs, nodes, [0.0], end=last)["utilization"]
    assert area / (nodes * (last - first)) == pytest.approx(vosim, rel=1e-12)
