"""A one-page HTML report of a sweep: trade-offs, metrics vs parameters, (A, U_a), churn.

:func:`write_report` reads a :func:`vosim.runs.batch.run_sweep` output directory and writes
``report.html``: a self-contained page (Vega, Vega-Lite and vega-embed bundled inline when
``vl-convert-python`` is installed, else loaded from a CDN when the page is opened) with

1. the fairness-revenue trade-off: one point per policy (combination of swept values, or a
   baseline at each factor level), owners' revenue against the users' Jain index of slowdowns
   (or their mean evaluation U), means with their 95% confidence intervals over repetitions
   (:func:`~vosim.analysis.stats.mean_ci`; every plotted mean has one);
2. each metric against each swept parameter (the swept policies, one line per combination
   of the other parameters);
3. when ``ua`` is swept, the (A, U_a) plane: the VO evaluation A against the limit U_a, with
   the line A = U_a;
4. when per-run cycle tables exist (``DIR/cycles/``), churn: owners and users still in the VO
   over time, mean over repetitions;
5. the market as a network: its concentration per policy (owners' HHI, the largest owner's
   share, users' dependence on one owner; :mod:`vosim.analysis.network`) and the user-owner
   graph of the sweep's first run (``DIR/networks/``);
6. when the runs took a multi-site trace's own sites as owners (``owners="trace"``,
   LCG-2005-1), the VOs (the users' groups): each large VO's concentration over sites per
   policy beside the trace's own placement of the same jobs, the site x VO shares, and
   sentences from them (:mod:`vosim.analysis.report_vos`; ``<stem>-vos.csv``);

then, when the sweep has ``[[baseline]]`` runs, every policy against every baseline on paired
runs (:func:`~vosim.analysis.stats.paired_tests`: difference, its interval, Holm-adjusted
p-value, effect size) with the significant differences of the headline metrics stated as
sentences, and a table of the means per policy. The tables are also written as CSV, the
figures as PNG files next to the page when ``vl-convert-python`` is installed.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, NamedTuple

import altair as alt
import numpy as np
import pandas as pd

from vosim.analysis.charts import ci_tooltips, market_graph_chart, vega_bundle
from vosim.analysis.report_vos import vo_hhi_chart, vo_sentences, vo_sites_chart, vo_summary
from vosim.analysis.stats import mean_ci, paired_tests
from vosim.errors import ConfigError
from vosim.runs.config import value_label

__all__ = ["write_report", "read_sweep", "Sweep", "METRICS", "CLAIMED"]

#: Metrics shown (those present in the results), with their readers' names.
METRICS: dict[str, str] = {
    "completed": "jobs completed",
    "mean_wait": "mean wait (s)",
    "mean_queue_wait": "mean queueing wait (s)",
    "mean_chosen_delay": "mean delay users chose (s)",
    "mean_bounded_slowdown": "mean bounded slowdown",
    "utilization": "utilization",
    "owners_revenue": "owners' revenue",
    "owners_revenue_gini": "Gini of owners' revenue",
    "users_jain_slowdown": "users' Jain index (slowdown)",
    "mean_user_evaluation": "mean user evaluation U",
    "mean_vo_evaluation": "mean VO evaluation A (%)",
    "users_left": "users who left the VO",
    "users_left_choice_part": "leavers' choice part (1 - U)",
    "users_left_wait_part": "leavers' wait part",
    "users_left_queue_part": "leavers' wait part, queueing alone",
    "market_owner_hhi": "owners' market concentration (HHI)",
    "market_owner_share_max": "largest owner's market share",
    "market_user_dependence": "users' dependence on one owner",
}
#: Metrics whose significant differences from a baseline the report states as sentences.
CLAIMED = (
    "completed",
    "mean_wait",
    "mean_queue_wait",
    "mean_bounded_slowdown",
    "utilization",
    "owners_revenue",
    "users_jain_slowdown",
    "market_owner_hhi",
)
#: Market concentration metrics of the market section (shares, each in [0, 1]).
MARKET_METRICS = ("market_owner_hhi", "market_owner_share_max", "market_user_dependence")
#: Rows at most in a chart's data (altair refuses more than 5,000).
MAX_ROWS = 4000
WIDTH = 220
HEIGHT = 160
#: Legends show long policy names whole.
LEGEND = alt.Legend(labelLimit=480)
#: Marks of the trade-off's shape legend, in the order of its entries.
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge"]
#: Up to 20 policies in distinct colours.
PALETTE = alt.Scale(scheme="category20")


def _policy(row: pd.Series, keys: list[str], factors: list[str]) -> str:
    """A run's policy label: its swept values, or its table's name and the factors.

    The table is its ``[[policy]]`` (column ``named_policy``) or its ``[[baseline]]``.
    """
    for column in ("named_policy", "baseline"):
        name = row.get(column)
        if isinstance(name, str) and name:
            return ", ".join([*(f"{k}={value_label(row[k])}" for k in factors), name])
    return ", ".join(f"{k}={value_label(row[k])}" for k in keys) if keys else "all runs"


def _load(sweep_dir: Path) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    """The manifest, every finished run's row, and the rows of the runs without error."""
    from vosim.runs.sweep_results import MANIFEST, load_results

    manifest_path = sweep_dir / MANIFEST
    if not manifest_path.is_file():
        raise ConfigError(
            str(sweep_dir), None, "no sweep results here (no manifest.json); run vosim sweep first"
        )
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(str(manifest_path), None, f"cannot read the manifest: {exc}") from None
    table = load_results(sweep_dir)
    ok = table.loc[table["status"] == "ok"].copy() if len(table) else table
    if ok.empty:
        raise ConfigError(
            str(sweep_dir), None, f"no finished run without error among {len(table)} recorded"
        )
    return manifest, table, ok


