"""The VO Preferences experiment (Figs. 1-6) in quick mode, and its fidelity rows."""

import math

import numpy as np
import pandas as pd
import pytest

from vosim.runs.experiments import experiments, run_experiment
from vosim.runs.experiments.base import MATCHES, NOT_IN_GRID, Fidelity
from vosim.runs.experiments.vo_preferences import (
    COLUMNS,
    PAPER_ALTERNATIVES,
    PAPER_COMPROMISE,
    PAPER_MAXIMUM_UA,
    PROBLEMS,
)
from vosim.runs.experiments.vo_preferences import fidelity as vo_fidelity

NAME = "vo-preferences-fig1-6"
VO = NAME


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("vp")
    ticks = []
    written = run_experiment(NAME, out, quick=True, seed=3, progress=ticks.append)
    assert sum(ticks) == experiments()[NAME].points(True)
    return pd.read_parquet(out / f"{NAME}.parquet"), written


def test_files_and_columns(quick):
    table, written = quick
    assert {p.suffix for p in written} >= {".parquet", ".csv", ".html"}
    assert list(table.columns) == COLUMNS
    assert set(table["problem"]) == set(PROBLEMS)


def test_curves_are_monotone_and_a_spans_0_to_100(quick):
    table, _ = quick
    curves = table[table["point"] == "curve"]
    for problem, group in curves.groupby("problem"):
        group = group.sort_values("ua")
        totals = group["vo_total_mean"].to_numpy()
        sense = 1 if PROBLEMS[problem][2] == "cost" else -1
        # a looser limit never makes the VO criterion worse
        assert (np.diff(totals) * sense >= -1e-6).all(), problem
        a = group["a_mean"].to_numpy()
        assert a[0] == pytest.approx(100.0) and a[-1] == pytest.approx(0.0), problem
        assert ((a >= -1e-9) & (a <= 100 + 1e-9)).all()
        # the realised mean U never exceeds U_a
        assert (group["realised_ua_mean"] <= group["ua"] + 1e-9).all()
        assert (group["alternatives_per_job"] >= 1).all()


def test_compromise_points(quick):
    table, _ = quick
    points = table[table["point"] != "curve"]
    assert set(points["point"]) == {"equal", "additive"}
    equal = points[points["point"] == "equal"].dropna(subset=["ua"])
    assert np.allclose(equal["ua"], equal["a_mean"])  # on the line A = U_a
    paper = points.dropna(subset=["paper_ua"]).set_index("point")
    for point, (ua, a) in PAPER_COMPROMISE.items():
        assert (paper.loc[point, "paper_ua"], paper.loc[point, "paper_a"]) == (ua, a)


def test_same_seed_same_table(quick, tmp_path):
    table, _ = quick
    run_experiment(NAME, tmp_path, quick=True, seed=3)
    pd.testing.assert_frame_equal(table, pd.read_parquet(tmp_path / f"{NAME}.parquet"))


# -- fidelity: the quick run's rows carry the paper's values; hand-made tables flip the verdicts


@pytest.fixture(scope="module")
def quick_rows(tmp_path_factory) -> list[Fidelity]:
    """The fidelity rows of the quick run with seed 1 (read back from its parquet)."""
    out = tmp_path_factory.mktemp("vp-fidelity")
    run_experiment(VO, out, quick=True, seed=1)
    return vo_fidelity(pd.read_parquet(out / f"{VO}.parquet"))


def test_registered_fidelity_function():
    assert experiments()[VO].fidelity is vo_fidelity


def test_vo_preferences_quick(quick_rows):
    rows = quick_rows
    papers = [r.paper for r in rows]
    assert "(37 %, 37 %)" in papers and "(45 %, 28 %)" in papers
    assert PAPER_COMPROMISE == {"equal": (37.0, 37.0), "additive": (45.0, 28.0)}
    assert f"{PAPER_ALTERNATIVES:g}" in papers and f"U_a = {PAPER_MAXIMUM_UA:g}" in papers
    assert "U_a = 1" in papers  # Fig. 1's midpoint
    assert any("≈ 25 %" in p for p in papers)  # §5.2's (25 %, 50 %), Fig. 4
    assert all(r.match in MATCHES and r.reason.endswith(".") for r in rows)
    assert all(r.match == "yes" or "cause" in r.reason or "not " in r.reason for r in rows)


def _vo_table(
    fig1: list[float] | None = None,
    mixed: list[float] | None = None,
    equal: tuple[float, float] = (37.0, 37.0),
    additive: tuple[float, float] = (45.0, 28.0),
    skip: str | None = None,
) -> pd.DataFrame:
    """A ``vo-preferences-fig1-6`` table: ranks 0..3, relative 0..100 % by 20."""
    curves = {
        "C->max, lim U (ordinal), conflicting": fig1 or [100.0, 150.0, 180.0, 200.0],
        "C->max, lim U (ordinal), mixed": mixed or [120.0, 170.0, 190.0, 200.0],
        "C->max, lim U, conflicting": [100.0, 140.0, 170.0, 190.0, 200.0, 200.0],
        "C->max, lim U, mixed": [120.0, 160.0, 185.0, 195.0, 200.0, 200.0],
        "T->min, lim U, mixed": [200.0, 101.5, 101.0, 100.5, 100.0, 100.0],
    }
    rows = []
    for problem, totals in curves.items():
        if problem == skip:
            continue
        figure, _, _, evaluation = PROBLEMS[problem]
        step = 1.0 if evaluation == "ordinal" else 20.0
        span = abs(totals[-1] - totals[0])
        rows += [
            {"figure": figure, "problem": problem, "evaluation": evaluation, "ua": k * step}
            | {"vo_total_mean": y, "a_mean": abs(totals[-1] - y) / span * 100.0}
            | {"alternatives_per_job": 3.5, "point": "curve"}
            for k, y in enumerate(totals)
        ]
    for point, (ua, a) in (("equal", equal), ("additive", additive)):
        rows.append(
            {"problem": "C->max, lim U, conflicting", "evaluation": "relative", "point": point}
            | {"ua": ua, "a_mean": a}
        )
    return pd.DataFrame(rows)


