"""The market as a network: a hand-made market, GraphML, a model's market."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.analysis.network import (
    graphml_text,
    group_concentration,
    group_sites,
    market_graph,
    market_metrics,
    market_nodes,
    pair_totals,
)
from vosim.model import VOModel
from vosim.runs.batch import run_sweep
from vosim.runs.config import parse_sweep
from vosim.runs.sweep_results import load_results, load_table, network_path


@pytest.fixture
def market():
    """3 users x 2 owners: user 1 buys from both, user 2 from owner 1, user 3 never runs.

    user 1, job 10: two tasks of 10 s at price 2 on owner 0 (20 s, 40);
    user 1, job 11: one task of 5 s at price 1 on owner 1 (5 s, 5);
    user 2, job 20: one task of 30 s at price 1 on owner 1 (30 s, 30).
    """
    tasks = pd.DataFrame(
        {
            "job": [10, 10, 11, 20],
            "user": [1, 1, 1, 2],
            "owner": [0, 0, 1, 1],
            "start": [0.0, 0.0, 0.0, 100.0],
            "end": [10.0, 10.0, 5.0, 130.0],
            "cost": [20.0, 20.0, 5.0, 30.0],
        }
    )
    return market_graph(tasks, users=[1, 2, 3], owners=[0, 1])


def test_edges_carry_jobs_time_and_money(market):
    edges = {(u, o): d for u, o, d in market.edges(data=True)}
    assert edges == {
        ("user 1", "owner 0"): {"jobs": 1, "processor_seconds": 20.0, "money": 40.0},
        ("user 1", "owner 1"): {"jobs": 1, "processor_seconds": 5.0, "money": 5.0},
        ("user 2", "owner 1"): {"jobs": 1, "processor_seconds": 30.0, "money": 30.0},
    }
    assert market.degree("user 3") == 0
    assert nx.is_bipartite(market)
    assert {n for n, b in market.nodes(data="bipartite") if b == 1} == {"owner 0", "owner 1"}


def test_concentration_by_hand(market):
    m = market_metrics(market)
    # owners' money 40 and 35 of 75
    assert m["owner_share_max"] == pytest.approx(40 / 75)
    assert m["owner_hhi"] == pytest.approx((40 / 75) ** 2 + (35 / 75) ** 2)
    # Gini: |40 - 35| summed over ordered pairs (2 x 5) over 2 k^2 mean = 2 * 4 * 37.5
    assert m["owner_gini"] == pytest.approx(10 / (2 * 4 * 37.5))
    assert m["owners_selling"] == 1.0
    # user 1: 20 of 25 s from owner 0; user 2: all from owner 1; user 3 bought nothing
    assert m["user_dependence"] == pytest.approx((0.8 + 1.0) / 2)
    assert m["users_single_owner"] == 0.5
    # owner 0 sold to 1 of 3 users, owner 1 to 2 of 3
    assert m["owner_degree_centrality_mean"] == pytest.approx(0.5)


def test_eigenvector_centrality_against_the_adjacency_matrix(market):
    nodes = market_nodes(market).set_index("node")
    # oracle: the leading eigenvector of the money-weighted adjacency of the traded component
    order = ["owner 0", "user 1", "owner 1", "user 2"]  # a path: 40, 5, 30
    a = np.zeros((4, 4))
    for (i, j), w in {(0, 1): 40.0, (1, 2): 5.0, (2, 3): 30.0}.items():
        a[i, j] = a[j, i] = w
    values, vectors = np.linalg.eigh(a)
    lead = np.abs(vectors[:, np.argmax(values)])
    lead /= np.linalg.norm(lead)
    got = nodes.loc[order, "eigenvector_centrality"].to_numpy()
    np.testing.assert_allclose(got, lead, rtol=1e-6)
    assert nodes.loc["user 3", "eigenvector_centrality"] == 0.0
    m = market_metrics(market)
    assert m["owner_eigenvector_max"] == pytest.approx(lead[[0, 2]].max())


def test_node_table(market):
    nodes = market_nodes(market)
    assert nodes["node"].tolist() == ["user 1", "user 2", "user 3", "owner 0", "owner 1"]
    owner1 = nodes.set_index("node").loc["owner 1"]
    assert (owner1["partners"], owner1["jobs"], owner1["money"]) == (2, 2, 35.0)
    assert owner1["top_partner_share"] == pytest.approx(30 / 35)
    assert math.isnan(nodes.set_index("node").loc["user 3", "top_partner_share"])
    assert nodes.loc[nodes["kind"] == "owner", "share"].sum() == pytest.approx(1.0)


def test_no_trade_gives_nan_not_errors():
    empty = pd.DataFrame(columns=["job", "user", "owner", "start", "end", "cost"])
    m = market_metrics(market_graph(empty, users=[1, 2], owners=[0]))
    assert all(math.isnan(v) for k, v in m.items() if k != "owners_selling")
    assert m["owners_selling"] == 0.0


def test_one_trade_gives_equal_centrality():
    one = pd.DataFrame(
        {"job": [0], "user": [1], "owner": [0], "start": [0.0], "end": [5.0], "cost": [2.0]}
    )
    nodes = market_nodes(market_graph(one, users=[1, 2], owners=[0, 1])).set_index("node")
    np.testing.assert_allclose(
        nodes.loc[["user 1", "owner 0"], "eigenvector_centrality"], [0.5**0.5] * 2
    )
    assert nodes.loc["owner 1", "eigenvector_centrality"] == 0.0


def test_a_bad_task_row_is_named():
    bad = pd.DataFrame(
        {"job": [5], "user": [1], "owner": [0], "start": [3.0], "end": [1.0], "cost": [1.0]}
    )
    with pytest.raises(ValueError, match=r"task row 0 .*job 5"):
        market_graph(bad)


def test_graphml_round_trip(market, tmp_path):
    path = tmp_path / "network.graphml"
    path.write_text(graphml_text(market))
    back = nx.read_graphml(path)
    assert set(back.nodes) == set(market.nodes)
    assert dict(back.nodes(data="kind")) == dict(market.nodes(data="kind"))
    for u, o, d in market.edges(data=True):
        assert back.edges[u, o] == d


def test_a_model_run_market_holds_its_revenue():
    model = VOModel(jobs=120, owners=4, rng=3)
    model.run()
    graph = model.market_graph()
    tasks = model.task_frame()
    assert graph.size(weight="money") == pytest.approx(sum(o.revenue for o in model.owners))
    assert graph.size(weight="processor_seconds") == pytest.approx(
        float((tasks["end"] - tasks["start"]).sum())
    )
    kinds = [k for _, k in graph.nodes(data="kind")]
    assert kinds.count("user") == len(model.users) and kinds.count("owner") == 4
    ran = model.job_frame().query("state == 'completed'")
    assert graph.size(weight="jobs") >= len(ran)  # a job split over owners counts on each
    summary = model.summary()
    assert summary["market_owner_hhi"] == pytest.approx(market_metrics(graph)["owner_hhi"])


def test_every_sweep_run_writes_its_market(tmp_path):
    config = parse_sweep(
        """
