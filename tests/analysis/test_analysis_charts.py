"""Charts (vosim.analysis.charts): long runs are drawn through their envelope; chart files: the
offline page equals altair's own, with vega's bundle cached on disk (those need vl-convert)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.analysis import charts
from vosim.analysis.charts import PANEL_WIDTH, envelope, utilization_queue_chart


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


def test_chart_draws_long_runs_through_their_envelope_and_keeps_a_spike():
    """20,000 cycles: each panel at most two rows a pixel, and a one-cycle spike still drawn."""
    queue = np.full(20000, 3)
    queue[12345] = 500  # evenly spaced samples (every 5th) would miss it
    cycles = pd.DataFrame({"time": np.arange(20000.0), "utilization": 0.5, "queue_length": queue})
    spec = utilization_queue_chart(cycles).to_dict()
    panels = list(spec["datasets"].values())
    assert len(panels) == 2
    assert all(len(rows) <= 2 * PANEL_WIDTH + 2 for rows in panels)
    assert max(row.get("queue_length", 0) for rows in panels for row in rows) == 500


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-50, 50), min_size=1, max_size=300),
    buckets=st.integers(1, 40),
    gaps=st.integers(0, 2**16),
)
def test_envelope_keeps_every_buckets_extremes_in_order(values, buckets, gaps):
    """Brute force: per bucket, the kept rows' least and greatest equal the full frame's."""
    rng = np.random.default_rng(gaps)
    time = np.cumsum(rng.integers(1, 1000, size=len(values))).astype(float)  # uneven steps
    frame = pd.DataFrame({"time": time, "q": values})
    kept = envelope(frame, "time", "q", buckets)
    assert kept.index.is_monotonic_increasing and len(kept) <= max(len(frame), 2 * buckets + 2)
    assert kept.index[0] == frame.index[0] and kept.index[-1] == frame.index[-1]
    span = time[-1] - time[0] or 1.0

    def bucket(t):
        return np.minimum(((t - time[0]) / span * buckets).astype(int), buckets - 1)

    full = frame.groupby(bucket(frame["time"].to_numpy()))["q"].agg(["min", "max"])
    part = kept.groupby(bucket(kept["time"].to_numpy()))["q"].agg(["min", "max"])
    pd.testing.assert_frame_equal(part, full)


def test_envelope_needs_a_bucket():
    with pytest.raises(ValueError, match="buckets must be >= 1, got 0"):
        envelope(pd.DataFrame({"t": [0.0], "q": [1]}), "t", "q", 0)
