"""Altair charts of a run."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd

__all__ = ["utilization_queue_chart", "save_chart"]

#: Charts embed at most this many rows (altair's own limit is 5,000).
MAX_POINTS = 4000


def utilization_queue_chart(cycles: pd.DataFrame, title: str = "") -> alt.VConcatChart:
    """Utilization and queue length over time, one panel each, from the per-cycle table.

    Parameters
    ----------
    cycles : pandas.DataFrame
        ``VOModel.cycle_frame()``: columns ``time`` (model time units, seconds for traces),
        ``utilization`` (in [0, 1]) and ``queue_length`` (jobs).
    title : str
        Chart title.

    Returns
    -------
    altair.VConcatChart
        Long runs are thinned to at most :data:`MAX_POINTS` evenly spaced cycles.

    Raises
    ------
    KeyError
        A required column is missing.
    """
    data = cycles[["time", "utilization", "queue_length"]].copy()
    if len(data) > MAX_POINTS:
        data = data.iloc[:: -(-len(data) // MAX_POINTS)]
    data["day"] = data["time"] / 86400.0
    base = alt.Chart(data).encode(x=alt.X("day:Q", title="model time (days)"))
    util = base.mark_line(color="#1f77b4").encode(
        y=alt.Y("utilization:Q", title="VO utilization", axis=alt.Axis(format="%")),
        tooltip=["day:Q", alt.Tooltip("utilization:Q", format=".1%")],
    )
    queue = base.mark_line(color="#d62728").encode(
        y=alt.Y("queue_length:Q", title="queue length (jobs)"),
        tooltip=["day:Q", "queue_length:Q"],
    )
    return alt.vconcat(
        util.properties(width=640, height=180), queue.properties(width=640, height=180)
    ).properties(title=title)


def save_chart(chart: alt.TopLevelMixin, stem: Path) -> list[Path]:
    """Save ``chart`` as ``stem.html`` and, if ``vl-convert-python`` is installed, ``stem.png``.

    Returns the paths written.
    """
    stem = Path(stem)
    html = stem.with_suffix(".html")
    try:
        import vl_convert as vlc
    except ImportError:
        chart.save(str(html))  # loads Vega from a CDN when opened
        return [html]
    chart.save(str(html), inline=True)  # self-contained: Vega bundled into the page
    written = [html]
    png = stem.with_suffix(".png")
    png.write_bytes(vlc.vegalite_to_png(chart.to_json(), scale=1.5))
    written.append(png)
    return written