name = "net"
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 30
[sweep]
owners = [2, 3]
"""
    )
    run_sweep(config, tmp_path, workers=1)
    table = load_results(tmp_path)
    groups, pairs = load_table(tmp_path, "groups"), load_table(tmp_path, "group_sites")
    for rid, completed in zip(table["run_id"], table["completed"], strict=True):  # per run
        assert groups.loc[groups["run_id"] == rid, "completed"].sum() == completed
        mine = pairs[pairs["run_id"] == rid]
        shares = mine.groupby("group")["share"].sum()
        np.testing.assert_allclose(shares, 1.0)
    with pytest.raises(ValueError, match="'nope'; available: cycles, groups, group_sites"):
        load_table(tmp_path, "nope")
    columns = (table["run_id"], table["owners"], table["market_owner_hhi"])
    for rid, owners, hhi in zip(*columns, strict=True):
        graph = nx.read_graphml(network_path(tmp_path, rid))
        assert sum(k == "owner" for _, k in graph.nodes(data="kind")) == owners
        shares = market_nodes(graph).query("kind == 'owner'")["share"]
        assert float((shares**2).sum()) == pytest.approx(hhi)


def _random_market(seed):
    rng = np.random.default_rng(seed)
    k = 60
    return pd.DataFrame(
        {
            "job": np.arange(k),
            "user": rng.integers(0, 25, k),
            "owner": rng.integers(0, 6, k),
            "start": np.zeros(k),
            "end": rng.uniform(1.0, 100.0, k),
            "cost": rng.uniform(1.0, 50.0, k),
        }
    )


def test_eigenvector_centrality_against_power_iteration():
    # an independent oracle: networkx's power iteration on the traded component
    graph = market_graph(_random_market(5), users=range(25), owners=range(6))
    nodes = market_nodes(graph).set_index("node")
    main = max(nx.connected_components(graph), key=len)
    want = nx.eigenvector_centrality(
        graph.subgraph(main), weight="money", tol=1e-13, max_iter=10**5
    )
    for name, value in want.items():
        assert nodes.loc[name, "eigenvector_centrality"] == pytest.approx(value, rel=1e-6)


def test_eigenvector_centrality_is_the_same_whatever_ran_before():
    # ARPACK's random start persists in a process: the metric must not depend on earlier runs
    from scipy.sparse.linalg import eigs

    graph = market_graph(_random_market(6), users=range(25), owners=range(6))
    first = market_metrics(graph)["owner_eigenvector_max"]
    eigs(np.random.default_rng(0).random((30, 30)), k=1)
    assert market_metrics(graph)["owner_eigenvector_max"] == first


def test_group_sites_and_concentration_by_hand():
    tasks = pd.DataFrame(
        {
            "group": [1, 1, 1, 2],
            "owner": [0, 0, 1, 1],
            "start": [0.0, 10.0, 0.0, 0.0],
            "end": [10.0, 40.0, 10.0, 5.0],
            "cost": [1.0, 3.0, 2.0, 7.0],
        }
    )
    pairs = group_sites(tasks, {0: "a.org"})
    assert pairs[["group", "owner", "site"]].values.tolist() == [
        [1, 0, "a.org"], [1, 1, "owner 1"], [2, 1, "owner 1"]
    ]  # fmt: skip
    assert pairs["processor_seconds"].tolist() == [40.0, 10.0, 5.0]
    assert pairs["money"].tolist() == [4.0, 2.0, 7.0]
    np.testing.assert_allclose(pairs["share"], [0.8, 0.2, 1.0])
    view = group_concentration(pairs).set_index("group")
    assert view.loc[1, "site_hhi"] == pytest.approx(0.8**2 + 0.2**2)
    assert (view.loc[1, "top_site"], view.loc[1, "top_site_share"]) == ("a.org", 0.8)
    assert (view.loc[2, "sites"], view.loc[2, "site_hhi"]) == (1, 1.0)
    assert group_concentration(group_sites(tasks.iloc[:0])).empty


@given(
    st.lists(
        st.tuples(
            st.integers(-3, 40),
            st.integers(-2, 9),
            st.integers(-5, 30),
            st.floats(0, 1e6),
            st.floats(0, 1e3),
        ),
        max_size=60,
    )
)
def test_pair_totals_against_pandas_groupby(rows):
    # the oracle: pandas' groupby over both ids, sum and nunique (negative ids included)
    frame = pd.DataFrame(rows, columns=["left", "right", "job", "a", "b"]).astype(
        {"left": np.int64, "right": np.int64, "job": np.int64, "a": float, "b": float}
    )
    got = pair_totals(
        frame["left"].to_numpy(),
        frame["right"].to_numpy(),
        {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()},
        distinct=frame["job"].to_numpy(),
    )
    want = (
        frame.groupby(["left", "right"], sort=True)
        .agg(a=("a", "sum"), b=("b", "sum"), distinct=("job", "nunique"))
        .reset_index()
    )
    assert list(got.columns) == ["left", "right", "a", "b", "distinct"]
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-12, atol=1e-9)
    assert all(got[c].dtype == np.int64 for c in ("left", "right", "distinct"))


def test_pair_totals_names_columns_of_different_lengths():
    with pytest.raises(ValueError, match="different lengths"):
        pair_totals(np.arange(3), np.arange(2), {})
