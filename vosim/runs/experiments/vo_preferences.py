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
from vosim.allocators.css import VOPolicy, batch_rows
from vosim.market.domains import vo_preferences_batch, vo_preferences_domain
from vosim.runs.experiments.base import Experiment, ExperimentConfig, register_experiment

__all__ = ["PROBLEMS", "PAPER_COMPROMISE", "COLUMNS", "USER_WINDOW_CRITERIA"]

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
    # Common random numbers: repetition r uses the same domain and batch sizes for every
    # problem of a mix, so the curves compare the same instances.
    cache: dict[tuple[str, int], tuple] = {}
    for problem, (figure, mix, objective, evaluation) in PROBLEMS.items():
        grid = grids[evaluation]
        totals, a_values, realised, per_job = [], [], [], []
        for rep, rng in enumerate(config.rngs(len(mix))):
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
            level, text = ends["min"] * 1.015, "paper: VO's best + 1.5 %"
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
    )
)
