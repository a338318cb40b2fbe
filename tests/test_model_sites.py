"""owners='trace': a multi-site trace's own sites are the VO's owners (LCG-2005-1)."""

from __future__ import annotations

import numpy as np
import pytest

from vosim.data import trace_path
from vosim.errors import ParameterError
from vosim.market.swf import read_swf
from vosim.model import VOModel

LCG = "LCG-2005-1"


@pytest.fixture(scope="module")
def lcg():
    model = VOModel(trace=LCG, jobs=300, owners="trace", rng=1)
    model.run()
    return model


def test_every_site_is_an_owner_with_its_capacity(lcg):
    sites = lcg.sites
    assert len(lcg.owners) == len(sites) == 170
    assert lcg.node_count == int(sites.capacity.sum()) == 24515
    for owner, capacity in zip(lcg.owners, sites.capacity.tolist(), strict=True):
        assert owner.node_ids.size == capacity
        # a site is a cluster: one performance and one price
        assert np.unique(lcg.node_performance[owner.node_ids]).size == 1
        assert np.unique(lcg.node_price[owner.node_ids]).size == 1
    prices = lcg.node_price[[o.node_ids[0] for o in lcg.owners]]
    assert np.unique(prices).size > 100  # drawn per site, not one for all


def test_groups_reach_the_job_table_and_the_market(lcg):
    trace = read_swf(trace_path(LCG), 300)
    jobs = lcg.job_frame()
    np.testing.assert_array_equal(jobs["group"].to_numpy(), trace["group_id"].to_numpy())
    assert jobs["state"].eq("completed").mean() > 0.9
    graph = lcg.market_graph()
    users = {d["id"]: d["group"] for _, d in graph.nodes(data=True) if d["kind"] == "user"}
    first = trace.drop_duplicates("user_id").set_index("user_id")["group_id"]
    assert users == first.to_dict()
    names = {d["name"] for _, d in graph.nodes(data=True) if d["kind"] == "owner"}
    assert "lxgate13.cern.ch" in names and len(names) == 170


def test_a_trace_without_partitions_is_refused():
    with pytest.raises(ParameterError, match="UniLu-Gaia-2014-2 records none"):
        VOModel(trace="UniLu-Gaia-2014-2", jobs=10, owners="trace", rng=1)


def test_machine_ignores_owners_trace():
    model = VOModel(trace=LCG, jobs=20, owners="trace", machine=True, policy="easy",
                    cycle_period=0.0, rng=1)  # fmt: skip
    assert len(model.owners) == 1 and model.sites is None
