"""The report's VO section: each group's (VO's) waits and the sites its work ran on.

On a multi-site trace run with its own sites as owners (``owners="trace"``; LCG-2005-1: 170
grid sites, the users' groups the LHC experiments' VOs), every sweep run writes a per-group
table (``VOModel.group_frame()``) and a site x VO table (``VOModel.group_site_frame()``)
holding both where the run placed each VO's work and where the traced grid ran the same
jobs (:mod:`vosim.runs.batch`, ``load_table``). :func:`vo_summary` averages the per-group
table over repetitions per policy and factor level; :func:`vo_hhi_chart` draws each VO's
concentration over sites against the trace's; :func:`vo_sites_chart` the site x VO shares;
:func:`vo_sentences` states what the tables say.
"""

from __future__ import annotations

import html

import altair as alt
import numpy as np
import pandas as pd

from vosim.analysis.charts import ci_tooltips
from vosim.analysis.stats import mean_ci
from vosim.runs.config import value_label

__all__ = ["vo_summary", "vo_hhi_chart", "vo_sites_chart", "vo_sentences", "TOP_VOS", "TOP_SITES"]

#: VOs drawn in the charts: the largest by jobs over the runs (every VO is in the CSV).
TOP_VOS = 8
#: Sites drawn in the site x VO chart: those that ran the most of the drawn VOs' work.
TOP_SITES = 15
#: Label of the traced placement beside the policies.
TRACE = "trace (as the grid ran it)"


def _levels(frame: pd.DataFrame, factors: list[str]) -> pd.Series:
    """Each row's factor level as ``"k=v, ..."`` (``"all runs"`` without factors)."""
    if not factors:
        return pd.Series("all runs", index=frame.index)
    return frame[factors].apply(
        lambda row: ", ".join(f"{k}={value_label(row[k])}" for k in factors), axis=1
    )


def vo_summary(
    groups: pd.DataFrame, ok: pd.DataFrame, names: pd.Series, factors: list[str]
) -> pd.DataFrame | None:
    """Per policy, factor level and VO: jobs, waits and concentration over sites, with CIs.

    Parameters
    ----------
    groups : pandas.DataFrame
        ``load_table(sweep_dir, "groups")``: one row per run and group, with ``run_id``.
    ok : pandas.DataFrame
        The finished runs (``run_id``, the factors), one row each.
    names : pandas.Series
        Each run's policy name without the factors, indexed like ``ok``.
    factors : list of str
        The sweep's factors (columns of ``ok``).

    Returns
    -------
    pandas.DataFrame or None
        One row per (``policy``, ``level``, ``group``) with ``runs`` (runs the group had jobs
        in), ``jobs`` (mean jobs read a run), ``completed_share`` (completed / read over
        those runs), ``mean_wait`` with ``mean_wait_lo``/``mean_wait_hi`` (s, 95% CI over
        runs), ``site_hhi`` with its CI, ``sites`` (mean), ``top_site`` (the site that ran
        most of its work in most runs) and the traced placement's ``recorded_site_hhi`` and
        ``recorded_sites`` (means over the same runs' windows). ``None`` when the tables
        hold no traced placement (runs without ``owners="trace"``).

    References
    ----------
    Montgomery & Runger (7th ed.), §8.2 (t intervals, :func:`~vosim.analysis.stats.mean_ci`);
    Herfindahl (1950), Hirschman (1945) (the HHI).
    """
    if groups.empty or "recorded_site_hhi" not in groups:
        return None
    runs = ok.assign(policy=names, level=_levels(ok, factors))[["run_id", "policy", "level"]]
    data = groups.merge(runs, on="run_id")
    rows = []
    for (policy, level, group), own in data.groupby(["policy", "level", "group"], sort=False):
        wait, wait_lo, wait_hi = mean_ci(own["mean_wait"].to_numpy(float))
        hhi, hhi_lo, hhi_hi = mean_ci(own["site_hhi"].to_numpy(float))
        tops = own["top_site"].dropna()
        rows.append(
            {
                "policy": policy,
                "level": level,
                "group": int(group),
                "runs": len(own),
                "jobs": float(own["jobs_read"].mean()),
                "completed_share": float(own["completed"].sum() / own["jobs_read"].sum()),
                "mean_wait": wait,
                "mean_wait_lo": wait_lo,
                "mean_wait_hi": wait_hi,
                "site_hhi": hhi,
                "site_hhi_lo": hhi_lo,
                "site_hhi_hi": hhi_hi,
                "sites": float(own["sites"].mean()),
                "top_site": tops.mode().iloc[0] if len(tops) else None,
                "recorded_site_hhi": float(own["recorded_site_hhi"].mean()),
                "recorded_sites": float(own["recorded_sites"].mean()),
            }
        )
    return pd.DataFrame(rows)


