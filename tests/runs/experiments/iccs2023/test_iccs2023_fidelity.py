"""Fidelity rows of the ICCS 2023 experiments (rows of ``fidelity.md``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from runs.experiments.iccs2023.iccs_fidelity_checks import (  # noqa: F401 (the fixture)
    check_quick_rows,
    check_verdicts,
    quick_table,
)

from vosim.runs.experiments import iccs2023
from vosim.runs.experiments.base import NO_VALUE, NOT_IN_GRID

#: name -> (fidelity function, rows, texts the rows' paper fields must contain: the paper's
#: values as the module's constants hold them, written as the paper states them)
EXPECTED: dict[str, tuple[Callable, int, list[str]]] = {
    "iccs2023-fig2": (iccs2023.fidelity_fig2, 4, ["0.5", "0.5", "0.94", "0.235"]),
    "iccs2023-fig4-5": (
        iccs2023.fidelity_fig4_5,
        9,
        ["up to 5 %", "n in [7, 15]", "over 0.5 s", "100 times", "1000 times"],
    ),
    "iccs2023-fig6": (
        iccs2023.fidelity_fig6,
        4,
        ["the same P_a^w at every C", "about 5 %, almost constant", "within 5 %", "C > 90"],
    ),
    "iccs2023-fig7-8": (
        iccs2023.fidelity_fig7_8,
        7,
        [
            "over 20 % at some C",
            "about 10 %",
            "only C > 200",
            "almost 5000",
            "nearly 100",
            "nearly 8 s",
            "under 1 s",
        ],
    ),
}
#: Rows whose point a quick grid lacks: fig4-5 n = 11; fig7-8 C = 40, 120.
NOT_IN_QUICK_GRID = {"iccs2023-fig4-5": 1, "iccs2023-fig7-8": 4}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_quick_run_gives_the_papers_values_beside_vosims(quick_table, name):  # noqa: F811
    missing = NOT_IN_QUICK_GRID.get(name, 0)
    check_quick_rows(name, *EXPECTED[name], quick_table(name), missing)


# ---------------------------------------------------------------------------------------------
# hand-made tables: one as the paper states (every row "yes"), one far from it (every row "no")


def _fig2_2023(value: float | None) -> pd.DataFrame:
    paper = iccs2023.FIG2_PAPER
    return pd.DataFrame(
        {
            "event": list(paper),
            "p_available": [v if value is None else value for v in paper.values()],
            "paper_p_available": list(paper.values()),
        }
    ).reindex(columns=iccs2023.FIG2_COLUMNS)


def _groups(axis: str, grid: list[int], methods: tuple[str, ...], **columns) -> pd.DataFrame:
    """A table of :data:`iccs2023.COLUMNS`; ``columns``: name -> f(method, x) -> value."""
    rows = []
    for x in grid:
        for m in methods:
            row = {"n": 8, "C": np.nan, "method": m, "label": iccs2023.LABELS[m], axis: x}
            row.update({name: f(m, x) for name, f in columns.items()})
            rows.append(row)
    return pd.DataFrame(rows).reindex(columns=iccs2023.COLUMNS)


def _fig4_5(like_paper: bool) -> pd.DataFrame:
    ends = (1, 21)
    if like_paper:
        gap, tree_optimal, single_end, peak = 0.05, 1.0, 1.0, 11
        seconds = {"brute_force": 0.01, "knapsack_group": 0.01, "greedy": 0.001}
    else:
        gap, tree_optimal, single_end, peak = 0.5, 0.0, 0.0, 21
        seconds = {"brute_force": 0.001, "knapsack_group": 0.002, "greedy": 0.002}

    def probability(m: str, n: int) -> float:
        return 0.8 * (1 - gap) if m == "knapsack_p" and n not in ends else 0.8

    def optimal(m: str, n: int) -> float:
        if m == "knapsack_p":
            return single_end if n in ends else 0.0
        return tree_optimal if m in iccs2023.TREE_METHODS else 1.0

    def time(m: str, n: int) -> float:
        if m == "brute_force" and n == peak:
            return 1.0 if like_paper else 0.003
        return seconds.get(m, 0.001)

    return _groups(
        "n",
        list(range(1, 22)),
        iccs2023.SMALL_METHODS,
        mean_probability=probability,
        optimal_share=optimal,
        mean_seconds=time,
    )


def _fig6(like_paper: bool) -> pd.DataFrame:
    def probability(m: str, C: int) -> float:
        if m == "knapsack_p":
            return 0.95 if like_paper else 0.5
        if m in ("greedy", "greedy_plus"):
            return (0.97 if C <= 90 else 1.0) if like_paper else 0.5
        return 1.0

    def optimal(m: str, C: int) -> float:
        if m in ("greedy", "greedy_plus"):
            return float(like_paper and C > 90)
        if m == "knapsack_group":
            return float(like_paper)
        return float(m != "knapsack_p")

    return _groups(
        "C",
        list(range(30, 121, 10)),
        iccs2023.SMALL_METHODS,
        mean_probability=probability,
        optimal_share=optimal,
    )


def _fig7_8(like_paper: bool) -> pd.DataFrame:
    trees = {40: 5000.0, 120: 100.0} if like_paper else {40: 50.0, 120: 10_000.0}
    seconds = {40: 8.0, 120: 0.5} if like_paper else {40: 0.01, 120: 5.0}

    def probability(m: str, C: int) -> float:
        if not like_paper:
            return {"knapsack_p": 0.5, "greedy": 0.95, "greedy_plus": 0.95}.get(m, 1.0)
        if m == "knapsack_p":
            return 0.9
        if m == "greedy":
            return 0.75 if C == 100 else 0.95 if C > 200 else 0.85
        return 0.85 if m == "greedy_plus" else 1.0

    def tree(m: str, C: int) -> float:
        return trees.get(C, 300.0) if m in iccs2023.TREE_METHODS else np.nan

    return _groups(
        "C",
        list(range(40, 221, 20)),
        iccs2023.LARGE_METHODS,
        n=lambda m, C: 20,
        mean_probability=probability,
        mean_tree_size=tree,
        mean_seconds=lambda m, C: seconds.get(C, 0.1),
    )


#: name -> (a table as the paper states, a table far from it)
HAND_MADE: dict[str, tuple[Callable[[], pd.DataFrame], Callable[[], pd.DataFrame]]] = {
    "iccs2023-fig2": (lambda: _fig2_2023(None), lambda: _fig2_2023(0.1)),
    "iccs2023-fig4-5": (lambda: _fig4_5(True), lambda: _fig4_5(False)),
    "iccs2023-fig6": (lambda: _fig6(True), lambda: _fig6(False)),
    "iccs2023-fig7-8": (lambda: _fig7_8(True), lambda: _fig7_8(False)),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_verdicts_flip_between_the_papers_values_and_far_ones(name):
    function, count, _ = EXPECTED[name]
    like_paper, far = (make() for make in HAND_MADE[name])
    check_verdicts(function, count, like_paper, far)


def test_tolerances_give_partly_in_between():
    # Fig. 8: KnapsackGroup's tree at C = 40, almost 5000: a factor 1.5 -> yes, 3 -> partly
    for size, expected in ((4000.0, "yes"), (2000.0, "partly"), (500.0, "no")):
        table = _fig7_8(True)
        table.loc[(table["C"] == 40) & (table["method"] == "knapsack_group"), "mean_tree_size"] = (
            size
        )
        row = next(
            r for r in iccs2023.fidelity_fig7_8(table) if "tree size at C = 40" in r.quantity
        )
        assert (row.paper, row.vosim, row.match) == ("almost 5000", f"{size:.0f}", expected)


def test_a_point_outside_the_grid_is_reported_not_skipped():
    table = _fig7_8(True)
    table = table[~table["C"].isin([40, 120])]
    rows = iccs2023.fidelity_fig7_8(table)
    missing = [r for r in rows if r.vosim == NOT_IN_GRID]
    assert len(missing) == 4 and {r.match for r in missing} == {"no"}
    assert all("C = 40" in r.quantity or "C = 120" in r.quantity for r in missing)
    assert all(r.reason.startswith("Not in this run's grid.") for r in missing)


def test_a_point_without_a_value_is_reported_as_such():
    # e.g. no feasible instance at C = 40: the table holds NaN there
    table = _fig7_8(True)
    at_40 = (table["C"] == 40) & (table["method"] == "knapsack_group")
    table.loc[at_40, ["mean_tree_size", "mean_seconds"]] = np.nan
    rows = [r for r in iccs2023.fidelity_fig7_8(table) if "C = 40" in r.quantity]
    assert [(r.vosim, r.match) for r in rows] == [(NO_VALUE, "no")] * 2
    assert all(r.reason.endswith("Cause unknown.") for r in rows)
