"""The workload (vosim.market.workload): offered load as a factor (inter-arrival times scaled to
a target load), node counts of SWF rows, the hypergeometric local load."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vosim.data import trace_path
from vosim.errors import ParameterError
from vosim.market.swf import read_swf
from vosim.market.workload import HypergeometricLocalLoad, node_counts, offered_load, scale_to_load
from vosim.model import VOModel


def _rows(submit, procs, run, requested):
    return pd.DataFrame(
        {
            "submit_time": np.asarray(submit, dtype=float),
            "run_time": np.asarray(run, dtype=float),
            "requested_time": np.asarray(requested, dtype=float),
            "requested_processors": np.asarray(procs),
            "allocated_processors": np.asarray(procs),
        }
    )


def _plain_work(rows: pd.DataFrame) -> float:
    """Oracle: processors x run time summed job by job in plain Python (known jobs only)."""
    work = 0.0
    for _, r in rows.iterrows():
        p = r["requested_processors"]
        p = p if p > 0 else r["allocated_processors"]
        t = r["requested_time"] if r["requested_time"] > 0 else r["run_time"]
        run = min(r["run_time"], t) if r["run_time"] >= 0 else t
        if p > 0 and run > 0:
            work += p * run
    return work


def _plain_load(rows: pd.DataFrame, processors: int) -> float:
    span = rows["submit_time"].max() - rows["submit_time"].min()
    return _plain_work(rows) / (processors * span)


jobs = st.integers(2, 30).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(0, 1e6), min_size=k, max_size=k),
        st.lists(st.sampled_from([-1, 1, 2, 8, 64]), min_size=k, max_size=k),
        st.lists(st.sampled_from([-1.0, 0.0, 5.0, 600.0, 86_400.0]), min_size=k, max_size=k),
        st.lists(st.sampled_from([-1.0, 60.0, 3600.0]), min_size=k, max_size=k),
    )
)


@settings(max_examples=200, deadline=None)
@given(jobs, st.integers(1, 512), st.floats(0.05, 3.0))
@example(([524288.0, 524289.0], [1, -1], [5.0, -1.0], [-1.0, -1.0]), 99, 3.0)
def test_scaled_rows_offer_the_target_load(cols, processors, target):
    rows = _rows(*cols)
    submit = rows["submit_time"].to_numpy()
    if submit.max() == submit.min() or _plain_work(rows) == 0:
        with pytest.raises(ParameterError):
            scale_to_load(rows, processors, target)
        return
    assert offered_load(rows, processors) == pytest.approx(_plain_load(rows, processors))
    scaled = scale_to_load(rows, processors, target)
    # submit times are floats: a span far shorter than the times themselves is known only
    # to their resolution (two submissions at 2**19 s, one second apart, scaled to 0.017 s)
    new = scaled["submit_time"].to_numpy()
    resolution = 4 * np.finfo(float).eps * np.abs(new).max() / (new.max() - new.min())
    assert offered_load(scaled, processors) == pytest.approx(target, rel=1e-9 + resolution)
    # one factor for every gap: order, first submission, sizes and times stay the trace's
    gaps, new = np.diff(submit), np.diff(scaled["submit_time"].to_numpy())
    np.testing.assert_allclose(new, gaps * scaled.attrs["arrival_scale"], rtol=1e-9, atol=1e-6)
    assert scaled["submit_time"].min() == rows["submit_time"].min()
    for c in ("run_time", "requested_time", "requested_processors"):
        assert scaled[c].tolist() == rows[c].tolist()
    assert rows["submit_time"].tolist() == list(map(float, cols[0]))  # the input is untouched


def test_errors_name_the_problem():
    flat = _rows([5.0, 5.0], [1, 1], [10.0, 10.0], [60.0, 60.0])
    with pytest.raises(ParameterError, match="two different times"):
        offered_load(flat, 4)
    unknown = _rows([0.0, 9.0], [-1, -1], [10.0, 10.0], [60.0, 60.0])
    with pytest.raises(ParameterError, match="processors and run time are known"):
        offered_load(unknown, 4)
    ok = _rows([0.0, 9.0], [1, 1], [10.0, 10.0], [60.0, 60.0])
    for bad in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ParameterError, match="offered_load"):
            scale_to_load(ok, 4, bad)
    with pytest.raises(ParameterError, match="processors"):
        offered_load(ok, 0)


@pytest.mark.parametrize("target", [0.3, 0.6, 0.9])
def test_the_model_runs_the_trace_at_the_target_load(target):
    model = VOModel(jobs=200, offered_load=target, rng=1)
    trace = read_swf(trace_path("UniLu-Gaia-2014-2")).iloc[:200]
    processors = model.node_count  # processors are the resources by default
    assert model.offered_load_traced == pytest.approx(_plain_load(trace, processors))
    submits = pd.Series([j.submit_time for j in model.jobs])
    scaled = trace.assign(submit_time=submits.to_numpy())
    assert _plain_load(scaled, processors) == pytest.approx(target, rel=1e-9)
    summary = VOModel(jobs=40, offered_load=target, rng=1, horizon=3600.0)
    summary.run()
    assert summary.summary()["arrival_scale"] == pytest.approx(summary.arrival_scale)


def test_the_traced_machine_uses_its_own_processors():
    model = VOModel(jobs=300, offered_load=0.8, machine=True, policy="easy", cycle_period=0, rng=1)
    trace = read_swf(trace_path("UniLu-Gaia-2014-2")).iloc[:300]
    scaled = trace.assign(submit_time=[j.submit_time for j in model.jobs])
    assert _plain_load(scaled, model.node_count) == pytest.approx(0.8, rel=1e-9)
    model.run()
    jobs = model.job_frame()
    assert (jobs["state"] == "completed").all()


def test_hypergeometric_occupy_is_generate_per_node():
    load = HypergeometricLocalLoad(0.1, 0.5, period=600.0)
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    got = load.occupy([3, 7, 9], 600.0, a)
    want = [(k, s, e) for k in (3, 7, 9) for s, e in load.generate(600.0, b)]
    assert got == want and got


def test_node_counts_spread_processors_over_the_domain_nodes():
    rows = pd.DataFrame(
        {"requested_processors": [1, 8, 9, -1, -1], "allocated_processors": [3, 3, 3, 16, -1]}
    )
    procs, nodes = node_counts(rows, 4, 16)  # 4 processors a node
    assert procs.tolist() == [1, 8, 9, 16, -1]
    assert nodes.tolist() == [1, 2, 3, 4, 0]  # ceil(p * 4 / 16); unknown p: 0
    procs, per_processor = node_counts(rows, 4, 16, "processors")
    assert per_processor.tolist() == [1, 8, 9, 16, 0]
    with pytest.raises(ParameterError, match=r"resources must be one of .*got 'cores'"):
        node_counts(rows, 4, 16, "cores")
