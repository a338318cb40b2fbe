"""Owners' local job flow replayed from an SWF trace (TraceLocalFlow) and its use in the model."""

import itertools
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kept_windows import held_windows, keep_windows

from vosim import ParameterError, VOModel
from vosim.errors import ConfigError
from vosim.market.local_trace import TraceLocalFlow
from vosim.market.schedule import LOCAL
from vosim.market.swf import SWF_COLUMNS
from vosim.runs.config import parse_sweep

NASA = "NASA-iPSC-1993-3.1-cln"


def frame(rows, max_procs=None):
    """SWF rows (submit, wait, run, processors, requested time) as read_swf gives them."""
    data = {c: [-1] * len(rows) for c in SWF_COLUMNS}
    data["job_id"] = list(range(1, len(rows) + 1))
    for k, (submit, wait, run, procs, req) in enumerate(rows):
        data["submit_time"][k] = submit
        data["wait_time"][k] = wait
        data["run_time"][k] = run
        data["allocated_processors"][k] = procs
        data["requested_time"][k] = req
    df = pd.DataFrame(data)
    df.attrs["header"] = {} if max_procs is None else {"MaxProcs": str(max_procs)}
    df.attrs["path"] = "hand-made"
    return df


def test_hand_computed_placement():
    # 2 nodes. Job 1: both nodes over [10, 60) (recorded start 0 + 10 after the first submit
    # at 0). Job 2 released at 20 needs 1 node: both busy until 60, so it waits to [60, 90).
    # Job 3: no processor count; job 4: 3 nodes > 2; job 5: no run time known -> dropped.
    # Job 6 released at 100 (submit 90, wait 10): node 1 (free since 60) before node 0 (90).
    flow = TraceLocalFlow.from_swf(
        frame(
            [
                (0, 10, 50, 2, 80),
                (20, 0, 30, 1, 30),
                (30, 0, 10, -1, 10),
                (40, 0, 10, 3, 10),
                (50, 0, -1, 1, -1),
                (90, 10, 5, 1, 5),
            ],
            max_procs=2,
        ),
        domain_nodes=2,
        period=1000.0,
    )
    assert (flow.jobs, flow.dropped) == (3, 3)
    rows = sorted(zip(flow.node.tolist(), flow.start.tolist(), flow.end.tolist(), strict=True))
    assert rows == [(0, 10.0, 60.0), (0, 60.0, 90.0), (1, 10.0, 60.0), (1, 100.0, 105.0)]
    assert list(flow.start) == sorted(flow.start)


def test_requested_time_stands_in_for_an_unknown_run_time_and_offset_shifts():
    flow = TraceLocalFlow.from_swf(
        frame([(100, -1, -1, 4, 40)], max_procs=8), domain_nodes=4, period=50.0, offset=7.0
    )
    # 4 of 8 processors -> 2 of 4 nodes; unknown wait counts as 0; first submit at offset 7
    assert flow.node.tolist() == [0, 1]
    assert flow.start.tolist() == [7.0, 7.0] and flow.end.tolist() == [47.0, 47.0]


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"domain_nodes": 0, "period": 10.0}, "domain_nodes"),
        ({"domain_nodes": 2, "period": 0.0}, "period"),
        ({"domain_nodes": 2, "period": 10.0, "offset": -1.0}, "offset"),
        ({"domain_nodes": 2, "period": 10.0, "offset": float("nan")}, "offset"),
    ],
)
def test_bad_parameters_name_the_value(kwargs, word):
    with pytest.raises(ParameterError, match=word):
        TraceLocalFlow.from_swf(frame([(0, 0, 10, 1, 10)], max_procs=2), **kwargs)


