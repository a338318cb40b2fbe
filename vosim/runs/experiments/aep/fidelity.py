"""The AEP paper's stated values beside vosim's, with a verdict and its reason.

Figs. 1-3 (:func:`fidelity_fig1_3`): mean start, runtime, finish, cost and CSA's alternatives;
Tables 1-2 (:func:`fidelity_table1_2`): CSA's alternatives, the free slots and the growth
factors of working time (AEP §3.2). Each row of :class:`~vosim.runs.experiments.base.Fidelity`
names the known cause of a miss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from vosim.runs.experiments.aep.paper import PAPER_FIG1_3, PAPER_TABLE1, PAPER_TABLE2
from vosim.runs.experiments.aep.setup import (
    PAPER_PROCEDURES,
    TABLE1_NODES,
    TABLE2_INTERVALS,
)
from vosim.runs.experiments.base import NOT_IN_GRID, Fidelity, verdict

#: Verdict tolerances (relative, :func:`~vosim.runs.experiments.base.verdict`) of model
#: quantities: mean start, runtime, finish, cost, alternatives and slots.
MODEL_TOLERANCE = (0.10, 0.25)
#: Verdict tolerances of growth factors of wall time (vosim's Python on this machine against
#: the paper's Java 1.6 on a Core i3: only the factor by which a time grows is compared).
GROWTH_TOLERANCE = (0.25, 0.50)
#: Absolute tolerances (model time units) of a mean start the paper states as ``t = 0``: 1, and
#: the paper's minimum local job length, 10.
START_TOLERANCE = (1.0, 10.0)

#: Known causes of the differences (the package notes), by what they concern.
_CAUSE_VOSIM_AMP = (
    "vosim's AMP takes the n cheapest slots at the earliest start, the paper's the first n "
    "parallel slots within budget: vosim's CSA alternatives are cheaper (see the CSA (paper) "
    "row, CSA on the paper's AMP)"
)
_CAUSE_DOMAIN = (
    "domain generator: the paper's exact load, price and local-job distributions are not "
    "stated (vosim.market.domains.aep_domain)"
)
_CAUSE_FAST = (
    "proportional pricing makes the fastest nodes no dearer per unit of work, so the budget "
    "admits five fast nodes more often than the paper's prices did (aep_domain notes)"
)
_CAUSE_MIN_COST_START = (
    "minCost's start is whichever start holds the cheapest window; it depends on where the "
    "domain's discounted nodes are free, which the paper's unstated generator decides"
)
_CAUSE_ALTERNATIVES = (
    "cause not identified: not the AMP rule (CSA finds more alternatives on the paper's AMP "
    "than on vosim's) nor mainly the budget; vosim's alternatives take more of the free "
    "processor time than the paper's could, so the paper's domain or job leaves less usable "
    "time than vosim's reading of §3.1 (module notes)"
)
_CAUSE_CSA_BEST = (
    "CSA's best of more alternatives than the paper's (alternatives row), on a domain where "
    "fast nodes are no dearer per unit of work (aep_domain notes)"
)
_CAUSE_TIME = (
    "vosim's AMP (alone, or per CSA alternative with its cut) is a numpy scan that usually "
    "stops near the interval's start: its time per call hardly grows with the nodes or the "
    "interval, where the paper's Java 1.6 times grow with the slots scanned"
)
_CAUSE_TIME_SCAN = (
    "cause not identified: vosim's vectorised block scan of every start and the paper's Java "
    "1.6 scan grow differently with the slot count"
)


@dataclass(frozen=True, slots=True)
class _Stated:
    """A value of Figs. 1-3 the paper states: row ``(algorithm, metric)`` of the table."""

    figure: str
    quantity: str
    algorithm: str
    metric: str
    cause: str


#: The paper's main stated values of Figs. 1-3 that ``aep-fig1-3`` reproduces.
_FIG1_3_STATED = (
    _Stated("AEP Fig. 1a", "AMP (paper) mean start", "amp_paper", "start", _CAUSE_DOMAIN),
    _Stated(
        "AEP Fig. 1a",
        "CSA (paper) mean start (best alternative)",
        "csa_paper",
        "start",
        _CAUSE_DOMAIN,
    ),
    _Stated("AEP Fig. 1a", "minCost mean start", "min_cost", "start", _CAUSE_MIN_COST_START),
    _Stated("AEP Fig. 1b", "minRuntime mean runtime", "min_runtime", "runtime", _CAUSE_FAST),
    _Stated(
        "AEP Fig. 1b",
        "CSA (paper) mean runtime (best alternative)",
        "csa_paper",
        "runtime",
        _CAUSE_CSA_BEST,
    ),
    _Stated("AEP Fig. 2a", "minFinish mean finish", "min_finish", "finish", _CAUSE_FAST),
    _Stated(
        "AEP Fig. 2a",
        "CSA (paper) mean finish (best alternative)",
        "csa_paper",
        "finish",
        _CAUSE_CSA_BEST,
    ),
    _Stated(
        "AEP Fig. 3",
        "minCost mean cost",
        "min_cost",
        "cost",
        "the paper states no price deviation; vosim's 0.2 is the authors' market model "
        "(VO Preferences §4: within 60 %, three standard deviations), not calibrated, and "
        "minCost takes the five most discounted nodes, so the cost follows the deviation "
        "(aep_domain notes)",
    ),
    _Stated("AEP Fig. 3", "CSA mean cost (cheapest alternative)", "csa", "cost", _CAUSE_VOSIM_AMP),
    _Stated(
        "AEP Fig. 3",
        "CSA (paper) mean cost (cheapest alternative)",
        "csa_paper",
        "cost",
        _CAUSE_DOMAIN,
    ),
    _Stated(
        "AEP §3.2 / Table 1",
        "CSA alternatives per cycle",
        "csa",
        "alternatives",
        _CAUSE_ALTERNATIVES,
    ),
    _Stated(
        "AEP §3.2 / Table 1",
        "CSA (paper) alternatives per cycle",
        "csa_paper",
        "alternatives",
        _CAUSE_ALTERNATIVES,
    ),
)


def _rule(tolerance: tuple[float, float], absolute: bool = False) -> str:
    yes, partly = tolerance
    if absolute:
        return f"yes within {yes:g}, partly within {partly:g} time units"
    return f"yes within {yes:.0%}, partly within {partly:.0%} of the paper's value"


def _row(
    stated: tuple[str, str, str],
    paper: float,
    vosim: float,
    vosim_text: str,
    tolerance: tuple[float, float],
    cause: str,
    *,
    absolute: bool = False,
) -> Fidelity:
    """A fidelity row: ``stated`` is (figure, quantity, the paper's value as text).

    ``verdict`` of ``vosim`` against ``paper`` by ``tolerance`` (relative, or in time units
    when ``absolute``); the reason states the rule, then ``cause`` when the match is not
    "yes" (always, when ``cause`` says the value was calibrated).
    """
    figure, quantity, paper_text = stated
    rule = _rule(tolerance, absolute)
    if not np.isfinite(vosim):
        return Fidelity(figure, quantity, paper_text, NOT_IN_GRID, "no", f"{rule}; no such point")
    if absolute:
        # A relative tolerance is void at 0: shifting both values by the outer bound turns
        # verdict's relative bounds into the absolute ones.
        shift = tolerance[1]
        match = verdict(shift + vosim - paper, shift, tolerance[0] / shift, 1.0)
    else:
        match = verdict(vosim, paper, *tolerance)
    if cause.startswith("calibrated") or match != "yes":
        rule += f"; {cause or 'cause unknown'}"
    return Fidelity(figure, quantity, paper_text, vosim_text, match, rule)


def fidelity_fig1_3(table: pd.DataFrame) -> list[Fidelity]:
    """The paper's main values of Figs. 1-3 beside vosim's, from the ``aep-fig1-3`` table.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`run_fig1_3` (columns :data:`FIG1_3_COLUMNS`; one row per
        algorithm and metric).

    Returns
    -------
    list of Fidelity
        One row per stated value (12): the paper's value (:data:`PAPER_FIG1_3`, text of
        §3.2), vosim's mean from ``table["mean"]`` (``NOT_IN_GRID`` where the table lacks the row),
        and the verdict: :data:`MODEL_TOLERANCE`, or :data:`START_TOLERANCE` for starts the
        paper gives as ``t = 0``; a reason names the known cause of a miss. The paper's
        values for AMP and CSA are set beside both vosim's and the paper's procedure.

    Raises
    ------
    KeyError
        ``table`` lacks the columns ``algorithm``, ``metric`` or ``mean``.

    References
    ----------
    AEP §3.2, Figs. 1-3 and Table 1 (CSA's 57 alternatives at 100 nodes).
    """
    means = table.set_index(["algorithm", "metric"])["mean"]
    rows = []
    for stated in _FIG1_3_STATED:
        of_paper = PAPER_PROCEDURES.get(stated.algorithm, stated.algorithm)
        paper = PAPER_FIG1_3[(of_paper, stated.metric)]
        vosim = float(means.get((stated.algorithm, stated.metric), np.nan))
        at_zero = stated.metric == "start" and paper == 0
        rows.append(
            _row(
                (stated.figure, stated.quantity, "t = 0" if at_zero else f"{paper:g}"),
                paper,
                vosim,
                f"{vosim:.1f}",
                START_TOLERANCE if at_zero else MODEL_TOLERANCE,
                stated.cause,
                absolute=at_zero,
            )
        )
    return rows


def _point_value(table: pd.DataFrame, name: str, axis: int, column: str, algorithm: str) -> float:
    """``column`` of ``algorithm``'s row at the grid point ``axis`` of ``name`` (NaN: none)."""
    key = "nodes" if name == "Table 1" else "interval"
    hit = table.loc[
        (table["table"] == name) & (table[key] == axis) & (table["algorithm"] == algorithm),
        column,
    ]
    return float(hit.iloc[0]) if len(hit) else np.nan


@dataclass(frozen=True, slots=True)
class _StatedPoint:
    """A value of Tables 1-2: ``column`` of ``algorithm``'s row at the grid point ``axis``.

    With ``base`` set, the growth factor of that column from ``base`` to ``axis``.
    """

    name: str
    quantity: str
    algorithm: str
    column: str
    paper_row: str
    axis: int
    base: int | None
    cause: str


#: The paper's main stated values of Tables 1-2 that ``aep-table1-2`` reproduces.
_TABLE1_2_STATED = (
    _StatedPoint(
        "Table 1",
        "CSA alternatives, 100 nodes",
        "csa",
        "alternatives",
        "alternatives",
        100,
        None,
        _CAUSE_ALTERNATIVES,
    ),
    _StatedPoint(
        "Table 1",
        "CSA (paper) alternatives, 100 nodes",
        "csa_paper",
        "csa_paper_alternatives",
        "alternatives",
        100,
        None,
        _CAUSE_ALTERNATIVES,
    ),
    _StatedPoint(
        "Table 1",
        "CSA (paper) alternatives, 400 nodes",
        "csa_paper",
        "csa_paper_alternatives",
        "alternatives",
        400,
        None,
        _CAUSE_ALTERNATIVES,
    ),
    _StatedPoint(
        "Table 2",
        "CSA (paper) alternatives, interval 3600",
        "csa_paper",
        "csa_paper_alternatives",
        "alternatives",
        3600,
        None,
        _CAUSE_ALTERNATIVES,
    ),
    _StatedPoint(
        "Table 2",
        "free slots, interval 600",
        "amp",
        "slots",
        "slots",
        600,
        None,
        "calibrated: 2-6 local jobs per node were chosen so that the free slots come near "
        "the paper's 472.6 (aep_domain notes), so this match is by construction",
    ),
    _StatedPoint(
        "Table 2",
        "free slots, interval 3600",
        "amp",
        "slots",
        "slots",
        3600,
        None,
        "vosim scales the local jobs per node with the interval (aep_table_domain): "
        "about 100 + 400 k slots for an interval of 600 k, the paper about 160 + 312 k",
    ),
    _StatedPoint(
        "Table 1", "CSA time growth, 50 -> 400 nodes", "csa", "ms", "csa", 400, 50, _CAUSE_TIME
    ),
    _StatedPoint(
        "Table 1",
        "CSA (paper) time growth, 50 -> 400 nodes",
        "csa_paper",
        "ms",
        "csa",
        400,
        50,
        _CAUSE_TIME,
    ),
    _StatedPoint(
        "Table 1",
        "AMP (paper) time growth, 50 -> 400 nodes",
        "amp_paper",
        "ms",
        "amp",
        400,
        50,
        _CAUSE_TIME,
    ),
    _StatedPoint(
        "Table 1",
        "minCost time growth, 50 -> 400 nodes",
        "min_cost",
        "ms",
        "min_cost",
        400,
        50,
        _CAUSE_TIME_SCAN,
    ),
    _StatedPoint(
        "Table 2",
        "CSA (paper) time growth, interval 600 -> 3600",
        "csa_paper",
        "ms",
        "csa",
        3600,
        600,
        _CAUSE_TIME,
    ),
    _StatedPoint(
        "Table 2",
        "minCost time growth, interval 600 -> 3600",
        "min_cost",
        "ms",
        "min_cost",
        3600,
        600,
        _CAUSE_TIME_SCAN,
    ),
)


def fidelity_table1_2(table: pd.DataFrame) -> list[Fidelity]:
    """The paper's main values of Tables 1-2 beside vosim's, from the ``aep-table1-2`` table.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`run_table1_2` (columns :data:`TABLE1_2_COLUMNS`).

    Returns
    -------
    list of Fidelity
        One row per stated value (12): CSA's alternatives (vosim's and the paper's CSA) and
        the free slots, compared by :data:`MODEL_TOLERANCE`; the growth factors of working
        time (ms at the larger point over ms at the smaller, from :data:`PAPER_TABLE1` /
        :data:`PAPER_TABLE2` and from ``table["ms"]``), compared by
        :data:`GROWTH_TOLERANCE` (absolute times of Java 1.6 and numpy are not comparable).
        Points outside the table's grid (a quick run's) give vosim ``NOT_IN_GRID``, match ``"no"``.

    Raises
    ------
    KeyError
        ``table`` lacks a column of :data:`TABLE1_2_COLUMNS` that a row reads.

    References
    ----------
    AEP §3.2, Tables 1-2 ("near cubic" CSA growth, "near linear" AMP, "at most quadratic"
    AEP criteria in the nodes, linear in the interval).
    """
    rows = []
    for p in _TABLE1_2_STATED:
        grid = TABLE1_NODES if p.name == "Table 1" else TABLE2_INTERVALS
        paper_table = PAPER_TABLE1 if p.name == "Table 1" else PAPER_TABLE2
        values = paper_table[p.paper_row]
        last = values[grid.index(p.axis)]
        at = _point_value(table, p.name, p.axis, p.column, p.algorithm)
        if p.base is None:
            stated = (f"AEP {p.name}", p.quantity, f"{last:g}")
            rows.append(_row(stated, last, at, f"{at:.1f}", MODEL_TOLERANCE, p.cause))
            continue
        first = values[grid.index(p.base)]
        start = _point_value(table, p.name, p.base, p.column, p.algorithm)
        stated = (f"AEP {p.name}", p.quantity, f"{last / first:.1f}x ({first:g} -> {last:g} ms)")
        text = f"{at / start:.1f}x ({start:.3g} -> {at:.3g} ms)"
        rows.append(_row(stated, last / first, at / start, text, GROWTH_TOLERANCE, p.cause))
    return rows