def _top_vos(summary: pd.DataFrame) -> list[int]:
    """The :data:`TOP_VOS` groups with the most jobs over every policy and level."""
    jobs = (summary["jobs"] * summary["runs"]).groupby(summary["group"]).sum()
    return jobs.sort_values(ascending=False, kind="stable").index[:TOP_VOS].tolist()


def vo_hhi_chart(summary: pd.DataFrame) -> alt.FacetChart:
    """Each large VO's concentration over sites (HHI) per policy, beside the trace's.

    One panel per factor level; a row per VO (the :data:`TOP_VOS` largest), a dot per policy
    (mean over runs, the 95% interval as a rule), a black tick for the trace's own placement
    of the same jobs.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`vo_summary` output.

    Returns
    -------
    altair.FacetChart

    References
    ----------
    Herfindahl (1950), Hirschman (1945) (the HHI); Montgomery & Runger (7th ed.), §8.2.
    """
    top = _top_vos(summary)
    data = summary[summary["group"].isin(top)].copy()
    data["vo"] = "VO " + data["group"].astype(str)
    data["traced"] = data.groupby(["level", "vo"])["recorded_site_hhi"].transform("mean")
    order = [f"VO {g}" for g in top]
    policies = list(dict.fromkeys(data["policy"]))
    y = alt.Y("vo:N", sort=order, title="users' group (VO), largest first")
    base = alt.Chart().encode(y=y, yOffset=alt.YOffset("policy:N", sort=policies))
    color = alt.Color("policy:N", sort=policies, title="policy", legend=alt.Legend(labelLimit=400))
    scale = alt.Scale(domain=[0, 1], clamp=True)  # few repetitions: t intervals past [0, 1]
    title = "HHI of the VO's work over sites (1: one site)"
    x = alt.X("site_hhi:Q", title=title, scale=scale)
    dots = base.mark_point(filled=True, size=40).encode(
        x=x,
        color=color,
        tooltip=[
            "policy:N",
            "vo:N",
            *ci_tooltips("site_hhi", ".3f"),
            alt.Tooltip("sites:Q", format=".1f", title="sites (mean)"),
            "top_site:N",
            alt.Tooltip("mean_wait:Q", format=",.0f", title="mean wait (s)"),
            "runs:Q",
        ],
    )
    lo = alt.X("site_hhi_lo:Q", title=title, scale=scale)
    rules = base.mark_rule(clip=True, opacity=0.5).encode(x=lo, x2="site_hhi_hi:Q", color=color)
    ticks = (
        alt.Chart()
        .mark_tick(color="black", thickness=2, size=22)
        .encode(
            x=alt.X("traced:Q", title=title, scale=scale),
            y=y,
            tooltip=["vo:N", alt.Tooltip("traced:Q", format=".3f", title=TRACE)],
        )
    )
    return (
        alt.layer(rules, dots, ticks)
        .properties(width=420, height=alt.Step(6))
        .facet(row=alt.Row("level:N", title=None), data=data)
        .properties(
            title="Where each VO's work ran: its concentration over sites (black tick: the "
            "trace's own placement of the same jobs; rules: 95% intervals over the windows)"
        )
    )


