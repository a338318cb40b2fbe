"""What the Knapsack Grid experiments run (knapsack_grid.setup): strategies, streams, example."""

import itertools

import numpy as np
import pytest

from vosim.runs.experiments.knapsack_grid import (
    CLAIMS,
    COLUMNS,
    EXAMPLE_CHOICE,
    EXAMPLE_OPTIMUM,
    LAMBDAS,
    SLIDES_LAMBDA,
    SPEEDUP_QUANTILES,
    strategies,
    trace_clusters,
)
from vosim.runs.experiments.knapsack_grid.setup import (
    EXAMPLE_CAPACITY,
    EXAMPLE_TASKS,
    _family,
    _poisson,
)
from vosim.runs.experiments.knapsack_grid_simulator import DEFAULT_CLUSTERS


def test_trace_clusters_share_the_processors():
    clusters = trace_clusters(owners=4)
    assert sum(clusters) == 2004 and max(clusters) - min(clusters) <= 1


@pytest.mark.parametrize(
    ("owners", "want"), [(1, (2004,)), (3, (668,) * 3), (5, (401,) * 4 + (400,))]
)
def test_trace_clusters_give_the_remainder_to_the_first_owners(owners, want):
    assert trace_clusters(owners=owners) == want  # Gaia's MaxProcs: 2004


def _families(found: list) -> list[str]:
    return [_family(s) for s in found]


def test_quick_strategies_are_one_per_family_fcfs_first():
    found = strategies(True)
    assert _families(found) == ["FCFS", "BF", "gang", "KS", "KS+BF"]
    assert [s.name for s in found][:3] == ["FCFS", "EASY", "Gang(slice=1h)"]
    assert strategies(True, trace=True)[0].name == "FCFS"  # quick wins over trace


def test_full_strategies_cover_every_policy_and_tau():
    found = strategies(False)
    assert _families(found).count("KS") == 7 and _families(found).count("gang") == 2
    knapsack = [(s.policy, s.tau) for s in found if _family(s) == "KS"]
    assert sorted(knapsack) == [
        (1, 0.25),
        (1, 1.0),
        (1, 4.0),
        (2, 1.0),
        (3, 1.0),
        (4, 1.0),
        (5, 1.0),
    ]
    assert [(s.policy, s.tau) for s in found if _family(s) == "KS+BF"] == [(1, 1.0), (5, 1.0)]
    assert len({s.name for s in found}) == len(found)


def test_trace_strategies_are_the_shorter_list():
    found = strategies(False, trace=True)
    assert [s.name for s in found][:3] == ["FCFS", "EASY", "Gang(slice=1h)"]
    assert _families(found) == ["FCFS", "BF", "gang", "KS", "KS", "KS+BF"]


def test_poisson_maker_draws_the_slides_grid_stream():
    make = _poisson(30, SLIDES_LAMBDA)
    tasks, clusters = make(np.random.default_rng(4))
    again, _ = make(np.random.default_rng(4))
    assert clusters == DEFAULT_CLUSTERS == (4, 8, 16, 32)  # the slides' grid
    assert len(tasks) == 30 and [t.submit for t in tasks] == [t.submit for t in again]
    submits = np.array([t.submit for t in tasks])
    assert (np.diff(submits) >= 0).all()


def test_lambdas_halve_and_double_the_slides_lambda():
    assert LAMBDAS == (SLIDES_LAMBDA / 2, SLIDES_LAMBDA, SLIDES_LAMBDA * 2)


def test_columns_hold_the_quantiles_and_the_claims():
    assert set(SPEEDUP_QUANTILES) <= set(COLUMNS)
    assert list(SPEEDUP_QUANTILES.values()) == sorted(SPEEDUP_QUANTILES.values())
    assert len(CLAIMS) == 4 and {"claim", "holds", "streams_holding"} <= set(COLUMNS)


def test_example_optimum_is_the_only_feasible_pair_worth_20():
    # brute force over the options of "Two Tasks and Their Options" on clusters of 16 and 8
    worth = {}
    for choice in itertools.product(*(range(len(task)) for task in EXAMPLE_TASKS)):
        options = [EXAMPLE_TASKS[i][j] for i, j in enumerate(choice)]
        used = np.sum([procs for _, procs in options], axis=0)
        if (used <= np.array(EXAMPLE_CAPACITY)).all():
            worth[tuple(j + 1 for j in choice)] = sum(credit for credit, _ in options)
    best = max(worth.values())
    assert best == EXAMPLE_OPTIMUM == 20.0
    assert [c for c, v in worth.items() if v == best] == [EXAMPLE_CHOICE]
    assert max(v for c, v in worth.items() if c[0] in (1, 2)) <= 13  # options 1, 2 leave 13
