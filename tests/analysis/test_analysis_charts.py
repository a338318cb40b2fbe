"""Charts (vosim.analysis.charts): long runs are thinned; chart files: the offline page equals
altair's own, with vega's bundle cached on disk (those need vl-convert)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest

from vosim.analysis import charts
from vosim.analysis.charts import utilization_queue_chart


@pytest.fixture
def vlc():
    """vl-convert, which writes the PNGs and the offline bundle (skips the test without it)."""
    return pytest.importorskip("vl_convert")


@pytest.fixture
def chart() -> alt.Chart:
    data = pd.DataFrame({"time": [0.0, 300.0, 600.0], "utilization": [0.1, 0.5, 0.2]})
    return alt.Chart(data).mark_line().encode(x="time", y="utilization").properties(title="u")


def test_page_equals_altairs_inline_page(vlc, chart, tmp_path, monkeypatch):
    monkeypatch.setenv("VOSIM_CACHE_DIR", str(tmp_path / "cache"))
    charts.vega_bundle.cache_clear()
    written = charts.save_chart(chart, tmp_path / "chart")
    assert [p.name for p in written] == ["chart.html", "chart.png"]
    chart.save(str(tmp_path / "altair.html"), inline=True)
    assert (tmp_path / "chart.html").read_text() == (tmp_path / "altair.html").read_text()
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")


def test_bundle_is_read_back_from_the_cache(vlc, tmp_path, monkeypatch):
    monkeypatch.setenv("VOSIM_CACHE_DIR", str(tmp_path))
    charts.vega_bundle.cache_clear()
    built = charts.vega_bundle()
    [kept] = tmp_path.glob("vega-bundle-*.js")
    assert kept.read_text() == built
    kept.write_text("// the cached text")  # a second process reads the file, not vl-convert
    charts.vega_bundle.cache_clear()
    assert charts.vega_bundle() == "// the cached text"
    charts.vega_bundle.cache_clear()


def test_unwritable_cache_still_gives_the_bundle(vlc, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("VOSIM_CACHE_DIR", str(blocked / "cache"))
    charts.vega_bundle.cache_clear()
    assert charts.vega_bundle() == vlc.javascript_bundle(
        vl_version=alt.utils._importers.vl_version_for_vl_convert()
    )
    charts.vega_bundle.cache_clear()


def test_chart_thins_long_runs():
    cycles = pd.DataFrame({"time": np.arange(20000.0), "utilization": 0.5, "queue_length": 3})
    spec = utilization_queue_chart(cycles).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) <= 4000
