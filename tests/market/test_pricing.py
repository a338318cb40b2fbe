"""Owners' pricing: the demand rule's step and band (fixed prices are covered with the model)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.errors import ParameterError
from vosim.market.pricing import DemandPricing


@given(
    st.lists(st.floats(0.1, 100.0), min_size=1, max_size=8),
    st.floats(0.0, 1.0),
    st.floats(0.0, 2.0),
)
def test_step_is_bounded_and_prices_stay_in_the_band(base, utilization, start_factor):
    rule = DemandPricing()
    base = np.asarray(base)
    price = np.clip(base * start_factor, 0.4 * base, 1.6 * base)
    new = rule.update(price, base, utilization)
    assert (new >= 0.4 * base - 1e-9).all() and (new <= 1.6 * base + 1e-9).all()
    assert (np.abs(new / price - 1) <= rule.max_step + 1e-9).all()
    # prices rise above the target utilization and fall below it (unless at the band's edge)
    if utilization > rule.target:
        assert (new >= price - 1e-12).all()
    elif utilization < rule.target:
        assert (new <= price + 1e-12).all()


@pytest.mark.parametrize(
    "kwargs",
    [{"target": 1.5}, {"sensitivity": -1.0}, {"max_step": 1.0}, {"band": -0.1}],
)
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        DemandPricing(**kwargs)
