"""The Knapsack Grid slides' rules: option layouts, credit values and utility policies 1-5.

One home for the rules that both the preemptive grid simulator of the slides' experiment
(:mod:`vosim.runs.experiments.knapsack_grid_simulator`) and the VO's knapsack policies
(:mod:`vosim.policies.knapsack`) apply, so the two cannot drift apart.

Options (:func:`option_layouts`). A task needing ``p`` processors may run on these layouts,
chosen in this order while fewer than ``max_options`` are chosen (``clusters[k]`` the
processors cluster ``k`` offers the task):

1. the *reference option*: ``p`` processors on the smallest cluster that has ``p``, length
   factor 1 (the reference length ``N_i``);
2. the *split option* (``p`` even): ``p/2`` processors on each of the two smallest clusters
   that have ``p/2``, length factor ``split_penalty`` (1.1: a 10 % communication penalty for
   crossing clusters);
3. the *half option* (``p >= 2``, when asked for): ``q = p // 2`` processors on the smallest
   cluster that has ``q``, length factor ``p / q * half_factor / 2`` (``half_factor = 2``:
   linear speedup, the work ``p * N`` is conserved);
4. ``p`` processors on each other cluster that has ``p``, largest cluster first (length
   factor 1: processors are homogeneous).

"Smallest" and "largest" compare capacities, ties by cluster index. A layout that no cluster
can hold is skipped (without the reference option the grid's tasks are malformed; a VO job
may still be split).

Credit values (:func:`option_credit`) vary with length as on the policy-1 slide,
``v_im / v_in = (T_in / T_im) ** 1.1``: an option of length ``T`` of a task whose reference
option (length ``N``) is worth ``v`` is worth ``v * (N / T) ** 1.1``.

Utility policies (:func:`option_utilities`), with ``t`` now, ``s_i`` the submit time, ``N_i``
the reference length and ``r_ij = (1 - phi_i) T_ij`` the remaining computation time on option
``j``: 1 ``u = v_ij``; 2 ``u = v_ij (t - s_i + r_ij) / N_i``; 3 policy 2 through
:func:`sigmoid`; 4 ``u = (t - s_i + r_ij) / N_i + N_i / r_ij``; 5 policy 4 through
:func:`sigmoid`.

References
----------
Knapsack Grid, "Two Tasks and Their Options", "Allocation Policy 1: Pure Credit-Value-Driven",
"Allocation Policy 2: Credit-Value-Driven Mediated by Estimated Response Time", "Allocation
Policy 3: Policy 2 with Sigmoidal Utility Function" and "Allocation Policy 4,5: Estimated
Response Time + Closeness to Completion".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from vosim.errors import ParameterError

__all__ = [
    "UTILITY_POLICIES",
    "CREDIT_EXPONENT",
    "SPLIT_PENALTY",
    "HALF_FACTOR",
    "MAX_OPTIONS",
    "Layout",
    "check_utility_policy",
    "sigmoid",
    "option_utilities",
    "option_credit",
    "option_layouts",
]

#: The utility policies of the slides.
UTILITY_POLICIES = (1, 2, 3, 4, 5)
#: Exponent of the credit/length relation ``v_im / v_in = (T_in / T_im) ** 1.1``.
CREDIT_EXPONENT = 1.1
#: Length factor of an option split across two clusters (communication penalty).
SPLIT_PENALTY = 1.1
#: Length factor of running on half the processors (2: linear speedup, work conserved).
HALF_FACTOR = 2.0
#: At most this many options per task of the grid's streams.
MAX_OPTIONS = 4


def check_utility_policy(policy, name: str = "policy") -> int:
    """``policy`` as an int after checking it is one of :data:`UTILITY_POLICIES`.

    Parameters
    ----------
    policy : int
        The utility policy, 1 to 5.
    name : str, default "policy"
        The parameter's name in the error message.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        ``policy`` is not one of 1 to 5 (a bool is not accepted); the message names it.

    Examples
    --------
    >>> check_utility_policy(3)
    3
    """
    if isinstance(policy, bool) or policy not in UTILITY_POLICIES:
        raise ParameterError(f"{name} must be one of {UTILITY_POLICIES}, got {policy!r}")
    return int(policy)


def sigmoid(x):
    """The slides' sigmoidal utility ``U(x) = 2 / (exp(-0.5 x) + 1) - 1`` (0 at 0, -> 1).

    Parameters
    ----------
    x : float or numpy.ndarray
        The utility before the sigmoid (e.g. policy 2's ``v_ij (t - s_i + r_ij) / N_i``).

    Returns
    -------
    float or numpy.ndarray
        In ``(-1, 1)``, same shape as ``x``.

    References
    ----------
    Knapsack Grid, "Allocation Policy 3: Policy 2 with Sigmoidal Utility Function".

    Examples
    --------
    >>> float(sigmoid(0.0)), round(float(sigmoid(2.0)), 4)
    (0.0, 0.4621)
    """
    return 2.0 / (np.exp(-0.5 * np.asarray(x, dtype=float)) + 1.0) - 1.0


def option_utilities(
    policy: int,
    now: float,
    submit: float,
    reference_length: float,
    lengths,
    credits,
    remaining: float = 1.0,
) -> np.ndarray:
    """Utility ``u_ij`` of each option of task ``i`` under a utility policy of the slides.

    Parameters
    ----------
    policy : int
        1 to 5 (see the module docstring).
    now : float
        ``t``, time units of the lengths (hours in the grid, model time units in the VO).
    submit : float
        ``s_i``, the task's submission time, same units.
    reference_length : float
        ``N_i``, the task's run time on the reference option (``> 0``), same units.
    lengths : array_like of float, shape (n_options,)
        ``T_ij``, the length of each option (``> 0``), same units.
    credits : array_like of float, shape (n_options,)
        ``v_ij``, the credit value of each option.
    remaining : float, default 1.0
        ``1 - phi_i``, the remaining fraction of the task's work, in ``(0, 1]`` (1: not
        started).

    Returns
    -------
    numpy.ndarray of float, shape (n_options,)

    Raises
    ------
    ParameterError
        An unknown policy or ``remaining`` outside ``(0, 1]``.

    References
    ----------
    Knapsack Grid, "Allocation Policy 1" to "Allocation Policy 4,5".

    Examples
    --------
    A task submitted at 1 h, reference length 2 h, options of 2 h (credit 10) and 4 h
    (credit 4.67), at 3 h: policy 2 weighs each credit by ``(t - s + T) / N``.

    >>> option_utilities(2, 3.0, 1.0, 2.0, [2.0, 4.0], [10.0, 4.67]).tolist()
    [20.0, 14.01]
    """
    policy = check_utility_policy(policy)
    if not 0 < remaining <= 1:
        raise ParameterError(f"remaining must be in (0, 1], got {remaining!r}")
    credits = np.array(credits, dtype=float)
    if policy == 1:
        return credits
    r = remaining * np.asarray(lengths, dtype=float)
    response = (now - submit + r) / reference_length
    u = credits * response if policy in (2, 3) else response + reference_length / r
    return sigmoid(u) if policy in (3, 5) else u


def option_credit(credit: float, reference_length: float, length: float) -> float:
    """Credit of an option of length ``T`` when the reference option pays ``credit``.

    ``v = credit * (N / T) ** 1.1`` (Knapsack Grid, "Allocation Policy 1").

    Parameters
    ----------
    credit : float
        ``v``, the credit of the reference option.
    reference_length : float
        ``N``, the reference option's length (``> 0``).
    length : float
        ``T``, the option's length (``> 0``), same units as ``N``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(option_credit(10.0, 1.0, 2.0), 4)
    4.6652
    """
    return float(credit) * (float(reference_length) / float(length)) ** CREDIT_EXPONENT


class Layout(NamedTuple):
    """Where an option of a task runs: processors per cluster and its length factor.

    Attributes
    ----------
    processors : tuple of int, shape (K,)
        Processors used on each cluster.
    factor : float
        The option's length over the reference length ``N`` (1 on one cluster).
    kind : str
        ``"reference"``, ``"split"``, ``"half"`` or ``"other"`` (rules 1-4 of the module).
    """

    processors: tuple[int, ...]
    factor: float
    kind: str


def _smallest_fitting(caps: Sequence[int], p: int, exclude: Sequence[int] = ()) -> int | None:
    fits = [k for k in range(len(caps)) if caps[k] >= p and k not in exclude]
    return min(fits, key=lambda k: (caps[k], k)) if fits else None


def option_layouts(
    processors: int,
    clusters: Sequence[int],
    *,
    max_options: int | None = MAX_OPTIONS,
    split_penalty: float = SPLIT_PENALTY,
    half_factor: float = HALF_FACTOR,
    half: bool = True,
) -> list[Layout]:
    """The layouts of a task needing ``processors`` on ``clusters`` (rules in the module doc).

    Parameters
    ----------
    processors : int
        ``p``, processors of the reference option (``>= 1``).
    clusters : sequence of int, shape (K,)
        Processors each cluster offers the task (``>= 0``).
    max_options : int or None, default 4
        At most this many layouts (``>= 1``); ``None``: no limit.
    split_penalty : float, default 1.1
        Length factor of the layout split over two clusters (``>= 1``).
    half_factor : float, default 2.0
        Length factor of running on half the processors (``> 0``).
    half : bool, default True
        Offer the half option (rule 3).

    Returns
    -------
    list of Layout
        In the rules' order; the reference layout first when some cluster has ``p``; empty
        when no rule fits.

    Raises
    ------
    ParameterError
        ``p < 1``, not a whole number, or a bad factor or ``max_options``.

    References
    ----------
    Knapsack Grid, "Two Tasks and Their Options" (an option split 4 + 4 over two clusters,
    another on fewer processors).

    Notes
    -----
    Results are cached (the VO's knapsack asks again every pass for the same job widths on
    the same free nodes).

    Examples
    --------
    >>> for o in option_layouts(8, (4, 8, 16, 32)):
    ...     print(o.processors, round(o.factor, 2), o.kind)
    (0, 8, 0, 0) 1.0 reference
    (4, 4, 0, 0) 1.1 split
    (4, 0, 0, 0) 2.0 half
    (0, 0, 0, 8) 1.0 other
    >>> [o.kind for o in option_layouts(8, (4, 4, 6), half=False)]
    ['split']
    """
    return list(
        _layouts(
            processors,
            tuple(int(c) for c in clusters),
            max_options,
            split_penalty,
            half_factor,
            half,
        )
    )


@functools.lru_cache(maxsize=4096, typed=True)
def _layouts(
    processors, caps: tuple[int, ...], max_options, split_penalty, half_factor, half
) -> tuple[Layout, ...]:
    if isinstance(processors, bool) or int(processors) != processors:
        raise ParameterError(f"processors must be a whole number, got {processors!r}")
    p = int(processors)
    if p < 1:
        raise ParameterError(f"processors must be >= 1, got {p}")
    if max_options is not None and (
        isinstance(max_options, bool) or not isinstance(max_options, int) or max_options < 1
    ):
        raise ParameterError(f"max_options must be an integer >= 1 or None, got {max_options!r}")
    if not (math.isfinite(split_penalty) and split_penalty >= 1):
        raise ParameterError(f"split_penalty must be >= 1, got {split_penalty!r}")
    if not (math.isfinite(half_factor) and half_factor > 0):
        raise ParameterError(f"half_factor must be > 0, got {half_factor!r}")
    n = len(caps)
    room = math.inf if max_options is None else max_options
    out: list[Layout] = []

    def add(alloc: dict[int, int], factor: float, kind: str) -> None:
        if len(out) < room:
            out.append(Layout(tuple(alloc.get(k, 0) for k in range(n)), factor, kind))

    ref = _smallest_fitting(caps, p)
    if ref is not None:
        add({ref: p}, 1.0, "reference")
    if p % 2 == 0:
        a = _smallest_fitting(caps, p // 2)
        b = _smallest_fitting(caps, p // 2, exclude=(a,)) if a is not None else None
        if b is not None:
            add({a: p // 2, b: p // 2}, split_penalty, "split")
    if half and p >= 2:
        q = p // 2
        c = _smallest_fitting(caps, q)
        if c is not None:
            add({c: q}, p / q * half_factor / 2.0, "half")
    others = sorted((k for k in range(n) if caps[k] >= p and k != ref), key=lambda k: (-caps[k], k))
    for k in others:
        add({k: p}, 1.0, "other")
    return tuple(out)
