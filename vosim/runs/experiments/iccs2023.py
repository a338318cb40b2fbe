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
  given. :func:`vosim.market.availability.random_groups` (its docstring derives each choice
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
  :func:`~vosim.allocators.problem.allocate_resources` (``stats["seconds"]``), the share where
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
from vosim.allocators import exact, greedy, groups, knapsack  # noqa: F401
from vosim.allocators.problem import AvailabilityProblem, allocate_resources
from vosim.market.availability import EventChain, availability, random_groups
from vosim.runs.experiments.base import (
    Experiment,
    ExperimentConfig,
    paper_marks,
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


#: One colour per method (Tableau 10), the same on every ICCS 2023 chart.
COLOURS = {
    "BruteForce": "#4c78a8",
    "KnapsackGroup": "#f58518",
    "Greedy": "#54a24b",
    "Greedy+": "#b279a2",
    "KnapsackSingle": "#e45756",
    "Exact (group DP)": "#79706e",
}


def _colour(labels: Iterable[str]) -> alt.Color:
    """The method colours of :data:`COLOURS`, with a legend of the methods drawn only."""
    shown = [label for label in COLOURS if label in set(labels)]
    return alt.Color(
        "label:N",
        title="method",
        scale=alt.Scale(domain=shown, range=[COLOURS[label] for label in shown]),
    )


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
            color=_colour(rows["label"]),
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
    single = _relative(table, "n", 0.95, "paper: KnapsackSingle at most 5 % below the optimum")
    brute = pd.DataFrame({"n": [11], "mean_seconds": [0.5], "text": ["paper: BruteForce > 0.5 s"]})
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
    single = _relative(table, "C", 0.95, "paper: KnapsackSingle about 5 % below")
    at_90 = alt.Chart(pd.DataFrame({"C": [90], "text": ["paper: greedy optimal for C > 90"]}))
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
        _relative(table, "C", 0.9, "paper: KnapsackSingle about 10 % below", dy=-10),
        _relative(table, "C", 0.8, "paper: greedy over 20 % below at some C", dy=14),
    )
    time_8s = pd.DataFrame({"C": [40], "mean_seconds": [8.0], "text": ["paper: about 8 s"]})
    trees = pd.DataFrame(
        {
            "C": [40, 120],
            "mean_tree_size": [5000.0, 100.0],
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
    )
)