def _summary(ok: pd.DataFrame, keys: list[str], metrics: list[str]) -> pd.DataFrame:
    """Per policy (``label``, in sweep order): runs, and each metric's mean, sd and 95% CI.

    ``{m}_lo`` and ``{m}_hi`` bound the t interval of the mean (:func:`mean_ci`; the mean
    itself for one run, whose interval is unknown); ``{m}_sd`` is 0 for one run.
    """
    grouped = ok.groupby("label", sort=False)
    rows = []
    for name in dict.fromkeys(ok["label"]):
        group = grouped.get_group(name)
        row: dict[str, Any] = {"label": name, "runs": len(group)}
        for column in ("named_policy", "baseline"):
            row[column] = group[column].iloc[0] if column in group else None
        for k in keys:
            row[k] = value_label(group[k].iloc[0])
        for m in metrics:
            values = pd.to_numeric(group[m], errors="coerce").dropna()
            mean, lo, hi = mean_ci(values.to_numpy())
            row[m] = mean
            with np.errstate(invalid="ignore"):  # an infinite value: sd NaN
                row[f"{m}_sd"] = float(values.to_numpy().std(ddof=1)) if len(values) > 1 else 0.0
            row[f"{m}_lo"] = lo if lo == lo else mean
            row[f"{m}_hi"] = hi if hi == hi else mean
        rows.append(row)
    return pd.DataFrame(rows)


def _errorbars(
    data: pd.DataFrame, x: alt.X, y: str, color: alt.Color, title: str
) -> alt.LayerChart:
    """Points and lines of ``mean`` with vertical rules ``lo``-``hi`` (its 95% CI)."""
    base = alt.Chart(data).encode(x=x, color=color)
    line = base.mark_line(point=True).encode(
        y=alt.Y("mean:Q", title=title, scale=alt.Scale(zero=False)),
        tooltip=[
            alt.Tooltip("label:N", title="policy"),
            *ci_tooltips("mean", ",.3f"),
            "runs:Q",
        ],
    )
    rules = base.mark_rule().encode(y="lo:Q", y2="hi:Q")
    return alt.layer(rules, line).properties(width=WIDTH, height=HEIGHT, title=y)


def _tradeoff_chart(
    summary: pd.DataFrame, policy_keys: list[str], factors: list[str]
) -> alt.TopLevelMixin:
    """Owners' revenue against users' fairness: a point per policy, baselines as lines.

    Facets: the factors (the last one across, the one before down), so that a policy is only
    read against the baselines of its own environment. Colour: ``U_a`` on a sequential scale
    when swept (else the first policy key); shape: the VO objective (else the next key).
    Baselines are dashed lines at their means (revenue vertical, fairness horizontal; their
    intervals are in the table); ``[[policy]]`` tables' policies are black marks, one
    shape each; each policy's mean carries its 95% interval, cut at 0 on the fairness axis,
    which starts at 0 since fairness is a share.
    """
    y = "users_jain_slowdown"
    if y not in summary or summary[y].isna().all():
        y = "mean_user_evaluation"
    x_title, y_title = METRICS["owners_revenue"], METRICS[y]
    facets = factors[-2:]
    data = summary[["label", "runs", *facets, *policy_keys]].copy()
    data["kind"] = np.select(
        [summary["baseline"].notna(), summary["named_policy"].notna()],
        ["baseline", "named"],
        "policy",
    )
    data["baseline"] = summary["baseline"].fillna("")
    data["named"] = summary["named_policy"].fillna("")
    for column, metric in (("x", "owners_revenue"), ("y", y)):
        for end in ("", "_lo", "_hi"):
            data[f"{column}{end}"] = summary[f"{metric}{end}"]
    data["y_lo"] = data["y_lo"].clip(lower=0)
    keys = [k for k in ("ua", "vo_objective") if k in policy_keys]
    keys += [k for k in policy_keys if k not in keys]
    colour_key = keys[0] if keys else None
    shape_key = keys[1] if len(keys) > 1 else None
    if colour_key == "ua":
        levels = list(dict.fromkeys(data["ua"].dropna()))
        numeric = pd.to_numeric(pd.Series(levels), errors="coerce")
        order = [v for _, v in sorted(zip(numeric.fillna(np.inf), levels, strict=True))]
        colour = alt.Color(
            "ua:O",
            title="U_a",
            sort=order,  # by value: "100" after "25"
            scale=alt.Scale(scheme={"name": "viridis", "extent": [0, 0.85]}),
        )
    elif colour_key is not None:
        colour = alt.Color(f"{colour_key}:N", title=colour_key, scale=PALETTE)
    else:
        colour = alt.Color("label:N", title="policy", legend=LEGEND, scale=PALETTE)
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(zero=False))
    y_axis = alt.Y("y:Q", title=y_title, scale=alt.Scale(zero=True))
    policies = alt.Chart().transform_filter(alt.datum.kind == "policy")
    # one shape legend: the grid's shape key, then the [[policy]] tables' names
    is_named = data["kind"] == "named"
    data["shape"] = data["named"] if shape_key is None else data[shape_key].where(~is_named)
    data.loc[is_named, "shape"] = data.loc[is_named, "named"]
    marks = list(dict.fromkeys(data.loc[data["kind"] != "baseline", "shape"].dropna()))
    titles = [shape_key] if shape_key else []
    if is_named.any():
        titles.append("other VO policy")
    shapes = alt.Shape(
        "shape:N",
        title=" / ".join(titles),
        scale=alt.Scale(domain=marks, range=SHAPES[: len(marks)]),
    )
    encoding = {"color": colour}
    if shape_key is not None or is_named.any():
        encoding["shape"] = shapes
    means_tip = [
        alt.Tooltip("label:N", title="policy"),
        alt.Tooltip("x:Q", title=x_title, format=",.0f"),
        alt.Tooltip("y:Q", title=y_title, format=".3f"),
        "runs:Q",
    ]
    points = policies.mark_point(filled=True, size=70, opacity=0.9).encode(
        x=x,
        y=y_axis,
        **encoding,
        tooltip=means_tip,
    )
    xbars, ybars = _intervals(policies.mark_rule(opacity=0.6), color=colour)
    baselines = alt.Chart().transform_filter(alt.datum.kind == "baseline")
    dash = alt.StrokeDash(
        "baseline:N",
        title="baseline (dashed)",
        scale=alt.Scale(range=[[6, 3], [1, 2], [8, 2, 2, 2]]),
    )
    tip = [alt.Tooltip("baseline:N"), alt.Tooltip("x:Q", format=",.0f"), "y:Q"]
    vertical = baselines.mark_rule(color="#444444").encode(x="x:Q", strokeDash=dash, tooltip=tip)
    horizontal = baselines.mark_rule(color="#444444").encode(y="y:Q", strokeDash=dash, tooltip=tip)
    layers = [xbars, ybars, points]
    if (data["kind"] == "named").any():  # [[policy]] tables: black marks, own shapes
        named = alt.Chart().transform_filter(alt.datum.kind == "named")
        layers += [
            *_intervals(named.mark_rule(color="black", opacity=0.6)),
            named.mark_point(filled=True, color="black", size=90).encode(
                x=x, y=y_axis, shape=shapes, tooltip=means_tip
            ),
        ]
    if (data["kind"] == "baseline").any():
        layers = [vertical, horizontal, *layers]
    title = f"Fairness-revenue trade-off: {y_title} vs owners' revenue (mean, 95% CI)"
    chart = alt.layer(*layers, data=data).properties(width=260, height=200)
    if not facets:
        return chart.properties(width=520, height=360, title=title)
    return _by_factors(chart, facets, title)


