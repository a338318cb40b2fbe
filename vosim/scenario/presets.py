"""Named parameter sets: the papers' scenarios and the traced machine (:data:`PRESETS`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vosim.errors import ParameterError

__all__ = ["PRESETS", "Preset", "preset_values"]


@dataclass(frozen=True)
class Preset:
    """A named set of parameter values (the others keep their defaults).

    Parameters
    ----------
    name : str
        Its key in :data:`PRESETS` (``vosim run --preset NAME``, ``preset = "NAME"``).
    values : mapping
        Parameter name -> value.
    description : str
        One line.
    source : str
        Where the values come from (paper section, or vosim's choice and why).
    """

    name: str
    values: Mapping[str, Any]
    description: str
    source: str


#: The paper scenarios and the traced machine.
PRESETS: dict[str, Preset] = {
    "aep": Preset(
        "aep",
        {
            "trace": "synthetic:aep",
            "jobs": 1000,
            "nodes": 100,
            "scheduling_interval": 600.0,
            "reference_performance": 2.0,
            "local_load": (0.10, 0.50),
            "local_model": "interval",
            "cycle_period": 50.0,
            "replan": "never",
        },
        "AEP §3.1: jobs of 5 slots x 150 on 100 nodes, interval 600, local load 10-50 %",
        "AEP §3.1: 100 nodes of performance U{2..10} (VOModel's node generator), prices "
        "proportional to performance with a normal deviation, scheduling interval [0; 600], "
        "local load 10-50 % (hypergeometric), a job of 5 parallel slots for 150 time units "
        "(T on the slowest node, performance 2: reference_performance 2). The paper schedules "
        "one job per experiment; the stream of such jobs (synthetic:aep, Poisson arrivals of "
        "mean 8) and the 50-unit cycle are vosim's, so the VO runs live. Budgets follow "
        "VOModel's rule, not the paper's fixed 1500. The paper's window, once found, is "
        "final: replan never (re-planning is vosim's).",
    ),
    "vo-preferences": Preset(
        "vo-preferences",
        {
            "trace": "synthetic:vo-preferences",
            "jobs": 1000,
            "nodes": 100,
            "scheduling_interval": 600.0,
            "reference_performance": 2.0,
            "local_load": (0.05, 0.10),
            "local_model": "interval",
            "cycle_period": 150.0,
            "max_alternatives": None,
            "budget_range": (0.7, 1.6),
            "user_criteria": None,
            "pricing_policy": "fixed",
            "vo_objective": "cost",
            "vo_limit": "user",
            "user_evaluation": "relative",
            "ua": None,
            "replan": "never",
        },
        "VO Preferences §4: batches of 40 jobs on 100 nodes, interval 600, local load 5-10 %",
        "VO Preferences §4: 100 nodes of performance U{2..10}, exponential prices +-60 %, "
        "scheduling interval 600, local load 5-10 %, batches of 40 jobs needing U[2, 6] nodes "
        "for T in U[100, 500] on the slowest node (reference_performance 2; "
        "synthetic:vo-preferences, one batch every 600), every job searching alternatives "
        "until the slots run out (max_alternatives None, as the vo-preferences-fig1-6 "
        "experiment). VOModel's defaults already encode the rest of §4 and are restated here: "
        "budget factors U[0.7, 1.6], users' criteria finish, runtime and cost (user_criteria "
        "None without availability), fixed prices, C -> max under lim U with relative U "
        "(Fig. 3), U_a unconstrained. The 150-unit cycle is vosim's. The scheme of §2 plans "
        "one cycle and never revises a chosen window: replan never (re-planning is "
        "vosim's).",
    ),
    "machine": Preset(
        "machine",
        {"machine": True, "policy": "easy", "cycle_period": 0.0},
        "the traced machine: its processors, EASY backfilling, a pass at every end and arrival",
        "The system the trace was recorded on (machine=True: MaxProcs identical processors, "
        "one owner, no local load, budgets that never bind, the run drains) scheduled by EASY "
        "backfilling event by event, as benchmarks/bench_easy.py runs it beside AccaSim.",
    ),
}


def preset_values(name: str) -> Mapping[str, Any]:
    """The values of the preset ``name``: parameter name -> value (the others keep defaults).

    Raises
    ------
    ParameterError
        An unknown preset (the message lists them).

    References
    ----------
    Each preset's ``source`` (AEP §3.1, VO Preferences §4, the traced machine).
    """
    try:
        return PRESETS[name].values
    except KeyError:
        raise ParameterError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None
