"""The simulation study of ICCS 2023 (group dependencies): Figs. 4-8 as named experiments.

Toporkov, Yemelyanov, Tselishchev, *Allocation of Distributed Resources with Group Dependencies
and Availability Uncertainties*, ICCS 2023 (``group-dependencies-iccs2023.md``), §3:

``iccs2023-fig2``
    Fig. 2 (§2.1): the worked example, one resource's availability over ``[545, 844]`` between
    two jobs' release and allocation events and the global events: ``0.5 x 0.5 x 0.94 =
    0.235``.
``iccs2023-fig4-5``
    Figs. 4 and 5 (§3.2): ``N = 21`` resources in ``G = 8`` groups, no cost limit
    (``C = sum c_i``), ``n = 1..21``: mean window availability ``P_a^w`` (eq. 3) and mean
    calculation time of BruteForce, KnapsackGroup, Greedy, Greedy+, KnapsackSingle and vosim's
    exact multiple-choice DP.
``iccs2023-fig6``
    Fig. 6 (§3.2): ``N = 21``, ``G = 8``, ``n = 8``, budget ``C = 30, 40, ..., 120``.
``iccs2023-fig7-8``
    Figs. 7 and 8 (§3.3): ``N = 200``, ``G = 40``, ``n = 20``, ``C = 40, 60, ..., 220``, without
    BruteForce; with the mean and median tree sizes of the branch and bound methods (the paper:
    "almost 5000" for KnapsackGroup at ``C = 40``, "nearly 100" at ``C = 120``).

What the paper leaves open and what is chosen here:

* **Instances.** "Randomized characteristics c_i, p_i and group dependencies", no distribution
  given. :func:`vosim.market.iccs_generators.random_groups` (its docstring derives each choice
  from the text): integer costs in ``{2, ..., 10}`` for the whole reservation that rise with
  the group's availability (the paper's budget statements say the most available resources
  are the dearest), group availabilities uniform in ``[0.47, 0.94]`` (the occupation
  probabilities of its Fig. 1), a uniformly random partition with every group non-empty.
* **Common random numbers.** Repetition ``r`` uses the same instance at every point of a
  figure (every ``n`` of Figs. 4-5, every ``C`` of Figs. 6-8), so the curves compare the same
  instances.
* **Repetitions.** The paper does not say how many instances it averaged; defaults here are
  20-30 per point so that each experiment finishes in a few minutes on two cores.
* **Reported values** (over the *feasible* instances of each point, those where a window
  within ``C`` exists; ``feasible_share`` is their share): means of the eq. (3) availability
  of each method's selection, its sample standard deviation, the mean wall time of
  :func:`~vosim.allocators.availability_problem.allocate_resources` (``stats["seconds"]``), the
  share where
  the method finds a window (``found_share``) and where it reaches the optimum of ``exact``
  (relative tolerance 1e-9) and, for the branch and bound methods, the mean and median
  ``tree_size`` (candidate solutions created, the root included), Fig. 8's point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import altair as alt
import numpy as np
import pandas as pd

# importing these modules registers their methods: brute_force and exact; greedy_united;
# knapsack_group, greedy and greedy_plus; knapsack_p
from vosim.allocators import exact, greedy, group_bnb, knapsack  # noqa: F401
from vosim.allocators.availability_problem import AvailabilityProblem, allocate_resources
from vosim.market.availability import EventChain, availability
from vosim.market.iccs_generators import random_groups
from vosim.runs.experiments.base import (
    Experiment,
    ExperimentConfig,
    Fidelity,
    cell,
    close_row,
    factor_row,
    fidelity_row,
    method_colour,
    paper_marks,
    percent,
    register_experiment,
    value_labels,
)

__all__ = [
    "COLUMNS",
    "LABELS",
    "SMALL_METHODS",
    "LARGE_METHODS",
    "TREE_METHODS",
    "FIG2_COLUMNS",
    "FIG2_PAPER",
    "FIG4_PAPER_SINGLE_GAP",
    "FIG5_PAPER_BRUTE",
    "FIG5_PAPER_BRUTE_PEAK",
    "FIG5_PAPER_SPEEDUPS",
    "FIG6_PAPER_SINGLE_ADVANTAGE",
    "FIG6_PAPER_GREEDY_GAP",
    "FIG6_PAPER_GREEDY_OPTIMAL_ABOVE",
    "FIG7_PAPER_GREEDY_LOSS",
    "FIG7_PAPER_SINGLE_GAP",
    "FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE",
    "FIG8_PAPER_TREE",
    "FIG8_PAPER_SECONDS",
    "fidelity_fig2",
    "fidelity_fig4_5",
    "fidelity_fig6",
    "fidelity_fig7_8",
]

#: Methods of §3.2 (N = 21), in the paper's order, plus vosim's exact DP.
SMALL_METHODS = ("brute_force", "knapsack_group", "greedy", "greedy_plus", "knapsack_p", "exact")
#: Methods of §3.3 (N = 200): BruteForce is impractical there.
LARGE_METHODS = SMALL_METHODS[1:]
#: The §2.4 branch and bound methods, which report a tree size.
TREE_METHODS = ("knapsack_group", "greedy", "greedy_plus")
#: The paper's name of each method (legend of the charts).
LABELS = {
    "brute_force": "BruteForce",
    "knapsack_group": "KnapsackGroup",
    "greedy": "Greedy",
    "greedy_plus": "Greedy+",
    "knapsack_p": "KnapsackSingle",
    "exact": "Exact (group DP)",
}
#: Columns of every table of this module (``n`` and ``C`` are the figure's axes).
COLUMNS = [
    "n",
    "C",
    "method",
    "label",
    "mean_probability",
    "std_probability",
    "mean_seconds",
    "repetitions",
    "feasible_share",
    "found_share",
    "optimal_share",
    "mean_tree_size",
    "median_tree_size",
]

#: §3.2, Fig. 4: KnapsackSingle "up to 5 % lower" than BruteForce (equal at n = 1 and n = N).
FIG4_PAPER_SINGLE_GAP = 0.05
#: §3.2, Fig. 5: BruteForce's time "exceeds half a second for n = 11" (n, seconds) ...
FIG5_PAPER_BRUTE = (11, 0.5)
#: ... and "dramatically increases for n in [7; 15]".
FIG5_PAPER_BRUTE_PEAK = (7, 15)
#: §3.2, Fig. 5: how many times faster than BruteForce's maximum KnapsackGroup is ("100 times
#: lower") and Greedy at best ("up to 1000 times faster").
FIG5_PAPER_SPEEDUPS = {"knapsack_group": 100.0, "greedy": 1000.0}
#: §3.2, Fig. 6: KnapsackGroup's "almost constant 5 % advantage" over KnapsackSingle ...
FIG6_PAPER_SINGLE_ADVANTAGE = 0.05
#: ... the greedy methods "within 5 % of the exact solution" ...
FIG6_PAPER_GREEDY_GAP = 0.05
#: ... and equal to BruteForce "for C > 90".
FIG6_PAPER_GREEDY_OPTIMAL_ABOVE = 90
#: §3.3, Fig. 7: KnapsackGroup's advantage over the greedy methods "exceeds 20 % for some C" ...
FIG7_PAPER_GREEDY_LOSS = 0.2
#: ... KnapsackSingle "only 10 % lower than the exact solution" ...
FIG7_PAPER_SINGLE_GAP = 0.1
#: ... and Greedy outperforms KnapsackSingle "only in scenarios with C > 200".
FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE = 200
#: §3.3, Fig. 8: KnapsackGroup's mean tree size by C ("almost 5000", "nearly 100") ...
FIG8_PAPER_TREE = {40: 5000.0, 120: 100.0}
#: ... and its time ("nearly 8 seconds"; at C = 120 "sub second": an upper bound of 1 s).
FIG8_PAPER_SECONDS = {40: 8.0, 120: 1.0}

#: Relative tolerance under which a method's probability counts as the optimum.
_OPT_RTOL = 1e-9
#: Keys of the instance streams (one per experiment; see ExperimentConfig.rngs).
_KEY_FIG4_5, _KEY_FIG6, _KEY_FIG7_8 = 20234, 20236, 20237

Progress = Callable[[int], None]


# ---------------------------------------------------------------------------------------------
# shared machinery


def _instances(config: ExperimentConfig, key: int, N: int, G: int) -> list[tuple]:
    """The ``config.repetitions`` random instances of one experiment (the same at every point)."""
    return [random_groups(N, G, rng) for rng in config.rngs(key)]


def _point(
    instances: Iterable[tuple],
    n: int,
    budget: Callable[[np.ndarray], float],
    method_names: tuple[str, ...],
) -> dict[str, dict[str, list]]:
    """Solve every instance at one figure point with every method; raw per-instance results."""
    raw: dict[str, dict[str, list]] = {
        m: {"p": [], "s": [], "tree": [], "feasible": []} for m in method_names
    }
    for cost, group, group_p in instances:
        problem = AvailabilityProblem(
            cost=cost, group=group, group_p=group_p, n=n, budget=budget(cost)
        )
        for m in method_names:
            res = allocate_resources(problem, m)
            raw[m]["p"].append(res.probability)
            raw[m]["s"].append(res.stats["seconds"])
            raw[m]["tree"].append(res.stats.get("tree_size", np.nan))
            raw[m]["feasible"].append(res.status.found)
    return raw


def _rows(raw: dict[str, dict[str, list]], **axes: float) -> list[dict]:
    """Aggregate one figure point's raw results into one row per method.

    Means, spreads, times, tree sizes and shares are over the *feasible* instances only: those
    where the exact DP finds a window within ``C`` (an infeasible instance has no availability
    to compare; counting it as 0 made the means measure feasibility). ``feasible_share`` is
    their share of all instances; NaN statistics when none is feasible.
    """
    feasible = np.asarray(raw["exact"]["feasible"], dtype=bool)
    best = np.asarray(raw["exact"]["p"], dtype=float)[feasible]
    rows = []
    for m, r in raw.items():
        p = np.asarray(r["p"], dtype=float)[feasible]
        tree = np.asarray(r["tree"], dtype=float)[feasible]
        seconds = np.asarray(r["s"], dtype=float)[feasible]
        found = np.asarray(r["feasible"], dtype=bool)[feasible]
        some = p.size > 0
        has_tree = m in TREE_METHODS and some
        rows.append(
            {
                **axes,
                "method": m,
                "label": LABELS[m],
                "mean_probability": float(p.mean()) if some else np.nan,
                "std_probability": float(p.std(ddof=1)) if p.size > 1 else np.nan,
                "mean_seconds": float(seconds.mean()) if some else np.nan,
                "repetitions": int(feasible.size),
                "feasible_share": float(feasible.mean()),
                "found_share": float(found.mean()) if some else np.nan,
                "optimal_share": float(np.mean(p >= best * (1 - _OPT_RTOL))) if some else np.nan,
                "mean_tree_size": float(tree.mean()) if has_tree else np.nan,
                "median_tree_size": float(np.median(tree)) if has_tree else np.nan,
            }
        )
    return rows


def _table(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["n"] = table["n"].astype("int64")
    table["repetitions"] = table["repetitions"].astype("int64")
    return table


def _relative(
    table: pd.DataFrame, x: str, factor: float, text: str, dy: float = 14
) -> alt.LayerChart:
    """The paper's relative statement as a dotted line at ``factor`` x vosim's optimum.

    The label sits at the line's right end, ``dy`` pixels below it (negative: above).
    """
    ref = table.loc[table["method"] == "exact", [x, "mean_probability"]].dropna()
    ref = ref.assign(y=factor * ref["mean_probability"], text=text)
    line = alt.Chart(ref).mark_line(color="black", strokeDash=[2, 3]).encode(x=f"{x}:Q", y="y:Q")
    label = (
        alt.Chart(ref.tail(1))
        .mark_text(align="right", dy=dy, color="black")
        .encode(x=f"{x}:Q", y="y:Q", text="text:N")
    )
    return alt.layer(line, label)


def _panel(
    table: pd.DataFrame,
    x: str,
    x_title: str,
    y: alt.Y,
    title: str,
    paper: alt.TopLevelMixin,
    methods: tuple[str, ...] = SMALL_METHODS,
) -> alt.LayerChart:
    """Lines per method (one colour each) with the paper's values layered over them."""
    rows = table[table["method"].isin(methods)]
    lines = (
        alt.Chart(rows)
        .mark_line(point=True)
        .encode(
            x=alt.X(f"{x}:Q", title=x_title),
            y=y,
            color=method_colour("label", rows["label"]),
            strokeDash=alt.StrokeDash("label:N", legend=None),
            tooltip=[
                "label:N",
                f"{x}:Q",
                alt.Tooltip("mean_probability:Q", format=".4f"),
                alt.Tooltip("optimal_share:Q", format=".0%"),
                alt.Tooltip("feasible_share:Q", format=".0%"),
                alt.Tooltip("mean_seconds:Q", format=".2e"),
                alt.Tooltip("mean_tree_size:Q", format=".0f"),
                "repetitions:Q",
            ],
        )
    )
    return alt.layer(lines, paper).properties(width=520, height=220, title=title)