def _intervals(rule: alt.Chart, **encoding) -> tuple[alt.Chart, alt.Chart]:
    """The horizontal (``x_lo``-``x_hi``) and vertical (``y_lo``-``y_hi``) 95% CI rules."""
    return (
        rule.encode(x="x_lo:Q", x2="x_hi:Q", y="y:Q", **encoding),
        rule.encode(x="x:Q", y="y_lo:Q", y2="y_hi:Q", **encoding),
    )


def _by_factors(chart: alt.LayerChart, facets: list[str], title: str) -> alt.FacetChart:
    """``chart`` in small multiples: the last of ``facets`` across, the one before down."""
    facet = {"column": alt.Column(f"{facets[-1]}:N", title=facets[-1])}
    if len(facets) == 2:
        facet["row"] = alt.Row(f"{facets[0]}:N", title=facets[0])
    return chart.facet(**facet).properties(title=title)


def _parameter_chart(
    summary: pd.DataFrame, keys: list[str], key: str, metrics: list[str], order: list[str]
) -> alt.VConcatChart:
    others = [k for k in keys if k != key]
    rows = []
    for _, row in summary.iterrows():
        other = ", ".join(f"{k}={row[k]}" for k in others) if others else "all"
        for m in metrics:
            rows.append(
                {
                    "value": row[key],
                    "others": other,
                    "label": row["label"],
                    "metric": m,
                    "mean": row[m],
                    "lo": row[f"{m}_lo"],
                    "hi": row[f"{m}_hi"],
                    "runs": row["runs"],
                }
            )
    data = pd.DataFrame(rows)
    x = alt.X("value:O", title=key, sort=order)
    color = alt.Color("others:N", title=", ".join(others) if others else "runs", legend=LEGEND)
    panels = [
        _errorbars(data.loc[data["metric"] == m], x, m, color, METRICS.get(m, m)) for m in metrics
    ]
    grid = [alt.hconcat(*panels[i : i + 4]) for i in range(0, len(panels), 4)]
    return alt.vconcat(*grid).properties(title=f"Metrics vs {key} (mean, 95% CI over repetitions)")


def _ua_chart(
    summary: pd.DataFrame, keys: list[str], factors: list[str], runs: pd.DataFrame
) -> tuple[alt.TopLevelMixin, pd.DataFrame] | None:
    """The (A, U_a) plane: the VO evaluation A (mean over cycles with a choice) against U_a.

    One line per combination of the other swept policy keys, faceted like the trade-off by
    the factors (the last across, the one before down); 95% intervals; the dashed diagonal
    is A = U_a, a cross where each line meets it (:func:`ua_crossings`), a grey diamond at
    the paper's compromise. Returns the chart and the crossings (one row per line, with
    the 95% interval over repetitions of each repetition's own crossing: ``runs`` are the
    grid's runs); ``None`` when ``ua`` is not swept or no run has a VO evaluation.
    VO Preferences §3-4 (the compromise between A and U_a; Fig. 5).
    """
    if "ua" not in keys or "mean_vo_evaluation" not in summary:
        return None
    data = summary.loc[summary["ua"] != "none"].copy()
    data["ua_value"] = pd.to_numeric(data["ua"], errors="coerce")
    data = data.dropna(subset=["ua_value"])
    if data.empty:
        return None
    facets = factors[-2:]
    others = [k for k in keys if k != "ua" and k not in facets]
    data["others"] = [
        ", ".join(f"{k}={row[k]}" for k in others) if others else "all"
        for _, row in data.iterrows()
    ]
    plot = pd.DataFrame(
        {
            "ua": data["ua_value"],
            "others": data["others"],
            "label": data["label"],
            "mean": data["mean_vo_evaluation"],
            "lo": data["mean_vo_evaluation_lo"],
            "hi": data["mean_vo_evaluation_hi"],
            "runs": data["runs"],
            **{f: data[f] for f in facets},
        }
    )
    low, high = float(data["ua_value"].min()), float(data["ua_value"].max())
    # A is a share in [0, 100] % and U_a is read over the swept limits: intervals from few
    # repetitions that reach past them are clipped, not allowed to set the axes
    span = alt.Scale(domain=[min(low, 0.0), max(high, 100.0)], clamp=True)
    x = alt.X("ua:Q", title="U_a (limit on users' mean evaluation)", scale=span)
    color = alt.Color("others:N", title=", ".join(others) if others else "runs", legend=LEGEND)
    line = (
        alt.Chart()
        .transform_calculate(low=f"{low}", high=f"{high}")
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(x="low:Q", y="low:Q", x2="high:Q", y2="high:Q")
    )
    share = alt.Scale(domain=[0, 100], clamp=True)
    y = alt.Y("mean:Q", title=METRICS["mean_vo_evaluation"], scale=share)
    table = ua_crossings(plot, ["others", *facets])
    table = table.merge(_crossing_intervals(runs, others, facets), how="left")
    crossings = table.dropna(subset=["crossing"])
    levels = plot[facets].drop_duplicates() if facets else pd.DataFrame(index=[0])
    data = pd.concat(
        [
            plot.assign(kind="policy"),
            crossings.assign(ua=crossings["crossing"], mean=crossings["crossing"], kind="crossing"),
            levels.assign(ua=PAPER_COMPROMISE, mean=PAPER_COMPROMISE, kind="paper"),
        ],
        ignore_index=True,
    )
    base = alt.Chart().encode(x=x, color=color).transform_filter(alt.datum.kind == "policy")
    bars = base.mark_rule(clip=True).encode(y=alt.Y("lo:Q", scale=share), y2="hi:Q")
    points = base.mark_line(point=True).encode(
        y=y,
        tooltip=[
            alt.Tooltip("label:N", title="policy"),
            *ci_tooltips("mean", ",.3f"),
            "runs:Q",
        ],
    )
    cross = (
        alt.Chart()
        .transform_filter(alt.datum.kind == "crossing")
        .mark_point(shape="cross", size=160, filled=True, stroke="black", strokeWidth=0.5)
        .encode(
            x="ua:Q",
            color=color,
            y="mean:Q",
            tooltip=[
                alt.Tooltip("others:N", title="policy"),
                alt.Tooltip("crossing:Q", format=".1f", title="A = U_a at"),
            ],
        )
    )
    spread = (
        alt.Chart()
        .transform_filter(alt.datum.kind == "crossing")
        .mark_rule(strokeWidth=3, opacity=0.6, clip=True)
        .encode(
            x="crossing_lo:Q",
            y="crossing_lo:Q",
            x2="crossing_hi:Q",
            y2="crossing_hi:Q",
            color=color,
        )
    )
    paper = alt.Chart().transform_filter(alt.datum.kind == "paper").encode(x="ua:Q", y="mean:Q")
    reference = paper.mark_point(shape="diamond", size=120, color="gray")
    note = paper.mark_text(align="left", dx=4, dy=16, color="gray", fontSize=10).encode(
        text=alt.value(PAPER_LABEL)
    )
    chart = alt.layer(line, bars, points, spread, cross, reference, note, data=data)
    title = (
        "(A, U_a) plane: VO evaluation A vs U_a (mean, 95% CI); dashed: A = U_a, "
        "+: where each line crosses it (thick: its 95% CI)"
    )
    if not facets:
        return chart.properties(width=520, height=320, title=title), table
    return _by_factors(chart.properties(width=220, height=160), facets, title), table


