"""ICCS 2023's methods, instances and worked example (``vosim.runs.experiments.iccs2023.setup``)."""

from __future__ import annotations

import numpy as np
import pytest

from vosim.runs.experiments import ExperimentConfig
from vosim.runs.experiments.iccs2023 import setup


def test_methods_and_their_paper_names():
    # §3.2 compares five methods (plus vosim's exact DP); §3.3 drops BruteForce
    assert set(setup.LABELS) == set(setup.SMALL_METHODS) and len(setup.SMALL_METHODS) == 6
    assert setup.LARGE_METHODS == tuple(m for m in setup.SMALL_METHODS if m != "brute_force")
    assert set(setup.TREE_METHODS) <= set(setup.LARGE_METHODS)
    assert [setup.LABELS[m] for m in setup.TREE_METHODS] == ["KnapsackGroup", "Greedy", "Greedy+"]
    assert setup.COLUMNS[:3] == ["n", "C", "method"]


def test_worked_example_is_the_papers():
    # §2.1: P_a(e_1) = P_a(e_2) = 0.5, P_a(e_3) = 0.94, P_a^r = their product 0.235
    paper = setup.FIG2_PAPER
    events = [paper["release at 545"], paper["allocation at 844"], paper["global"]]
    assert float(np.prod(events)) == pytest.approx(paper["P_a^r"])
    assert 1 - setup.FIG2_GLOBAL_P == pytest.approx(paper["global"])
    # the interval runs from the first job's expected release to the second's allocation
    first, second = setup.FIG2_JOBS
    assert setup.FIG2_INTERVAL == (first.release_time, second.alloc_time) == (545.0, 844.0)
    assert (first.alloc_time, second.release_time) == (85.0, 1250.0)


@pytest.mark.parametrize(("N", "G"), [(21, 8), (200, 40)])
def test_instances_shapes_and_ranges(N, G):
    config = ExperimentConfig(3, seed=1, quick=True)
    instances = setup._instances(config, 5, N, G)
    assert len(instances) == config.repetitions
    for cost, group, group_p in instances:
        assert cost.shape == group.shape == (N,) and group_p.shape == (G,)
        # §3.3's budgets put costs in {2, ..., 10}; Fig. 1's occupations in [0.06, 0.53]
        assert cost.min() >= 2 and cost.max() <= 10 and np.issubdtype(cost.dtype, np.integer)
        assert group_p.min() >= 0.47 and group_p.max() <= 0.94
        assert np.array_equal(np.unique(group), np.arange(G))  # every group non-empty


def test_instances_are_reproducible_with_a_seed_and_key():
    def draw(seed: int, key: int) -> list[tuple]:
        return setup._instances(ExperimentConfig(2, seed=seed, quick=True), key, 21, 8)

    first, again = draw(1, 5), draw(1, 5)
    for a, b in zip(first, again, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0][2], draw(2, 5)[0][2])
    assert not np.array_equal(first[0][2], draw(1, 6)[0][2])
    assert not np.array_equal(first[0][2], first[1][2])  # repetitions differ
