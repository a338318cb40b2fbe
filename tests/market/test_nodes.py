"""Nodes of the VO domain (vosim.market.nodes): generated, per site, and split into processors."""

from __future__ import annotations

import numpy as np
import pytest

from vosim import ParameterError
from vosim.market.nodes import (
    Node,
    expand_processors,
    generate_nodes,
    processor_counts,
    site_nodes,
)


def test_processor_counts_are_as_even_as_possible():
    assert processor_counts(2, 8).tolist() == [4, 4]
    c = processor_counts(151, 2004)  # UniLu-Gaia's header
    assert c.sum() == 2004 and set(c.tolist()) == {13, 14} and (c == 14).sum() == 2004 - 151 * 13
    with pytest.raises(ParameterError, match="processors must be >= nodes"):
        processor_counts(3, 2)
    procs, host = expand_processors([Node(0, 2.0, 1.0, 0), Node(1, 8.0, 5.0, 1)], [1, 3])
    assert [p.id for p in procs] == [0, 1, 2, 3] and host.tolist() == [0, 1, 1, 1]
    assert {(p.performance, p.price, p.owner) for p in procs[1:]} == {(8.0, 5.0, 1)}


class FixedPricing:
    """Price = 10 x performance: a pricing policy whose prices are known."""

    def prices(self, performance, rng):
        return 10.0 * np.asarray(performance)


def test_generate_nodes_deals_contiguous_blocks_with_drawn_performance():
    nodes = generate_nodes(7, 3, np.random.default_rng(4), pricing=FixedPricing())
    assert [n.id for n in nodes] == list(range(7))
    # np.linspace(0, 7, 4).round() = [0, 2, 5, 7]: blocks of 2, 3 and 2
    assert [n.owner for n in nodes] == [0, 0, 1, 1, 1, 2, 2]
    want = np.random.default_rng(4).integers(2, 10, size=7, endpoint=True)
    assert [n.performance for n in nodes] == want.astype(float).tolist()
    assert all(n.price == 10.0 * n.performance for n in nodes)
    same = generate_nodes(5, 1, np.random.default_rng(0), performance_range=(3, 3))
    assert {n.performance for n in same} == {3.0} and {n.owner for n in same} == {0}


@pytest.mark.parametrize(
    ("count", "owners", "kwargs", "word"),
    [
        (0, 1, {}, "nodes must be >= 1, got 0"),
        (3, 4, {}, "owners must be in \\[1, nodes=3\\], got 4"),
        (3, 0, {}, "owners"),
        (3, 1, {"performance_range": (5, 2)}, "performance_range"),
        (3, 1, {"performance_range": (0, 2)}, "performance_range"),
    ],
)
def test_generate_nodes_errors_name_the_value(count, owners, kwargs, word):
    with pytest.raises(ParameterError, match=word):
        generate_nodes(count, owners, np.random.default_rng(0), **kwargs)


def test_site_nodes_share_one_draw_per_site():
    nodes = site_nodes(np.array([3, 1, 2]), np.random.default_rng(8), pricing=FixedPricing())
    assert [n.id for n in nodes] == list(range(6))
    assert [n.owner for n in nodes] == [0, 0, 0, 1, 2, 2]
    want = np.random.default_rng(8).integers(2, 10, size=3, endpoint=True).astype(float)
    assert [n.performance for n in nodes] == [want[k] for k in (0, 0, 0, 1, 2, 2)]
    assert all(n.price == 10.0 * n.performance for n in nodes)


@pytest.mark.parametrize("capacity", [[], [2, 0], [-1]])
def test_site_nodes_needs_a_processor_per_site(capacity):
    with pytest.raises(ParameterError, match="at least one processor"):
        site_nodes(np.array(capacity, dtype=int), np.random.default_rng(0))


def test_expand_processors_checks_the_counts():
    nodes = [Node(0, 2.0, 1.0, 0), Node(1, 8.0, 5.0, 1)]
    same, host = expand_processors(nodes, [1, 1])
    assert same == nodes and host.tolist() == [0, 1]
    for counts in ([1], [1, 0], [[1, 1]]):
        with pytest.raises(ParameterError, match="counts must give each of the 2 nodes"):
            expand_processors(nodes, counts)
    with pytest.raises(ParameterError, match="nodes must be >= 1"):
        processor_counts(0, 4)
