"""The VO's market as a network: the user-owner bipartite graph of one run and its concentration.

Users buy processor time from owners through the metascheduler; who bought from whom is the
bipartite graph of a run. :func:`market_graph` builds it from the run's task
table (``tasks.parquet``: every task that ran, with its user, owner, time and cost),
:func:`market_metrics` reads from it how concentrated the market is (owners' market shares,
their HHI and Gini, users' dependence on one owner, centralities) and :func:`market_nodes` the
per-node figures. ``vosim run`` and every sweep run write the graph as GraphML
(``network.graphml``), which networkx (``networkx.read_graphml``) and Gephi read.

Examples
--------
>>> import pandas as pd
>>> tasks = pd.DataFrame({"job": [0, 0, 1], "user": [7, 7, 8], "owner": [0, 1, 1],
...                       "start": [0.0, 0.0, 5.0], "end": [10.0, 10.0, 9.0],
...                       "cost": [10.0, 30.0, 8.0]})
>>> g = market_graph(tasks, users=[7, 8, 9], owners=[0, 1])
>>> sorted(g.edges(data="money"))
[('user 7', 'owner 0', 10.0), ('user 7', 'owner 1', 30.0), ('user 8', 'owner 1', 8.0)]
>>> m = market_metrics(g)
>>> round(m["owner_share_max"], 4), round(m["owner_hhi"], 4)
(0.7917, 0.6701)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import networkx as nx
import numpy as np
import pandas as pd

from vosim.analysis.metrics import gini

__all__ = [
    "USER",
    "OWNER",
    "EDGE_WEIGHTS",
    "TASK_COLUMNS",
    "market_graph",
    "market_metrics",
    "market_nodes",
    "group_sites",
    "group_concentration",
    "graphml_text",
    "pair_totals",
]

#: ``kind`` attribute of user nodes (bipartite set 0) and owner nodes (set 1).
USER = "user"
OWNER = "owner"
#: Edge attributes of :func:`market_graph`, with their units.
EDGE_WEIGHTS: dict[str, str] = {
    "jobs": "jobs of the user with at least one task on the owner's processors",
    "processor_seconds": "processor time the user's tasks occupied there, s",
    "money": "what the user paid the owner for it, cost units",
}

#: The task table's columns :func:`market_graph` reads (a superset of what the site x VO view,
#: :func:`group_sites` with each job's group, reads): a caller may build only these.
TASK_COLUMNS = ("job", "user", "owner", "start", "end", "cost")


def _node(kind: str, ident: int) -> str:
    return f"{kind} {ident}"


def pair_totals(
    left: np.ndarray,
    right: np.ndarray,
    sums: Mapping[str, np.ndarray],
    distinct: np.ndarray | None = None,
) -> pd.DataFrame:
    """Per distinct ``(left, right)`` pair of ids, the totals of ``sums`` over its rows.

    What ``DataFrame.groupby([left, right], sort=True)`` with ``sum`` (and ``nunique`` of
    ``distinct``) gives, with a fraction of its transient memory: one int64 key per row, its
    sorted distinct values, each row's pair found by binary search among them, and one
    ``numpy.bincount`` per column (~12 MB traced against ``numpy.unique``'s inverse ~24 MB
    and pandas' ~37 MB on whole UniLu-Gaia's 517,768 tasks, in ``vosim run``'s output
    phase).
    Sums are accumulated in row order within a pair (pandas compensates its sums, so the two
    can differ in the last bits).

    Parameters
    ----------
    left, right : numpy.ndarray of int, shape (r,)
        The pair's ids per row (users or groups; owners). Any integers, negative included.
    sums : mapping of str to numpy.ndarray of float, shape (r,)
        The columns to total (any unit; the totals keep it).
    distinct : numpy.ndarray of int, shape (r,), optional
        Ids (jobs) whose distinct values per pair are counted.

    Returns
    -------
    pandas.DataFrame
        One row per pair present, sorted by ``left`` then ``right``: columns ``left``,
        ``right`` (int64), then one float column per ``sums`` key, then ``distinct`` (int64)
        when given. Empty, with these columns, for r = 0.

    Raises
    ------
    ValueError
        Arrays of different lengths.

    References
    ----------
    No paper: vosim's output (the market graph and the site x VO view).
    """
    rows = len(left)
    if any(
        len(a) != rows for a in (right, *sums.values(), *([] if distinct is None else [distinct]))
    ):
        raise ValueError(f"pair_totals: columns of different lengths (left has {rows} rows)")
    low_l = int(left.min()) if rows else 0
    low_r = int(right.min()) if rows else 0
    width = int(right.max()) - low_r + 1 if rows else 1
    key = np.subtract(left, low_l, dtype=np.int64)  # one int64 key per row, built in place
    key *= width
    key += right
    key -= low_r
    keys = np.unique(key)  # the pairs present (a sorted copy, freed here)
    pair = np.searchsorted(keys, key)  # each row's pair: unique's inverse, without its sort
    del key
    out = {"left": keys // width + low_l, "right": keys % width + low_r}
    for name, values in sums.items():
        out[name] = np.bincount(pair, weights=values, minlength=len(keys))
    if distinct is not None:
        low_d = int(distinct.min()) if rows else 0
        span = int(distinct.max()) - low_d + 1 if rows else 1
        seen = pair.astype(np.int64, copy=False)  # (pair, distinct id) keys, built in place
        seen *= span
        seen += distinct
        seen -= low_d
        seen = np.unique(seen)
        out["distinct"] = np.bincount(seen // span, minlength=len(keys)).astype(np.int64)
    return pd.DataFrame(out)


def market_graph(
    tasks: pd.DataFrame,
    users: Iterable[int] = (),
    owners: Iterable[int] = (),
    *,
    groups: Mapping[int, int] | None = None,
    names: Mapping[int, str] | None = None,
) -> nx.Graph:
    """The user-owner bipartite graph of one run.

    Nodes ``"user <id>"`` (``kind="user"``, ``bipartite=0``) and ``"owner <id>"``
    (``kind="owner"``, ``bipartite=1``) with an integer ``id``; an edge joins a user and an
    owner when one of the user's tasks ran on the owner's processors, weighted as
    :data:`EDGE_WEIGHTS` says (``jobs``: distinct ``job``, the job's position in the trace;
    interrupted attempts count, since they ran and were paid). Users and owners with no task
    are nodes without edges: pass every user and owner of the run so that shares and Gini
    cover them.

    Parameters
    ----------
    tasks : pandas.DataFrame
        One row per task that ran, shape (r, ...), with columns ``job``, ``user``,
        ``owner``, ``start``, ``end`` (model time units, s) and ``cost`` (cost units):
        ``VOModel.task_frame()`` or ``tasks.parquet``.
    users, owners : iterable of int
        Ids of all users and owners of the run (those in ``tasks`` are added anyway).
    groups : mapping of int to int, optional
        Each user's group (SWF field 13; in LCG-2005-1 the experiment's VO): the user nodes'
        ``group`` attribute (-1 for a user not in it), so a site x VO view can be read.
    names : mapping of int to str, optional
        Each owner's name (a grid site's under ``owners="trace"``): the owner nodes' ``name``.

    Returns
    -------
    networkx.Graph
        Undirected, bipartite; the graph attribute ``edge_weights`` names the edge
        attributes (space separated, so that GraphML holds it).

    Raises
    ------
    KeyError
        ``tasks`` lacks one of the columns above.
    ValueError
        A task that ends before it starts or costs less than 0 (the row is named).

    References
    ----------
    vosim's own design (the market as a network); Newman, *Networks* (2nd ed., 2018), §6.6
    (bipartite networks).
    """
    missing = [c for c in TASK_COLUMNS if c not in tasks]
    if missing:
        raise KeyError(f"the task table has no column {missing[0]!r}")
    time = tasks["end"].to_numpy(float) - tasks["start"].to_numpy(float)
    cost = tasks["cost"].to_numpy(float)
    bad = np.flatnonzero(~(time >= 0) | ~(cost >= 0))
    if bad.size:
        row = tasks.iloc[int(bad[0])]
        raise ValueError(
            f"task row {int(bad[0])} (job {row['job']}, user {row['user']}): end before start "
            f"or negative cost (start {row['start']}, end {row['end']}, cost {row['cost']})"
        )
    edges = pair_totals(
        tasks["user"].to_numpy(np.int64),
        tasks["owner"].to_numpy(np.int64),
        {"processor_seconds": time, "money": cost},
        distinct=tasks["job"].to_numpy(np.int64),
    )
    graph = nx.Graph(name="vosim user-owner market", edge_weights=" ".join(EDGE_WEIGHTS))
    user_ids = sorted({*(int(u) for u in users), *edges["left"].tolist()})
    owner_ids = sorted({*(int(o) for o in owners), *edges["right"].tolist()})
    groups, names = groups or {}, names or {}
    graph.add_nodes_from(
        (_node(USER, u), {"kind": USER, "id": u, "bipartite": 0, "group": groups.get(u, -1)})
        for u in user_ids
    )
    graph.add_nodes_from(
        (
            _node(OWNER, o),
            {"kind": OWNER, "id": o, "bipartite": 1, "name": names.get(o, f"owner {o}")},
        )
        for o in owner_ids
    )
    for u, o, jobs, seconds, money in zip(
        edges["left"].tolist(),
        edges["right"].tolist(),
        edges["distinct"].tolist(),
        edges["processor_seconds"].tolist(),
        edges["money"].tolist(),
        strict=True,
    ):
        graph.add_edge(
            _node(USER, int(u)),
            _node(OWNER, int(o)),
            jobs=int(jobs),
            processor_seconds=float(seconds),
            money=float(money),
        )
    return graph


def _sides(graph: nx.Graph) -> tuple[list[str], list[str]]:
    kinds = nx.get_node_attributes(graph, "kind")
    users = [n for n, k in kinds.items() if k == USER]
    owners = [n for n, k in kinds.items() if k == OWNER]
    return users, owners


def _eigenvector(graph: nx.Graph, weight: str) -> dict[str, float]:
    """Eigenvector centrality on the largest connected component with edges, 0 elsewhere.

    On a disconnected graph the leading eigenvector is not unique (networkx documents that the
    answer then depends on round-off), so it is computed on the component that holds the most
    money and scaled to unit Euclidean norm there (networkx's normalisation).

    The vector is the leading eigenvector of the component's symmetric weighted adjacency
    matrix from LAPACK's dense ``eigh`` (the Perron vector: nonnegative, unique on a connected
    graph), as ``networkx.eigenvector_centrality_numpy`` defines it. That function's ARPACK
    solver starts from a random vector whose state persists within a process, so the same run
    gave values differing in the last bits depending on the runs before it in a worker; the
    market graphs here have at most a few hundred nodes, where a dense solve is cheap.
    """
    values = dict.fromkeys(graph, 0.0)
    parts = [c for c in nx.connected_components(graph) if len(c) > 1]
    if not parts:
        return values
    main = max(parts, key=lambda c: (graph.subgraph(c).size(weight=weight), len(c)))
    sub = graph.subgraph(main)
    if sub.size(weight=weight) <= 0:
        return values
    if len(main) == 2:  # one edge: both ends alike (ARPACK needs at least 3 nodes)
        values.update(dict.fromkeys(main, math.sqrt(0.5)))
        return values
    names = list(sub)
    adjacency = nx.to_numpy_array(sub, nodelist=names, weight=weight)
    eigenvalues, vectors = np.linalg.eigh(adjacency)
    lead = np.abs(vectors[:, int(np.argmax(eigenvalues))])
    lead /= np.linalg.norm(lead)
    values.update(zip(names, lead.tolist(), strict=True))
    return values


def market_nodes(graph: nx.Graph) -> pd.DataFrame:
    """Per-node figures of a :func:`market_graph`: one row per user and owner.

    Columns: ``node`` (its graph name), ``kind``, ``id``; ``partners`` (its degree: owners a
    user bought from, users an owner sold to); ``jobs``, ``processor_seconds`` and ``money``
    (the sums of its edges' weights); ``share`` (an owner's share of all money paid; a user's
    share of all money spent); ``top_partner_share`` (the share of its processor time with
    its largest partner; NaN without any); ``degree_centrality`` (bipartite: degree over the
    size of the other side, networkx's ``bipartite.degree_centrality``) and
    ``eigenvector_centrality`` (weighted by money, on the largest connected component, 0
    elsewhere).

    Parameters
    ----------
    graph : networkx.Graph
        A :func:`market_graph`.

    Returns
    -------
    pandas.DataFrame
        Shape (users + owners, 11), users first, each side by id.

    References
    ----------
    Newman, *Networks* (2nd ed., 2018), §7.1.1-7.1.2 (degree and eigenvector centrality);
    networkx, ``bipartite.degree_centrality``.
    """
    users, owners = _sides(graph)
    degree = nx.bipartite.degree_centrality(graph, owners) if users and owners else {}
    eigen = _eigenvector(graph, "money")
    total = graph.size(weight="money")
    rows = []
    for node in sorted(users, key=lambda n: graph.nodes[n]["id"]) + sorted(
        owners, key=lambda n: graph.nodes[n]["id"]
    ):
        edges = graph[node]
        seconds = [e["processor_seconds"] for e in edges.values()]
        money = sum(e["money"] for e in edges.values())
        held = sum(seconds)
        rows.append(
            {
                "node": node,
                "kind": graph.nodes[node]["kind"],
                "id": graph.nodes[node]["id"],
                "partners": len(edges),
                "jobs": sum(e["jobs"] for e in edges.values()),
                "processor_seconds": held,
                "money": money,
                "share": money / total if total > 0 else math.nan,
                "top_partner_share": max(seconds) / held if held > 0 else math.nan,
                "degree_centrality": degree.get(node, 0.0),
                "eigenvector_centrality": eigen.get(node, 0.0),
            }
        )
    return pd.DataFrame(rows)


def market_metrics(graph: nx.Graph) -> dict[str, float]:
    """How concentrated the market of a :func:`market_graph` is: one number per aspect.

    Keys (NaN where nothing was bought):

    - ``owner_hhi``: Herfindahl-Hirschman index of owners' market shares by money,
      ``sum_o s_o^2`` in [1/k, 1] for ``k`` owners (the 0-1 scale; antitrust practice
      multiplies by 10,000);
    - ``owner_share_max``: the largest owner's share;
    - ``owner_gini``: Gini coefficient of owners' revenue (:func:`~vosim.analysis.metrics.gini`,
      every owner of the graph, sellers or not);
    - ``owners_selling``: owners with at least one buyer, share of all owners;
    - ``user_dependence``: over users who bought, the mean share of their processor time
      bought from their largest owner (1: each user depends on one owner);
    - ``users_single_owner``: share of those users who bought from one owner only;
    - ``owner_eigenvector_max``: the largest owner eigenvector centrality (weighted by money,
      unit norm on the largest component: :func:`market_nodes`);
    - ``owner_degree_centrality_mean``: owners' mean bipartite degree centrality: the share
      of all users (buyers or not) an owner sold to, on average.

    Parameters
    ----------
    graph : networkx.Graph
        A :func:`market_graph`.

    Returns
    -------
    dict of str to float

    References
    ----------
    Herfindahl (1950), Hirschman (1945): the HHI; U.S. DoJ & FTC, *Merger Guidelines* (2023),
    §2.1 (the 10,000 scale).
    """
    nodes = market_nodes(graph)
    owners = nodes[nodes["kind"] == OWNER]
    users = nodes[nodes["kind"] == USER]
    buyers = users[users["processor_seconds"] > 0]
    share = owners["share"].to_numpy(float)
    selling = owners["partners"].to_numpy() > 0
    money = owners["money"].to_numpy(float)
    bought = money.sum() > 0
    return {
        "owner_hhi": float((share**2).sum()) if bought else math.nan,
        "owner_share_max": float(share.max()) if bought else math.nan,
        "owner_gini": gini(money) if bought else math.nan,
        "owners_selling": float(selling.mean()) if len(owners) else math.nan,
        "user_dependence": float(buyers["top_partner_share"].mean()) if len(buyers) else math.nan,
        "users_single_owner": float((buyers["partners"] == 1).mean()) if len(buyers) else math.nan,
        "owner_eigenvector_max": float(owners["eigenvector_centrality"].max())
        if bought
        else math.nan,
        "owner_degree_centrality_mean": float(owners["degree_centrality"].mean())
        if len(buyers)
        else math.nan,
    }


def group_sites(tasks: pd.DataFrame, names: Mapping[int, str] | None = None) -> pd.DataFrame:
    """Which group (VO) bought from which owner (site): the site x VO view of a market.

    Each task counts for its own job's group (SWF field 13; in LCG-2005-1 the experiment's
    VO), so a user who submits for several VOs is split between them.

    Parameters
    ----------
    tasks : pandas.DataFrame
        One row per task that ran, shape (r, ...), columns ``group``, ``owner``, ``start``,
        ``end`` (s) and ``cost`` (cost units): ``VOModel.task_frame()`` with its jobs' group.
    names : mapping of int to str, optional
        Each owner's name (a grid site's); default ``"owner <id>"``.

    Returns
    -------
    pandas.DataFrame
        One row per (group, owner) pair that traded, sorted by group then owner, columns
        ``group`` (int), ``owner`` (int id), ``site`` (its name), ``processor_seconds`` (s),
        ``money`` (cost units) and ``share`` (the pair's share of the group's processor time,
        in (0, 1]; a group's shares sum to 1). Empty, with these columns, for no task.

    Raises
    ------
    KeyError
        ``tasks`` lacks a column named above.

    References
    ----------
    Feitelson et al., the Standard Workload Format (fields 13, group, and 16, partition:
    LCG-2005-1's VOs and sites); Newman, *Networks* (2nd ed., 2018), §6.6 (bipartite
    networks).
    """
    names = names or {}
    frame = pair_totals(
        tasks["group"].to_numpy(np.int64),
        tasks["owner"].to_numpy(np.int64),
        {
            "processor_seconds": tasks["end"].to_numpy(float) - tasks["start"].to_numpy(float),
            "money": tasks["cost"].to_numpy(float),
        },
    ).rename(columns={"left": "group", "right": "owner"})
    frame.insert(2, "site", [names.get(o, f"owner {o}") for o in frame["owner"].tolist()])
    total = frame.groupby("group")["processor_seconds"].transform("sum")
    return frame.assign(share=frame["processor_seconds"] / total)


def group_concentration(pairs: pd.DataFrame) -> pd.DataFrame:
    """How concentrated each group's (VO's) purchases are over owners (sites).

    A VO's share of a site is the share of its processor time that ran there (where its
    work ran, so that prices, which differ between pricing policies, do not weigh it).

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`group_sites` output.

    Returns
    -------
    pandas.DataFrame
        One row per group that bought processor time, sorted by group: ``group``,
        ``processor_seconds`` (s), ``money`` (cost units), ``sites`` (owners it bought
        from), ``site_hhi`` (Herfindahl-Hirschman index of its site shares, in
        [1/sites, 1]), ``top_site`` (the name of the site that ran most of its work) and
        ``top_site_share`` (that site's share).

    References
    ----------
    Herfindahl (1950), Hirschman (1945): the HHI, here over one buyer's suppliers.
    """
    rows = []
    for group, own in pairs.groupby("group", sort=True):
        top = own.loc[own["share"].idxmax()]
        rows.append(
            {
                "group": int(group),
                "processor_seconds": float(own["processor_seconds"].sum()),
                "money": float(own["money"].sum()),
                "sites": len(own),
                "site_hhi": float((own["share"] ** 2).sum()),
                "top_site": str(top["site"]),
                "top_site_share": float(top["share"]),
            }
        )
    columns = [
        "group", "processor_seconds", "money", "sites", "site_hhi", "top_site", "top_site_share"
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def graphml_text(graph: nx.Graph) -> str:
    """``graph`` as GraphML text (networkx's writer), for ``network.graphml``.

    Text rather than a file so that sweep workers (processes, Ray tasks) can return it to the
    process that writes the run's files. ``networkx.read_graphml`` reads it back with the
    same nodes, attributes and edge weights (tested).

    Raises
    ------
    networkx.NetworkXError
        An attribute GraphML cannot hold (a :func:`market_graph` has none).

    References
    ----------
    The GraphML specification (graphml.graphdrawing.org).
    """
    return "\n".join(nx.generate_graphml(graph)) + "\n"
