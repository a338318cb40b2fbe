"""The simulation study of VO Preferences: Figs. 1-6 as the experiment ``vo-preferences-fig1-6``.

Toporkov, Yemelyanov, Potekhin, *Scheduling and resource allocation based on the preferences
of grid VO participants* (``vo-preferences-ru.md``, summary in the papers README), §4-5. Each
repetition generates the §4 domain (100 nodes, performance U{2..10}, exponential prices ±60 %,
5-10 % local load, interval 600) and a batch of 40 jobs, finds the batch's alternatives (step 1
of the cyclic scheme: passes in queue order, each job's window by its user's criterion -
minFinish, minRuntime or minCost - cut out of the slot list, until no job finds another), and
solves step 2 for a grid of ``U_a``:

* Figs. 1-2: batch cost (``C -> max, lim U``, ordinal ``U``) vs ``U_a`` in ranks, conflicting
  and mixed preferences, with the midpoint between the users' and the VO's extremes;
* Fig. 3: the same with relative ``U`` (``U_a`` in %), both mixes;
* Fig. 4: batch time (sum of runtimes, ``T -> min, lim U``, relative ``U``), mixed;
* Figs. 5-6: the VO evaluation ``A`` vs ``U_a`` for those three problems with the line
  ``A = U_a``, and ``A + U_a``; the compromise points (``A = U_a``; least ``A + U_a``) next to
  the paper's (37 %, 37 %) and (45 %, 28 %) for the conflicting ``C -> max`` problem.

What the paper leaves open and what is chosen here:

* **Domain and batch** from :mod:`vosim.market.domains` (its docstrings give the budget rule
  and the reference performance of the reservation time).
* **How many alternatives.** The paper reports 6.3 per job on average; it does not say how it
  limits the search. Here every job searches until nothing fits (``max_alternatives=None``);
  on these domains that gives 3-4 alternatives per job (the column ``alternatives_per_job``):
  the batch needs more node time than 40 x 6.3 alternatives would leave.
* **Curves over repetitions.** Each repetition's curve is computed exactly with one dynamic
  programme over all limits (:func:`~vosim.allocators.combination.combination_curve`); ``A``
  is computed per repetition (0 % at its unconstrained optimum, 100 % at ``U_a = 0``) and
  averaged, as are the totals.
* **Repetitions.** Not given in the paper; 20 by default.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import altair as alt
import numpy as np
import pandas as pd

from vosim.allocators.combination import combination_curve, compromise, vo_evaluation
from vosim.allocators.csa import batch_alternatives
from vosim.allocators.vo_choice import VOPolicy, batch_rows
from vosim.market.domains import vo_preferences_batch, vo_preferences_domain
from vosim.runs.experiments.base import (
    MATCHES,
    NOT_IN_GRID,
    Experiment,
    ExperimentConfig,
    Fidelity,
    register_experiment,
    verdict,
)

__all__ = [
    "PROBLEMS",
    "PAPER_COMPROMISE",
    "PAPER_MAXIMUM_UA",
    "PAPER_ALTERNATIVES",
    "PAPER_MIDPOINT_UA",
    "PAPER_TIME_MARGIN",
    "PAPER_TIME_UA",
    "TOLERANCE",
    "COLUMNS",
    "USER_WINDOW_CRITERIA",
    "fidelity",
]

#: Window criterion of step 1 for each user criterion (AEP §2.2).
USER_WINDOW_CRITERIA = {"finish": "min_finish", "runtime": "min_runtime", "cost": "min_cost"}

#: name -> (figure, preference mix, VO objective, evaluation kind)
PROBLEMS = {
    "C->max, lim U (ordinal), conflicting": ("fig1", "conflicting", "cost", "ordinal"),
    "C->max, lim U (ordinal), mixed": ("fig2", "mixed", "cost", "ordinal"),
    "C->max, lim U, conflicting": ("fig3", "conflicting", "cost", "relative"),
    "C->max, lim U, mixed": ("fig3", "mixed", "cost", "relative"),
    "T->min, lim U, mixed": ("fig4", "mixed", "runtime", "relative"),
}

#: The paper's compromise points (U_a %, A %) of the conflicting C -> max problem (§5.2).
PAPER_COMPROMISE = {"equal": (37.0, 37.0), "additive": (45.0, 28.0)}
#: Fig. 1 (§5.1): the batch cost reaches its maximum at the limit ``U_a = 5.3`` (ranks) ...
PAPER_MAXIMUM_UA = 5.3
#: ... with 6.3 alternatives per job on average.
PAPER_ALTERNATIVES = 6.3
#: The midpoint between the users' and the VO's batch cost is reached at ``U_a = 1`` (Fig. 1,
#: ranks) and ``U_a ≈ 25 %`` (relative, §5.2: the point (25 %, 50 %) of the A - U_a plane).
PAPER_MIDPOINT_UA = {"ordinal": 1.0, "relative": 25.0}
#: Fig. 4's line: the VO's best batch time plus 1.5 % (§5.1) ...
PAPER_TIME_MARGIN = 0.015
#: ... reached at ``U_a = 1`` ("second alternatives on average"), which §5.2 equates with
#: ``U_a ≈ 25 %`` on the relative axis of Fig. 4 (compared in %).
PAPER_TIME_UA = 1.0
#: Relative tolerances (yes, partly) of :func:`~vosim.runs.experiments.base.verdict` for
#: every stated value of :func:`fidelity`.
TOLERANCE = (0.10, 0.30)
#: vosim's value of a stated point the run's table does not hold.

#: Columns of the table.
COLUMNS = [
    "figure",
    "problem",
    "mix",
    "objective",
    "evaluation",
    "ua",
    "vo_total_mean",
    "vo_total_std",
    "a_mean",
    "a_std",
    "realised_ua_mean",
    "alternatives_per_job",
    "repetitions",
    "point",
    "paper_ua",
    "paper_a",
]


def _grids(quick: bool) -> dict[str, np.ndarray]:
    return {
        "ordinal": np.arange(0.0, 8.01, 1.0 if quick else 0.25),
        "relative": np.arange(0.0, 100.01, 20.0 if quick else 2.0),
    }


#: The key of the repetitions' random streams (one stream per repetition, shared by the mixes).
_KEY_DOMAINS = 0


def _alternatives(rng: np.random.Generator, mix: str):
    domain = vo_preferences_domain(rng)
    batch = vo_preferences_batch(rng, domain, mix=mix)
    found = batch_alternatives(
        domain.slots,
        [job.request for job in batch],
        [USER_WINDOW_CRITERIA[job.criterion] for job in batch],
        None,
    )
    return found.windows, [job.criterion for job in batch]


def _curve(windows, criteria, objective: str, evaluation: str, grid: np.ndarray):
    """Totals, ``A`` and realised ``U_a`` of one repetition over the ``U_a`` grid."""
    policy = VOPolicy(objective, "user", evaluation, max_alternatives=None)
    rows = batch_rows(windows, criteria, policy)
    jobs = len(rows.jobs)
    limits = [*(grid * jobs).tolist(), math.inf]
    results = combination_curve(rows.vo, rows.bound, limits, policy.sense)
    totals = np.array([r.vo_total for r in results[:-1]])
    a = vo_evaluation(totals, results[-1].vo_total, totals[0])
    realised = np.array([r.user_total / jobs for r in results[:-1]])
    per_job = float(np.mean([len(w) for w in windows]))
    return totals, np.atleast_1d(a), realised, per_job


def run(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """Run the experiment: one row per (problem, ``U_a``) plus the compromise points."""
    grids = _grids(config.quick)
    rows: list[dict] = []
    # Common random numbers: repetition r draws the same domain for every problem, of either
    # mix (the stream is keyed by the repetition only), so the curves -- Fig. 2's mixed against
    # conflicting preferences too -- compare the same instances.
    cache: dict[tuple[str, int], tuple] = {}
    for problem, (figure, mix, objective, evaluation) in PROBLEMS.items():
        grid = grids[evaluation]
        totals, a_values, realised, per_job = [], [], [], []
        for rep, rng in enumerate(config.rngs(_KEY_DOMAINS)):
            key = (mix, rep)
            if key not in cache:
                cache[key] = _alternatives(rng, mix)
            t, a, u, k = _curve(*cache[key], objective, evaluation, grid)
            totals.append(t)
            a_values.append(a)
            realised.append(u)
            per_job.append(k)
        totals, a_values, realised = map(np.array, (totals, a_values, realised))
        for j, ua in enumerate(grid):
            rows.append(
                {
                    "figure": figure,
                    "problem": problem,
                    "mix": mix,
                    "objective": objective,
                    "evaluation": evaluation,
                    "ua": float(ua),
                    "vo_total_mean": float(totals[:, j].mean()),
                    "vo_total_std": float(totals[:, j].std(ddof=1)) if len(totals) > 1 else 0.0,
                    "a_mean": float(a_values[:, j].mean()),
                    "a_std": float(a_values[:, j].std(ddof=1)) if len(a_values) > 1 else 0.0,
                    "realised_ua_mean": float(realised[:, j].mean()),
                    "alternatives_per_job": float(np.mean(per_job)),
                    "repetitions": config.repetitions,
                    "point": "curve",
                }
            )
        if evaluation == "relative":
            found = compromise(grid, a_values.mean(axis=0))
            paper = PAPER_COMPROMISE if problem == "C->max, lim U, conflicting" else {}
            for point, xy in (("equal", found.equal), ("additive", found.additive)):
                rows.append(
                    {
                        "figure": "fig5" if point == "equal" else "fig6",
                        "problem": problem,
                        "mix": mix,
                        "objective": objective,
                        "evaluation": evaluation,
                        "ua": xy[0] if xy else math.nan,
                        "a_mean": xy[1] if xy else math.nan,
                        "repetitions": config.repetitions,
                        "point": point,
                        "paper_ua": paper.get(point, (math.nan, math.nan))[0],
                        "paper_a": paper.get(point, (math.nan, math.nan))[1],
                    }
                )
        progress(1)
    table = pd.DataFrame(rows).reindex(columns=COLUMNS)
    return table, _chart(table)


def _chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    curves = table[table["point"] == "curve"]
    width, height = 300, 200

    def totals(figure: str, title: str, y: str, reference: str | None) -> alt.LayerChart:
        # reference: the paper's dashed line; "midpoint" (Figs. 1-2: halfway between the
        # users' extreme, U_a = 0, and the VO's, the largest U_a) or "best+1.5%" (Fig. 4: the
        # VO's best batch time plus 1.5 %, §5.2)
        data = curves[curves["figure"] == figure]
        line = (
            alt.Chart(data)
            .mark_line(point=True)
            .encode(
                x=alt.X("ua:Q", title="U_a"),
                y=alt.Y("vo_total_mean:Q", title=y, scale=alt.Scale(zero=False)),
                color=alt.Color("mix:N", title="preferences"),
                tooltip=["problem", "ua", "vo_total_mean", "a_mean", "realised_ua_mean"],
            )
        )
        chart = line.properties(title=title, width=width, height=height)
        if reference is None:
            return chart
        ends = data.sort_values("ua").groupby("mix")["vo_total_mean"].agg(["first", "last", "min"])
        if reference == "midpoint":
            level, text = (ends["first"] + ends["last"]) / 2, "paper: midpoint of the extremes"
        else:
            level = ends["min"] * (1 + PAPER_TIME_MARGIN)
            text = f"paper: VO's best + {PAPER_TIME_MARGIN * 100:g} %"
        mark = pd.DataFrame({"mix": ends.index, "level": level.to_numpy(), "text": text})
        rule = alt.Chart(mark).mark_rule(strokeDash=[4, 4]).encode(y="level:Q", color="mix:N")
        label = (
            alt.Chart(mark)
            .mark_text(align="right", x=width - 4, dy=-6, color="black")
            .encode(y="level:Q", text="text:N")
        )
        return alt.layer(chart, rule, label)

    relative = curves[curves["evaluation"] == "relative"]
    a_line = (
        alt.Chart(relative)
        .mark_line()
        .encode(
            x=alt.X("ua:Q", title="U_a, %"),
            y=alt.Y("a_mean:Q", title="A, %"),
            color=alt.Color("problem:N"),
            tooltip=["problem", "ua", "a_mean"],
        )
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, 100.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="x:Q")
    )
    points = table[table["point"] != "curve"]
    ours = (
        alt.Chart(points)
        .mark_point(size=80, filled=True)
        .encode(x="ua:Q", y="a_mean:Q", shape="point:N", color="problem:N", tooltip=list(points))
    )
    paper = (
        alt.Chart(points.dropna(subset=["paper_ua"]))
        .mark_point(size=120, shape="cross", color="black")
        .encode(x="paper_ua:Q", y="paper_a:Q", tooltip=["point", "paper_ua", "paper_a"])
    )
    plane = (a_line + diagonal + ours + paper).properties(
        title="Fig. 5: A vs U_a, the line A = U_a; paper (37 %, 37 %) as a black cross",
        width=width,
        height=height,
    )
    additive = (
        alt.Chart(relative.assign(sum=relative["ua"] + relative["a_mean"]))
        .mark_line()
        .encode(
            x=alt.X("ua:Q", title="U_a, %"),
            y=alt.Y("sum:Q", title="A + U_a, %"),
            color="problem:N",
            tooltip=["problem", "ua", "sum"],
        )
        .properties(
            title="Fig. 6: A + U_a (least: additive compromise; paper (45 %, 28 %))",
            width=width,
            height=height,
        )
    )
    return alt.vconcat(
        alt.hconcat(
            totals(
                "fig1", "Fig. 1: batch cost vs ordinal U_a, conflicting", "batch cost", "midpoint"
            ),
            totals("fig2", "Fig. 2: batch cost vs ordinal U_a, mixed", "batch cost", "midpoint"),
        ),
        alt.hconcat(
            totals("fig3", "Fig. 3: batch cost vs relative U_a (%)", "batch cost", None),
            totals(
                "fig4",
                "Fig. 4: batch time (sum of runtimes) vs U_a (%), mixed",
                "time",
                "best+1.5%",
            ),
        ),
        alt.hconcat(plane, additive),
    ).properties(title="VO Preferences Figs. 1-6: the cyclic scheme with user evaluations (vosim)")


# ---------------------------------------------------------------------------------------------
# Fidelity: the paper's stated values beside vosim's (``vosim experiment all``)

#: The problems whose values the paper states.
_CONFLICTING_ORDINAL = "C->max, lim U (ordinal), conflicting"
_MIXED_ORDINAL = "C->max, lim U (ordinal), mixed"
_CONFLICTING = "C->max, lim U, conflicting"
_TIME = "T->min, lim U, mixed"
#: The known cause (module docstring) of fewer alternatives per job than the paper's.
_FEWER = (
    "known cause (module docstring): every job searches until nothing fits, and the batch "
    "needs more node time than 40 x 6.3 alternatives would leave"
)
_UNKNOWN = "cause unknown"
_UNREACHED = "not reached on this run's grid"


def _curve_of(table: pd.DataFrame, problem: str) -> pd.DataFrame:
    """The mean curve of ``problem`` in ``table``, by ascending ``U_a`` (empty if not run)."""
    rows = table[(table["point"] == "curve") & (table["problem"] == problem)]
    return rows.sort_values("ua")


def _crossing(curve: pd.DataFrame, level: float) -> float:
    """The first ``U_a`` at which the mean curve ``vo_total_mean`` reaches ``level``.

    Linearly interpolated between the grid points either side; NaN if the curve never
    reaches ``level``.
    """
    x = curve["ua"].to_numpy(dtype=float)
    d = curve["vo_total_mean"].to_numpy(dtype=float) - level
    if d.size == 0 or not np.isfinite(d).all():
        return math.nan
    if d[0] == 0:
        return float(x[0])
    crossed = np.flatnonzero(np.sign(d) != np.sign(d[0]))
    if crossed.size == 0:
        return math.nan
    k = int(crossed[0])
    return float(x[k - 1] + (x[k] - x[k - 1]) * d[k - 1] / (d[k - 1] - d[k]))


def _row(
    figure: str, quantity: str, paper: str, value: str, match: str, rule: str, cause: str
) -> Fidelity:
    """A row whose reason is ``rule``, and ``cause`` when the match is not "yes"."""
    reason = f"{rule}." if match == "yes" else f"{rule}; {cause}."
    return Fidelity(figure, quantity, paper, value, match, reason)


def _tolerance_rule(stated: str) -> str:
    """The verdict's rule in words, relative to ``stated`` (the paper's value)."""
    yes, partly = TOLERANCE
    return f"yes within {yes * 100:g} %, partly within {partly * 100:g} % of {stated}"


def _located(
    figure: str,
    quantity: str,
    paper: str,
    stated: float,
    curve: pd.DataFrame,
    level: Callable[[np.ndarray], float],
    cause: str = _UNKNOWN,
) -> Fidelity:
    """Where ``curve`` reaches ``level(totals)``, beside the paper's ``stated`` ``U_a``.

    The verdict is :func:`~vosim.runs.experiments.base.verdict` with :data:`TOLERANCE`; a
    problem absent from the table gives :data:`NOT_IN_GRID`.
    """
    rule = f"verdict on U_a: {_tolerance_rule(f'{stated:g}')}"
    if curve.empty:
        return _row(figure, quantity, paper, NOT_IN_GRID, "no", rule, "not run")
    found = _crossing(curve, level(curve["vo_total_mean"].to_numpy(dtype=float)))
    if math.isnan(found):
        return _row(figure, quantity, paper, _UNREACHED, "no", rule, cause)
    ordinal = curve["evaluation"].iloc[0] == "ordinal"
    value = f"U_a = {found:.1f}" if ordinal else f"U_a = {found:.0f} %"
    match = verdict(found, stated, *TOLERANCE)
    return _row(figure, quantity, paper, value, match, rule, cause)


def _value_rows(table: pd.DataFrame) -> list[Fidelity]:
    """Fig. 1's maximum and alternatives per job, the midpoints of Figs. 1 and 3, Fig. 4's line."""
    fig1 = _curve_of(table, _CONFLICTING_ORDINAL)
    per_job = float(fig1["alternatives_per_job"].mean()) if len(fig1) else math.nan
    match = verdict(per_job, PAPER_ALTERNATIVES, *TOLERANCE)
    rows = [
        _row(
            "VO Preferences Fig. 1 (§5.1)",
            "alternatives per job, conflicting preferences",
            f"{PAPER_ALTERNATIVES:g}",
            NOT_IN_GRID if fig1.empty else f"{per_job:.1f}",
            match,
            _tolerance_rule(f"{PAPER_ALTERNATIVES:g}"),
            _FEWER,
        ),
        _located(
            "VO Preferences Fig. 1 (§5.1)",
            "limit U_a (ranks) at which the batch cost reaches its maximum",
            f"U_a = {PAPER_MAXIMUM_UA:g}",
            PAPER_MAXIMUM_UA,
            fig1,
            lambda y: y.max() - 1e-9 * abs(y.max()),
            f"known cause (module docstring): vosim's jobs have {per_job:.1f} alternatives, not "
            "6.3, so their ranks end lower (the paper's 5.3 is 6.3 less one)",
        ),
    ]
    for figure, problem in (
        ("VO Preferences Fig. 1 (§5.1)", _CONFLICTING_ORDINAL),
        ("VO Preferences Fig. 3, §5.2", _CONFLICTING),
    ):
        stated = PAPER_MIDPOINT_UA[PROBLEMS[problem][3]]
        ordinal = PROBLEMS[problem][3] == "ordinal"
        rows.append(
            _located(
                figure,
                "U_a at which the batch cost reaches the midpoint of its extremes, conflicting",
                f"U_a = {stated:g}"
                if ordinal
                else f"U_a ≈ {stated:g} %: the point ({stated:g} %, 50 %)",
                stated,
                _curve_of(table, problem),
                lambda y: (y[0] + y[-1]) / 2,
            )
        )
    percent = PAPER_MIDPOINT_UA["relative"]
    rows.append(
        _located(
            "VO Preferences Fig. 4 (§5.1)",
            f"U_a at which the batch time falls to the VO's best + {PAPER_TIME_MARGIN * 100:g} %",
            f"U_a = {PAPER_TIME_UA:g} (second alternatives; ≈ {percent:g} % by §5.2)",
            percent,
            _curve_of(table, _TIME),
            lambda y: y.min() * (1 + PAPER_TIME_MARGIN),
        )
    )
    return rows


def _compromise_rows(table: pd.DataFrame) -> list[Fidelity]:
    """The compromise points of the conflicting ``C -> max`` problem (Figs. 5-6)."""
    points = table[(table["problem"] == _CONFLICTING) & (table["point"] != "curve")]
    rows = []
    for point, figure, what in (
        ("equal", "VO Preferences Fig. 5 (§5.2)", "compromise A = U_a, conflicting C->max"),
        ("additive", "VO Preferences Fig. 6 (§5.2)", "least A + U_a, conflicting C->max"),
    ):
        stated = PAPER_COMPROMISE[point]
        paper = f"({stated[0]:g} %, {stated[1]:g} %)"
        found = points[points["point"] == point]
        if point == "equal":  # on the line A = U_a, U_a says it all
            judged = stated[:1]
            rule = f"verdict on U_a (A = U_a on the line): {_tolerance_rule(f'{stated[0]:g}')}"
        else:
            judged = stated
            rule = "worst of the verdicts on U_a and A: " + _tolerance_rule("the paper's")
        if found.empty:
            rows.append(_row(figure, what, paper, NOT_IN_GRID, "no", rule, "not run"))
            continue
        xy = (float(found["ua"].iloc[0]), float(found["a_mean"].iloc[0]))
        if math.isnan(xy[0]):
            rows.append(_row(figure, what, paper, _UNREACHED, "no", rule, _UNKNOWN))
            continue
        match = max(
            (verdict(v, s, *TOLERANCE) for v, s in zip(xy, judged, strict=False)),
            key=MATCHES.index,
        )
        value = f"({xy[0]:.0f} %, {xy[1]:.0f} %)"
        rows.append(_row(figure, what, paper, value, match, rule, _UNKNOWN))
    return rows


def _claim_rows(table: pd.DataFrame) -> list[Fidelity]:
    """The qualitative claims: monotone curves (Figs. 1-4), mixed above conflicting (Fig. 2)."""
    monotone = []
    for problem, (_, _, objective, _) in PROBLEMS.items():
        totals = _curve_of(table, problem)["vo_total_mean"].to_numpy(dtype=float)
        if totals.size:
            sense = 1.0 if objective == "cost" else -1.0
            slack = 1e-9 * np.abs(totals).max()
            monotone.append(bool((np.diff(totals) * sense >= -slack).all()))
    k, n = sum(monotone), len(monotone)
    match = "yes" if n == len(PROBLEMS) and k == n else "partly" if k else "no"
    rows = [
        _row(
            "VO Preferences Figs. 1-4 (§5.1)",
            "the VO's criterion improves as U_a grows",
            "cost rises to its maximum (Figs. 1-3); time falls to its least at 100 % (Fig. 4)",
            f"monotone in {k} of {n} curves" if n else NOT_IN_GRID,
            match,
            f"yes if all {len(PROBLEMS)} mean curves are monotone (relative 1e-9), partly if "
            "one is, no otherwise",
            _UNKNOWN if n == len(PROBLEMS) else "not every problem was run",
        )
    ]
    both = pd.merge(
        _curve_of(table, _CONFLICTING_ORDINAL)[["ua", "vo_total_mean", "a_mean"]],
        _curve_of(table, _MIXED_ORDINAL)[["ua", "vo_total_mean", "a_mean"]],
        on="ua",
        suffixes=("_conflicting", "_mixed"),
    )
    m = len(both)
    # the batch cost itself (what Figs. 1-2 plot), and A: the cost relative to each mix's own
    # extremes (the mixes share each repetition's domain and job sizes; only criteria differ)
    higher = int((both["vo_total_mean_mixed"] >= both["vo_total_mean_conflicting"]).sum())
    closer = int((both["a_mean_mixed"] <= both["a_mean_conflicting"] + 1e-9).sum())
    if m and higher == m:
        match = "yes"
    else:
        match = "partly" if m and (2 * higher >= m or closer == m) else "no"
    rows.append(
        _row(
            "VO Preferences Fig. 2 (§5.1)",
            "batch cost with mixed preferences vs conflicting, at equal U_a (ranks)",
            "higher (better for the VO) with mixed preferences",
            f"cost: mixed at least conflicting at {higher} of {m} U_a; A: mixed at most "
            f"conflicting at {closer} of {m}"
            if m
            else NOT_IN_GRID,
            match,
            "yes if the mixed mean cost is at least the conflicting one at every U_a of the grid; "
            "partly if at half of them or more, or if the mixed A (cost relative to its own "
            "extremes) is at most the conflicting one at every U_a; no otherwise",
            "not the random draws: both mixes run on each repetition's same domain and job "
            "sizes (common random numbers); cause unknown"
            if m
            else "not run",
        )
    )
    return rows


def fidelity(table: pd.DataFrame) -> list[Fidelity]:
    """The values and claims §5 states beside vosim's, for ``vo-preferences-fig1-6``.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table (:data:`COLUMNS`): rows with ``point == "curve"`` (``problem``,
        one of :data:`PROBLEMS`; ``evaluation``; ``ua``; the mean batch total
        ``vo_total_mean``; ``alternatives_per_job``) and the compromise rows
        (``point`` ``"equal"`` / ``"additive"``, at ``(ua, a_mean)``).

    Returns
    -------
    list of Fidelity
        Fig. 1: alternatives per job (6.3) and the limit where the cost peaks (``U_a = 5.3``);
        the ``U_a`` where the conflicting cost reaches the midpoint of its extremes (Fig. 1:
        ``U_a = 1``; Fig. 3 and §5.2: 25 %); Fig. 4: where the batch time falls to the VO's
        best + 1.5 % (``U_a = 1``, compared as 25 %); Figs. 5-6: the compromise points
        (37 %, 37 %) and (45 %, 28 %) of the conflicting ``C -> max`` problem. Each is judged
        by :func:`~vosim.runs.experiments.base.verdict` with :data:`TOLERANCE` (a located
        ``U_a`` is linearly interpolated between grid points). Two claims: the VO's criterion
        improves with ``U_a`` (Figs. 1-4) and mixed preferences give a higher cost than
        conflicting ones (Fig. 2; partly if only relative to each mix's extremes, ``A``). A
        problem or point absent from the table (or a level its curve never reaches) gives its
        row with "no".

    Notes
    -----
    The paper's agreed preferences (compromise at (0 %, 0 %), §5.2) are not run here, so they
    have no row.

    References
    ----------
    VO Preferences §5.1 (Figs. 1-4) and §5.2 (Figs. 5-6).
    """
    return [*_value_rows(table), *_compromise_rows(table), *_claim_rows(table)]


FIG1_6 = register_experiment(
    Experiment(
        name="vo-preferences-fig1-6",
        description=(
            "VO Preferences Figs. 1-6: batch cost/time vs U_a (ordinal and relative U, "
            "conflicting and mixed preferences), the (A, U_a) plane and A + U_a with the "
            "compromise points; 40 jobs on 100 nodes, 20 batches by default"
        ),
        default_repetitions=20,
        quick_repetitions=2,
        run=run,
        points=lambda quick: len(PROBLEMS),
        fidelity=fidelity,
    )
)
