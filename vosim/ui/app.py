"""The ``vosim ui`` page: watch a virtual organization live in Mesa's SolaraViz.

Served by ``solara run`` (see :mod:`vosim.ui.cli`). Each browser session renders its own
:func:`Page`, which builds its own :class:`~vosim.ui.scenarios.LiveModel` (``use_memo``), so
two visitors never step each other's model; Reset replaces only that session's model.
"""

from __future__ import annotations

import solara
from mesa.visualization import SolaraViz

from vosim.scenario import PARAMETERS, UI_PARAMETERS
from vosim.ui.components import (
    ActivityView,
    CalibrationView,
    GanttView,
    MarketView,
    NetworkView,
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

__all__ = ["COMPONENTS", "MODEL_PARAMS", "PAGE_INPUTS", "Page"]

#: The page's own inputs, not model parameters (Mesa SolaraViz input specs).
PAGE_INPUTS: dict[str, dict] = {
    # not "scenario": Mesa 3.5's Model.scenario is a mesa.experimental Scenario, and its
    # Reset would pass that object under the same keyword
    "workload": {
        "type": "Select",
        "label": "scenario",
        "value": DEFAULT_SCENARIO,
        "values": list(SCENARIOS),
    },
    "users": {"type": "SliderInt", "label": "users", "value": 20, "min": 1, "max": 50, "step": 1},
    "allocator": {
        "type": "Select",
        "label": "allocator",
        "value": BY_USER_CRITERION,
        "values": allocator_names(),
    },
    "load": {"type": "Select", "label": "local load", "value": "scenario", "values": list(LOADS)},
    "rng": {"type": "SliderInt", "label": "seed", "value": 1, "min": 0, "max": 99, "step": 1},
}

#: Order of the inputs on the page: page inputs and model parameters interleaved.
_ORDER = (
    "workload",
    "policy",
    "owners",
    "users",
    "pricing_policy",
    "vo_objective",
    "ua",
    "allocator",
    "max_alternatives",
    "load",
    "availability",
    "rng",
)

#: The page's inputs, by :class:`LiveModel` keyword (Mesa's SolaraViz input specs): the model
#: parameters declared with a UI input (:data:`vosim.scenario.UI_PARAMETERS`, their specs
#: from :meth:`vosim.scenario.Param.ui_spec`) and :data:`PAGE_INPUTS`.
MODEL_PARAMS: dict[str, dict] = {
    name: PAGE_INPUTS[name] if name in PAGE_INPUTS else PARAMETERS[name].ui_spec()
    for name in (*_ORDER, *(n for n in UI_PARAMETERS if n not in _ORDER))
}

#: Components of the page, in grid order (all on one page).
COMPONENTS = [SummaryView, GanttView, ActivityView, MarketView, NetworkView, CalibrationView]


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
