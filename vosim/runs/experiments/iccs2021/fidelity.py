"""ICCS 2021's fidelity: the values the paper states beside vosim's, read from each table.

:func:`fidelity_fig2` (the K-S of the job sizes), :func:`fidelity_fig3` (the curve's maximum),
:func:`fidelity_fig5` (Knapsack against GreedyJnt over the job-load) and
:func:`fidelity_table1` (accuracy and speedup of the time scans) give the rows of
``fidelity.md``; the paper's values come from :mod:`~vosim.runs.experiments.iccs2021.setup`.
"""

from __future__ import annotations

import pandas as pd

from vosim.runs.experiments.base import (
    CAUSE_UNKNOWN,
    Fidelity,
    cell,
    close_row,
    factor_row,
    fidelity_row,
    percent,
)
from vosim.runs.experiments.iccs2021.setup import (
    _LABELS,
    _TABLE1_ROWS,
    FIG2_PAPER_KS,
    FIG2_TRACE,
    FIG3_INTERVAL,
    FIG3_PAPER_PEAK,
    FIG5_PAPER_ADVANTAGE,
    FIG5_PAPER_AT_0,
    FIG5_PAPER_FOUND_AT_09,
    FOUND_MIN,
)


def _times(speedup: float) -> str:
    return f"{speedup:.0f}x" if speedup >= 100 else f"{speedup:.3g}x"


