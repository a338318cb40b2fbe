"""The Knapsack Grid slides' rules: credit by length, utility policies 1-5, option layouts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.errors import ParameterError
from vosim.policies import knapsack_rules as rules


@pytest.mark.parametrize("good", [1, 2, 3, 4, 5, np.int64(4)])
def test_a_utility_policy_is_one_of_the_five(good):
    assert rules.check_utility_policy(good) == int(good)
    assert type(rules.check_utility_policy(good)) is int


@pytest.mark.parametrize("bad", [0, 6, True, "1", 2.5, None])
def test_another_policy_is_refused_naming_the_parameter_and_value(bad):
    with pytest.raises(ParameterError, match=rf"utility_policy must be one of .* got {bad!r}"):
        rules.check_utility_policy(bad, "utility_policy")


def test_the_sigmoid_is_zero_at_zero_odd_and_bounded():
    assert rules.sigmoid(0.0) == 0.0
    x = np.array([-40.0, -2.0, 2.0, 40.0])
    u = rules.sigmoid(x)
    np.testing.assert_allclose(u, np.tanh(x / 4.0))  # 2 / (1 + e^-x/2) - 1 = tanh(x/4)
    assert (np.abs(u) <= 1.0).all() and u[0] == pytest.approx(-u[3])


def test_credit_falls_with_length_by_the_slides_exponent():
    assert rules.option_credit(10.0, 2.0, 2.0) == 10.0
    assert rules.option_credit(10.0, 1.0, 2.0) == pytest.approx(10.0 * 0.5**1.1)
    assert rules.option_credit(3.0, 4.0, 1.0) == pytest.approx(3.0 * 4.0**1.1)


@pytest.mark.parametrize(
    ("policy", "want"),
    [
        # t - s = 2, N = 2, T = (2, 4), v = (10, 5): response (t - s + T) / N = (2, 3)
        (1, [10.0, 5.0]),
        (2, [20.0, 15.0]),
        (3, [math.tanh(20.0 / 4), math.tanh(15.0 / 4)]),
        (4, [2.0 + 1.0, 3.0 + 0.5]),  # response + N / T
        (5, [math.tanh(3.0 / 4), math.tanh(3.5 / 4)]),
    ],
)
def test_each_utility_policy_by_hand(policy, want):
    got = rules.option_utilities(policy, 3.0, 1.0, 2.0, [2.0, 4.0], [10.0, 5.0])
    np.testing.assert_allclose(got, want)


def test_a_task_half_done_weighs_its_remaining_time():
    # remaining 0.5: r = (1, 2); policy 4: (2 + r) / 2 + 2 / r
    got = rules.option_utilities(4, 3.0, 1.0, 2.0, [2.0, 4.0], [1.0, 1.0], remaining=0.5)
    np.testing.assert_allclose(got, [1.5 + 2.0, 2.0 + 1.0])
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ParameterError, match=f"remaining must be in \\(0, 1\\], got {bad!r}"):
            rules.option_utilities(4, 3.0, 1.0, 2.0, [2.0], [1.0], remaining=bad)


def test_layouts_follow_the_rules_in_order():
    got = rules.option_layouts(8, (4, 8, 16, 32))
    assert got == [
        rules.Layout((0, 8, 0, 0), 1.0, "reference"),
        rules.Layout((4, 4, 0, 0), rules.SPLIT_PENALTY, "split"),
        rules.Layout((4, 0, 0, 0), rules.HALF_FACTOR, "half"),
        rules.Layout((0, 0, 0, 8), 1.0, "other"),  # the largest other cluster first
    ]
    assert rules.option_layouts(8, (4, 8, 16, 32), max_options=2) == got[:2]
    assert len(rules.option_layouts(8, (4, 8, 16, 32), max_options=None)) == 5


def test_an_odd_task_is_not_split_and_a_task_no_cluster_holds_has_no_layout():
    kinds = [o.kind for o in rules.option_layouts(3, (3, 2))]
    assert kinds == ["reference", "half"]  # half: 1 processor, factor 3 / 1 * 2 / 2 = 3
    assert rules.option_layouts(3, (3, 2))[1] == rules.Layout((0, 1), 3.0, "half")
    assert rules.option_layouts(5, (1, 1), half=False) == []


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (dict(max_options=0), "max_options must be an integer >= 1 or None, got 0"),
        (dict(split_penalty=0.9), "split_penalty must be >= 1, got 0.9"),
        (dict(half_factor=0.0), "half_factor must be > 0, got 0.0"),
        (dict(half_factor=math.inf), "half_factor must be > 0, got inf"),
    ],
)
def test_bad_factors_are_refused_naming_the_value(kwargs, needle):
    with pytest.raises(ParameterError, match=needle):
        rules.option_layouts(2, (2, 2), **kwargs)


def test_cached_layouts_still_check_their_arguments():
    assert rules.option_layouts(2, [2, 1]) == rules.option_layouts(2, (2, 1))
    for bad in (True, 0, 1.5):
        with pytest.raises(ParameterError, match="processors"):
            rules.option_layouts(bad, (2, 1))
