"""Owners' online local job flows (vosim.market.local_flow): lengths, Poisson and replayed flows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from vosim.errors import ParameterError
from vosim.market.local_flow import (
    LocalLengths,
    PoissonLocalJobs,
    ReplayedLocalJobs,
    fitted_lengths,
    trace_local_jobs,
)


@pytest.mark.parametrize(
    ("median", "sigma", "cap"),
    [(3600.0, 1.0, math.inf), (3600.0, 1.0, 3600.0), (50.0, 0.3, 40.0), (10.0, 2.0, 1e4)],
)
def test_mean_of_the_capped_lognormal_is_the_integral_of_its_survival(median, sigma, cap):
    """E[min(X, c)] = integral of P(X > x) over [0, c]; scipy's lognormal as the oracle."""
    law = stats.lognorm(sigma, scale=median)
    if math.isinf(cap):
        want = law.mean()
    else:
        want = integrate.quad(law.sf, 0.0, cap, points=[median], limit=200)[0]
    assert LocalLengths(median, sigma, cap).mean() == pytest.approx(want, rel=1e-7)


def test_a_constant_length_is_its_median_capped():
    assert LocalLengths(100.0, 0.0).mean() == 100.0
    assert LocalLengths(100.0, 0.0, cap=60.0).mean() == 60.0


@pytest.mark.parametrize(
    ("args", "word"),
    [
        ((0.0, 1.0), "median length must be > 0, got 0.0"),
        ((math.nan, 1.0), "median"),
        ((10.0, -0.5), "sigma must be >= 0, got -0.5"),
        ((10.0, math.inf), "sigma"),
        ((10.0, 1.0, 0.0), "cap must be > 0, got 0.0"),
    ],
)
def test_bad_lengths_name_the_value(args, word):
    with pytest.raises(ParameterError, match=word):
        LocalLengths(*args)


def test_scaled_and_drawn_lengths():
    lengths = LocalLengths(100.0, 1.0, cap=500.0)
    assert lengths.scaled(2.0) == LocalLengths(200.0, 1.0, 500.0)
    x = lengths.draws(np.random.default_rng(3), 20_000)
    assert x.shape == (20_000,) and x.max() == 500.0 and x.min() > 0
    assert np.median(x) == pytest.approx(100.0, rel=0.05)  # the cap is above the median
    assert x.mean() == pytest.approx(lengths.mean(), rel=0.03)


def test_fitted_lengths_by_hand():
    lengths = fitted_lengths(np.array([10.0, 100.0, 1000.0, -1.0, 0.0, np.nan]), cap=7.0)
    assert lengths.median == pytest.approx(100.0)
    assert lengths.sigma == pytest.approx(math.log(10.0) * math.sqrt(2.0 / 3.0))
    assert lengths.cap == 7.0
    assert fitted_lengths(np.array([10.0, 1000.0]), median=5.0).median == 5.0
    with pytest.raises(ParameterError, match="no positive"):
        fitted_lengths(np.array([-1.0, 0.0]))


def test_poisson_rate_gives_the_share_of_processor_time():
    lengths = LocalLengths(3600.0, 0.0)
    flow = PoissonLocalJobs(0.1, 28, 14, lengths, np.random.default_rng(1), start=50.0)
    assert flow.rate == pytest.approx(0.1 * 28 / (7.5 * 3600.0))
    jobs = [flow.next() for _ in range(3000)]
    arrival = np.array([j[0] for j in jobs])
    size = np.array([j[1] for j in jobs])
    assert arrival[0] > 50.0 and (np.diff(arrival) > 0).all()
    assert size.min() == 1 and size.max() == 14
    assert np.allclose([j[2] for j in jobs], 3600.0, rtol=1e-12)  # exp(log(3600))
    asked = (size * 3600.0).sum() / (28 * (arrival[-1] - 50.0))
    assert asked == pytest.approx(0.1, rel=0.05)


def test_poisson_stream_does_not_depend_on_how_far_it_is_read():
    lengths = LocalLengths(600.0, 1.0)
    a = PoissonLocalJobs(0.3, 8, 4, lengths, np.random.default_rng(9))
    b = PoissonLocalJobs(0.3, 8, 4, lengths, np.random.default_rng(9))
    first = [a.next() for _ in range(600)]  # across blocks of draws
    assert first == [b.next() for _ in range(600)]
    assert PoissonLocalJobs(0.0, 8, 4, lengths, np.random.default_rng(9)).next() is None


@pytest.mark.parametrize(
    ("share", "processors", "max_size", "word"),
    [(1.0, 8, 4, "share must be in \\[0, 1\\), got 1.0"), (-0.1, 8, 4, "share"),
     (0.1, 8, 9, "max_size <= processors, got 9 and 8"), (0.1, 8, 0, "max_size")],
)  # fmt: skip
def test_bad_poisson_flows_name_the_value(share, processors, max_size, word):
    with pytest.raises(ParameterError, match=word):
        PoissonLocalJobs(share, processors, max_size, LocalLengths(1.0, 0.0), None)


def test_replayed_flow_gives_its_rows_then_none():
    flow = ReplayedLocalJobs(np.array([1, 2]), np.array([3.0, 1.0]), np.array([4, 5]))
    assert [flow.next() for _ in range(4)] == [(1.0, 3, 4.0), (2.0, 1, 5.0), None, None]
    assert ReplayedLocalJobs(np.array([]), np.array([]), np.array([])).next() is None


def test_trace_local_jobs_by_hand():
    """Owner = user mod 2; size falls back to the requested processors, length to the
    requested time; a job larger than its owner or of unknown size is dropped."""
    trace = pd.DataFrame(
        {
            "submit_time": [100, 40, 70, 60, 90, 80],
            "allocated_processors": [1, -1, 2, 5, 0, 2],
            "requested_processors": [1, 3, 2, 5, -1, 2],
            "run_time": [5, 6, -1, 8, 9, 500],
            "requested_time": [9, 9, 7, 9, 9, 9],
            "user_id": [0, 1, 2, 3, 4, 1],
        }
    )
    flows, placed, dropped = trace_local_jobs(trace, [2, 4], cap=100.0)
    assert (placed, dropped) == (4, 2)  # 5 processors > 4 (user 3), no size (user 4)
    owner0 = [flows[0].next() for _ in range(3)]
    owner1 = [flows[1].next() for _ in range(3)]
    # times from the first submission (40); owner 0: users 0 and 2, by submit time
    assert owner0 == [(30.0, 2, 7.0), (60.0, 1, 5.0), None]
    assert owner1 == [(0.0, 3, 6.0), (40.0, 2, 100.0), None]
