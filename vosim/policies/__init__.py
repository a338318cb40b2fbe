"""Scheduling policies: one pass's decisions from the VO's state, pure (no Mesa).

A policy takes a :class:`~vosim.policies.base.CycleState` (time, free slots, queue in priority
order, unstarted reservations) and returns :class:`~vosim.policies.base.Decisions` (windows to
reserve, reservations to cancel); the metascheduler applies them. Registered by name
(:func:`policies`, :func:`make_policy`): ``fcfs``, ``easy``, ``conservative`` (the batch-system
baselines, Mu'alem & Feitelson 2001) beside the VO's cyclic scheduling scheme ``css`` and its
``availability`` variant, and the knapsack policies. Before any policy but conservative
backfilling (which does it itself) the metascheduler re-plans the unstarted reservations
(:mod:`vosim.policies.replan`, ``VOModel(replan="always")``).
"""

from vosim.policies import conservative as conservative
from vosim.policies import cyclic_scheme as cyclic_scheme
from vosim.policies import easy as easy
from vosim.policies import fcfs as fcfs
from vosim.policies import knapsack as knapsack
from vosim.policies import replan as replan
from vosim.policies.base import (
    CycleState,
    Decisions,
    DecisionStatus,
    Policy,
    make_policy,
    policies,
    policy_options,
    register_policy,
)

__all__ = [
    "CycleState",
    "DecisionStatus",
    "Decisions",
    "Policy",
    "make_policy",
    "policies",
    "policy_options",
    "register_policy",
]