def _vo_rows(**kwargs) -> dict[str, Fidelity]:
    return {f"{r.figure}: {r.quantity}": r for r in vo_fidelity(_vo_table(**kwargs))}


def _one(rows: dict[str, Fidelity], *words: str) -> Fidelity:
    (row,) = [r for key, r in rows.items() if all(w in key for w in words)]
    return row


@pytest.mark.parametrize(
    ("equal", "additive", "matches"),
    [
        ((37.0, 37.0), (45.0, 28.0), ("yes", "yes")),
        ((40.0, 40.0), (49.0, 30.0), ("yes", "yes")),  # within 10 %
        ((45.0, 45.0), (45.0, 34.0), ("partly", "partly")),  # 22 % and 21 % off
        ((60.0, 60.0), (45.0, 40.0), ("no", "no")),  # 62 % and 43 % off
    ],
)
def test_compromise_rule(equal, additive, matches):
    rows = _vo_rows(equal=equal, additive=additive)
    found = (_one(rows, "Fig. 5", "A = U_a"), _one(rows, "Fig. 6", "A + U_a"))
    assert tuple(r.match for r in found) == matches
    assert found[0].vosim == f"({equal[0]:.0f} %, {equal[1]:.0f} %)"


def test_compromise_not_found():
    row = _one(_vo_rows(equal=(math.nan, math.nan)), "Fig. 5")
    assert (row.vosim, row.match) == ("not reached on this run's grid", "no")


@pytest.mark.parametrize(
    ("fig1", "vosim", "match"),
    [
        ([100.0, 150.0, 180.0, 200.0], "U_a = 1.0", "yes"),  # midpoint 150 at 1
        ([100.0, 140.0, 190.0, 200.0], "U_a = 1.2", "partly"),  # 1 + 10/50
        ([100.0, 110.0, 130.0, 200.0], "U_a = 2.3", "no"),  # 2 + 20/70
    ],
)
def test_midpoint_rule(fig1, vosim, match):
    row = _one(_vo_rows(fig1=fig1), "Fig. 1", "midpoint")
    assert (row.paper, row.vosim, row.match) == ("U_a = 1", vosim, match)


def test_stated_values_with_known_causes():
    rows = _vo_rows()
    alternatives = _one(rows, "alternatives per job")
    assert (alternatives.paper, alternatives.vosim, alternatives.match) == ("6.3", "3.5", "no")
    assert "module docstring" in alternatives.reason
    peak = _one(rows, "maximum")
    assert (peak.paper, peak.vosim, peak.match) == ("U_a = 5.3", "U_a = 3.0", "no")
    assert "3.5" in peak.reason
    fig3 = _one(rows, "Fig. 3")  # midpoint 150 between 20 % (140) and 40 % (170)
    assert (fig3.vosim, fig3.match) == ("U_a = 27 %", "yes")
    fig4 = _one(rows, "Fig. 4")  # 101.5 reached at 20 %: 20 % off 25 %
    assert (fig4.vosim, fig4.match) == ("U_a = 20 %", "partly")


def test_vo_claims():
    rows = _vo_rows()
    assert _one(rows, "improves").match == "yes"
    assert _one(rows, "mixed preferences vs").match == "yes"
    rows = _vo_rows(fig1=[100.0, 150.0, 140.0, 200.0], mixed=[120.0, 150.0, 130.0, 190.0])
    improves = _one(rows, "improves")
    assert (improves.vosim, improves.match) == ("monotone in 3 of 5 curves", "partly")
    mixed = _one(rows, "mixed preferences vs")  # higher cost at U_a = 0 and 1 of 4: half
    assert mixed.vosim.startswith("cost: mixed at least conflicting at 2 of 4 U_a")
    assert mixed.match == "partly"
    # lower cost everywhere, but nearer the VO's optimum relative to its own extremes (A)
    mixed = _one(_vo_rows(mixed=[60.0, 140.0, 175.0, 190.0]), "mixed preferences vs")
    assert mixed.vosim == (
        "cost: mixed at least conflicting at 0 of 4 U_a; A: mixed at most conflicting at 4 of 4"
    )
    assert mixed.match == "partly"
    mixed = _one(_vo_rows(mixed=[90.0, 140.0, 170.0, 200.0]), "mixed preferences vs")
    assert mixed.match == "no"  # higher only at the last U_a, A larger at U_a = 1 and 2


def test_vo_absent_problem_is_reported():
    rows = _vo_rows(skip="T->min, lim U, mixed")
    fig4 = _one(rows, "Fig. 4")
    assert (fig4.vosim, fig4.match) == (NOT_IN_GRID, "no")
    assert _one(rows, "improves").match == "partly"
    assert len(rows) == len(vo_fidelity(_vo_table()))  # nothing skipped silently
