"""The normal CDF and lognormal parametrisation of the chain maths (vosim.market.chain_maths)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from chain_oracle import (
    SETTINGS,
)
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import ndtr

from vosim.errors import ParameterError
from vosim.market.chain_maths import lognormal_shape, normal_cdf


def test_normal_cdf_matches_scipy_ndtr():
    z = np.concatenate([np.linspace(-40, 40, 20001), [-1e300, 1e300, -8.5, 8.5, 0.0]])
    got, want = normal_cdf(z), ndtr(z)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert normal_cdf(0.0) == 0.5
    assert normal_cdf(np.inf) == 1.0 and normal_cdf(-np.inf) == 0.0
    assert np.isnan(normal_cdf(np.nan))
    assert normal_cdf(8.5) == 1.0  # within 2**-54 of 1: the cut-off used by p_avail is exact
    assert normal_cdf(np.zeros((2, 3))).shape == (2, 3)


@given(st.floats(0.1, 1e4), st.floats(0.0, 1e4))
@SETTINGS
def test_lognormal_shape_reproduces_the_standard_deviation(median, sd):
    s = lognormal_shape(median, sd)
    var = median**2 * math.exp(s * s) * math.expm1(s * s)
    assert math.sqrt(var) == pytest.approx(sd, rel=1e-9, abs=1e-12)


def test_lognormal_shape_rejects_bad_input():
    with pytest.raises(ParameterError, match="median_offset"):
        lognormal_shape(0.0, 1.0)
    with pytest.raises(ParameterError, match="-1"):
        lognormal_shape(10.0, -1.0)