def fidelity_fig2(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 2: the K-S statistic of the generated job sizes beside the paper's 0.14.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig2`'s table: columns :data:`FIG2_COLUMNS`, one row per flow and marginal
        (``marginal == "processors"``: the job sizes).

    Returns
    -------
    list of Fidelity
        One row: vosim's mean K-S of the sizes over the flows beside :data:`FIG2_PAPER_KS`.

    References
    ----------
    ICCS 2021 §3.1 and Fig. 2 ("0.14 value by the Kolmogorov-Smirnov test").
    """
    ks = table.loc[table["marginal"] == "processors", "ks"]
    return [
        fidelity_row(
            "ICCS 2021 Fig. 2 (§3.1)",
            "K-S statistic of the generated job sizes against the log's",
            f"{FIG2_PAPER_KS:g} (ForHLR II)",
            float(ks.mean()) if len(ks) else None,
            lambda v: f"{v:.3f} ({FIG2_TRACE}, mean of {len(ks)} flow{'s' * (len(ks) > 1)})",
            lambda v: "yes" if v <= FIG2_PAPER_KS else "partly" if v <= 2 * FIG2_PAPER_KS else "no",
            "Yes if vosim's K-S is at most the paper's (a fit at least as close), partly if at "
            "most twice it.",
            "The paper's ForHLR II log is not available: vosim fits UniLu-Gaia (module notes).",
        )
    ]


def fidelity_fig3(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 3: the maximum of ``max P_a^w(t)`` and where it lies, beside 0.93 at 834.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig3`'s table: columns :data:`FIG3_COLUMNS`, one row per environment
        (``scenario``) and ``t``; ``best`` marks each curve's maximum.

    Returns
    -------
    list of Fidelity
        The maximum's value (mean over the environments) against 0.93, and whether each
        maximum is interior, as the paper's at ``t = 834`` of ``[0, 1200]`` is.

    References
    ----------
    ICCS 2021 §3.2 and Fig. 3 (:data:`FIG3_PAPER_PEAK`).
    """
    figure = "ICCS 2021 Fig. 3 (§3.2)"
    t_paper, p_paper = FIG3_PAPER_PEAK
    peaks = table.loc[table["best"].astype(bool), ["t", "probability"]]
    listed = "; ".join(f"{p:.2f} at t = {t:g}" for t, p in peaks.itertuples(index=False))
    mean = float(peaks["probability"].mean()) if len(peaks) else None
    inside = (peaks["t"] > 0) & (peaks["t"] < FIG3_INTERVAL)
    return [
        close_row(
            figure,
            "maximum of max P_a^w(t) on [0, 1200]",
            p_paper,
            mean,
            0.05,
            0.25,
            stated=f"{p_paper:g} at t = {t_paper:g}",
            show=lambda v: listed if len(peaks) == 1 else f"mean {v:.2f} ({listed})",
            note="vosim: the mean of its environments' maxima.",
            cause="vosim's environment is another random draw (the paper's is unpublished), so "
            "only the shape is comparable (module notes).",
        ),
        fidelity_row(
            figure,
            "where the maximum lies",
            f"t = {t_paper:g}, inside [0, {FIG3_INTERVAL}]",
            inside if len(peaks) else None,
            lambda v: ", ".join(f"t = {t:g}" for t in peaks["t"]) + f" of [0, {FIG3_INTERVAL}]",
            lambda v: "yes" if v.all() else "partly" if v.any() else "no",
            "Yes if every environment's maximum lies strictly inside the interval, as the "
            "paper's does, partly if some do (t itself depends on the environment drawn).",
        ),
    ]


def fidelity_fig5(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 5: Knapsack and GreedyJnt at job-load 0 and the trend §4.2 states.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig5`'s table: columns :data:`FIG5_COLUMNS`, one row per ``job_load`` and
        ``method`` (``mean_probability``, ``advantage`` over GreedyJnt, ``found_share``).

    Returns
    -------
    list of Fidelity
        The two means and the advantage at job-load 0 (:data:`FIG5_PAPER_AT_0`,
        :data:`FIG5_PAPER_ADVANTAGE`), the advantage at the highest job-load with a window
        ("almost 0 %"), Knapsack at least GreedyJnt at every job-load < 1, the share of
        scenarios with a window at job-load 0.9 (:data:`FIG5_PAPER_FOUND_AT_09`) and 1 (none).

    References
    ----------
    ICCS 2021 §4.2 and Fig. 5.
    """
    figure = "ICCS 2021 Fig. 5 (§4.2)"
    costs = (
        "Cause unknown; the paper gives no node costs or budget, vosim's are chosen (module notes)."
    )

    def at(column: str, job_load: float, method: str = "knapsack_p") -> float | None:
        return cell(table, column, job_load=job_load, method=method)

    ours = table[table["method"] == "knapsack_p"].sort_values("job_load")
    advantage_0 = at("advantage", 0.0)
    loaded = ours[(ours["job_load"] > 0) & (ours["job_load"] < 1) & ours["advantage"].notna()]
    last = (
        (float(loaded["job_load"].iloc[-1]), float(loaded["advantage"].iloc[-1]))
        if len(loaded) and advantage_0 is not None
        else None
    )
    p = table.pivot(index="job_load", columns="method", values="mean_probability")
    p = p[p.index < 1 - 1e-9]
    at_least = (p["knapsack_p"] >= p["greedy_united"] * (1 - 1e-12)).to_numpy()
    return [
        close_row(
            figure,
            f"mean best P_a^w of {_LABELS[method]} at job-load 0",
            paper,
            at("mean_probability", 0.0, method),
            0.03,
            0.10,
            cause=costs,
        )
        for method, paper in zip(_LABELS, FIG5_PAPER_AT_0, strict=True)
    ] + [
        close_row(
            figure,
            "Knapsack's advantage over GreedyJnt at job-load 0",
            FIG5_PAPER_ADVANTAGE,
            advantage_0,
            0.25,
            0.75,
            stated=f"about {percent(FIG5_PAPER_ADVANTAGE)}",
            show=percent,
            cause=costs,
        ),
        fidelity_row(
            figure,
            "Knapsack's advantage at the highest job-load < 1 with a window",
            f"almost 0 % (from about {percent(FIG5_PAPER_ADVANTAGE)} at job-load 0)",
            last,
            lambda v: f"{percent(v[1])} at job-load {v[0]:g}",
            lambda v: "yes" if v[1] < 0.02 else "partly" if v[1] < (advantage_0 or 0) else "no",
            "Yes if below 2 %, partly if below the advantage at job-load 0 (it falls).",
        ),
        fidelity_row(
            figure,
            "Knapsack against GreedyJnt at every job-load < 1",
            "Knapsack higher at every job-load < 1",
            at_least if at_least.size else None,
            lambda v: f"Knapsack at least GreedyJnt's at {v.sum()} of {v.size} job-loads",
            lambda v: "yes" if v.all() else "no",
            "Yes if Knapsack's mean is at least GreedyJnt's at every job-load < 1 of the run "
            "(equal where neither finds a window).",
        ),
        fidelity_row(
            figure,
            "share of scenarios with a window at job-load 0.9",
            f"about 10 of over 10,000 ({percent(FIG5_PAPER_FOUND_AT_09)})",
            at("found_share", 0.9),
            lambda v: f"{percent(v)} of {at('repetitions', 0.9):.0f} scenarios",
            lambda v: "yes" if 0 < v <= 0.01 else "partly" if v == 0 else "no",
            f"Yes if above 0 and at most 1 %, partly if 0 (a run of fewer than 1000 scenarios "
            f"may find none), no above 1 %; a window is P_a^w >= {FOUND_MIN}.",
            "With vosim's local jobs (median 200, the paper gives none) no window exists from "
            "job-load 0.8 on (module notes).",
        ),
        fidelity_row(
            figure,
            "share of scenarios with a window at job-load 1",
            "none (P_a^w = 0)",
            at("found_share", 1.0),
            lambda v: f"{percent(v)} of {at('repetitions', 1.0):.0f} scenarios",
            lambda v: "yes" if v == 0 else "no",
            f"Yes if no scenario has a window (P_a^w >= {FOUND_MIN}).",
        ),
    ]


#: Why Knapsack's search from 5 or more starting points is more accurate than the paper's.
_TABLE1_OPEN = (
    "Cause unknown: from 5 starting points on vosim's search finds more than the paper's, why "
    "is open (module notes)."
)
#: Why the starting-point searches' speedups are near the paper's.
_TABLE1_DELTA = (
    "Calibrated: the paper gives no search step; delta = 10 was chosen so that 20 starting "
    "points solve about as many time indices as the paper's 8.3x implies (module notes)."
)
#: Table 1's cells :func:`fidelity_table1` compares: (row label, column, cause if they differ).
_TABLE1_FIDELITY = (
    ("1 starting point (Knapsack)", "accuracy", CAUSE_UNKNOWN),
    ("5 starting points (Knapsack)", "accuracy", _TABLE1_OPEN),
    ("50 starting points (Knapsack)", "accuracy", _TABLE1_OPEN),
    ("50 starting points (Knapsack)", "speedup", _TABLE1_DELTA),
    ("Full scan (GreedyJnt)", "accuracy", CAUSE_UNKNOWN),
    ("Full scan (GreedyJnt)", "speedup", CAUSE_UNKNOWN),
    ("50 starting points (GreedyJnt)", "accuracy", CAUSE_UNKNOWN),
    ("50 starting points (GreedyJnt)", "speedup", _TABLE1_DELTA),
)
#: The one compared row that is not in the paper's Table 1 but in §4.3's text.
_TABLE1_FROM_TEXT = "50 starting points (GreedyJnt)"


def fidelity_table1(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Table 1: accuracy and speedup of the main variants beside the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_table1`'s table: columns :data:`TABLE1_COLUMNS`, one row per variant
        (``label``) with its ``accuracy`` and ``speedup``.

    Returns
    -------
    list of Fidelity
        The cells of ``_TABLE1_FIDELITY``: Knapsack's accuracy from 1, 5 and 50 starting
        points and its speedup from 50, GreedyJnt's full scan and from 50 starting points
        (accuracy and speedup); the paper's values are those of ``_TABLE1_ROWS``.

    References
    ----------
    ICCS 2021 §4.3 and Table 1 (GreedyJnt from 50 starting points: §4.3's text).
    """
    paper = {row[3]: {"accuracy": row[4], "speedup": row[5]} for row in _TABLE1_ROWS}
    rows = []
    for label, column, cause in _TABLE1_FIDELITY:
        figure = "ICCS 2021 §4.3 (text)" if label == _TABLE1_FROM_TEXT else "ICCS 2021 Table 1"
        value = cell(table, column, label=label)
        stated = paper[label][column]
        if column == "accuracy":
            row = close_row(figure, f"accuracy, {label}", stated, value, 0.03, 0.10, cause=cause)
        else:
            row = factor_row(
                figure,
                f"speedup over the Knapsack full scan, {label}",
                stated,
                value,
                2.0,
                10.0,
                stated=_times(stated),
                show=_times,
                note="Times depend on the machine and the implementation.",
                cause=cause,
            )
        rows.append(row)
    return rows