def _crossing_intervals(runs: pd.DataFrame, others: list[str], facets: list[str]) -> pd.DataFrame:
    """Each line's crossing of A = U_a computed per repetition, then its mean's 95% interval.

    The repetitions are paired (the same window and seed at every ``U_a``), so each has its
    own line and crossing; ``crossing_lo`` and ``crossing_hi`` bound their mean (Student t,
    :func:`~vosim.analysis.stats.mean_ci`), ``crossing_runs`` counts the repetitions whose
    line crosses within the limits run. Columns: ``others``, ``facets`` and those three.
    """
    data = runs.loc[runs["ua"].map(lambda v: v is not None and v == v)].copy()
    data["ua"] = pd.to_numeric(data["ua"], errors="coerce")
    data = data.dropna(subset=["ua", "mean_vo_evaluation"])
    columns = ["others", *facets, "crossing_lo", "crossing_hi", "crossing_runs"]
    if data.empty:
        return pd.DataFrame(columns=columns)
    for k in [*others, *facets]:
        data[k] = data[k].map(value_label)
    data["others"] = [
        ", ".join(f"{k}={row[k]}" for k in others) if others else "all"
        for _, row in data.iterrows()
    ]
    data["mean"] = data["mean_vo_evaluation"]
    each = ua_crossings(data, ["others", *facets, "repetition"])
    rows = []
    for key, group in each.groupby(["others", *facets], sort=False, dropna=False):
        values = group["crossing"].dropna().to_numpy()
        _, lo, hi = mean_ci(values) if values.size else (np.nan, np.nan, np.nan)
        names = key if isinstance(key, tuple) else (key,)
        rows.append([*names, lo, hi, int(values.size)])
    return pd.DataFrame(rows, columns=columns)


def _crossings_html(crossings: pd.DataFrame) -> str:
    """One sentence per line of the (A, U_a) plane: where A = U_a, or that it does not."""
    keys = [
        c for c in crossings.columns if not c.startswith("crossing") and c not in ("below", "above")
    ]
    items = []
    for _, row in crossings.iterrows():
        name = ", ".join(str(row[k]) for k in keys)
        if row["crossing"] == row["crossing"]:
            ci = (
                f"95% CI {row['crossing_lo']:.1f}-{row['crossing_hi']:.1f} over "
                f"{row['crossing_runs']} repetitions"
                if row.get("crossing_lo") == row.get("crossing_lo")
                else "one repetition"
            )
            items.append(
                f"{name}: A = U_a at {row['crossing']:.1f} (between U_a {row['below']:g} and "
                f"{row['above']:g}, linear between the means; {ci})"
            )
        else:
            items.append(f"{name}: no crossing within the limits run (A stays on one side)")
    body = "".join(f"<li>{html.escape(item)}</li>" for item in items)
    return (
        f"<p>Compromises (<code>report-crossings.csv</code>; VO Preferences Fig. 5 gives "
        f"({PAPER_COMPROMISE:g} %, {PAPER_COMPROMISE:g} %) on its synthetic domain):</p>"
        f"<ul>{body}</ul>"
    )


#: VO Preferences §4, Fig. 5: the compromise of the strictly conflicting combination (the VO
#: maximising cost, users limited by U_a) at A = U_a = 37 %, on the paper's synthetic domain.
PAPER_COMPROMISE = 37.0
PAPER_LABEL = "VO Preferences (37, 37): synthetic domain"


