"""The greedy rules of ICCS 2023 (MaxP, MinC, MaxP/C, GreedyUnited) and greedy_select."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from paper_oracles import (
    RTOL,
    SETTINGS,
    problems,
)

from vosim.allocators.availability_problem import (
    allocate_resources,
)
from vosim.allocators.greedy import greedy_select
from vosim.core import Status
from vosim.errors import ProblemError


@SETTINGS
@given(problems(), st.sampled_from(["max_p", "min_c", "max_p_per_c"]))
def test_single_rules_take_the_first_n_by_their_order(problem, rule):
    res = allocate_resources(problem, rule)
    p, c = problem.resource_p, problem.cost
    if rule == "max_p":
        key = [(-p[i], c[i], i) for i in range(problem.N)]
    elif rule == "min_c":
        key = [(c[i], -p[i], i) for i in range(problem.N)]
    else:
        w = [
            math.inf if c[i] == 0 and p[i] > 0 else (0.0 if c[i] == 0 else p[i] / c[i])
            for i in range(problem.N)
        ]
        key = [(-w[i], -p[i], c[i], i) for i in range(problem.N)]
    first = sorted(sorted(range(problem.N), key=lambda i: key[i])[: problem.n])
    fits = c[first].sum() <= problem.budget * (1 + RTOL)
    if fits:
        assert res.selected.tolist() == first
    else:
        assert res.status == Status.INFEASIBLE


@SETTINGS
@given(problems())
def test_greedy_united_is_first_fitting_stage(problem):
    res = allocate_resources(problem, "greedy_united")
    for rule in ("max_p", "max_p_per_c", "min_c"):
        single = allocate_resources(problem, rule)
        if single.status != Status.INFEASIBLE:
            assert res.stats["stage"] == rule
            assert np.array_equal(res.selected, single.selected)
            return
    assert res.status == Status.INFEASIBLE


def test_greedy_select_rules_and_free_resources():
    cost, p = [0, 2, 1, 0], [0.5, 0.9, 0.6, 0.0]
    # MaxP/C: free with p > 0 first (w = inf), then 0.6 / 1, then 0.9 / 2; free with p = 0 last
    assert greedy_select(cost, p, 3, 10, "max_p_per_c").tolist() == [0, 1, 2]
    assert greedy_select(cost, p, 2, 10, "max_p").tolist() == [1, 2]
    assert greedy_select(cost, p, 2, 10, "min_c").tolist() == [0, 3]
    assert greedy_select(cost, p, 2, 1, "max_p") is None
    assert greedy_select(cost, p, 5, 10) is None


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"rule": "random"}, "rule"),
        ({"cost": [-1, 1]}, "cost"),
        ({"p": [0.5, 2.0]}, "p"),
        ({"n": -1}, "n"),
        ({"budget": -1.0}, "budget"),
    ],
)
def test_greedy_select_rejects_malformed_input(kwargs, field):
    args = {"cost": [1, 1], "p": [0.5, 0.5], "n": 1, "budget": 1.0, "rule": "united"}
    args.update(kwargs)
    with pytest.raises(ProblemError, match=field):
        greedy_select(**args)
