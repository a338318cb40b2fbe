"""Pricing policies of resource owners: price per time unit as a function of node performance."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vosim.errors import ParameterError

__all__ = ["ExponentialPricing"]


@dataclass(frozen=True, slots=True)
class ExponentialPricing:
    """Base market price exponential in performance, with a normal markup or discount.

    ``base(p) = scale * exp(rate * p)``; each node's price is ``base(p) * (1 + d)`` with
    ``d ~ Normal(0, max_deviation / 3)`` clipped to ``[-max_deviation, +max_deviation]`` (so the
    clip is at three standard deviations and touches 0.3 % of the nodes).

    Parameters
    ----------
    scale : float
        Price factor, cost per time unit (> 0). Default 1.0.
    rate : float
        Exponent per unit of performance (>= 0). Default 0.25: a performance-10 node costs
        ``exp(2) ≈ 7.4`` times a performance-2 node per time unit, so it is dearer per unit of
        work too (12.2 / 10 vs 1.65 / 2), as the paper's market intends.
    max_deviation : float
        Markup/discount bound as a fraction of the base price, in [0, 1). Default 0.6 (±60 %).

    Raises
    ------
    ParameterError
        A parameter outside its range.

    References
    ----------
    VO Preferences §4: "the price per time unit is an exponential function of performance (base
    market price) plus or minus a normally distributed markup or discount within 60 % of the
    base". The paper gives no constants; ``scale``, ``rate`` and the 3-sigma clip are vosim's.

    Examples
    --------
    >>> pricing = ExponentialPricing()
    >>> round(float(pricing.base_price(2.0)), 3)
    1.649
    >>> p = pricing.prices(np.full(1000, 6.0), np.random.default_rng(0))
    >>> bool(((p >= 0.4 * pricing.base_price(6.0)) & (p <= 1.6 * pricing.base_price(6.0))).all())
    True
    """

    scale: float = 1.0
    rate: float = 0.25
    max_deviation: float = 0.6

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ParameterError(f"pricing scale must be > 0, got {self.scale}")
        if not self.rate >= 0:
            raise ParameterError(f"pricing rate must be >= 0, got {self.rate}")
        if not 0 <= self.max_deviation < 1:
            raise ParameterError(f"max_deviation must be in [0, 1), got {self.max_deviation}")

    def base_price(self, performance: np.ndarray | float) -> np.ndarray:
        """Return the base market price per time unit for the given performance(s)."""
        return self.scale * np.exp(self.rate * np.asarray(performance, dtype=float))

    def prices(self, performance: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw node prices per time unit, shape like ``performance``."""
        performance = np.asarray(performance, dtype=float)
        sigma = self.max_deviation / 3
        dev = np.clip(
            rng.normal(0.0, sigma, size=performance.shape), -self.max_deviation, self.max_deviation
        )
        return self.base_price(performance) * (1.0 + dev)

    def dearest_cost_per_work(self, performance_range: tuple[float, float]) -> float:
        """Return the highest base cost of one unit of work, ``max_p base(p) / p``, over the range.

        The budget rule of the users scales from it (VO Preferences §4: some users can afford the
        dearest nodes with the full markup, others rely on discounts).
        """
        p = np.linspace(performance_range[0], performance_range[1], 65)
        return float(np.max(self.base_price(p) / p))
