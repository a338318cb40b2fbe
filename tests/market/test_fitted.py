"""The job flow fitted to a trace: fits, generation, K-S, use as a trace."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vosim.errors import ParameterError, TraceFormatError
from vosim.market.fitted import FittedWorkload, fitted_trace, fitted_workload
from vosim.market.swf import swf_frame
from vosim.model import VOModel
from vosim.runs.config import parse_sweep


def _known(k: int = 20_000, seed: int = 5) -> tuple[FittedWorkload, pd.DataFrame]:
    """A trace drawn from known marginals: 30 % single-processor jobs, lognormal sizes and
    run times, 20 % full estimates and beta ratios, Poisson arrivals at a daily cycle."""
    rng = np.random.default_rng(seed)
    hourly = np.where(np.arange(24) < 12, 2.0, 0.5) / 3600  # busy mornings
    flow = FittedWorkload(
        name="known", max_procs=512, max_nodes=64, hourly_rate=hourly, burst_p=0.5,
        start_offset=0.0,
        popular=np.array([1]), popular_share=np.array([0.3]), size=(0.8, 0, 16.0),
        run=(1.5, 0, 900.0), full_share=0.2,
        ratio=(0.7, 2.0, 0, 1), users=np.arange(1, 6), user_share=np.full(5, 0.2), jobs=k,
    )  # fmt: skip
    return flow, flow.generate(k, rng)


def test_the_fit_recovers_known_marginals():
    truth, frame = _known()
    fit = FittedWorkload.fit(frame, "known")
    assert fit.popular[0] == 1  # one processor: 30 % of the jobs, plus the lognormal's 1s
    share_1 = 0.3 + 0.7 * stats.lognorm.cdf(1, *truth.size)
    assert fit.popular_share[0] == pytest.approx(share_1, abs=0.015)
    assert fit.full_share == pytest.approx(truth.full_share, abs=0.015)
    assert fit.run[0] == pytest.approx(truth.run[0], rel=0.05)  # shape s
    assert fit.run[2] == pytest.approx(truth.run[2], rel=0.08)  # scale
    assert fit.ratio[0] == pytest.approx(truth.ratio[0], rel=0.1)
    assert fit.ratio[1] == pytest.approx(truth.ratio[1], rel=0.1)
    halves = [fit.hourly_rate[:12].mean(), fit.hourly_rate[12:].mean()]  # busy, quiet hours
    np.testing.assert_allclose(halves, [2 / 3600, 0.5 / 3600], rtol=0.06)
    assert fit.burst_p == pytest.approx(truth.burst_p, rel=0.05)  # 2 jobs per burst
    assert (fit.max_procs, fit.max_nodes) == (512, 64)


def test_a_flow_is_close_to_the_flow_it_was_fitted_to():
    _, frame = _known()
    fit = FittedWorkload.fit(frame, "known")
    ks = fit.ks(frame, np.random.default_rng(9))
    assert set(ks) == {"interarrival", "processors", "run_time", "estimate_ratio"}
    # sizes are rounded lognormals: the fit of the rounded values is close, not exact
    assert ks["run_time"] < 0.03 and ks["estimate_ratio"] < 0.03 and ks["interarrival"] < 0.03
    assert ks["processors"] < 0.08


def test_generated_jobs_are_valid_and_reproducible():
    flow = fitted_workload("NASA-iPSC-1993-3.1-cln")
    a = flow.generate(400, np.random.default_rng(3))
    b = flow.generate(400, np.random.default_rng(3))
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 400 and a["submit_time"].is_monotonic_increasing
    assert a["requested_processors"].between(1, flow.max_procs).all()
    assert (a["requested_time"] >= a["run_time"]).all() and (a["run_time"] >= 1).all()
    assert set(a["user_id"]) <= set(flow.users.tolist())
    assert len(flow.generate(None, np.random.default_rng(1))) == flow.jobs
    with pytest.raises(ParameterError, match="jobs"):
        flow.generate(0, np.random.default_rng(1))


def test_ks_is_scipys_two_sample_statistic():
    flow = fitted_workload("NASA-iPSC-1993-3.1-cln")
    from vosim.data import trace_path
    from vosim.market.swf import read_swf

    trace = read_swf(trace_path("NASA-iPSC-1993-3.1-cln"))
    ks = flow.ks(trace, np.random.default_rng(2))
    generated = flow.generate(len(trace), np.random.default_rng(2))
    run = np.minimum(
        trace["run_time"],
        trace["requested_time"].where(trace["requested_time"] > 0, trace["run_time"]),
    )
    usable = trace["run_time"] > 0
    expected = stats.ks_2samp(run[usable], generated["run_time"]).statistic
    assert ks["run_time"] == pytest.approx(expected)
    assert all(0 <= v <= 1 for v in ks.values())


def test_a_fitted_flow_is_a_trace_anywhere():
    model = VOModel(trace="fitted:NASA-iPSC-1993-3.1-cln", jobs=60, rng=4)
    assert len(model.jobs) == 60 and model.node_count == 128
    model.run()
    assert model.summary()["jobs_read"] == 60
    config = parse_sweep('name = "f"\n[scenario]\ntrace = "fitted:UniLu-Gaia-2014-2"\njobs = 20\n')
    assert config.scenario["trace"] == "fitted:UniLu-Gaia-2014-2"
    with pytest.raises(ParameterError, match="bundled trace"):
        fitted_trace("fitted:nope", 5, np.random.default_rng(1))
    with pytest.raises(TraceFormatError):
        VOModel(trace="fitted:nope", jobs=5, rng=1)


def test_too_few_jobs_cannot_be_fitted():
    tiny = swf_frame(
        np.arange(5.0), np.ones(5, int), np.full(5, 60.0), np.full(5, 30.0), np.ones(5, int),
        nodes=4, note="tiny",
    )  # fmt: skip
    with pytest.raises(ParameterError, match="at least 10"):
        FittedWorkload.fit(tiny, "tiny")


def test_a_run_on_a_recorded_trace_does_not_load_scipy_stats():
    """scipy.stats (~58 MB resident with scipy.optimize) loads only when a flow is fitted."""
    probe = (
        "import sys, vosim.model; "
        "print('scipy.stats' in sys.modules, 'scipy.optimize' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    # and a fitted flow still finds it
    assert fitted_workload("NASA-iPSC-1993-3.1-cln").run
