"""The unit charts of an altair chart's Vega-Lite spec, for the ICCS charts' tests.

Imported as ``runs.experiments.iccs2023.iccs_chart_layers`` (``tests/`` is on the path, as for
``slot_cases``) by ``test_iccs2021_charts.py`` and ``test_iccs2023_charts.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import altair as alt


@dataclass
class Layer:
    """One unit chart: its mark type, encoding (field -> channel spec) and data rows."""

    mark: str
    encoding: dict
    rows: list[dict]

    def field(self, channel: str) -> str | None:
        """The field a channel (``"x"``, ``"y"``, ``"color"``, ...) encodes, if any."""
        return self.encoding.get(channel, {}).get("field")


def layers(chart: alt.TopLevelMixin) -> list[Layer]:
    """Every unit chart of ``chart``, depth first, in the spec's order.

    A unit chart without data of its own inherits its parent's; an encoding given on a layer
    chart applies to its units (as Vega-Lite does).
    """
    spec = chart.to_dict()
    datasets = spec.get("datasets", {})

    def walk(node: dict, rows: list[dict], encoding: dict) -> list[Layer]:
        if "data" in node:
            rows = datasets.get(node["data"].get("name"), node["data"].get("values", []))
        encoding = {**encoding, **node.get("encoding", {})}
        if "mark" in node:
            mark = node["mark"]
            return [Layer(mark if isinstance(mark, str) else mark["type"], encoding, rows)]
        found = []
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in node.get(key, []):
                found += walk(child, rows, encoding)
        return found

    return walk(spec, [], {})


def texts(found: list[Layer]) -> list[str]:
    """Every ``text`` value of the text marks' data among ``found`` (the labels they write)."""
    return [
        str(row["text"])
        for layer in found
        if layer.mark == "text" and layer.field("text") == "text"
        for row in layer.rows
    ]
