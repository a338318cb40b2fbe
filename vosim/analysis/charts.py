"""Altair charts of a run."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd

__all__ = ["utilization_queue_chart", "calibration_chart", "save_chart"]

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


def calibration_chart(attempts: pd.DataFrame, bins: int = 10) -> alt.LayerChart:
    """Predicted window availability ``P_a^w`` against the realised share of windows that ran.

    Parameters
    ----------
    attempts : pandas.DataFrame
        ``VOModel.attempt_frame()``: ``predicted_availability`` in [0, 1], ``succeeded`` and
        ``moved`` bool; moved windows (re-planned before they started) are left out.
    bins : int
        Equal-width bins of the predicted probability (>= 1).

    Returns
    -------
    altair.LayerChart
        Points (bin mean prediction, realised success rate, sized by count) and the diagonal
        of perfect calibration.
    """
    df = attempts.loc[~attempts["moved"], ["predicted_availability", "succeeded"]].copy()
    edges = np.linspace(0.0, 1.0, bins + 1)
    df["bin"] = np.clip(np.digitize(df["predicted_availability"], edges) - 1, 0, bins - 1)
    table = (
        df.groupby("bin")
        .agg(
            predicted=("predicted_availability", "mean"),
            realised=("succeeded", "mean"),
            windows=("succeeded", "size"),
        )
        .reset_index()
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q")
    )
    points = (
        alt.Chart(table)
        .mark_circle(color="#1f77b4")
        .encode(
            x=alt.X("predicted:Q", title="predicted P_a^w", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("realised:Q", title="realised success rate", scale=alt.Scale(domain=[0, 1])),
            size=alt.Size("windows:Q", title="windows"),
            tooltip=["predicted:Q", "realised:Q", "windows:Q"],
        )
    )
    return (diagonal + points).properties(
        width=360, height=360, title="Calibration of predicted window availability"
    )


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