def _probability(table: pd.DataFrame, x: str, x_title: str, paper: alt.TopLevelMixin):
    y = alt.Y("mean_probability:Q", title="mean P_a^w (feasible instances)")
    return _panel(table, x, x_title, y.scale(zero=False), "availability of the window", paper)


def _seconds(table: pd.DataFrame, x: str, x_title: str, paper: alt.TopLevelMixin):
    y = alt.Y("mean_seconds:Q", title="mean time (s)", scale=alt.Scale(type="log"))
    return _panel(table, x, x_title, y, "calculation time", paper)


# ---------------------------------------------------------------------------------------------
# Figs. 4 and 5


def _fig4_5_grid(quick: bool) -> list[int]:
    return [1, 4, 8, 14, 18, 21] if quick else list(range(1, 22))


def run_fig4_5(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Figs. 4-5: ``P_a^w`` and time against ``n`` (N = 21, G = 8, no cost limit).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``n``), seed; ``quick`` takes ``n`` in
        ``{1, 4, 8, 14, 18, 21}`` instead of ``1..21``.
    progress : callable
        Called with 1 after each ``n``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``n`` and method, columns :data:`COLUMNS` (``C`` is NaN: the budget is each
        instance's total cost ``sum c_i``).
    chart : altair.VConcatChart
        Mean ``P_a^w`` (Fig. 4) and mean time on a log scale (Fig. 5) against ``n``.

    Notes
    -----
    The paper (§3.2) finds KnapsackGroup, Greedy and Greedy+ equal to BruteForce at every
    ``n`` (without a budget the greedy relaxations are exact), KnapsackSingle up to 5 % lower
    except at ``n = 1`` and ``n = 21``, and BruteForce's time peaking for ``n`` in ``[7, 15]``.
    """
    instances = _instances(config, _KEY_FIG4_5, 21, 8)
    rows: list[dict] = []
    for n in _fig4_5_grid(config.quick):
        raw = _point(instances, n, lambda cost: float(cost.sum()), SMALL_METHODS)
        rows += _rows(raw, n=n, C=np.nan)
        progress(1)
    table = _table(rows)
    x_title = "requested resources n"
    single = _relative(
        table,
        "n",
        1 - FIG4_PAPER_SINGLE_GAP,
        "paper: KnapsackSingle at most 5 % below the optimum",
    )
    brute = pd.DataFrame(
        {
            "n": [FIG5_PAPER_BRUTE[0]],
            "mean_seconds": [FIG5_PAPER_BRUTE[1]],
            "text": ["paper: BruteForce > 0.5 s"],
        }
    )
    chart = alt.vconcat(
        _probability(table, "n", x_title, single),
        _seconds(table, "n", x_title, paper_marks(brute, "n:Q", "mean_seconds:Q")),
    ).properties(title="ICCS 2023 Figs. 4-5: N = 21, G = 8, no cost limit")
    return table, chart


# ---------------------------------------------------------------------------------------------
# Fig. 6


def _fig6_grid(quick: bool) -> list[int]:
    return [30, 60, 90, 120] if quick else list(range(30, 121, 10))


def run_fig6(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Fig. 6: ``P_a^w`` against the budget ``C`` (N = 21, G = 8, n = 8).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``C``), seed; ``quick`` takes ``C`` in ``{30, 60, 90, 120}``
        instead of ``30, 40, ..., 120``.
    progress : callable
        Called with 1 after each ``C``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``C`` and method, columns :data:`COLUMNS`.
    chart : altair.Chart
        Mean ``P_a^w`` against ``C``, a line per method.

    Notes
    -----
    The paper finds KnapsackGroup equal to BruteForce at every ``C``, about 5 % above
    KnapsackSingle, and the greedy methods within 5 % of the optimum, reaching it for
    ``C > 90``.
    """
    instances = _instances(config, _KEY_FIG6, 21, 8)
    rows: list[dict] = []
    for C in _fig6_grid(config.quick):
        rows += _rows(_point(instances, 8, lambda cost, C=C: float(C), SMALL_METHODS), n=8, C=C)
        progress(1)
    table = _table(rows)
    single = _relative(
        table, "C", 1 - FIG6_PAPER_SINGLE_ADVANTAGE, "paper: KnapsackSingle about 5 % below"
    )
    at_90 = alt.Chart(
        pd.DataFrame(
            {"C": [FIG6_PAPER_GREEDY_OPTIMAL_ABOVE], "text": ["paper: greedy optimal for C > 90"]}
        )
    )
    rule = alt.layer(
        at_90.mark_rule(color="black", strokeDash=[2, 3]).encode(x="C:Q"),
        at_90.mark_text(align="left", dx=4, y=8, color="black").encode(x="C:Q", text="text:N"),
    )
    chart = _probability(table, "C", "budget C", alt.layer(single, rule)).properties(
        title="ICCS 2023 Fig. 6: N = 21, G = 8, n = 8"
    )
    return table, chart


# ---------------------------------------------------------------------------------------------
# Figs. 7 and 8


def _fig7_8_grid(quick: bool) -> list[int]:
    return [80, 140, 220] if quick else list(range(40, 221, 20))


def run_fig7_8(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Figs. 7-8: ``P_a^w``, time and tree size against ``C`` (N = 200, G = 40, n = 20).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``C``), seed; ``quick`` takes ``C`` in ``{80, 140, 220}``
        (the tight budgets, whose trees are largest, are left to the full run).
    progress : callable
        Called with 1 after each ``C``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``C`` and method (no BruteForce), columns :data:`COLUMNS`, with the mean
        and median tree sizes of KnapsackGroup, Greedy and Greedy+.
    chart : altair.VConcatChart
        Mean ``P_a^w`` (Fig. 7) and mean time on a log scale (Fig. 8) against ``C``.

    Notes
    -----
    The paper uses KnapsackGroup as the reference here: greedy methods lose more than 20 % for
    some ``C``, KnapsackSingle about 10 %; the trees shrink from almost 5000 candidates
    (about 8 s) at ``C = 40`` to about 100 at ``C = 120``. ``exact`` is vosim's multiple-choice
    DP (not in the paper), which gives the same optimum without a tree.
    """
    instances = _instances(config, _KEY_FIG7_8, 200, 40)
    rows: list[dict] = []
    for C in _fig7_8_grid(config.quick):
        rows += _rows(_point(instances, 20, lambda cost, C=C: float(C), LARGE_METHODS), n=20, C=C)
        progress(1)
    table = _table(rows)
    x_title = "budget C"
    relative = alt.layer(
        _relative(
            table, "C", 1 - FIG7_PAPER_SINGLE_GAP, "paper: KnapsackSingle about 10 % below", dy=-10
        ),
        _relative(
            table, "C", 1 - FIG7_PAPER_GREEDY_LOSS, "paper: greedy over 20 % below at some C", dy=14
        ),
    )
    time_8s = pd.DataFrame(
        {"C": [40], "mean_seconds": [FIG8_PAPER_SECONDS[40]], "text": ["paper: about 8 s"]}
    )
    trees = pd.DataFrame(
        {
            "C": list(FIG8_PAPER_TREE),
            "mean_tree_size": list(FIG8_PAPER_TREE.values()),
            "text": ["paper: almost 5000", "paper: about 100"],
        }
    )
    tree_y = alt.Y("mean_tree_size:Q", title="mean tree size", scale=alt.Scale(type="log"))
    chart = alt.vconcat(
        _probability(table, "C", x_title, relative),
        _seconds(table, "C", x_title, paper_marks(time_8s, "C:Q", "mean_seconds:Q")),
        _panel(
            table,
            "C",
            x_title,
            tree_y,
            "size of the branch and bound tree (Fig. 8's point)",
            paper_marks(trees, "C:Q", "mean_tree_size:Q"),
            TREE_METHODS,
        ),
    ).properties(title="ICCS 2023 Figs. 7-8: N = 200, G = 40, n = 20")
    return table, chart


# ---------------------------------------------------------------------------------------------
# Fidelity: the paper's stated values beside vosim's (helpers shared with the ICCS 2021 module)

#: The greedy branch and bound methods, whose loss the paper states together.
_GREEDY = ["greedy", "greedy_plus"]
#: The reason's note on every timing row.
_TIMES_NOTE = "Times depend on the machine and the implementation."


def _by(table: pd.DataFrame, x: str, column: str = "mean_probability") -> pd.DataFrame:
    """``column`` of ``table`` with one row per value of the axis ``x``, one column per method."""
    return table.pivot(index=x, columns="method", values=column).sort_index()


def _first_everywhere(flags: pd.Series) -> float | None:
    """The smallest index from which ``flags`` holds at every larger index; ``None``: never."""
    first = None
    for x, flag in reversed(list(flags.items())):
        if not flag:
            break
        first = x
    return first


def _optimal_row(table: pd.DataFrame, x: str, method: str, figure: str) -> Fidelity:
    """The paper's "same P_a^w as BruteForce at every point": ``method``'s ``optimal_share``."""
    share = _by(table, x, "optimal_share")[method].dropna()
    optimal = (share >= 1 - 1e-12).to_numpy()
    return fidelity_row(
        figure,
        f"{LABELS[method]} against BruteForce at every {x}",
        f"the same P_a^w at every {x}",
        optimal if optimal.size else None,
        lambda v: f"optimal on every instance at {v.sum()} of {v.size} values of {x}",
        lambda v: "yes" if v.all() else "partly" if v.mean() >= 0.5 else "no",
        f"Yes if the method reaches the optimum on every feasible instance at every {x} of the "
        "run, partly at half of them or more.",
    )


def _worst(gap: pd.DataFrame) -> tuple[float, str, float] | None:
    """The greatest value of ``gap`` (one column per method): (value, method label, x)."""
    stacked = gap.stack().dropna()
    if stacked.empty:
        return None
    at, method = stacked.idxmax()
    return float(stacked.max()), LABELS[method], float(at)


def fidelity_fig4_5(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2023 Figs. 4-5: the §3.2 statements on ``P_a^w`` and times against ``n``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig4_5`'s table: columns :data:`COLUMNS`, one row per ``n`` and method
        (``mean_probability``, ``optimal_share``, ``mean_seconds``).

    Returns
    -------
    list of Fidelity
        KnapsackGroup, Greedy and Greedy+ equal to BruteForce at every ``n``; KnapsackSingle's
        greatest shortfall (:data:`FIG4_PAPER_SINGLE_GAP`) and its optimum at ``n = 1`` and
        ``n = 21``; BruteForce's time peak (:data:`FIG5_PAPER_BRUTE_PEAK`) and time at
        ``n = 11`` (:data:`FIG5_PAPER_BRUTE`); BruteForce's maximum over KnapsackGroup's time
        and over Greedy's (:data:`FIG5_PAPER_SPEEDUPS`).

    References
    ----------
    ICCS 2023 §3.2, Figs. 4 and 5.
    """
    fig4, fig5 = "ICCS 2023 Fig. 4 (§3.2)", "ICCS 2023 Fig. 5 (§3.2)"
    p, s = _by(table, "n"), _by(table, "n", "mean_seconds")
    gap = _worst((1 - p["knapsack_p"] / p["brute_force"]).to_frame("knapsack_p"))
    ends = [cell(table, "optimal_share", n=n, method="knapsack_p") for n in (1, 21)]
    brute = s["brute_force"].dropna()
    peak = brute.idxmax() if len(brute) else None
    low, high = FIG5_PAPER_BRUTE_PEAK
    at_n, over = FIG5_PAPER_BRUTE
    speedups = {
        "knapsack_group": brute.max() / s.loc[peak, "knapsack_group"] if peak is not None else None,
        "greedy": (s["brute_force"] / s["greedy"]).max() if peak is not None else None,
    }
    quantities = {
        "knapsack_group": "how many times KnapsackGroup's time is below BruteForce's longest",
        "greedy": "how many times faster than BruteForce Greedy is at best",
    }
    stated = {"knapsack_group": "{:g} times lower", "greedy": "up to {:g} times faster"}
    return [
        *(_optimal_row(table, "n", m, fig4) for m in TREE_METHODS),
        close_row(
            fig4,
            "KnapsackSingle's greatest shortfall below BruteForce over n",
            FIG4_PAPER_SINGLE_GAP,
            gap[0] if gap else None,
            0.4,
            1.0,
            stated=f"up to {percent(FIG4_PAPER_SINGLE_GAP)}",
            show=lambda v: f"{percent(v)} (n = {gap[2]:g})",
        ),
        fidelity_row(
            fig4,
            "KnapsackSingle optimal at n = 1 and n = 21",
            "equal to BruteForce at n = 1 and n = 21",
            None if None in ends else ends,
            lambda v: f"optimal on {percent(v[0])} of instances at n = 1, {percent(v[1])} at 21",
            lambda v: "yes" if min(v) >= 1 - 1e-12 else "partly" if max(v) >= 1 - 1e-12 else "no",
            "Yes if optimal on every instance at both, partly at one.",
        ),
        fidelity_row(
            fig5,
            "n of BruteForce's longest mean time",
            f"n in [{low}, {high}]",
            peak,
            lambda v: f"n = {v:g} ({brute.max():.2g} s)",
            lambda v: "yes" if low <= v <= high else "no",
            f"Yes if the n of BruteForce's longest mean time lies in [{low}, {high}].",
        ),
        fidelity_row(
            fig5,
            f"BruteForce's mean time at n = {at_n}",
            f"over {over:g} s",
            cell(table, "mean_seconds", n=at_n, method="brute_force"),
            lambda v: f"{v:.2g} s",
            lambda v: "yes" if v >= over else "partly" if v >= over / 10 else "no",
            f"Yes if at least {over:g} s, partly if at least a tenth of it. {_TIMES_NOTE}",
        ),
        *(
            factor_row(
                fig5,
                quantities[m],
                paper,
                speedups[m],
                2.0,
                10.0,
                stated=stated[m].format(paper),
                show=lambda v: f"{v:.3g} times",
                note=_TIMES_NOTE,
            )
            for m, paper in FIG5_PAPER_SPEEDUPS.items()
        ),
    ]


def fidelity_fig6(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2023 Fig. 6: the §3.2 statements on ``P_a^w`` against the budget ``C``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig6`'s table: columns :data:`COLUMNS`, one row per ``C`` and method
        (``mean_probability``, ``optimal_share``).

    Returns
    -------
    list of Fidelity
        KnapsackGroup equal to BruteForce at every ``C``; its mean advantage over
        KnapsackSingle (:data:`FIG6_PAPER_SINGLE_ADVANTAGE`); the greedy methods' greatest
        shortfall (:data:`FIG6_PAPER_GREEDY_GAP`) and the ``C`` from which they reach the
        optimum (:data:`FIG6_PAPER_GREEDY_OPTIMAL_ABOVE`).

    References
    ----------
    ICCS 2023 §3.2, Fig. 6.
    """
    figure = "ICCS 2023 Fig. 6 (§3.2)"
    p = _by(table, "C")
    advantage = (p["knapsack_group"] / p["knapsack_p"] - 1).dropna()
    shortfall = _worst(1 - p[_GREEDY].div(p["brute_force"], axis=0))
    optimal = _by(table, "C", "optimal_share")[_GREEDY].min(axis=1) >= 1 - 1e-12
    above = FIG6_PAPER_GREEDY_OPTIMAL_ABOVE
    grid_above = [c for c in optimal.index if c > above]
    first = _first_everywhere(optimal)
    return [
        _optimal_row(table, "C", "knapsack_group", figure),
        close_row(
            figure,
            "KnapsackGroup's advantage over KnapsackSingle (mean over C)",
            FIG6_PAPER_SINGLE_ADVANTAGE,
            float(advantage.mean()) if len(advantage) else None,
            0.4,
            1.0,
            stated=f"about {percent(FIG6_PAPER_SINGLE_ADVANTAGE)}, almost constant",
            show=lambda v: (
                f"{percent(v)} ({percent(advantage.min())} to {percent(advantage.max())})"
            ),
        ),
        fidelity_row(
            figure,
            "greatest shortfall of Greedy and Greedy+ below BruteForce over C",
            f"within {percent(FIG6_PAPER_GREEDY_GAP)}",
            shortfall,
            lambda v: f"{percent(v[0])} ({v[1]}, C = {v[2]:g})",
            lambda v: (
                "yes"
                if v[0] <= FIG6_PAPER_GREEDY_GAP
                else "partly"
                if v[0] <= 2 * FIG6_PAPER_GREEDY_GAP
                else "no"
            ),
            f"Yes if at most {percent(FIG6_PAPER_GREEDY_GAP)}, partly if at most twice it.",
        ),
        fidelity_row(
            figure,
            "C from which Greedy and Greedy+ reach BruteForce",
            f"C > {above}",
            (first if first is not None else np.inf) if grid_above else None,
            lambda v: f"from C = {v:g}" if np.isfinite(v) else "at no C",
            lambda v: "yes" if v == grid_above[0] else "partly" if abs(v - above) <= 20 else "no",
            f"Yes if both are optimal on every instance from the run's first C above {above} on "
            f"and not before, partly if from a C within 20 of {above}.",
        ),
    ]


def fidelity_fig7_8(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2023 Figs. 7-8: the §3.3 statements on ``P_a^w``, tree sizes and times against ``C``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig7_8`'s table: columns :data:`COLUMNS`, one row per ``C`` and method
        (``mean_probability``, ``mean_seconds``, ``mean_tree_size``).

    Returns
    -------
    list of Fidelity
        The greedy methods' greatest loss against KnapsackGroup (:data:`FIG7_PAPER_GREEDY_LOSS`),
        KnapsackSingle's mean shortfall (:data:`FIG7_PAPER_SINGLE_GAP`), the budgets where
        Greedy beats KnapsackSingle (:data:`FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE`), and
        KnapsackGroup's mean tree size and time at ``C = 40`` and ``C = 120``
        (:data:`FIG8_PAPER_TREE`, :data:`FIG8_PAPER_SECONDS`).

    References
    ----------
    ICCS 2023 §3.3, Figs. 7 and 8.
    """
    fig7, fig8 = "ICCS 2023 Fig. 7 (§3.3)", "ICCS 2023 Fig. 8 (§3.3)"
    p = _by(table, "C")
    loss = _worst(1 - p[_GREEDY].div(p["knapsack_group"], axis=0))
    single = (1 - p["knapsack_p"] / p["knapsack_group"]).dropna()
    beats = [float(c) for c in p.index[p["greedy"] > p["knapsack_p"] * (1 + 1e-12)]]
    above = FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE
    fast_c, slow_c = max(FIG8_PAPER_SECONDS), min(FIG8_PAPER_SECONDS)
    under = FIG8_PAPER_SECONDS[fast_c]
    wording = {40: "almost", 120: "nearly"}  # §3.3's words for FIG8_PAPER_TREE

    def group(column: str, C: float) -> float | None:
        return cell(table, column, C=C, method="knapsack_group")

    return [
        fidelity_row(
            fig7,
            "greatest loss of Greedy and Greedy+ against KnapsackGroup over C",
            f"over {percent(FIG7_PAPER_GREEDY_LOSS)} at some C",
            loss,
            lambda v: f"{percent(v[0])} ({v[1]}, C = {v[2]:g})",
            lambda v: (
                "yes"
                if v[0] > FIG7_PAPER_GREEDY_LOSS
                else "partly"
                if v[0] > FIG7_PAPER_GREEDY_LOSS / 2
                else "no"
            ),
            f"Yes if vosim's greatest loss exceeds {percent(FIG7_PAPER_GREEDY_LOSS)}, partly if "
            "it exceeds half that.",
        ),
        close_row(
            fig7,
            "KnapsackSingle's shortfall below KnapsackGroup (mean over C)",
            FIG7_PAPER_SINGLE_GAP,
            float(single.mean()) if len(single) else None,
            0.3,
            1.0,
            stated=f"about {percent(FIG7_PAPER_SINGLE_GAP)}",
            show=lambda v: f"{percent(v)} ({percent(single.min())} to {percent(single.max())})",
        ),
        fidelity_row(
            fig7,
            "budgets C where Greedy beats KnapsackSingle",
            f"only C > {above}",
            beats if len(p) else None,
            lambda v: "C = " + ", ".join(f"{c:g}" for c in v) if v else "no C",
            lambda v: "yes" if all(c > above for c in v) else "no",
            f"Yes if Greedy's mean exceeds KnapsackSingle's at no C <= {above} of the run.",
        ),
        *(
            factor_row(
                fig8,
                f"KnapsackGroup's mean tree size at C = {C}",
                size,
                group("mean_tree_size", C),
                1.5,
                3.0,
                stated=f"{wording[C]} {size:g}",
                show=lambda v: f"{v:.0f}",
            )
            for C, size in FIG8_PAPER_TREE.items()
        ),
        factor_row(
            fig8,
            f"KnapsackGroup's mean time at C = {slow_c}",
            FIG8_PAPER_SECONDS[slow_c],
            group("mean_seconds", slow_c),
            2.0,
            10.0,
            stated=f"nearly {FIG8_PAPER_SECONDS[slow_c]:g} s",
            show=lambda v: f"{v:.2g} s",
            note=_TIMES_NOTE,
        ),
        fidelity_row(
            fig8,
            f"KnapsackGroup's mean time at C = {fast_c}",
            f"under {under:g} s",
            group("mean_seconds", fast_c),
            lambda v: f"{v:.2g} s",
            lambda v: "yes" if v < under else "no",
            f"Yes if under {under:g} s. {_TIMES_NOTE}",
        ),
    ]


FIG4_5 = register_experiment(
    Experiment(
        name="iccs2023-fig4-5",
        description=(
            "ICCS 2023 Figs. 4-5: P_a^w and time vs n = 1..21 (N = 21, G = 8, no cost limit), "
            "BruteForce, KnapsackGroup, Greedy, Greedy+, KnapsackSingle, exact DP; "
            "20 instances per point by default (the paper does not say how many)"
        ),
        default_repetitions=20,
        quick_repetitions=2,
        run=run_fig4_5,
        points=lambda quick: len(_fig4_5_grid(quick)),
        fidelity=fidelity_fig4_5,
    )
)

FIG6 = register_experiment(
    Experiment(
        name="iccs2023-fig6",
        description=(
            "ICCS 2023 Fig. 6: P_a^w vs budget C = 30..120 (N = 21, G = 8, n = 8), all methods "
            "with BruteForce; 30 instances per point by default"
        ),
        default_repetitions=30,
        quick_repetitions=2,
        run=run_fig6,
        points=lambda quick: len(_fig6_grid(quick)),
        fidelity=fidelity_fig6,
    )
)

FIG7_8 = register_experiment(
    Experiment(
        name="iccs2023-fig7-8",
        description=(
            "ICCS 2023 Figs. 7-8: P_a^w, time and tree size vs budget C = 40..220 (N = 200, "
            "G = 40, n = 20), no BruteForce; 20 instances per point by default"
        ),
        default_repetitions=20,
        quick_repetitions=2,
        run=run_fig7_8,
        points=lambda quick: len(_fig7_8_grid(quick)),
        fidelity=fidelity_fig7_8,
    )
)


# ---------------------------------------------------------------------------------------------
# Fig. 2: the worked example

#: Fig. 1's two jobs on one resource: allocation expected at 85 and 844, execution from 133
#: and 921, release expected at 545 and 1250 (the paper's times). The execution ends (450,
#: 1150) and the standard deviations are vosim's: the paper gives neither, and neither changes
#: the example (``P_o`` is 0.5 at an expected time whatever its spread).
FIG2_JOBS = (
    EventChain(133, 450, alloc_time=85, alloc_sd=16, release_time=545, release_sd=40),
    EventChain(921, 1150, alloc_time=844, alloc_sd=25, release_time=1250, release_sd=60),
)
#: Fig. 1's global utilization events: a total occupation probability of 0.06.
FIG2_GLOBAL_P = 0.06
#: The interval of Fig. 2 (the dotted rectangle): ``T = [545; 844]``.
FIG2_INTERVAL = (545.0, 844.0)
#: §2.1: ``P_a(e_1) = P_a(e_2) = 0.5``, ``P_a(e_3) = 0.94``, ``P_a^r = 0.235``.
FIG2_PAPER = {"release at 545": 0.5, "allocation at 844": 0.5, "global": 0.94, "P_a^r": 0.235}
#: Columns of the Fig. 2 table.
FIG2_COLUMNS = ["event", "max_p_occupied", "p_available", "paper_p_available"]


def run_fig2(config: ExperimentConfig, progress: Progress) -> tuple[pd.DataFrame, alt.LayerChart]:
    """ICCS 2023 Fig. 2: the worked example of a resource's availability over ``[545, 844]``.

    Parameters
    ----------
    config : ExperimentConfig
        Unused beyond the interface (the example is deterministic).
    progress : callable
        Called with 1 once.

    Returns
    -------
    table : pandas.DataFrame
        One row per independent event active in the interval (the first job's release, the
        second's allocation, the global events) and one for the resource, columns
        :data:`FIG2_COLUMNS`: ``P_o^max`` over the interval, ``P_a = 1 - P_o^max`` (their
        product for the resource) and the paper's value.
    chart : altair.LayerChart
        The occupation probability ``P_o(t)`` of the two jobs (Figs. 1-2) with the interval
        shaded and the paper's ``P_a^r = 0.235`` beside vosim's.

    References
    ----------
    ICCS 2023 §2.1, steps 1-3 and the example of Fig. 2; Fig. 1 (the events' times).
    """
    start, end = FIG2_INTERVAL
    duration = end - start
    first, second = FIG2_JOBS
    p_o = [
        float(first.max_p_occupied([start], duration)[0]),
        float(second.max_p_occupied([start], duration)[0]),
        FIG2_GLOBAL_P,
    ]
    total = availability(FIG2_JOBS, start, duration, global_p=FIG2_GLOBAL_P)
    events = list(FIG2_PAPER)
    table = pd.DataFrame(
        {
            "event": events,
            "max_p_occupied": [*p_o, np.nan],
            "p_available": [*(1.0 - p for p in p_o), float(total)],
            "paper_p_available": list(FIG2_PAPER.values()),
        },
        columns=FIG2_COLUMNS,
    )
    progress(1)
    t = np.linspace(0.0, 1400.0, 1401)
    curve = pd.DataFrame(
        {
            "t": np.concatenate([t, t]),
            "p_occupied": np.concatenate([first.p_occupied(t), second.p_occupied(t)]),
            "job": ["job 1"] * t.size + ["job 2"] * t.size,
        }
    )
    x = alt.X("t:Q", title="time", scale=alt.Scale(domain=[0, 1400]))
    y = alt.Y("p_occupied:Q", title="occupation probability P_o", scale=alt.Scale(domain=[0, 1]))
    band = (
        alt.Chart(pd.DataFrame({"a": [start], "b": [end]}))
        .mark_rect(opacity=0.12, color="gray")
        .encode(x="a:Q", x2="b:Q")
    )
    lines = alt.Chart(curve).mark_line().encode(x=x, y=y, color=alt.Color("job:N", title=None))
    glob = alt.Chart(pd.DataFrame({"p": [FIG2_GLOBAL_P]})).mark_rule(color="gray").encode(y="p:Q")
    label = value_labels(
        "t:Q",
        "p_occupied:Q",
        (start + 10, 0.78),
        [f"vosim: P_a^r = {total:.3f}", f"paper: P_a^r = {FIG2_PAPER['P_a^r']}"],
    )
    chart = alt.layer(band, glob, lines, label).properties(
        width=560,
        height=260,
        title="ICCS 2023 Fig. 2: availability of a resource over [545, 844] (shaded); "
        "gray line: global events, P_o = 0.06",
    )
    return table, chart


def fidelity_fig2(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2023 Fig. 2: each availability of the worked example beside the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig2`'s table: columns :data:`FIG2_COLUMNS`, one row per ``event`` (the
        keys of :data:`FIG2_PAPER`) with vosim's ``p_available``.

    Returns
    -------
    list of Fidelity
        One row per value of :data:`FIG2_PAPER`: ``P_a(e_1) = P_a(e_2) = 0.5``,
        ``P_a(e_3) = 0.94`` and the resource's ``P_a^r = 0.235``.

    References
    ----------
    ICCS 2023 §2.1 and Fig. 2.
    """
    return [
        close_row(
            "ICCS 2023 Fig. 2 (§2.1)",
            f"availability over [545, 844]: {event}",
            paper,
            cell(table, "p_available", event=event),
            0.01,
            0.05,
        )
        for event, paper in FIG2_PAPER.items()
    ]


FIG2 = register_experiment(
    Experiment(
        name="iccs2023-fig2",
        description=(
            "ICCS 2023 Fig. 2: the worked example, a resource's availability over [545, 844] "
            "between two jobs and global events (paper: 0.5 x 0.5 x 0.94 = 0.235)"
        ),
        default_repetitions=1,
        quick_repetitions=1,
        run=run_fig2,
        points=lambda quick: 1,
        fidelity=fidelity_fig2,
    )
)