def ua_crossings(plot: pd.DataFrame, groups: list[str]) -> pd.DataFrame:
    """Where each line of the (A, U_a) plane crosses A = U_a, by linear interpolation.

    Parameters
    ----------
    plot : pandas.DataFrame
        Columns ``ua`` (the limit, %), ``mean`` (mean VO evaluation A, %) and ``groups``.
    groups : list of str
        The columns that tell the lines apart (the other policy keys, the factors).

    Returns
    -------
    pandas.DataFrame
        One row per line: ``groups``, ``crossing`` (the U_a where ``A - U_a`` changes sign
        between two consecutive limits, interpolated; NaN if it does not within the limits
        run), ``below`` and ``above`` (the limits that bracket it).

    Raises
    ------
    KeyError
        ``plot`` lacks ``ua``, ``mean`` or a column of ``groups``.

    References
    ----------
    VO Preferences §4, Fig. 5: the line A = U_a, where the VO's and the users' interests
    are given equal weight (the compromise).

    Examples
    --------
    >>> plot = pd.DataFrame({"ua": [0, 25, 50], "mean": [100, 60, 20], "g": "x"})
    >>> ua_crossings(plot, ["g"]).round(2).to_dict("records")
    [{'g': 'x', 'crossing': 38.46, 'below': 25.0, 'above': 50.0}]
    """
    rows = []
    for key, line in plot.groupby(groups, sort=False, dropna=False):
        line = line.dropna(subset=["mean"]).sort_values("ua")
        ua, gap = line["ua"].to_numpy(float), (line["mean"] - line["ua"]).to_numpy(float)
        found = (np.nan, np.nan, np.nan)
        for i in range(len(ua) - 1):
            if gap[i] > 0 >= gap[i + 1] or gap[i] < 0 <= gap[i + 1]:
                at = ua[i] + gap[i] * (ua[i + 1] - ua[i]) / (gap[i] - gap[i + 1])
                found = (float(at), float(ua[i]), float(ua[i + 1]))
                break
        values = key if isinstance(key, tuple) else (key,)
        rows.append(
            dict(zip(groups, values, strict=True))
            | dict(zip(("crossing", "below", "above"), found, strict=True))
        )
    return pd.DataFrame(rows, columns=[*groups, "crossing", "below", "above"])


def _churn_chart(cycles: pd.DataFrame, ok: pd.DataFrame, name: pd.Series) -> alt.VConcatChart:
    """Owners and users still in the VO over time, one small multiple per policy family.

    A family is the cyclic scheme's policies, or one baseline; within it a line per policy
    ``name`` (its label without the factors), the mean over factor levels and repetitions.
    The owners' row is drawn only when some owner left in the sweep; the counts' axes start
    at 0.
    """
    names = dict(zip(ok["run_id"], name, strict=True))
    kind = ok["baseline"].fillna(ok["named_policy"]).fillna("VO policies (cyclic scheme)")
    family = dict(zip(ok["run_id"], kind, strict=True))
    data = cycles.loc[cycles["run_id"].isin(names), ["run_id", "time"]].copy()
    columns = [("users_active", "users in the VO")]
    owners = pd.to_numeric(cycles.loc[data.index, "owners_active"], errors="coerce")
    if owners.nunique() > 1:  # owners can leave in this sweep: show them
        columns.insert(0, ("owners_active", "owners in the VO"))
    for column, _ in columns:
        data[column] = pd.to_numeric(cycles.loc[data.index, column], errors="coerce")
    data["name"] = data["run_id"].map(names)
    data["family"] = data["run_id"].map(family)
    order = list(dict.fromkeys(name))
    bins = max(10, MAX_ROWS // max(1, len(order)))
    edges = np.linspace(data["time"].min(), data["time"].max() + 1e-9, bins + 1)
    data["bin"] = np.clip(np.digitize(data["time"], edges) - 1, 0, bins - 1)
    binned = (
        data.groupby(["family", "name", "bin"], sort=False)
        .agg(time=("time", "mean"), **{c: (c, "mean") for c, _ in columns})
        .reset_index()
    )
    binned["day"] = binned["time"] / 86400.0
    binned = binned.drop(columns=["bin", "time"])
    color = alt.Color("name:N", title="policy", sort=order, legend=LEGEND, scale=PALETTE)
    families = list(dict.fromkeys(family.values()))
    base = alt.Chart(binned).encode(x=alt.X("day:Q", title="model time (days)"), color=color)
    panels = [
        base.mark_line()
        .encode(
            y=alt.Y(f"{column}:Q", title=title, scale=alt.Scale(zero=True)),
            tooltip=[
                alt.Tooltip("name:N", title="policy"),
                alt.Tooltip("day:Q", format=".1f"),
                alt.Tooltip(f"{column}:Q", format=".1f"),
            ],
        )
        .properties(width=260, height=160)
        .facet(column=alt.Column("family:N", title=None, sort=families))
        .properties(title=title)
        for column, title in columns
    ]
    return alt.vconcat(*panels).properties(
        title="Churn: who is still in the VO over time (mean over loads and repetitions)"
    )


def _concentration_chart(summary: pd.DataFrame) -> alt.FacetChart:
    """Market concentration per policy: one panel per share metric, mean and CI, axis 0-1."""
    order = list(summary["label"])
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "label": summary["label"],
                    "metric": METRICS[m],
                    "mean": summary[m],
                    "lo": summary[f"{m}_lo"].clip(lower=0),
                    "hi": summary[f"{m}_hi"].clip(upper=1),
                    "runs": summary["runs"],
                }
            )
            for m in MARKET_METRICS
        ],
        ignore_index=True,
    )
    base = alt.Chart().encode(
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=400)),
        color=alt.Color("label:N", sort=order, legend=None, scale=PALETTE),
    )
    dots = base.mark_point(filled=True, size=60).encode(
        x=alt.X("mean:Q", title="share (0-1)", scale=alt.Scale(domain=[0, 1])),
        tooltip=[
            alt.Tooltip("label:N", title="policy"),
            "metric:N",
            alt.Tooltip("mean:Q", format=".3f"),
            "runs:Q",
        ],
    )
    rules = base.mark_rule().encode(x="lo:Q", x2="hi:Q")
    return (
        alt.layer(rules, dots, data=long)
        .properties(width=220)
        .facet(column=alt.Column("metric:N", sort=[METRICS[m] for m in MARKET_METRICS], title=None))
        .properties(title="Market concentration per policy (mean, 95% CI over repetitions)")
    )


