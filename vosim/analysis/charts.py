"""Altair charts of a run."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd

__all__ = [
    "envelope",
    "utilization_queue_chart",
    "calibration_chart",
    "market_graph_chart",
    "save_chart",
    "vega_bundle",
    "ci_tooltips",
]


def ci_tooltips(field: str, fmt: str, title: str | None = None) -> list[alt.Tooltip]:
    """Tooltips of a mean and its 95% interval: ``field``, ``field_lo`` and ``field_hi``.

    Parameters
    ----------
    field : str
        The mean's column (quantitative); its bounds are ``<field>_lo`` and ``<field>_hi``,
        except for ``"mean"``, whose bounds are ``lo`` and ``hi``.
    fmt : str
        d3 number format of the three values (e.g. ``",.3f"``).
    title : str, optional
        The mean's tooltip title (default: the column's name).

    Returns
    -------
    list of altair.Tooltip
        Three tooltips: the mean, "95% CI from", "95% CI to".

    References
    ----------
    Montgomery & Runger (7th ed.), §8.2 (the t interval the report draws).
    """
    lo, hi = ("lo", "hi") if field == "mean" else (f"{field}_lo", f"{field}_hi")
    return [
        alt.Tooltip(f"{field}:Q", format=fmt, **({"title": title} if title else {})),
        alt.Tooltip(f"{lo}:Q", format=fmt, title="95% CI from"),
        alt.Tooltip(f"{hi}:Q", format=fmt, title="95% CI to"),
    ]


#: Width of the run chart's panels, pixels; a long run is drawn as one time bucket a pixel.
PANEL_WIDTH = 640


def envelope(frame: pd.DataFrame, x: str, y: str, buckets: int) -> pd.DataFrame:
    """The rows of ``frame`` that hold each ``x``-bucket's least and greatest ``y``.

    ``x``'s range is cut into ``buckets`` equal buckets; in each, the row of the least and
    the row of the greatest ``y`` are kept (the first of ties), with the first and last rows,
    in their order. A line through them has, in every bucket, the extremes the full line
    has: a peak between two evenly spaced samples is not lost (min-max decimation).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows in ascending ``x``; ``y`` numeric (NaN rows are kept only as first or last).
    x, y : str
        The columns of the horizontal and vertical axis.
    buckets : int
        Number of buckets (>= 1); at most ``2 * buckets + 2`` rows are kept.

    Returns
    -------
    pandas.DataFrame
        A subset of ``frame``'s rows, in order (``frame`` itself if it is short enough).

    Raises
    ------
    ValueError
        ``buckets < 1``.
    KeyError
        ``x`` or ``y`` is not a column.

    References
    ----------
    No paper: min-max decimation of a line for display (each bucket's extremes kept);
    ``x`` and ``y`` keep their own units (the run chart: model seconds and a share or jobs).

    Examples
    --------
    >>> f = pd.DataFrame({"t": range(8), "q": [0, 5, 1, 1, 2, 9, 2, 0]})
    >>> envelope(f, "t", "q", 2)["q"].tolist()
    [0, 5, 9, 0]
    """
    if buckets < 1:
        raise ValueError(f"buckets must be >= 1, got {buckets!r}")
    if len(frame) <= 2 * buckets + 2:
        return frame
    at = frame[x].to_numpy(dtype=float)
    low, high = at[0], at[-1]
    span = high - low if high > low else 1.0
    bucket = np.minimum(((at - low) / span * buckets).astype(np.int64), buckets - 1)
    values = pd.Series(frame[y].to_numpy(dtype=float), index=np.arange(len(frame)))
    grouped = values.groupby(bucket)
    keep = np.concatenate(
        [[0, len(frame) - 1], grouped.idxmin().dropna(), grouped.idxmax().dropna()]
    )
    return frame.iloc[np.unique(keep.astype(np.int64))]


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
        Each panel draws its series through :func:`envelope` with one bucket per pixel of
        its width: every extreme a full line would show at this width, in at most ~1,300
        points a panel whatever the run's length.

    Raises
    ------
    KeyError
        A required column is missing.
    """
    data = cycles[["time", "utilization", "queue_length"]]
    x = alt.X("day:Q", title="model time (days)")

    def panel(y: str) -> pd.DataFrame:
        kept = envelope(data[["time", y]], "time", y, PANEL_WIDTH).copy()
        kept["day"] = kept["time"] / 86400.0
        return kept[["day", y]]

    util = (
        alt.Chart(panel("utilization"))
        .mark_line(color="#1f77b4")
        .encode(
            x=x,
            y=alt.Y("utilization:Q", title="VO utilization", axis=alt.Axis(format="%")),
            tooltip=["day:Q", alt.Tooltip("utilization:Q", format=".1%")],
        )
    )
    queue = (
        alt.Chart(panel("queue_length"))
        .mark_line(color="#d62728")
        .encode(
            x=x,
            y=alt.Y("queue_length:Q", title="queue length (jobs)"),
            tooltip=["day:Q", "queue_length:Q"],
        )
    )
    size = {"width": PANEL_WIDTH, "height": 180}
    return alt.vconcat(util.properties(**size), queue.properties(**size)).properties(title=title)


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


def market_graph_chart(graph, title: str = "") -> alt.LayerChart:
    """The user-owner market of one run as a node-link picture.

    Users on the left, owners on the right, each side ordered by money (the largest on top);
    a line joins a user and an owner who traded, as wide as the money paid; a dot is as large
    as a node's money. Hover for a node's partners, processor time, money and share.

    Parameters
    ----------
    graph : networkx.Graph
        A :func:`vosim.analysis.network.market_graph` (or one read back from its GraphML).
    title : str
        Chart title.

    Returns
    -------
    altair.LayerChart

    Raises
    ------
    KeyError
        ``graph`` lacks the node or edge attributes of a market graph.

    References
    ----------
    vosim's own design (the graph of one run in the report and the UI); the bipartite
    layout (two columns) of Newman, *Networks* (2nd ed., 2018), §6.6.
    """
    from vosim.analysis.network import OWNER, market_nodes

    nodes = market_nodes(graph)
    nodes["x"] = np.where(nodes["kind"] == OWNER, 1.0, 0.0)  # users left, owners right
    nodes = nodes.sort_values(["x", "money", "id"], ascending=[True, False, True])
    rank = nodes.groupby("x").cumcount()
    size = nodes.groupby("x")["node"].transform("count")
    nodes["y"] = np.where(size > 1, 1.0 - rank / (size - 1).clip(lower=1), 0.5)
    where = nodes.set_index("node")[["x", "y"]]
    edges = pd.DataFrame(
        [(u, o, d["money"], d["jobs"]) for u, o, d in graph.edges(data=True)],
        columns=["a", "b", "money", "jobs"],
    )
    edges[["x", "y"]] = where.loc[edges["a"]].to_numpy()
    edges[["x2", "y2"]] = where.loc[edges["b"]].to_numpy()
    axis = alt.Axis(labels=False, ticks=False, grid=False, domain=False, title=None)
    x = alt.X("x:Q", axis=axis, scale=alt.Scale(domain=[-0.15, 1.35]))
    y = alt.Y("y:Q", axis=axis, scale=alt.Scale(domain=[-0.03, 1.03]))
    lines = (
        alt.Chart(edges)
        .mark_rule(color="#888888", opacity=0.45)
        .encode(
            x=x,
            y=y,
            x2="x2:Q",
            y2="y2:Q",
            strokeWidth=alt.StrokeWidth(
                "money:Q", title="money paid", scale=alt.Scale(range=[0.3, 8])
            ),
            tooltip=["a:N", "b:N", alt.Tooltip("money:Q", format=",.0f"), "jobs:Q"],
        )
    )
    base = alt.Chart(nodes).encode(x=x, y=y)
    dots = base.mark_circle(opacity=0.9).encode(
        size=alt.Size("money:Q", title="money", scale=alt.Scale(range=[15, 500])),
        color=alt.Color(
            "kind:N",
            title=None,
            scale=alt.Scale(domain=["user", "owner"], range=["#1f77b4", "#ff7f0e"]),
        ),
        tooltip=[
            "node:N",
            "partners:Q",
            alt.Tooltip("processor_seconds:Q", format=",.0f", title="processor-seconds"),
            alt.Tooltip("money:Q", format=",.0f"),
            alt.Tooltip("share:Q", format=".1%"),
        ],
    )
    labels = (
        base.transform_filter(alt.datum.kind == OWNER)
        .mark_text(align="left", dx=10, fontSize=11)
        .encode(text="node:N")
    )
    users = int((nodes["x"] == 0).sum())
    height = int(min(900, max(300, 7 * users)))
    return alt.layer(lines, dots, labels).properties(width=420, height=height, title=title)


def _cache_dir() -> Path:
    """Where :func:`vega_bundle` keeps its file: ``$VOSIM_CACHE_DIR``, else the XDG cache."""
    if "VOSIM_CACHE_DIR" in os.environ:
        return Path(os.environ["VOSIM_CACHE_DIR"])
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "vosim"


@functools.cache
def vega_bundle() -> str:
    """vega, vega-lite and vega-embed as one script: what an offline chart page embeds.

    vl-convert builds it (``vl_convert.javascript_bundle`` for altair's Vega-Lite version),
    which takes about 2 s; the text is kept in :func:`_cache_dir` under a name carrying
    vl-convert's and Vega-Lite's versions, so a process after the first reads it back in
    milliseconds. An unwritable cache directory only costs the rebuild.

    Returns
    -------
    str
        The JavaScript source (about 0.9 MB).

    Raises
    ------
    ImportError
        ``vl-convert-python`` is not installed.
    """
    import vl_convert as vlc
    from altair.utils._importers import vl_version_for_vl_convert

    version = vl_version_for_vl_convert()
    path = _cache_dir() / f"vega-bundle-vlc{vlc.__version__}-vl{version}.js"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    bundle = vlc.javascript_bundle(vl_version=version)
    try:  # written whole or not at all: a concurrent reader never sees half a file
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False
        ) as tmp:
            tmp.write(bundle)
        os.replace(tmp.name, path)
    except OSError:
        pass
    return bundle


