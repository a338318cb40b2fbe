"""The run-size bounds (vosim.scenario.limits): each is enforced at its value, and named."""

from __future__ import annotations

import numpy as np
import pytest

import vosim.model
from vosim.errors import ParameterError
from vosim.market.swf import swf_frame
from vosim.model import VOModel
from vosim.scenario import (
    MAX_LOCAL_ARRIVALS,
    MAX_LOCAL_DRAWS,
    MAX_PERIODS,
    MIN_PERIOD,
    Scenario,
    limits,
)


def test_the_package_exports_the_bounds_of_limits():
    assert (MIN_PERIOD, MAX_PERIODS) == (limits.MIN_PERIOD, limits.MAX_PERIODS)
    assert (MAX_LOCAL_DRAWS, MAX_LOCAL_ARRIVALS) == (
        limits.MAX_LOCAL_DRAWS,
        limits.MAX_LOCAL_ARRIVALS,
    )
    assert MIN_PERIOD == 1.0 and MAX_PERIODS == MAX_LOCAL_DRAWS == 10**6
    assert MAX_LOCAL_ARRIVALS == 10**7


@pytest.mark.parametrize("name", ["cycle_period", "budget_period"])
def test_min_period_is_the_shortest_period_accepted(name):
    assert getattr(Scenario(**{name: MIN_PERIOD}), name) == MIN_PERIOD
    below = np.nextafter(MIN_PERIOD, 0.0)
    with pytest.raises(ParameterError, match=rf"^{name} must be .*vosim\.scenario\.MIN_PERIOD"):
        Scenario(**{name: below})


def two_jobs():
    """Jobs submitted at 0 and 1000 s asking for 100 s: the run ends near t = 1100 s."""
    t = np.array([100.0, 100.0])
    submit, procs, users = np.array([0.0, 1000.0]), np.array([1, 1]), np.array([1, 2])
    return swf_frame(submit, procs, t, t, users, nodes=4, note="two jobs")


def test_max_periods_bounds_the_budget_periods(monkeypatch):
    monkeypatch.setattr(vosim.model, "MAX_PERIODS", 100)
    VOModel(
        trace=two_jobs(), owners=2, local_load=None, budget_period=11.0, rng=1
    )  # 1100 / 11 = 100
    with pytest.raises(ParameterError, match=r"^budget_period 10 makes about 110 budget periods"):
        VOModel(trace=two_jobs(), owners=2, local_load=None, budget_period=10.0, rng=1)
    with pytest.raises(ParameterError, match=r"above the bound of 100 \(vosim.scenario.MAX_PERI"):
        VOModel(trace=two_jobs(), owners=2, local_load=None, budget_period=10.0, rng=1)