jobs_strategy = st.lists(
    st.tuples(
        st.integers(0, 500),  # submit
        st.integers(-1, 50),  # wait (-1 unknown)
        st.integers(-1, 120),  # run (-1 unknown)
        st.integers(-1, 10),  # processors
        st.integers(-1, 120),  # requested time
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(rows=jobs_strategy, nodes=st.integers(1, 6), procs=st.integers(1, 12))
def test_placement_invariants(rows, nodes, procs):
    df = frame(rows, max_procs=procs)
    flow = TraceLocalFlow.from_swf(df, domain_nodes=nodes, period=100.0)
    assert flow.jobs + flow.dropped == len(rows)
    assert ((flow.node >= 0) & (flow.node < nodes)).all()
    assert (flow.end > flow.start).all()
    # no node runs two local jobs at once
    for k in range(nodes):
        on = np.argsort(flow.start[flow.node == k], kind="stable")
        a, b = flow.start[flow.node == k][on], flow.end[flow.node == k][on]
        assert (a[1:] >= b[:-1]).all()
    # the placement equals a plain list schedule: jobs by release (stable), each on the n
    # nodes free earliest (ties: lower id), from the later of its release and their freeing
    first = min(r[0] for r in rows)
    free = [0.0] * nodes
    want = []
    usable = []
    for submit, wait, run, p, req in rows:
        n = int(np.ceil(max(p, 0) * nodes / procs))
        duration = run if run > 0 else req
        if p > 0 and n <= nodes and duration > 0:
            usable.append((submit + max(wait, 0) - first, n, duration))
    for release, n, duration in sorted(usable, key=lambda u: u[0]):
        take = sorted(range(nodes), key=lambda k: (free[k], k))[:n]
        a = max(release, max(free[k] for k in take))
        for k in take:
            free[k] = a + duration
            want.append((k, float(a), float(a + duration)))
    placed = list(zip(flow.node.tolist(), flow.start.tolist(), flow.end.tolist(), strict=True))
    assert sorted(placed) == sorted(want)
    assert flow.jobs == len(usable)
    # occupy over consecutive periods hands out every row once, whatever the node split
    got = []
    halves = [list(range(0, nodes, 2)), list(range(1, nodes, 2))]
    horizon = float(flow.start.max()) + 100.0 if flow.start.size else 100.0
    for start in np.arange(0.0, horizon, flow.period):
        for half in halves:
            part = flow.occupy(half, float(start), None)
            assert all(k in half and start <= a < start + flow.period for k, a, _ in part)
            got += part
    assert sorted(got) == sorted(placed)


@pytest.fixture(scope="module")
def traced_run():
    model = VOModel(trace=NASA, jobs=200, local_trace=NASA, local_model="interval", rng=2)
    model.kept = keep_windows(model)
    model.run()
    return model


def test_model_places_the_traces_local_jobs_and_vo_tasks_avoid_them(traced_run):
    flow = traced_run.local_flow
    assert isinstance(flow, TraceLocalFlow) and flow.jobs > 0
    local = set()
    for owner in traced_run.owners:
        node, a, b, tag = owner.intervals()
        local |= set(zip(node[tag == LOCAL].tolist(), a[tag == LOCAL].tolist(), strict=True))
    # every local job the owners generated (up to the horizon) is one of the trace's rows
    rows = set(zip(flow.node.tolist(), flow.start.tolist(), strict=True))
    assert local and local <= rows
    # no VO task overlaps a local job on its node
    busy = {}
    for k, a, b in zip(flow.node.tolist(), flow.start.tolist(), flow.end.tolist(), strict=True):
        busy.setdefault(k, []).append((a, b))
    for _, window, task_ends in held_windows(traced_run, traced_run.kept):
        for s, end in zip(window.slots, task_ends, strict=True):
            for a, b in busy.get(s.node, []):
                assert end <= a + 1e-9 or s.start >= b - 1e-9


def test_local_trace_changes_the_run_and_is_reproducible(traced_run):
    generated = VOModel(trace=NASA, jobs=200, local_model="interval", rng=2)
    generated.run()
    again = VOModel(trace=NASA, jobs=200, local_trace=NASA, local_model="interval", rng=2)
    again.run()
    assert again.job_frame().equals(traced_run.job_frame())
    assert not generated.job_frame().equals(traced_run.job_frame())


def test_cli_local_trace_summary_and_conflict(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "vosim.runs.cli", "run", "--trace", NASA, "--jobs", "60"]
    proc = subprocess.run(
        [*cmd, "--local-trace", NASA, "--local-model", "interval", "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["local_load"] == "trace"
    assert summary["local_trace"].endswith("NASA-iPSC-1993-3.1-cln.swf.gz")
    assert summary["local_trace_jobs"] + summary["local_trace_dropped"] > 0
    for extra, word in [(["--local-trace", "nope.swf"], "nope.swf"), (["--no-local-load"], "not")]:
        args = extra if extra[0] != "--no-local-load" else [*extra, "--local-trace", NASA]
        bad = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300)
        assert bad.returncode == 2 and word in bad.stderr and "Traceback" not in bad.stderr


def test_sweep_file_accepts_and_checks_local_trace(tmp_path):
    config = parse_sweep(
        f'name = "lt"\n[scenario]\ntrace = "{NASA}"\n[sweep]\nlocal_trace = ["none", "{NASA}"]\n'
    )
    assert config.sweep["local_trace"] == (None, NASA)
    (tmp_path / "local.swf").write_text("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n")
    config = parse_sweep(
        'name = "lt"\n[scenario]\nlocal_trace = "local.swf"\n', path=tmp_path / "s.toml"
    )
    assert config.scenario["local_trace"] == str(tmp_path / "local.swf")
    with pytest.raises(ConfigError, match=r"local_trace: 'nope\.swf' is neither"):
        parse_sweep('name = "lt"\n[scenario]\nlocal_trace = "nope.swf"\n')


def test_pairs_of_rows_are_sorted_by_start():
    flow = TraceLocalFlow.from_swf(
        frame([(5, 0, 10, 1, 10), (0, 0, 30, 2, 30)], max_procs=2), domain_nodes=2, period=10.0
    )
    assert all(a <= b for a, b in itertools.pairwise(flow.start.tolist()))