#: Stands for the bundle in the page altair renders; replaced by :func:`vega_bundle`'s text.
_BUNDLE = "/*vosim: vega bundle*/"


def save_chart(chart: alt.TopLevelMixin, stem: Path) -> list[Path]:
    """Save ``chart`` as ``stem.html`` and, if ``vl-convert-python`` is installed, ``stem.png``.

    With vl-convert the page is self-contained (vega bundled in, :func:`vega_bundle`: it opens
    offline); without it the page loads vega from a CDN when opened.

    Parameters
    ----------
    chart : altair chart
        What to save.
    stem : path
        The files' path without suffix.

    Returns
    -------
    list of pathlib.Path
        The paths written.
    """
    stem = Path(stem)
    html = stem.with_suffix(".html")
    try:
        import vl_convert as vlc
    except ImportError:
        chart.save(str(html))  # loads Vega from a CDN when opened
        return [html]
    page = alt.utils.html.INLINE_HTML_TEMPLATE.render(  # what chart.save(inline=True) writes
        spec=json.dumps(chart.to_dict()),
        embed_options=json.dumps({"mode": "vega-lite"}),
        mode="vega-lite",
        vegalite_version=alt.VEGALITE_VERSION,
        output_div="vis",
        vegaembed_script=_BUNDLE,
    )
    html.write_text(page.replace(_BUNDLE, vega_bundle(), 1), encoding="utf-8")
    written = [html]
    png = stem.with_suffix(".png")
    png.write_bytes(vlc.vegalite_to_png(chart.to_json(), scale=1.5))
    written.append(png)
    return written
