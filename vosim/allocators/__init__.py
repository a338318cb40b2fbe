"""Allocators: pure functions from free slots (or resources) and a request to a selection.

Two registries by name: window criteria for slot lists (:func:`criteria`: the AEP family
``amp``, ``min_cost``, ``min_runtime``, ``min_finish``, ``min_proc_time`` and the paper's
``amp_paper``, ``min_runtime_substitution``, ``min_finish_substitution``, AEP §2.2; any user
function of a window through :func:`~vosim.allocators.aep.window_criterion`) and availability
methods for :class:`AvailabilityProblem` (:func:`methods`: ``knapsack_p``, ``max_p``,
``min_c``, ``max_p_per_c``, ``greedy_united``, ``knapsack_group``, ``greedy``,
``greedy_plus``, ``brute_force``, ``exact``, ``milp``; ICCS 2023 §2.3–2.4), plus the time scan
of ICCS 2021 (:func:`time_scan`). The cyclic scheduling scheme of VO Preferences: alternatives
(:mod:`~vosim.allocators.csa`: CSA on vosim's AMP or the paper's, step 1), the combination of
alternatives (:mod:`~vosim.allocators.combination`) and VO policies
(:mod:`~vosim.allocators.vo_choice`, step 2).
The multiple-choice knapsack of task options across clusters (Knapsack Grid):
:func:`~vosim.allocators.mckp.solve_mckp`. Wherever a name is taken, a fallback chain such as
``"knapsack_group>greedy_plus"``, ``"min_cost>amp"`` or ``"milp>greedy"`` is too: the exact
method under a budget (``fallback_after``), then the greedy one
(:mod:`~vosim.allocators.fallback`; validate names with :func:`resolve` / :func:`is_method`).
"""

from vosim.allocators import aep as aep
from vosim.allocators import combination as combination
from vosim.allocators import csa as csa
from vosim.allocators import exact as exact
from vosim.allocators import greedy as greedy
from vosim.allocators import group_bnb as group_bnb
from vosim.allocators import knapsack as knapsack
from vosim.allocators import mckp as mckp
from vosim.allocators import vo_choice as vo_choice
from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    AvailabilityResult,
    allocate_resources,
    methods,
    register_method,
    window_probability,
)
from vosim.allocators.base import allocate_window, criteria, register_criterion
from vosim.allocators.combination import choose_combination, combination_curve
from vosim.allocators.csa import batch_alternatives, find_alternatives
from vosim.allocators.fallback import FallbackBudget, FallbackLog, is_method, resolve
from vosim.allocators.timescan import TimeScanResult, time_scan
from vosim.allocators.vo_choice import VOPolicy, choose_alternatives
from vosim.core import Allocation, ResourceRequest, Status, Window

__all__ = [
    "Allocation",
    "AvailabilityProblem",
    "AvailabilityResult",
    "FallbackBudget",
    "FallbackLog",
    "ResourceRequest",
    "Status",
    "TimeScanResult",
    "Window",
    "allocate_resources",
    "VOPolicy",
    "allocate_window",
    "batch_alternatives",
    "choose_alternatives",
    "choose_combination",
    "combination_curve",
    "criteria",
    "find_alternatives",
    "is_method",
    "methods",
    "register_criterion",
    "register_method",
    "resolve",
    "time_scan",
    "window_probability",
]