def _paired_chart(tests: pd.DataFrame) -> alt.TopLevelMixin | None:
    """Each policy against the first baseline: paired differences of revenue and fairness.

    One point per policy (faceted by factor level), at its mean paired difference from the
    baseline on the same instances in owners' revenue (x) and users' Jain index over
    slowdowns (y), with their 95% intervals (``report-tests.csv``); the dashed rules at 0
    are the baseline. Differences within an instance are what the paired tests judge: the
    spread between instances (windows of a trace), which hides the policies among the
    trade-off's means, cancels out. ``None`` without both metrics.
    """
    x_metric, y_metric = "owners_revenue", "users_jain_slowdown"
    if tests.empty or not {x_metric, y_metric} <= set(tests["metric"]):
        return None
    first = tests["baseline"].iloc[0]
    mine = tests[tests["baseline"] == first].copy()
    mine["level"] = mine["factors"].fillna("").replace("", "all runs")
    keys = ["policy", "level"]
    cols = ["difference", "difference_lo", "difference_hi"]
    x = mine[mine["metric"] == x_metric].set_index(keys)[cols].add_prefix("x_")
    y = mine[mine["metric"] == y_metric].set_index(keys)[cols].add_prefix("y_")
    data = x.join(y, how="inner").reset_index().dropna()
    if data.empty:
        return None
    order = list(dict.fromkeys(data["policy"]))
    colour = alt.Color("policy:N", sort=order, title="policy", legend=LEGEND, scale=PALETTE)
    base = alt.Chart().encode(color=colour)
    points = base.mark_point(filled=True, size=70).encode(
        x=alt.X("x_difference:Q", title=f"{METRICS[x_metric]}: difference from {first}"),
        y=alt.Y("y_difference:Q", title=f"{METRICS[y_metric]}: difference"),
        tooltip=[
            "policy:N",
            "level:N",
            *ci_tooltips("x_difference", ",.4g", "revenue difference"),
            *ci_tooltips("y_difference", ".3f", "Jain difference"),
        ],
    )
    xbars = base.mark_rule(opacity=0.6).encode(
        x="x_difference_lo:Q", x2="x_difference_hi:Q", y="y_difference:Q"
    )
    ybars = base.mark_rule(opacity=0.6).encode(
        y="y_difference_lo:Q", y2="y_difference_hi:Q", x="x_difference:Q"
    )
    dashed = alt.Chart().mark_rule(color="#444444", strokeDash=[6, 3])
    zeros = [dashed.encode(x=alt.datum(0)), dashed.encode(y=alt.datum(0))]
    title = f"Against {first} on the same instances: paired differences (mean, 95% CI)"
    chart = alt.layer(*zeros, xbars, ybars, points, data=data)
    if data["level"].nunique() == 1:
        return chart.properties(width=520, height=320, title=title)
    return (
        chart.properties(width=260, height=200)
        .facet(column=alt.Column("level:N", title=None))
        .properties(title=title)
    )


#: The two parts of a wait per users' criterion, with their names in the waits chart.
WAIT_PARTS = {"mean_chosen_delay": "delay users chose", "mean_queue_wait": "queueing"}


def _criterion_waits(
    ok: pd.DataFrame, keys: list[str], names: pd.Series, factors: list[str]
) -> pd.DataFrame | None:
    """Per policy, factor level and users' criterion: the mean wait, its parts and 95% CI.

    From the runs' ``mean_wait_<c>``, ``mean_chosen_delay_<c>`` and ``mean_queue_wait_<c>``
    (:func:`~vosim.analysis.metrics.run_summary`): one row per (``label``, criterion) with
    ``policy`` (the label without the factors), the factors, ``wait`` (mean over
    repetitions) with ``wait_lo``/``wait_hi``, ``chosen`` and ``queueing``. ``None`` when
    the runs give no wait per criterion.
    """
    criteria = [c.removeprefix("jobs_entered_") for c in ok if c.startswith("jobs_entered_")]
    if not criteria:
        return None
    columns = [f"{m}_{c}" for c in criteria for m in ("mean_wait", *WAIT_PARTS)]
    summary = _summary(ok, keys, columns)
    policy = dict(zip(ok["label"], names, strict=True))
    rows = []
    for _, row in summary.iterrows():
        for c in criteria:
            if row[f"mean_wait_{c}"] != row[f"mean_wait_{c}"]:  # no job of it entered
                continue
            rows.append(
                {
                    "label": row["label"],
                    "policy": policy[row["label"]],
                    **{k: row[k] for k in factors},
                    "criterion": c,
                    "wait": row[f"mean_wait_{c}"],
                    "wait_lo": row[f"mean_wait_{c}_lo"],
                    "wait_hi": row[f"mean_wait_{c}_hi"],
                    "chosen": row[f"mean_chosen_delay_{c}"],
                    "queueing": row[f"mean_queue_wait_{c}"],
                    "runs": row["runs"],
                }
            )
    return pd.DataFrame(rows) if rows else None


def _criterion_chart(waits: pd.DataFrame, factors: list[str]) -> alt.FacetChart:
    """The mean wait of each users' criterion per policy, split into its two parts.

    Horizontal stacked bars (the delay users chose, then queueing), one panel per criterion
    (across) and factor level (down), policies in sweep order; the tooltip gives the wait's
    95% interval over repetitions.
    """
    order = list(dict.fromkeys(waits["policy"]))
    criteria = list(dict.fromkeys(waits["criterion"]))
    data = waits.copy()
    data["level"] = data[factors].astype(str).agg(", ".join, axis=1) if factors else "all runs"
    long = data.melt(
        id_vars=["policy", "level", "criterion", "wait", "wait_lo", "wait_hi", "runs"],
        value_vars=["chosen", "queueing"],
        var_name="part",
        value_name="seconds",
    )
    names = dict(zip(("chosen", "queueing"), WAIT_PARTS.values(), strict=True))
    long["part"] = long["part"].map(names)
    parts = list(WAIT_PARTS.values())
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("policy:N", sort=order, title=None, axis=alt.Axis(labelLimit=400)),
            x=alt.X("seconds:Q", stack=True, title="mean wait (s)"),
            color=alt.Color("part:N", title="part of the wait", scale=alt.Scale(domain=parts)),
            order=alt.Order("part:N", sort="ascending"),
            tooltip=[
                "policy:N",
                "level:N",
                "criterion:N",
                "part:N",
                alt.Tooltip("seconds:Q", format=",.0f"),
                *ci_tooltips("wait", ",.0f", "whole wait"),
                "runs:Q",
            ],
        )
        .properties(width=WIDTH)
        .facet(
            column=alt.Column("criterion:N", title="users' criterion", sort=criteria),
            row=alt.Row("level:N", title=", ".join(factors) or None),
        )
        .properties(title="Mean wait by users' criterion: the delay they chose and queueing")
    )


def _first_market(sweep_dir: Path, ok: pd.DataFrame):
    """The first finished run's market graph and its label, or ``None`` if none was written."""
    import networkx as nx

    from vosim.runs.sweep_results import network_path

    for _, row in ok.iterrows():
        path = network_path(sweep_dir, row["run_id"])
        if path.is_file():
            label = f"{row['label']}, repetition {int(row['repetition'])}"
            return nx.read_graphml(path), label
    return None


