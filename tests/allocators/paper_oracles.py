"""Oracles and problem strategies of the ICCS 2023 availability methods' tests.

Exact methods are checked against two independent oracles written here: a brute force over
every ``n``-subset (eq. 3 computed directly from the groups touched) on small instances, and a
``scipy.optimize.milp`` model with group indicator variables on larger ones.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    window_probability,
)
from vosim.core import Status

EXACT = ("knapsack_group",)


HEURISTICS = (
    "knapsack_p",
    "max_p",
    "min_c",
    "max_p_per_c",
    "greedy_united",
    "greedy",
    "greedy_plus",
)


ALL = EXACT + HEURISTICS


#: Heuristics allowed to report "infeasible" although some selection fits (paper: "may provide
#: infeasible solutions"); every other method finds a selection whenever one exists.
MAY_MISS = ("max_p", "max_p_per_c")


RTOL = 1e-9  # budget tolerance for real costs (greedy.BUDGET_RTOL)


SETTINGS = settings(max_examples=200, deadline=None)


#: Probabilities below this are zero for the comparisons: products of tiny (or subnormal)
#: probabilities underflow differently in another multiplication order or in log space
#: (hypothesis found 0.0 against 5e-324).
UNDERFLOW = 1e-300


def eq3(group, group_p, chosen) -> float:
    """Eq. (3) computed directly: product over the distinct groups of ``chosen``."""
    return math.prod(float(group_p[g]) for g in {int(group[i]) for i in chosen})


def brute(cost, group, group_p, n, budget, tol=0.0):
    """(best eq. 3 probability, all optimal subsets) over every n-subset within budget."""
    best, arg = None, []
    for comb in itertools.combinations(range(len(cost)), n):
        if sum(float(cost[i]) for i in comb) > budget * (1 + tol):
            continue
        value = eq3(group, group_p, comb)
        if best is None or value > best:
            best, arg = value, [comb]
        elif value == best:
            arg.append(comb)
    return best, arg


def brute_eq2(cost, p, n, budget):
    """Best eq. (2) product over every n-subset within budget (None if none fits)."""
    best = None
    for comb in itertools.combinations(range(len(cost)), n):
        if sum(int(cost[i]) for i in comb) <= budget:
            value = math.prod(float(p[i]) for i in comb)
            best = value if best is None else max(best, value)
    return best


def milp_optimum(cost, group, group_p, n, budget):
    """Optimal eq. (3) probability by a MILP with group indicators (None if infeasible).

    Variables ``x_i`` (resource chosen) and ``y_g`` (group touched), binary; maximise
    ``sum_g y_g log p_g`` subject to ``x_i <= y_group(i)``, ``sum x = n``, ``cost . x <= C``.
    Groups with ``p_g = 0`` have ``log p_g = -inf``: their resources are first forbidden; if
    nothing fits then, every feasible selection touches a zero group, so the optimum is 0 when
    the ``n`` cheapest resources fit and the problem is infeasible otherwise.
    """
    cost = np.asarray(cost, dtype=float)
    group = np.asarray(group)
    group_p = np.asarray(group_p, dtype=float)
    N, G = cost.size, group_p.size
    allowed = group_p[group] > 0
    if np.count_nonzero(allowed) >= n:
        logp = np.log(np.where(group_p > 0, group_p, 1.0))
        c = np.concatenate((np.zeros(N), -logp))
        link = np.zeros((N, N + G))
        link[np.arange(N), np.arange(N)] = 1.0
        link[np.arange(N), N + group] = -1.0
        count = np.concatenate((np.ones(N), np.zeros(G)))[None, :]
        spend = np.concatenate((cost, np.zeros(G)))[None, :]
        constraints = [
            LinearConstraint(link, -np.inf, 0.0),
            LinearConstraint(count, n, n),
            LinearConstraint(spend, -np.inf, budget),
        ]
        upper = np.concatenate((allowed.astype(float), np.ones(G)))
        res = milp(
            c,
            constraints=constraints,
            integrality=np.ones(N + G),
            bounds=Bounds(np.zeros(N + G), upper),
            options={"mip_rel_gap": 0},
        )
        if res.status == 0:
            chosen = np.flatnonzero(res.x[:N] > 0.5)
            assert chosen.size == n and cost[chosen].sum() <= budget + 1e-9
            return eq3(group, group_p, chosen)
        assert res.status == 2, res.message  # infeasible
    return 0.0 if np.sort(cost)[:n].sum() <= budget else None


@st.composite
def problems(draw, max_n=10, singletons=False, max_cost=10):
    N = draw(st.integers(1, max_n))
    if singletons:
        group = list(range(N))
        G = N
    else:
        G = draw(st.integers(1, N))
        group = draw(st.lists(st.integers(0, G - 1), min_size=N, max_size=N))
    probability = st.one_of(
        st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]), st.floats(0.0, 1.0, allow_nan=False)
    )
    group_p = draw(st.lists(probability, min_size=G, max_size=G))
    cost = draw(st.lists(st.integers(0, max_cost), min_size=N, max_size=N))
    n = draw(st.integers(1, N))
    # budgets from hopeless (below the n cheapest) to unlimited
    budget = draw(st.one_of(st.integers(0, sum(cost) + 1).map(float), st.just(math.inf)))
    return AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=n, budget=budget)


def check_result(problem, result, name):
    """Invariants every method's result satisfies."""
    assert result.method == name
    if result.status == Status.INFEASIBLE:
        assert result.selected.size == 0 and result.selected.dtype.kind == "i"
        assert result.probability == 0.0 and result.cost == 0.0
        return
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.LIMIT)
    assert result.status != Status.LIMIT or result.stats["truncated"]
    sel = result.selected
    assert sel.dtype.kind == "i" and sel.shape == (problem.n,)
    assert np.all(np.diff(sel) > 0), "sorted, distinct"
    assert 0 <= sel[0] and sel[-1] < problem.N
    assert result.cost == pytest.approx(float(problem.cost[sel].sum()), rel=1e-12)
    assert result.cost <= problem.budget * (1 + RTOL)
    assert result.probability == window_probability(problem, sel)
    assert result.probability == pytest.approx(eq3(problem.group, problem.group_p, sel))
