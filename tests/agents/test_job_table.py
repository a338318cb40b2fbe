"""The columnar :meth:`~vosim.agents.ledger.JobLedger.table` equals a plain row-by-row build.

The oracle below builds the table one job at a time, as vosim did before the table was built
by columns (for speed: the per-job output is part of the timed run). Both are
compared on hand-made jobs of every state and on runs that leave jobs completed, rejected,
withdrawn, unfinished, interrupted and moved.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from job_cases import CASES, Owner, hand_ledger

from vosim.agents.ledger import (
    BATSIM_FINAL_STATES,
    JOB_COLUMNS,
    JOB_STATES,
    LIVE_STATES,
    JobLedger,
    _profile_name,
    batsim_final_state,
)
from vosim.model import VOModel


def _interval_set(ids) -> str:
    """Batsim interval-set string of sorted node ids: ``[0, 1, 2, 3, 7] -> '0-3 7'``."""
    out: list[str] = []
    ids = sorted(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(out)


def rows_job_table(ledger, owner_of_node, *, workload_name=""):
    """The oracle: :meth:`JobLedger.table`'s columns built one row per job."""
    rows = []
    for job in ledger.jobs:
        life = ledger[job.index]
        held = life.nodes is not None  # a window reserved (held now, or the completed one)
        completed = life.state == "completed"
        start = life.start if held else np.nan
        finish = life.finish if completed else np.nan
        nodes = life.nodes.tolist() if held else []
        final = batsim_final_state(
            life.state,
            job.run_time,
            job.requested_time,
            started=held and not life.start >= life.left_time,  # NaN: mid-run
            submitted=not math.isnan(life.left_time),  # unfinished: left the queue at the end
        )
        rows.append(
            (
                job.job_id,
                workload_name,
                _profile_name(job.run_time),
                job.submit_time,
                job.n,
                job.requested_time,
                int(final == "COMPLETED_SUCCESSFULLY"),
                final,
                start,
                finish - start,
                finish,
                start - job.submit_time,
                finish - job.submit_time,
                _interval_set(nodes),
                np.nan,
                "" if completed else f"{life.state}: {life.reason}".removesuffix(": "),
                job.user,
                job.group,
                " ".join(str(o) for o in sorted({owner_of_node[k].owner_id for k in nodes})),
                life.criterion,
                job.requested_processors,
                life.window_runtime,
                job.run_time,
                life.left_time,
                life.node_time if completed else np.nan,
                life.paid + life.paid_for_failures,
                life.window_cost,
                life.failures,
                life.displaced,
                life.paid_for_failures,
                life.predicted_availability,
                life.alternatives,
                life.user_evaluation,
                max(start - life.earliest_start, 0.0) if held else np.nan,
                life.budget,
                life.state,
                "" if completed else life.reason,
            )
        )
    cols = [c for c in JOB_COLUMNS if c != "stretch"]
    df = pd.DataFrame.from_records(rows, columns=cols)
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = df["turnaround_time"] / df["execution_time"]
    df.insert(cols.index("turnaround_time") + 1, "stretch", stretch.where(df["execution_time"] > 0))
    df["state"] = pd.Categorical(df["state"], categories=[*JOB_STATES, *LIVE_STATES])
    df["success"] = df["success"].astype("int64")
    df["final_state"] = pd.Categorical(df["final_state"], categories=list(BATSIM_FINAL_STATES))
    df["consumed_energy"] = df["consumed_energy"].astype("float64")
    return df


def _same(ledger, owners, name="w"):
    got = ledger.table(owners, workload_name=name)
    want = rows_job_table(ledger, owners, workload_name=name)
    assert list(got.columns) == list(JOB_COLUMNS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    return got


def test_hand_made_jobs_of_every_state():
    owners = [Owner(k // 2) for k in range(6)]
    table = _same(hand_ledger([c[0] for c in CASES]), owners)
    assert table["owners"].tolist()[0] == "0 1"  # nodes 0, 1, 3: owners 0 and 1


def test_no_jobs_gives_the_typed_columns():
    """No jobs: no rows, and the columns typed as for a run's jobs (the oracle gives objects)."""
    owners = [Owner(k // 2) for k in range(6)]
    table = JobLedger([]).table(owners)
    assert table.shape == (0, len(JOB_COLUMNS))
    assert table.dtypes.equals(_same(hand_ledger([c[0] for c in CASES]), owners).dtypes)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(trace="UniLu-Gaia-2014-2", jobs=1500, machine=True, cycle_period=0, policy="easy"),
        dict(trace="NASA-iPSC-1993-3.1-cln", jobs=300, availability=True, patience=3600.0),
        dict(jobs=400, patience=None, horizon=20 * 3600.0),
    ],
    ids=["gaia-easy", "nasa-availability-patience", "synthetic-horizon"],
)
def test_runs(kwargs):
    model = VOModel(**kwargs, rng=3)
    model.run()
    table = _same(model.ledger, model.owner_of_node, model.trace_name)
    assert len(table) == len(model.jobs)
