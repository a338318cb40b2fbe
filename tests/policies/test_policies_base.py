"""The Policy protocol declares everything the metascheduler asks of a policy."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

import vosim
from vosim.allocators.fallback import FallbackLog
from vosim.core import Result, Slot, Status, Window
from vosim.model import VOModel
from vosim.policies.base import Decisions, DecisionStatus, Policy, policy_names


def _policy(name: str) -> Policy:
    return VOModel(jobs=20, policy=name, rng=1).metascheduler.scheduler


@pytest.mark.parametrize("name", policy_names())
def test_every_registered_policy_is_a_policy_with_the_declared_members(name):
    policy = _policy(name)
    assert Policy in type(policy).__mro__ and isinstance(policy.name, str)
    assert isinstance(policy.replans, bool) and isinstance(policy.records_searches, bool)
    assert policy.fallbacks is None or isinstance(policy.fallbacks, FallbackLog)
    allocators = policy.criterion_allocators
    assert allocators is None or {"finish", "runtime", "cost"} <= set(allocators)
    code = policy.last_code(0)
    assert isinstance(code, tuple) and len(code) == 2


def test_who_declares_what():
    assert _policy("conservative").replans and not _policy("easy").replans
    assert _policy("css").records_searches and not _policy("knapsack").records_searches
    assert _policy("fcfs").last_code(3) == (0, "")  # keeps no record of its own


def test_no_module_probes_a_policy_for_an_attribute():
    """``getattr``/``hasattr`` on the metascheduler's policy: what the protocol replaced."""
    root = Path(vosim.__file__).parent
    probes = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and "scheduler" in ast.unparse(node.args[0])
            ):
                probes.append(f"{path.relative_to(root)}:{node.lineno}")
    assert probes == []


@pytest.mark.parametrize("name", policy_names())
def test_a_policy_declares_the_model_values_it_takes_and_takes_them(name):
    import inspect

    from vosim.policies.base import MODEL_VALUES, _entry

    factory, options = _entry(name)
    assert set(options) <= set(MODEL_VALUES)
    signature = inspect.signature(factory)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    assert takes_any or set(options) <= set(signature.parameters)


def test_registering_an_option_the_model_does_not_offer_is_refused():
    from vosim.policies.base import register_policy

    with pytest.raises(ValueError, match="no model value 'budget'"):
        register_policy("x", options=("budget",))


def test_decisions_read_as_every_result_does():
    """A pass's decisions are a Result: blocked is infeasible, decided and idle feasible."""
    window = Window((Slot(0, 0.0, 10.0, 1.0, 1.0),), 0.0, 10.0, 10.0)
    decided = Decisions(reserve=[(3, window)], stats={"vo_total": 42.0}).settle()
    blocked = Decisions(reasons={4: "no slot long enough"}).settle("the head waits")
    idle = Decisions().settle()
    assert isinstance(decided, Result)
    assert [d.outcome for d in (decided, blocked, idle)] == [
        DecisionStatus.DECIDED,
        DecisionStatus.BLOCKED,
        DecisionStatus.IDLE,
    ]
    assert [d.status for d in (decided, blocked, idle)] == [
        Status.FEASIBLE,
        Status.INFEASIBLE,
        Status.FEASIBLE,
    ]
    assert decided.solution == [(3, window)] and decided.objective == 42.0 and decided.success
    assert blocked.message == "the head waits" and not blocked.success
    assert idle.message and math.isnan(idle.objective) and idle.solution == []
