"""Computing nodes of a VO domain: performance, price per time unit and owner."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vosim.errors import ParameterError
from vosim.market.pricing import ExponentialPricing, PricingPolicy

__all__ = ["Node", "generate_nodes"]


@dataclass(frozen=True, slots=True)
class Node:
    """A computing node (CPU node) of the VO domain.

    Parameters
    ----------
    id : int
        Node index in the domain, ``0 <= id < N``.
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