def _scripts(inline: bool) -> str:
    if inline:
        return f'<script type="text/javascript">\n{vega_bundle()}\n</script>'
    return "\n".join(
        f'<script src="https://cdn.jsdelivr.net/npm/{name}@{version}"></script>'
        for name, version in (
            ("vega", alt.VEGA_VERSION),
            ("vega-lite", alt.VEGALITE_VERSION),
            ("vega-embed", alt.VEGAEMBED_VERSION),
        )
    )


def _table_html(summary: pd.DataFrame, metrics: list[str]) -> str:
    head = "<th>policy</th><th>runs</th>"
    head += "".join(f"<th>{html.escape(METRICS.get(m, m))}</th>" for m in metrics)
    body = []
    for _, row in summary.iterrows():
        cells = f"<td>{html.escape(str(row['label']))}</td><td>{row['runs']}</td>"
        for m in metrics:
            mean, lo, hi = row[m], row[f"{m}_lo"], row[f"{m}_hi"]
            text = "n/a" if mean != mean else f"{mean:,.4g}"
            if mean == mean and row["runs"] > 1:
                text += f" [{lo:,.4g}, {hi:,.4g}]"
            cells += f"<td>{text}</td>"
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _number(x: float) -> str:
    """A figure for a sentence: thousands separated from 1,000 up, else 4 significant digits."""
    if x != x:
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _p(p: float) -> str:
    """A p-value for a sentence: ``= 0.0123``, or ``< 0.0001``."""
    return "< 0.0001" if p < 0.0001 else f"= {p:.4f}"


def _claim(row: pd.Series) -> str:
    """One paired test as a sentence: difference, its interval, Holm's p and d_z."""
    where = f" at {row['factors']}" if row["factors"] else ""
    direction = "higher" if row["difference"] > 0 else "lower"
    return (
        f"{row['policy']}{where}: {METRICS.get(row['metric'], row['metric'])} "
        f"{_number(row['policy_mean'])} vs {_number(row['baseline_mean'])} under "
        f"{row['baseline']}, {direction} by {_number(abs(row['difference']))} (95% CI of the "
        f"difference {_number(row['difference_lo'])} to {_number(row['difference_hi'])}; "
        f"paired t-test over {row['n']} repetitions, Holm-adjusted p {_p(row['p_holm'])}; "
        f"d_z = {row['effect_size']:.2g})"
    )


