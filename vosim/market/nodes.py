"""Computing nodes of a VO domain: performance, price per time unit and owner.

The slots the metascheduler co-allocates are on *resources*: whole nodes, or the processors
of the nodes (:func:`processor_counts`, :func:`expand_processors`; ``VOModel(resources=...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vosim.errors import ParameterError
from vosim.market.pricing import ExponentialPricing, PricingPolicy

__all__ = [
    "MAX_RESOURCES",
    "RESOURCE_KINDS",
    "Node",
    "expand_processors",
    "generate_nodes",
    "processor_counts",
]

#: What the slots are on, ``VOModel(resources=...)``: ``"processors"`` (a job needing ``p``
#: processors gets ``p`` slots; the processors of a physical node share its performance, price,
#: owner and local load) or ``"nodes"`` (whole nodes, allocated exclusively: a job gets
#: ``ceil(p * N / MaxProcs)`` of the ``N`` nodes).
RESOURCE_KINDS = ("processors", "nodes")

#: The most resources (nodes, or processors with ``resources="processors"``) a domain may
#: have, checked before anything of that size is built (``VOModel(nodes=...)``, a trace
#: header's ``MaxNodes``/``MaxProcs``), so a typo is refused with one line naming the value
#: instead of exhausting memory. Every cycle builds a slot list of at
#: least one row per resource and the domain keeps several ``(R,)`` arrays; already at 5,000
#: nodes under the generated local load a 20-job NASA run took 55 s and 2.4 GB (measured),
#: so 10**6 bounds what can be built, not what runs comfortably. LCG-2005-1, the largest
#: bundled trace, has 24,515 processors.
MAX_RESOURCES = 1_000_000


@dataclass(frozen=True, slots=True)
class Node:
    """A computing node (CPU node) of the VO domain, or one processor of one.

    Parameters
    ----------
    id : int
        Index of the resource in the domain, ``0 <= id < R``: a node's when resources are
        whole nodes, a processor's when they are processors (:func:`expand_processors`).
    performance : float
        Relative performance in [2, 10]: a task of volume ``V`` runs ``V / performance`` model
        time units on this node.
    price : float
        Usage price, cost per model time unit (> 0).
    owner : int
        Index of the resource owner who provides the node.

    References
    ----------
    AEP §3.1 and VO Preferences §4: performance uniform integer in [2, 10].
    """

    id: int
    performance: float
    price: float
    owner: int


def generate_nodes(
    count: int,
    owners: int,
    rng: np.random.Generator,
    *,
    performance_range: tuple[int, int] = (2, 10),
    pricing: PricingPolicy | None = None,
) -> list[Node]:
    """Generate a heterogeneous domain as in VO Preferences §4 and split it among owners.

    Performance is a uniform integer in ``performance_range``; price comes from ``pricing``
    (default :class:`~vosim.market.pricing.ExponentialPricing`). Nodes are dealt to owners in
    contiguous blocks as equal as possible (owner ``k`` gets ``count // owners`` or one more).

    Parameters
    ----------
    count : int
        Number of nodes N (>= 1).
    owners : int
        Number of resource owners, ``1 <= owners <= count``.
    rng : numpy.random.Generator
        Source of randomness.
    performance_range : (int, int)
        Inclusive bounds of the integer performance (default (2, 10)).
    pricing : PricingPolicy, optional
        Pricing policy (e.g. :class:`~vosim.market.pricing.ProportionalPricing`); the
        default is the VO Preferences §4 policy.

    Returns
    -------
    list of Node
        Length ``count``, ids ``0 .. count-1``.

    Raises
    ------
    ParameterError
        ``count < 1``, ``owners`` outside ``[1, count]`` or an empty performance range.

    Examples
    --------
    >>> nodes = generate_nodes(5, 2, np.random.default_rng(1))
    >>> [n.owner for n in nodes]
    [0, 0, 1, 1, 1]
    >>> all(2 <= n.performance <= 10 for n in nodes)
    True
    """
    if count < 1:
        raise ParameterError(f"nodes must be >= 1, got {count}")
    if not 1 <= owners <= count:
        raise ParameterError(f"owners must be in [1, nodes={count}], got {owners}")
    lo, hi = performance_range
    if not 0 < lo <= hi:
        raise ParameterError(
            f"performance_range must satisfy 0 < lo <= hi, got {performance_range}"
        )
    pricing = pricing or ExponentialPricing()
    performance = rng.integers(lo, hi, size=count, endpoint=True).astype(float)
    price = pricing.prices(performance, rng)
    owner = np.repeat(
        np.arange(owners), np.diff(np.linspace(0, count, owners + 1).round().astype(int))
    )
    return [
        Node(id=i, performance=float(performance[i]), price=float(price[i]), owner=int(owner[i]))
        for i in range(count)
    ]


def site_nodes(
    capacity: np.ndarray,
    rng: np.random.Generator,
    *,
    performance_range: tuple[int, int] = (2, 10),
    pricing: PricingPolicy | None = None,
) -> list[Node]:
    """One-processor nodes of a grid's sites: site ``k`` holds ``capacity[k]`` of them.

    A site is a cluster: its processors share one performance (a uniform integer in
    ``performance_range``) and one price (``pricing`` of that performance), drawn per site
    as :func:`generate_nodes` draws them per node. Site ``k`` is owner ``k``; its nodes are
    a contiguous block of ids.

    Parameters
    ----------
    capacity : numpy.ndarray of int, shape (S,)
        Processors of each site (each >= 1), e.g. :attr:`vosim.market.sites.Sites.capacity`.
    rng : numpy.random.Generator
        Source of randomness.
    performance_range : (int, int)
        Inclusive bounds of the integer performance.
    pricing : PricingPolicy, optional
        Pricing policy (default :class:`~vosim.market.pricing.ExponentialPricing`).

    Returns
    -------
    list of Node
        Length ``capacity.sum()``, ids ``0 .. capacity.sum() - 1``.

    Raises
    ------
    ParameterError
        No site, or a site without processors.

    References
    ----------
    VO Preferences §4 (performance and price of a node); the per-site draw is vosim's, for
    ``owners="trace"``.

    Examples
    --------
    >>> nodes = site_nodes(np.array([2, 1]), np.random.default_rng(1))
    >>> [n.owner for n in nodes], nodes[0].price == nodes[1].price
    ([0, 0, 1], True)
    """
    capacity = np.asarray(capacity, dtype=np.int64)
    if capacity.size == 0 or (capacity < 1).any():
        raise ParameterError(f"every site needs at least one processor, got {capacity.tolist()}")
    lo, hi = performance_range
    pricing = pricing or ExponentialPricing()
    performance = rng.integers(lo, hi, size=capacity.size, endpoint=True).astype(float)
    price = pricing.prices(performance, rng)
    site = np.repeat(np.arange(capacity.size), capacity)
    return [
        Node(id=i, performance=float(performance[k]), price=float(price[k]), owner=int(k))
        for i, k in enumerate(site.tolist())
    ]


def processor_counts(nodes: int, processors: int) -> np.ndarray:
    """Processors of each of ``nodes`` physical nodes holding ``processors`` in all.

    As even as possible: node ``i`` gets ``floor((i + 1) P / N) - floor(i P / N)``, i.e.
    ``floor(P / N)`` or one more, the larger nodes spread over the ids (UniLu-Gaia's 2004
    processors on 151 nodes: 41 nodes of 14 and 110 of 13).

    Parameters
    ----------
    nodes : int
        Physical nodes ``N`` (>= 1).
    processors : int
        Processors ``P`` in all (>= ``nodes``: every node has at least one).

    Returns
    -------
    numpy.ndarray of int64, shape (nodes,)
        Processors per node, summing to ``processors``.

    Raises
    ------
    ParameterError
        ``nodes < 1`` or ``processors < nodes``.

    References
    ----------
    vosim's grouping of a trace's ``MaxProcs`` processors into its ``MaxNodes`` nodes (SWF
    header fields of the Parallel Workloads Archive).

    Examples
    --------
    >>> processor_counts(3, 7).tolist()
    [2, 2, 3]
    >>> c = processor_counts(151, 2004)
    >>> int(c.sum()), sorted(set(c.tolist())), int((c == 14).sum())
    (2004, [13, 14], 41)
    """
    if nodes < 1:
        raise ParameterError(f"nodes must be >= 1, got {nodes}")
    if processors < nodes:
        raise ParameterError(
            f"processors must be >= nodes={nodes} (one per node at least), got {processors}"
        )
    bounds = np.arange(nodes + 1, dtype=np.int64) * processors // nodes
    return np.diff(bounds)


def expand_processors(nodes: list[Node], counts) -> tuple[list[Node], np.ndarray]:
    """The processors of physical ``nodes``: the resources when processors are the resources.

    Node ``i`` becomes ``counts[i]`` processors that share its performance, price and owner,
    numbered in node order (node 0's first), so each owner's processors stay a contiguous
    block as its nodes were. With one processor per node the result equals ``nodes``.

    Parameters
    ----------
    nodes : list of Node
        Physical nodes, ids ``0 .. N-1`` in order.
    counts : array-like of int, shape (N,)
        Processors of each node (>= 1), e.g. :func:`processor_counts`.

    Returns
    -------
    processors : list of Node
        Length ``P = sum(counts)``, ids ``0 .. P-1``.
    resource_node : numpy.ndarray of int64, shape (P,)
        The physical node (index into ``nodes``) of each processor, non-decreasing.

    Raises
    ------
    ParameterError
        ``counts`` not of ``len(nodes)`` or holding a count below 1.

    References
    ----------
    vosim's rule: processors are the resources (the papers' "CPU nodes"); a trace's
    processors are grouped into its ``MaxNodes`` physical nodes, which share performance,
    price, owner and local load.

    Examples
    --------
    >>> procs, host = expand_processors([Node(0, 2.0, 1.0, 0), Node(1, 4.0, 3.0, 1)], [2, 1])
    >>> [(p.id, p.performance, p.owner) for p in procs], host.tolist()
    ([(0, 2.0, 0), (1, 2.0, 0), (2, 4.0, 1)], [0, 0, 1])
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.shape != (len(nodes),) or (counts < 1).any():
        raise ParameterError(
            f"counts must give each of the {len(nodes)} nodes >= 1 processor, got {counts!r}"
        )
    resource_node = np.repeat(np.arange(len(nodes), dtype=np.int64), counts)
    processors = [
        Node(id=k, performance=nodes[h].performance, price=nodes[h].price, owner=nodes[h].owner)
        for k, h in enumerate(resource_node.tolist())
    ]
    return processors, resource_node
