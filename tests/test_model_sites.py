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


def test_group_frame_against_the_job_table_and_the_trace(lcg):
    groups = lcg.group_frame()
    jobs = lcg.job_frame()
    summary = lcg.summary()
    # every job in exactly one group; the groups' waits average to the run's
    assert groups["jobs_read"].sum() == len(jobs)
    assert groups["jobs_entered"].sum() == summary["jobs_entered"]
    assert groups["completed"].sum() == summary["completed"]
    weighted = (groups["mean_wait"] * groups["jobs_entered"]).sum() / groups["jobs_entered"].sum()
    assert weighted == pytest.approx(summary["mean_wait"])
    # where the run placed each group's work: from the task table, directly
    tasks = lcg.task_frame()
    tasks["group"] = jobs["group"].to_numpy()[tasks["job"].to_numpy()]
    seconds = (tasks["end"] - tasks["start"]).groupby([tasks["group"], tasks["owner"]]).sum()
    share = seconds / seconds.groupby(level=0).transform("sum")
    hhi = (share**2).groupby(level=0).sum()
    np.testing.assert_allclose(groups.set_index("group")["site_hhi"].loc[hhi.index], hhi)
    # where the traced grid ran the same jobs: SWF field 16, weighted by run time x processors
    trace = read_swf(trace_path(LCG), 300)
    work = trace["run_time"] * trace["allocated_processors"].clip(lower=1)
    recorded = work.groupby([trace["group_id"], trace["partition_id"]]).sum()
    top = recorded / recorded.groupby(level=0).transform("sum")
    names = dict(zip(lcg.sites.partition.tolist(), lcg.sites.name, strict=True))
    by_group = groups.set_index("group")
    for group, own in top.groupby(level=0):
        partition = own.droplevel(0).idxmax()
        assert by_group.loc[group, "recorded_top_site"] == names[partition]
        assert by_group.loc[group, "recorded_top_site_share"] == pytest.approx(own.max())
        assert by_group.loc[group, "recorded_sites"] == len(own)


def test_group_frame_without_sites_has_no_recorded_columns():
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=40, rng=1)
    model.run()
    groups = model.group_frame()
    assert not any(c.startswith("recorded_") for c in groups.columns)
    assert groups["jobs_read"].sum() == 40
