"""The Knapsack Grid slides' claims beside vosim's verdicts (``vosim experiment all``).

The claims of :data:`~vosim.runs.experiments.knapsack_grid.setup.CLAIMS` and the reference
strategies' ranking for ``knapsack-grid`` (:func:`grid_fidelity`), the claims at the slides'
``lambda`` for ``knapsack-grid-lambda`` (:func:`lambda_fidelity`), and the worked example's
optimum and options for ``knapsack-grid-example`` (:func:`example_fidelity`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from vosim.runs.experiments.base import MATCHES, NOT_IN_GRID, Fidelity, verdict
from vosim.runs.experiments.knapsack_grid.setup import (
    CLAIMS,
    EXAMPLE_CHOICE,
    EXAMPLE_OPTIMUM,
    EXAMPLE_TASKS,
    SLIDES_LAMBDA,
)
from vosim.runs.experiments.knapsack_grid_simulator import EASY, Gang

#: Where the slides state each claim of :data:`CLAIMS`: (slide title, the slides' words).
CLAIM_SLIDES = {
    CLAIMS[0]: ("KS+BF is Best and Provides QoS", "KS+BF is best, even while providing QoS"),
    CLAIMS[1]: ("Final Task Completion Times", "Knapsack does better than Gang"),
    CLAIMS[2]: ("Speedup Relative to FCFS", "Knapsack has the largest task speedup"),
    CLAIMS[3]: (
        "Performance Measurements",
        "provide QoS without increasing overall completion times",
    ),
}
#: The known cause (README, "Knapsack allocation of task options across clusters") of each
#: claim vosim does not reproduce; the others' is unknown.
CLAIM_CAUSES = {CLAIMS[0]: "known cause (README): KS+BF ends within 1 % of EASY, not below it"}
#: The share of the streams in which a claim must hold (besides on the means) for "yes".
CLAIM_STREAMS_YES = 0.75
#: The slide of the reference strategies' ranking ("Ref. Strategies: BF is best, gang
#: struggles with large tau").
REFERENCE_SLIDE = "Final Task Completion Times"


def _reason(rule: str, match: str, cause: str) -> str:
    """The rule, and the cause of a value that does not match (``cause`` unless ``"yes"``)."""
    return f"{rule}." if match == "yes" else f"{rule}; {cause}."


def _claim_rows(table: pd.DataFrame, where: str, notes: dict[str, str]) -> list[Fidelity]:
    """One row per claim of :data:`CLAIMS`, judged on ``table``'s claim rows.

    ``table``: the strategy and claim rows of one comparison (:func:`_compare`); ``where``
    names the run in the figure column; ``notes``: claim -> what qualifies its rule.
    """
    strategy_rows = table[table["kind"] == "strategy"]
    streams = int(strategy_rows["repetitions"].max()) if len(strategy_rows) else 0
    claims = table[table["kind"] == "claim"]
    rows = []
    for claim in CLAIMS:
        rule = (
            f"yes if it holds on the means and in at least {CLAIM_STREAMS_YES * 100:g} % of the "
            f"streams, partly if on the means or in at least one stream, no otherwise"
            f"{notes.get(claim, '')}"
        )
        slide, words = CLAIM_SLIDES[claim]
        found = claims[claims["claim"] == claim]
        figure = f'Knapsack Grid slides, "{slide}" ({where})'
        if found.empty or streams == 0:
            rows.append(
                Fidelity(figure, claim, f'"{words}"', NOT_IN_GRID, "no", f"{rule}; not run.")
            )
            continue
        holds = bool(found["holds"].iloc[0])
        k = int(found["streams_holding"].iloc[0])
        if holds and k >= CLAIM_STREAMS_YES * streams:
            match = "yes"
        else:
            match = "partly" if holds or k >= 1 else "no"
        value = f"{'holds' if holds else 'does not hold'} on the means; in {k} of {streams} streams"
        cause = CLAIM_CAUSES.get(claim, "cause unknown")
        rows.append(
            Fidelity(figure, claim, f'"{words}"', value, match, _reason(rule, match, cause))
        )
    return rows


def _ranking_row(
    strategy_rows: pd.DataFrame, quantity: str, words: str, best: str, others: list[str]
) -> Fidelity:
    """Whether ``best`` has a lower mean overall completion time than each of ``others``."""
    times = strategy_rows.set_index("strategy")["overall_completion_time"]
    figure = f'Knapsack Grid slides, "{REFERENCE_SLIDE}"'
    rule = (
        f"yes if {best}'s mean overall completion time is below each of the others' (means over "
        "the streams: the table keeps no per-stream times), no otherwise"
    )
    names = [best, *others]
    if not others or not set(names) <= set(times.index):
        return Fidelity(figure, quantity, f'"{words}"', NOT_IN_GRID, "no", f"{rule}; not run.")
    match = "yes" if all(times[best] < times[o] for o in others) else "no"
    value = "; ".join(f"{n} {times[n]:,.0f} h" for n in names)
    return Fidelity(
        figure, quantity, f'"{words}"', value, match, _reason(rule, match, "cause unknown")
    )


def grid_fidelity(table: pd.DataFrame) -> list[Fidelity]:
    """The slides' claims beside vosim's verdicts, for ``knapsack-grid``.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table (:data:`COLUMNS`): rows of kind ``strategy`` (``strategy``,
        ``family``, ``overall_completion_time``, ``repetitions``: the streams) and of kind
        ``claim`` (``claim``, one of :data:`CLAIMS`; ``holds`` on the means;
        ``streams_holding``).

    Returns
    -------
    list of Fidelity
        One row per claim of :data:`CLAIMS` (yes if it holds on the means and in at least
        :data:`CLAIM_STREAMS_YES` of the streams, partly if on the means or in one stream), and
        the reference strategies' ranking: BF (EASY) has the lowest completion time of FCFS,
        BF and gang, and gang with 10 h slices ends later than with 1 h (on the means). A
        strategy the run did not simulate (gang 10 h in ``--quick``) gives vosim
        :data:`NOT_IN_GRID` and "no".

    References
    ----------
    Knapsack Grid slides, "Final Task Completion Times" ("Ref. Strategies: BF is best, gang
    struggles with large tau"; "Knapsack does better than Gang"), "KS+BF is Best and Provides
    QoS", "Speedup Relative to FCFS", "Performance Measurements"; README, "Knapsack
    allocation of task options across clusters" (what is not reproduced).
    """
    rows = table[table["kind"] == "strategy"]
    references = rows.loc[rows["family"].isin(["FCFS", "gang"]), "strategy"].tolist()
    return [
        *_claim_rows(table, f"{len(rows)} strategies, lambda = {SLIDES_LAMBDA:g} h", {}),
        _ranking_row(
            rows,
            "BF has the lowest overall completion time of the reference strategies",
            "Ref. Strategies: BF is best",
            EASY().name,
            references,
        ),
        _ranking_row(
            rows,
            "gang's overall completion time grows with its slice (1 h, 10 h)",
            "gang struggles with large tau",
            Gang(1.0).name,
            [Gang(10.0).name],
        ),
    ]


def lambda_fidelity(table: pd.DataFrame) -> list[Fidelity]:
    """The claims at the slides' ``lambda`` beside the sweep's, for ``knapsack-grid-lambda``.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table: a column ``lambda`` (hours) and :data:`COLUMNS`, the strategy
        and claim rows of each ``lambda`` (see :func:`grid_fidelity`).

    Returns
    -------
    list of Fidelity
        One row per claim of :data:`CLAIMS` at :data:`SLIDES_LAMBDA` (the rule of
        :func:`grid_fidelity`; the sweep runs one strategy per family, so the QoS claim rests on
        policy 1 alone). The slides state nothing at the sweep's other ``lambda``. A table
        without ``lambda = 0.64 h`` gives every claim vosim :data:`NOT_IN_GRID` and "no".

    References
    ----------
    Knapsack Grid slides, "Overall Completion Time of Selected Policies For lambda=0.64hr",
    and the slides of :data:`CLAIM_SLIDES`; README, "Knapsack allocation of task options
    across clusters".
    """
    at = table[np.isclose(table["lambda"].astype(float), SLIDES_LAMBDA)]
    where = f"lambda sweep at {SLIDES_LAMBDA:g} h, one strategy per family"
    return _claim_rows(at, where, {CLAIMS[3]: " (the sweep runs knapsack policy 1 only)"})


def example_fidelity(table: pd.DataFrame) -> list[Fidelity]:
    """The example's optimum and its options beside the DP's and the MILP's.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table (:data:`EXAMPLE_COLUMNS`): one row per option (``task``,
        ``option``, ``credit``), whether each solver chose it (``chosen_dp``,
        ``chosen_milp``) and their optimum (``optimum_dp``, ``optimum_milp``).

    Returns
    -------
    list of Fidelity
        The optimum :data:`EXAMPLE_OPTIMUM` (yes if both solvers reach it to a relative
        1e-9, by :func:`~vosim.runs.experiments.base.verdict`, no otherwise) and the options
        :data:`EXAMPLE_CHOICE` (yes if both solvers choose them, partly if one does). An empty
        table gives vosim :data:`NOT_IN_GRID` and "no".

    References
    ----------
    Knapsack Grid slides, "Two Tasks and Their Options", "Constructing the Problem" (the
    slides pose the problem; 20 is its optimum).
    """
    figure = 'Knapsack Grid slides, "Constructing the Problem"'
    optimum = "optimum of the two tasks' multiple-choice knapsack"
    options = "options chosen at the optimum"
    paper_options = ", ".join(
        f"task {i + 1} option {j} (${EXAMPLE_TASKS[i][j - 1][0]:g})"
        for i, j in enumerate(EXAMPLE_CHOICE)
    )
    solvers = {"DP": "dp", "MILP": "milp"}
    if table.empty:
        return [
            Fidelity(figure, q, p, NOT_IN_GRID, "no", "the table holds no option; not run.")
            for q, p in ((optimum, f"${EXAMPLE_OPTIMUM:g}"), (options, paper_options))
        ]
    values = {s: float(table[f"optimum_{c}"].iloc[0]) for s, c in solvers.items()}
    match = max(
        (verdict(v, EXAMPLE_OPTIMUM, 1e-9, 1e-9) for v in values.values()), key=MATCHES.index
    )
    rule = "yes if both the DP's and the MILP's optimum equal it (relative 1e-9), no otherwise"
    rows = [
        Fidelity(
            figure,
            optimum,
            f"${EXAMPLE_OPTIMUM:g}",
            ", ".join(f"${v:g} ({s})" for s, v in values.items()),
            match,
            _reason(rule, match, "cause unknown"),
        )
    ]
    picked = {}
    for s, c in solvers.items():
        chosen = table[table[f"chosen_{c}"].astype(bool)]
        picked[s] = dict(zip(chosen["task"].astype(int), chosen["option"].astype(int), strict=True))
    wanted = {i + 1: j for i, j in enumerate(EXAMPLE_CHOICE)}
    agree = sum(p == wanted for p in picked.values())
    match = "yes" if agree == len(solvers) else "partly" if agree else "no"
    rule = "yes if both the DP and the MILP choose them, partly if one does, no otherwise"
    value = "; ".join(
        f"{s}: " + ", ".join(f"task {t} option {o}" for t, o in sorted(p.items()))
        for s, p in picked.items()
    )
    rows.append(
        Fidelity(
            figure, options, paper_options, value, match, _reason(rule, match, "cause unknown")
        )
    )
    return rows
