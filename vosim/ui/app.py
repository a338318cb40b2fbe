"""The ``vosim ui`` page: watch a virtual organization live in Mesa's SolaraViz.

Served by ``solara run`` (see :mod:`vosim.ui.cli`). Each browser session renders its own
:func:`Page`, which builds its own :class:`~vosim.ui.scenarios.LiveModel` (``use_memo``), so
two visitors never step each other's model; Reset replaces only that session's model.
"""

from __future__ import annotations

import solara
from mesa.visualization import SolaraViz

from vosim.market.pricing import PRICING_POLICIES
from vosim.policies.base import policy_names
from vosim.ui.components import (
    ActivityView,
    CalibrationView,
    GanttView,
    MarketView,
    SummaryView,
)
from vosim.ui.scenarios import (
    BY_USER_CRITERION,
    DEFAULT_SCENARIO,
    LOADS,
    SCENARIOS,
    LiveModel,
    allocator_names,
)

__all__ = ["COMPONENTS", "MODEL_PARAMS", "Page"]

#: The page's inputs, by :class:`LiveModel` keyword (Mesa's SolaraViz input specs).
MODEL_PARAMS: dict[str, dict] = {
    # not "scenario": Mesa 3.5's Model.scenario is a mesa.experimental Scenario, and its
    # Reset would pass that object under the same keyword
    "workload": {
        "type": "Select",
        "label": "scenario",
        "value": DEFAULT_SCENARIO,
        "values": list(SCENARIOS),
    },
    "policy": {
        "type": "Select",
        "label": "scheduling policy",
        "value": "css",
        "values": policy_names(),
    },
    "owners": {"type": "SliderInt", "label": "owners", "value": 10, "min": 1, "max": 40, "step": 1},
    "users": {"type": "SliderInt", "label": "users", "value": 20, "min": 1, "max": 50, "step": 1},
    "pricing_policy": {
        "type": "Select",
        "label": "pricing policy",
        "value": "fixed",
        "values": list(PRICING_POLICIES),
    },
    "vo_objective": {
        "type": "Select",
        "label": "VO criterion",
        "value": "cost",
        "values": ["cost", "runtime", "finish"],
    },
    "ua": {
        "type": "SliderFloat",
        "label": "U_a (%)",
        "value": 25.0,
        "min": 0.0,
        "max": 100.0,
        "step": 5.0,
    },
    "allocator": {
        "type": "Select",
        "label": "allocator",
        "value": BY_USER_CRITERION,
        "values": allocator_names(),
    },
    "alternatives": {
        "type": "SliderInt",
        "label": "alternatives per job",
        "value": 3,
        "min": 1,
        "max": 5,
        "step": 1,
    },
    "load": {"type": "Select", "label": "local load", "value": "scenario", "values": list(LOADS)},
    "availability": {"type": "Checkbox", "label": "availability", "value": False},
    "rng": {"type": "SliderInt", "label": "seed", "value": 1, "min": 0, "max": 99, "step": 1},
}

#: Components of the page, in grid order (all on one page).
COMPONENTS = [SummaryView, GanttView, ActivityView, MarketView, CalibrationView]


@solara.component
def Page():
    """The page: SolaraViz over this session's own :class:`LiveModel`."""
    defaults = {k: v["value"] for k, v in MODEL_PARAMS.items()}
    model = solara.use_memo(lambda: LiveModel(**defaults), [])
    SolaraViz(
        model,
        components=COMPONENTS,
        model_params=MODEL_PARAMS,
        name="vosim: a virtual organization, live",
        play_interval=150,
    )
