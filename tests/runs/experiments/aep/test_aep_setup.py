"""What the AEP experiments run on (aep.setup): the algorithms, the grids, the Table 2 domain."""

import numpy as np
import pytest

from vosim.market.domains import aep_domain
from vosim.runs.experiments.aep import (
    aep_table_domain,
)
from vosim.runs.experiments.aep.setup import (
    ALTERNATIVES_KEYS,
    CSA_VARIANTS,
    FIG1_3_ALGORITHMS,
    KINDS,
    LABELS,
    PAPER_PROCEDURES,
    TABLE1_NODES,
    TABLE2_INTERVALS,
    TIME_ALGORITHMS,
    _table1_2_grid,
)

SEED = 3


def test_table_domain_slots_grow_linearly_with_the_interval():
    def mean_slots(interval):
        rngs = (np.random.default_rng([SEED, k]) for k in range(3))
        return np.mean([len(aep_table_domain(rng, interval=interval).slots) for rng in rngs])

    counts = {interval: mean_slots(interval) for interval in (600.0, 1800.0, 3600.0)}
    step1 = (counts[1800.0] - counts[600.0]) / 2
    step2 = (counts[3600.0] - counts[1800.0]) / 3
    assert 300 < step1 < 500 and 300 < step2 < 500  # about 400 slots per 600 time units
    domain = aep_table_domain(np.random.default_rng(SEED), interval=3600.0)
    assert domain.interval == (0.0, 3600.0)
    assert domain.busy_start.min() < 600 and domain.busy_end.max() > 3000


@pytest.mark.parametrize(("nodes", "interval"), [(100, 600.0), (50, 600.0), (20, 100.0)])
def test_table_domain_up_to_600_is_the_default_aep_domain(nodes, interval):
    # k = interval / 600 rounds to 1 at most (at least 1): the default 2-6 local jobs per node
    ours = aep_table_domain(np.random.default_rng(SEED), nodes=nodes, interval=interval)
    theirs = aep_domain(np.random.default_rng(SEED), nodes=nodes, interval=interval)
    np.testing.assert_array_equal(ours.busy_node, theirs.busy_node)
    np.testing.assert_array_equal(ours.busy_start, theirs.busy_start)
    np.testing.assert_array_equal(ours.busy_end, theirs.busy_end)
    assert len(ours.slots) == len(theirs.slots)


def test_table_domain_scales_the_local_jobs_per_node():
    # interval 1800: k = 3, 6-18 local jobs per node (the default domain has 2-6)
    domain = aep_table_domain(np.random.default_rng(SEED), nodes=40, interval=1800.0)
    per_node = np.bincount(domain.busy_node, minlength=40)
    assert per_node.min() >= 6 and per_node.max() <= 18
    assert per_node.mean() > 6 + 1  # not the default's 2-6


def test_quick_grid_is_the_first_two_points_of_each_table():
    assert _table1_2_grid(True) == ((50, 100), (600, 1200))
    assert _table1_2_grid(False) == (TABLE1_NODES, TABLE2_INTERVALS)
    assert TABLE1_NODES == (50, 100, 200, 300, 400)  # AEP Table 1
    assert TABLE2_INTERVALS == tuple(range(600, 3601, 600))  # AEP Table 2


def test_every_algorithm_has_a_label_and_every_figure_algorithm_a_kind():
    assert set(FIG1_3_ALGORITHMS) | set(TIME_ALGORITHMS) == set(LABELS)
    assert set(KINDS) == set(FIG1_3_ALGORITHMS)
    assert len(set(LABELS.values())) == len(LABELS)


def test_paper_procedures_share_an_algorithm_of_the_paper():
    for procedure, algorithm in PAPER_PROCEDURES.items():
        assert procedure in LABELS and algorithm in LABELS
        assert algorithm not in PAPER_PROCEDURES  # the paper's own name, not another procedure
    assert set(CSA_VARIANTS) == set(ALTERNATIVES_KEYS)
    assert set(CSA_VARIANTS.values()) == {"amp", "amp_paper"}
    for variant in CSA_VARIANTS:  # each CSA is timed in total and per alternative
        assert {variant, f"{variant}_per_alternative"} <= set(TIME_ALGORITHMS)
