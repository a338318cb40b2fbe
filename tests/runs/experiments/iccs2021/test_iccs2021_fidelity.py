"""Fidelity rows of the ICCS 2021 experiments (rows of ``fidelity.md``)."""

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

from vosim.runs.experiments import iccs2021

#: name -> (fidelity function, rows, texts the rows' paper fields must contain: the paper's
#: values as the module's constants hold them, written as the paper states them)
EXPECTED: dict[str, tuple[Callable, int, list[str]]] = {
    "iccs2021-fig2": (iccs2021.fidelity_fig2, 1, ["0.14"]),
    "iccs2021-fig3": (iccs2021.fidelity_fig3, 2, ["0.93 at t = 834", "t = 834"]),
    "iccs2021-fig5": (
        iccs2021.fidelity_fig5,
        7,
        ["0.96", "0.87", "about 9 %", "almost 0 %", "(0.1 %)", "none (P_a^w = 0)"],
    ),
    "iccs2021-table1": (
        iccs2021.fidelity_table1,
        8,
        ["0.8", "0.93", "0.99", "6.8x", "0.953", "143x", "0.94", "1000x"],
    ),
}
#: Rows whose point a quick grid lacks: fig5 job-load 0.9.
NOT_IN_QUICK_GRID = {"iccs2021-fig5": 1}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_quick_run_gives_the_papers_values_beside_vosims(quick_table, name):  # noqa: F811
    missing = NOT_IN_QUICK_GRID.get(name, 0)
    check_quick_rows(name, *EXPECTED[name], quick_table(name), missing)


# ---------------------------------------------------------------------------------------------
# hand-made tables: one as the paper states (every row "yes"), one far from it (every row "no")


def _fig2_2021(ks: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "repetition": [0, 0],
            "marginal": ["processors", "run_time"],
            "ks": [ks, 0.9],
            "paper_ks": [0.14, np.nan],
        }
    )


def _fig3_2021(peak_t: float, peak_p: float) -> pd.DataFrame:
    t = np.arange(1201.0)
    return pd.DataFrame(
        {
            "scenario": 0,
            "t": t,
            "probability": peak_p * np.exp(-(((t - peak_t) / 300) ** 2)),
            "best": t == peak_t,
            "paper_t": 834.0,
            "paper_probability": 0.93,
        }
    )


def _fig5_2021(knapsack: list[float], greedy: list[float], found: list[float]) -> pd.DataFrame:
    rows = []
    for k, (pk, pg, share) in enumerate(zip(knapsack, greedy, found, strict=True)):
        for method, p in (("knapsack_p", pk), ("greedy_united", pg)):
            rows.append(
                {
                    "job_load": k / 10,
                    "method": method,
                    "mean_probability": p,
                    "found_share": share,
                    "advantage": p / pg - 1 if pg > 0 else np.nan,
                    "repetitions": 200,
                }
            )
    return pd.DataFrame(rows).reindex(columns=iccs2021.FIG5_COLUMNS)


def _fig5_like_paper() -> pd.DataFrame:
    load = np.arange(11) / 10
    advantage = 0.09 * (1 - load)  # from 9 % at job-load 0 to 0.9 % at 0.9
    knapsack = 0.96 * (1 - load)
    return _fig5_2021(list(knapsack), list(knapsack / (1 + advantage)), [1.0] * 9 + [0.001, 0.0])


def _fig5_far() -> pd.DataFrame:
    knapsack = [0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.4, 0.4, 0.4, 0.3, 0.2]
    greedy = [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.1, 0.1]  # Knapsack below at 0.5
    return _fig5_2021(knapsack, greedy, [1.0] * 9 + [0.5, 0.5])


def _table1(accuracy: float | None, speedup_factor: float) -> pd.DataFrame:
    rows = [
        {
            "method": method,
            "scan": scan,
            "starts": starts,
            "label": label,
            "accuracy": acc if accuracy is None else accuracy,
            "speedup": speed * speedup_factor,
        }
        for method, scan, starts, label, acc, speed in iccs2021._TABLE1_ROWS
    ]
    return pd.DataFrame(rows).reindex(columns=iccs2021.TABLE1_COLUMNS)


#: name -> (a table as the paper states, a table far from it)
HAND_MADE: dict[str, tuple[Callable[[], pd.DataFrame], Callable[[], pd.DataFrame]]] = {
    "iccs2021-fig2": (lambda: _fig2_2021(0.14), lambda: _fig2_2021(0.5)),
    "iccs2021-fig3": (lambda: _fig3_2021(834.0, 0.93), lambda: _fig3_2021(0.0, 0.3)),
    "iccs2021-fig5": (_fig5_like_paper, _fig5_far),
    "iccs2021-table1": (lambda: _table1(None, 1.0), lambda: _table1(0.3, 0.01)),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_verdicts_flip_between_the_papers_values_and_far_ones(name):
    function, count, _ = EXPECTED[name]
    like_paper, far = (make() for make in HAND_MADE[name])
    good = check_verdicts(function, count, like_paper, far)
    if name == "iccs2021-table1":  # the starting points' step delta was calibrated
        calibrated = [r.quantity for r in good if "Calibrated" in r.reason]
        assert len(calibrated) == 2 and all(
            q.startswith("speedup") and "50 starting points" in q for q in calibrated
        )


def test_tolerances_give_partly_in_between():
    # Fig. 5 at job-load 0: Knapsack 0.96 within 3 % -> yes, within 10 % -> partly
    for knapsack, expected in ((0.96, "yes"), (0.90, "partly"), (0.70, "no")):
        table = _fig5_2021([knapsack] + [0.5] * 10, [0.87] + [0.5] * 10, [1.0] * 11)
        assert iccs2021.fidelity_fig5(table)[0].match == expected
