"""The ``vosim ui`` page (vosim.ui.app): its inputs, their order and defaults, its components."""

from __future__ import annotations

import pytest

pytest.importorskip("solara")  # the page is a solara component over Mesa's SolaraViz

from vosim.scenario import PARAMETERS, UI_PARAMETERS
from vosim.ui import app
from vosim.ui.scenarios import LiveModel


def test_every_page_input_starts_at_an_allowed_value():
    for name, spec in app.PAGE_INPUTS.items():
        assert spec["label"], name
        if spec["type"] == "Select":
            assert spec["value"] in spec["values"], name
        else:
            assert spec["type"] == "SliderInt", name
            assert spec["min"] <= spec["value"] <= spec["max"] and spec["step"] == 1, name


def test_inputs_come_in_the_page_order_then_the_other_ui_parameters():
    names = list(app.MODEL_PARAMS)
    assert tuple(names[: len(app._ORDER)]) == app._ORDER
    rest = [n for n in UI_PARAMETERS if n not in app._ORDER]
    assert names[len(app._ORDER) :] == rest
    for name in names:
        want = app.PAGE_INPUTS.get(name) or PARAMETERS[name].ui_spec()
        assert app.MODEL_PARAMS[name] == want


def test_the_page_defaults_build_the_live_model():
    defaults = {k: v["value"] for k, v in app.MODEL_PARAMS.items()}
    model = LiveModel(**defaults)
    assert len(model.users) == app.PAGE_INPUTS["users"]["value"]
    assert model.scenario_name == app.PAGE_INPUTS["workload"]["value"]
    assert model.allocator == app.PAGE_INPUTS["allocator"]["value"]


def test_the_components_are_the_six_views_in_grid_order():
    assert [c.__name__ for c in app.COMPONENTS] == [
        "SummaryView",
        "GanttView",
        "ActivityView",
        "MarketView",
        "NetworkView",
        "CalibrationView",
    ]
    assert callable(app.Page)