def vo_sites_chart(
    pairs: pd.DataFrame, ok: pd.DataFrame, names: pd.Series, factors: list[str]
) -> alt.FacetChart | None:
    """Site x VO shares at the first factor level: one panel per policy and the trace.

    Each cell is the share of the VO's processor time that ran on the site, summed over the
    level's runs (the trace's panel: the same jobs as the grid placed them); VOs are the
    :data:`TOP_VOS` largest, sites the :data:`TOP_SITES` that ran most of their work.

    Parameters
    ----------
    pairs : pandas.DataFrame
        ``load_table(sweep_dir, "group_sites")`` (columns ``run_id``, ``placement``,
        ``group``, ``site``, ``processor_seconds``).
    ok, names, factors
        As :func:`vo_summary`.

    Returns
    -------
    altair.FacetChart or None
        ``None`` when ``pairs`` has no traced placement.

    References
    ----------
    Feitelson et al., the Standard Workload Format (field 16: the site that ran each job).
    """
    if pairs.empty or not (pairs["placement"] == "trace").any():
        return None
    levels = _levels(ok, factors)
    first = ok[levels == levels.iloc[0]]
    runs = first.assign(policy=names[first.index])[["run_id", "policy"]]
    data = pairs.merge(runs, on="run_id")
    one_policy = data["policy"] == data["policy"].iloc[0]  # the trace panel: one policy's runs
    data.loc[data["placement"] == "trace", "policy"] = TRACE
    data = data[(data["placement"] == "run") | one_policy]
    jobs = data.groupby("group")["processor_seconds"].sum()
    top = jobs.sort_values(ascending=False, kind="stable").index[:TOP_VOS]
    data = data[data["group"].isin(top)]
    cells = data.groupby(["policy", "group", "site"], as_index=False)["processor_seconds"].sum()
    total = cells.groupby(["policy", "group"])["processor_seconds"].transform("sum")
    cells["share"] = cells["processor_seconds"] / total
    sites = cells.groupby("site")["share"].sum().sort_values(ascending=False, kind="stable")
    cells = cells[cells["site"].isin(sites.index[:TOP_SITES])]
    cells["vo"] = "VO " + cells["group"].astype(str)
    panels = [TRACE, *dict.fromkeys(runs["policy"])]
    return (
        alt.Chart(cells)
        .mark_rect()
        .encode(
            x=alt.X("site:N", sort=sites.index[:TOP_SITES].tolist(), title=None),
            y=alt.Y("vo:N", sort=[f"VO {g}" for g in top], title=None),
            color=alt.Color(
                "share:Q",
                title="share of the VO's work",
                scale=alt.Scale(scheme="blues", domain=[0, 1]),
            ),
            tooltip=["policy:N", "vo:N", "site:N", alt.Tooltip("share:Q", format=".3f")],
        )
        .properties(width=TOP_SITES * 14, height=TOP_VOS * 14)
        .facet(facet=alt.Facet("policy:N", sort=panels, title=None), columns=3)
        .properties(
            title=f"Which VO's work ran on which site ({levels.iloc[0]}; "
            f"the {TOP_SITES} sites that ran most of it)"
        )
    )


def vo_sentences(summary: pd.DataFrame) -> str:
    """HTML sentences from :func:`vo_summary`: concentration and waits per policy and level.

    Per factor level and policy: the median over VOs of their HHI over sites and of their
    number of sites, beside the trace's; then the VOs with the longest and shortest mean
    wait. Medians over the VOs of the table at that level.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`vo_summary` output.

    Returns
    -------
    str
        One ``<p>`` and one ``<ul>`` per factor level (HTML-escaped names).
    """
    lines = []
    for level, own in summary.groupby("level", sort=False):
        traced = own.drop_duplicates("group")
        items = [
            f"as the grid ran them, the VOs' work spread over a median of "
            f"{np.median(traced['recorded_sites']):.0f} sites (median HHI "
            f"{np.median(traced['recorded_site_hhi']):.2f})"
        ]
        for policy, mine in own.groupby("policy", sort=False):
            slow = mine.loc[mine["mean_wait"].idxmax()]
            fast = mine.loc[mine["mean_wait"].idxmin()]
            items.append(
                f"{html.escape(str(policy))}: {np.nanmedian(mine['sites']):.0f} sites (HHI "
                f"{np.nanmedian(mine['site_hhi']):.2f}); mean wait from "
                f"{fast['mean_wait']:,.0f} s (VO {fast['group']}) to {slow['mean_wait']:,.0f} "
                f"s (VO {slow['group']})"
            )
        lines.append(
            f"<p><b>{html.escape(str(level))}</b>: "
            + "; ".join(items[:1])
            + ".</p>\n<ul>"
            + "".join(f"<li>{item}</li>" for item in items[1:])
            + "</ul>"
        )
    return "\n".join(lines)