def _tests_html(tests: pd.DataFrame) -> str:
    """Per headline metric: how many comparisons differ, their sentences; then every test."""
    parts = []
    for metric in CLAIMED:
        rows = tests[tests["metric"] == metric]
        if rows.empty:
            continue
        significant = rows[rows["significant"]]
        claims = "".join(f"<li>{html.escape(_claim(r))}</li>" for _, r in significant.iterrows())
        parts.append(
            f"<h3>{html.escape(METRICS.get(metric, metric))}</h3>\n<p>{len(significant)} of "
            f"{len(rows)} comparisons differ at the 5 % family-wise level (Holm over this "
            "metric's tests).</p>\n"
            + (
                f"<details><summary>The differences</summary><ul>{claims}</ul></details>"
                if claims
                else ""
            )
        )
    columns = list(tests.columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for _, row in tests.iterrows():
        cells = []
        for c in columns:
            v = row[c]
            text = _number(v) if isinstance(v, float) else str(v)
            cells.append(f"<td>{html.escape(text)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return "\n".join(parts) + (
        f"\n<details><summary>All {len(tests)} paired tests</summary>{table}</details>"
    )


class Sweep(NamedTuple):
    """A sweep's results as the report reads them (:func:`read_sweep`)."""

    manifest: dict[str, Any]
    #: Every finished run's row, and those without error (with a ``label`` column).
    table: pd.DataFrame
    ok: pd.DataFrame
    #: The swept parameters, those of the ``[sweep]`` table, and the factors.
    keys: list[str]
    swept: list[str]
    factors: list[str]
    #: The :data:`METRICS` the runs have.
    metrics: list[str]
    #: Each ok run's policy name without the factors (what the tests pair at each level).
    names: pd.Series
    #: :func:`~vosim.analysis.stats.paired_tests` against the baselines (``None``: none).
    tests: pd.DataFrame | None


def read_sweep(sweep_dir: str | Path) -> Sweep:
    """Read a sweep's output directory: its runs, policy labels and paired tests.

    Parameters
    ----------
    sweep_dir : str or Path
        A :func:`vosim.runs.batch.run_sweep` output directory.

    Returns
    -------
    Sweep

    Raises
    ------
    ConfigError
        ``sweep_dir`` has no manifest, or no run finished without error.

    References
    ----------
    Law, *Simulation Modeling and Analysis* (5th ed., 2015), §11.2 (paired comparisons under
    common random numbers).
    """
    sweep_dir = Path(sweep_dir)
    manifest, table, ok = _load(sweep_dir)
    keys = [k for k in manifest.get("parameters", []) if k in ok.columns]
    swept = [k for k in manifest.get("sweep", {}).get("sweep", {}) if k in ok.columns]
    factors = [k for k in manifest.get("factors", []) if k in ok.columns]
    for column in ("named_policy", "baseline"):
        if column not in ok:
            ok[column] = None
    ok["label"] = [_policy(row, swept, factors) for _, row in ok.iterrows()]
    metrics = [
        m for m in METRICS if m in ok and pd.to_numeric(ok[m], errors="coerce").notna().any()
    ]
    # a policy's name without the factors: the tests pair it at each factor level
    within = [k for k in swept if k not in factors]
    names = pd.Series([_policy(row, within, []) for _, row in ok.iterrows()], index=ok.index)
    tests = None
    if ok["baseline"].notna().any() and ok["baseline"].isna().any():
        tests = paired_tests(ok.assign(label=names), metrics, factors=factors)
    return Sweep(manifest, table, ok, keys, swept, factors, metrics, names, tests)


# Complexity above 15: the report's sections in page order, each optional on what the sweep holds;
# each section is its own function, this one decides which to write.
def write_report(sweep_dir: str | Path, out: str | Path | None = None) -> list[Path]:  # noqa: C901
    """Write a one-page HTML report of a sweep's results (and its figures as PNG).

    Parameters
    ----------
    sweep_dir : str or Path
        A :func:`vosim.runs.batch.run_sweep` output directory (``manifest.json``, ``runs/``
        and, for the churn figure, ``cycles/``).
    out : str, Path or None
        The HTML file to write; default ``sweep_dir/report.html``. PNG files are written next
        to it as ``<stem>-<figure>.png`` (``tradeoff``, ``param-<name>``, ``ua-plane``,
        ``churn``, ``vo-hhi``, ...) when ``vl-convert-python`` is installed.

    Returns
    -------
    list of Path
        The HTML page first, then ``<stem>-summary.csv`` (per policy: runs, and each
        metric's mean, sd and 95% CI bounds), ``<stem>-tests.csv`` when the sweep has
        baselines (:func:`~vosim.analysis.stats.paired_tests`), then the PNG files.

    Raises
    ------
    ConfigError
        ``sweep_dir`` has no manifest, or no run finished without error.
    """
    from vosim.runs.sweep_results import load_cycles, load_table

    sweep_dir = Path(sweep_dir)
    sweep = read_sweep(sweep_dir)
    manifest, table, ok, keys, swept, factors, metrics, names, tests = sweep
    out = Path(out) if out is not None else sweep_dir / "report.html"
    summary = _summary(ok, keys, metrics)
    grid = summary[summary["baseline"].isna() & summary["named_policy"].isna()]
    within = [k for k in swept if k not in factors]

    figures: list[tuple[str, str, alt.TopLevelMixin]] = []
    if "owners_revenue" in metrics and (
        "users_jain_slowdown" in metrics or "mean_user_evaluation" in metrics
    ):
        chart = _tradeoff_chart(summary, within, factors)
        figures.append(("tradeoff", "Fairness-revenue trade-off", chart))
    paired = _paired_chart(tests) if tests is not None else None
    if paired is not None:
        figures.append(("paired", "Against the baseline, paired", paired))
    for key in swept:
        order = list(dict.fromkeys(grid[key]))
        chart = _parameter_chart(grid, swept, key, metrics, order)
        figures.append((f"param-{key}", f"Metrics vs {key}", chart))
    in_grid = ok["baseline"].isna() & ok["named_policy"].isna()
    plane = _ua_chart(grid, swept, factors, ok.loc[in_grid])
    crossings = None
    if plane is not None:
        figures.append(("ua-plane", "(A, U_a) plane", plane[0]))
        crossings = plane[1]
    waits = _criterion_waits(ok, keys, names, factors)
    if waits is not None:
        chart = _criterion_chart(waits, factors)
        figures.append(("waits", "Waits by users' criterion", chart))
    vos = vo_summary(load_table(sweep_dir, "groups"), ok, names, factors)
    if vos is not None:
        figures.append(("vo-hhi", "The VOs: how concentrated their work is", vo_hhi_chart(vos)))
        sites = vo_sites_chart(load_table(sweep_dir, "group_sites"), ok, names, factors)
        if sites is not None:
            figures.append(("vo-sites", "The VOs: which sites ran their work", sites))
    cycles = load_cycles(sweep_dir)
    if {"time", "owners_active", "users_active"} <= set(cycles.columns) and len(cycles):
        chart = _churn_chart(cycles, ok, names)
        figures.append(("churn", "Churn over time", chart))
    if all(m in metrics for m in MARKET_METRICS):
        chart = _concentration_chart(summary)
        figures.append(("concentration", "Market concentration", chart))
    first = _first_market(sweep_dir, ok)
    if first is not None:
        graph, label = first
        chart = market_graph_chart(graph, title=f"User-owner market of one run: {label}")
        figures.append(("market", "The market as a network (one run)", chart))

    try:
        import vl_convert as vlc
    except ImportError:
        vlc = None
    sections = []
    for number, (stem, heading, chart) in enumerate(figures):
        spec = chart.to_json(indent=None)
        sections.append(
            f'<h2>{html.escape(heading)}</h2>\n<div class="vega-chart" id="fig{number}"></div>\n'
            f'<script type="text/javascript">vegaEmbed("#fig{number}", {spec}, '
            '{"mode": "vega-lite"}).catch(console.error);</script>'
        )
        if stem == "ua-plane" and crossings is not None:
            sections.append(_crossings_html(crossings))
        if stem == "vo-hhi":
            sections.append(vo_sentences(vos))
    tests_section = ""
    if tests is not None:
        tests_section = "<h2>Policies against baselines (paired tests)</h2>\n" + _tests_html(tests)
    name = manifest.get("name", sweep_dir.name)
    failed = int((table["status"] == "error").sum())
    scenario = manifest.get("sweep", {}).get("scenario", {})
    page = f"""<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<title>vosim report: {html.escape(name)}</title>
{_scripts(vlc is not None)}
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }}
</style>
</head>
<body>
<h1>vosim report: {html.escape(name)}</h1>
<p>{html.escape(manifest.get("description", ""))}</p>
<p>{len(ok)} runs finished without error, {failed} with an error; {len(summary)} policies;
vosim {html.escape(str(manifest.get("vosim_version", "")))}.
Fixed scenario: <code>{html.escape(json.dumps(scenario))}</code></p>
{chr(10).join(sections)}
{tests_section}
<h2>Means per policy (mean [95% CI] over repetitions)</h2>
{_table_html(summary, metrics)}
</body>
</html>
"""
    out.parent.mkdir(parents=True, exist_ok=True)
    from vosim.runs.store import atomic_write_bytes

    atomic_write_bytes(out, page.encode("utf-8"))
    written = [out]
    tables = [("summary", summary)] + ([("tests", tests)] if tests is not None else [])
    tables += [("waits", waits)] if waits is not None else []
    tables += [("crossings", crossings)] if crossings is not None else []
    tables += [("vos", vos)] if vos is not None else []
    for stem, frame in tables:
        csv = out.with_name(f"{out.stem}-{stem}.csv")
        atomic_write_bytes(csv, frame.to_csv(index=False).encode("utf-8"))
        written.append(csv)
    if vlc is not None:
        for stem, _, chart in figures:
            png = out.with_name(f"{out.stem}-{stem}.png")
            atomic_write_bytes(png, vlc.vegalite_to_png(chart.to_json(), scale=1.5))
            written.append(png)
    return written
