"""The procedures of the AEP experiments: each figure's table from its random domains.

Figs. 1-3 (:func:`run_fig1_3`): the window each algorithm finds in every scheduling cycle
(:func:`fig1_3_cycles`, :func:`cycle_metrics`), averaged per algorithm and metric. Tables 1-2
(:func:`run_table1_2`): the working time of each algorithm per call (:func:`time_algorithms`),
averaged per grid point (AEP §3.2).
"""

from __future__ import annotations

import time

import altair as alt
import numpy as np
import pandas as pd

from vosim.allocators.base import allocate_window
from vosim.allocators.csa import csa
from vosim.core import ResourceRequest, SlotList, Window
from vosim.market.domains import aep_domain, aep_job
from vosim.runs.experiments.aep.charts import _fig1_3_chart, _table1_2_chart
from vosim.runs.experiments.aep.paper import PAPER_FIG1_3, PAPER_TABLE1, PAPER_TABLE2
from vosim.runs.experiments.aep.setup import (
    _KEY_FIG1_3,
    _KEY_TABLE1,
    _KEY_TABLE2,
    ALTERNATIVES_KEYS,
    CSA_VARIANTS,
    FIG1_3_ALGORITHMS,
    FIG1_3_COLUMNS,
    KINDS,
    LABELS,
    METRICS,
    PAPER_PROCEDURES,
    TABLE1_2_COLUMNS,
    TABLE1_INTERVAL,
    TABLE1_NODES,
    TABLE2_INTERVALS,
    TABLE2_NODES,
    TIME_ALGORITHMS,
    Progress,
    _table1_2_grid,
    aep_table_domain,
)
from vosim.runs.experiments.base import ExperimentConfig

# ---------------------------------------------------------------------------------------------
# Figs. 1-3


def _metrics(window: Window) -> dict[str, float]:
    return {
        "start": window.start,
        "runtime": window.runtime,
        "finish": window.finish,
        "cpu_time": window.proc_time,
        "cost": window.cost,
    }


def cycle_metrics(slots: SlotList, request: ResourceRequest, algorithm: str) -> dict[str, float]:
    """Start, runtime, finish, CPU time and cost of the window ``algorithm`` finds.

    Parameters
    ----------
    slots : SlotList
        Free slots of one scheduling cycle.
    request : ResourceRequest
        The job.
    algorithm : str
        A registered window criterion (e.g. ``"min_finish"``, ``"amp_paper"``) or a CSA
        variant of :data:`CSA_VARIANTS` (``"csa"``: vosim's AMP repeated; ``"csa_paper"``: the
        paper's).

    Returns
    -------
    dict
        Keys :data:`METRICS` and ``alternatives``. For a CSA variant each metric is the best
        (least) value over its alternatives, each chosen independently, and ``alternatives``
        their number; for a criterion ``alternatives`` is NaN. Metrics are NaN if nothing fits.

    Raises
    ------
    UnknownAllocatorError
        ``algorithm`` is neither a CSA variant nor a registered criterion.

    References
    ----------
    AEP §3.1: "only alternatives with the extreme value of the given criterion will be
    selected" (CSA); Figs. 1-3.

    Examples
    --------
    >>> import numpy as np
    >>> domain = aep_domain(np.random.default_rng(7))
    >>> best = cycle_metrics(domain.slots, aep_job(), "min_finish")
    >>> alts = cycle_metrics(domain.slots, aep_job(), "csa")
    >>> best["finish"] <= alts["finish"] and alts["alternatives"] >= 1
    True
    """
    if algorithm in CSA_VARIANTS:
        windows = csa(slots, request, search=CSA_VARIANTS[algorithm]).windows
        if not windows:
            return dict.fromkeys(METRICS, np.nan) | {"alternatives": 0.0}
        each = [_metrics(w) for w in windows]
        best = {m: min(e[m] for e in each) for m in METRICS}
        return best | {"alternatives": float(len(windows))}
    window = allocate_window(slots, request, algorithm).window
    if window is None:
        return dict.fromkeys(METRICS, np.nan) | {"alternatives": np.nan}
    return _metrics(window) | {"alternatives": np.nan}


def fig1_3_cycles(config: ExperimentConfig, progress: Progress | None = None) -> pd.DataFrame:
    """Every scheduling cycle of Figs. 1-3: one row per (repetition, algorithm).

    Parameters
    ----------
    config : ExperimentConfig
        ``repetitions`` cycles, each a new :func:`~vosim.market.domains.aep_domain` (100 nodes,
        interval 600) and the job :func:`~vosim.market.domains.aep_job`; ``seed``.
    progress : callable, optional
        Called with 1 after each algorithm of :data:`FIG1_3_ALGORITHMS` has run on every cycle.

    Returns
    -------
    pandas.DataFrame
        Columns ``repetition``, ``algorithm``, :data:`METRICS` and ``alternatives`` (see
        :func:`cycle_metrics`).
    """
    progress = progress or (lambda k: None)
    job = aep_job()
    slot_lists = [aep_domain(rng).slots for rng in config.rngs(_KEY_FIG1_3)]
    rows = []
    for algorithm in FIG1_3_ALGORITHMS:
        for rep, slots in enumerate(slot_lists):
            rows.append(
                {"repetition": rep, "algorithm": algorithm} | cycle_metrics(slots, job, algorithm)
            )
        progress(1)
    return pd.DataFrame(rows, columns=["repetition", "algorithm", *METRICS, "alternatives"])


def _paper_value(algorithm: str, metric: str) -> float:
    return PAPER_FIG1_3.get((PAPER_PROCEDURES.get(algorithm, algorithm), metric), np.nan)


def _fig1_3_table(cycles: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for algorithm in FIG1_3_ALGORITHMS:
        raw = cycles.loc[cycles["algorithm"] == algorithm]
        metrics = [*METRICS, "alternatives"] if algorithm in CSA_VARIANTS else list(METRICS)
        for metric in metrics:
            values = raw[metric].to_numpy(dtype=float)
            found = values[np.isfinite(values)]
            rows.append(
                {
                    "algorithm": algorithm,
                    "label": LABELS[algorithm],
                    "kind": KINDS[algorithm],
                    "metric": metric,
                    "mean": float(found.mean()) if found.size else np.nan,
                    "std": float(found.std(ddof=1)) if found.size > 1 else np.nan,
                    "paper": _paper_value(algorithm, metric),
                    "found_share": found.size / values.size if values.size else np.nan,
                    "repetitions": int(values.size),
                }
            )
    table = pd.DataFrame(rows, columns=FIG1_3_COLUMNS)
    table["repetitions"] = table["repetitions"].astype("int64")
    return table


def run_fig1_3(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """AEP Figs. 1-3: mean start, runtime, finish, CPU time and cost of each algorithm's window.

    Parameters
    ----------
    config : ExperimentConfig
        ``repetitions`` scheduling cycles (the paper: 5000), ``seed``.
    progress : callable
        Called with 1 after each algorithm of :data:`FIG1_3_ALGORITHMS`.

    Returns
    -------
    table : pandas.DataFrame
        One row per (algorithm, metric), columns :data:`FIG1_3_COLUMNS`; CSA also has the
        metric ``alternatives`` (its mean number of alternatives). ``paper`` is the paper's
        value (:data:`PAPER_FIG1_3`), NaN where it gives none.
    chart : altair.ConcatChart
        Five bar panels (start, runtime, finish, CPU time, cost) with the paper's values as
        black ticks.

    Notes
    -----
    On every cycle minFinish's finish, minRuntime's runtime, minCost's cost and AMP's start
    are the least of all algorithms (vosim's criteria are exact); the paper's procedures can
    only do worse than the exact criteria.
    """
    cycles = fig1_3_cycles(config, progress)
    table = _fig1_3_table(cycles)
    return table, _fig1_3_chart(table)


# ---------------------------------------------------------------------------------------------
# Tables 1-2


def time_algorithms(slots: SlotList, request: ResourceRequest) -> dict[str, float]:
    """Wall time in ms of one call of each algorithm on ``slots``, and CSA's alternatives.

    Parameters
    ----------
    slots : SlotList
        Free slots of one domain.
    request : ResourceRequest
        The job.

    Returns
    -------
    dict
        Keys of :data:`TIME_ALGORITHMS` except the ``*_per_alternative`` ones (ms per call),
        plus each CSA variant's count of alternatives (keys :data:`ALTERNATIVES_KEYS`) and
        ``slots`` (``len(slots)``).

    References
    ----------
    AEP §3.2, Tables 1-2 (working time of each algorithm; CSA's alternatives).
    """
    out: dict[str, float] = {}
    for algorithm in TIME_ALGORITHMS:
        if algorithm.endswith("_per_alternative"):
            continue
        started = time.perf_counter()
        if algorithm in CSA_VARIANTS:
            windows = csa(slots, request, search=CSA_VARIANTS[algorithm]).windows
            out[ALTERNATIVES_KEYS[algorithm]] = float(len(windows))
        else:
            allocate_window(slots, request, algorithm)
        out[algorithm] = (time.perf_counter() - started) * 1e3
    out["slots"] = float(len(slots))
    return out


def _point_rows(
    table: str, nodes: int, interval: int, runs: list[dict[str, float]], paper: dict, k: int
) -> list[dict]:
    """Rows of one grid point: mean times of ``runs`` beside column ``k`` of the paper's table."""
    mean = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
    for variant, key in ALTERNATIVES_KEYS.items():
        count = mean[key]
        mean[f"{variant}_per_alternative"] = mean[variant] / count if count else np.nan
    rows = []
    for algorithm in TIME_ALGORITHMS:
        ref = paper.get(PAPER_PROCEDURES.get(algorithm, algorithm))
        paper_ms = ref[k] if ref is not None and k >= 0 else np.nan
        rows.append(
            {
                "table": table,
                "nodes": nodes,
                "interval": interval,
                "algorithm": algorithm,
                "label": LABELS[algorithm],
                "ms": mean[algorithm],
                "paper_ms": paper_ms,
                "ratio": mean[algorithm] / paper_ms,
                "slots": mean["slots"],
                "paper_slots": paper["slots"][k] if "slots" in paper and k >= 0 else np.nan,
                "alternatives": mean["alternatives"],
                "paper_alternatives": paper["alternatives"][k] if k >= 0 else np.nan,
                "csa_paper_alternatives": mean["csa_paper_alternatives"],
                "repetitions": len(runs),
            }
        )
    return rows


def run_table1_2(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """AEP Tables 1-2: working time vs CPU nodes (interval 600) and vs interval (100 nodes).

    Parameters
    ----------
    config : ExperimentConfig
        ``repetitions`` domains per grid point, ``seed``; ``quick`` takes nodes {50, 100} and
        intervals {600, 1200}.
    progress : callable
        Called with 1 after each grid point (node count or interval length).

    Returns
    -------
    table : pandas.DataFrame
        One row per (table, grid point, algorithm of :data:`TIME_ALGORITHMS`), columns
        :data:`TABLE1_2_COLUMNS`: mean ms per call, the paper's ms and their ratio, the mean
        number of slots and of CSA alternatives beside the paper's. The paper's procedures
        share the paper's minRuntime/minFinish figures.
    chart : altair.HConcatChart
        Working time against nodes and against the interval length, log scale; vosim solid,
        the paper dashed.
    """
    job = aep_job()
    nodes_grid, interval_grid = _table1_2_grid(config.quick)
    rows: list[dict] = []
    points = [("Table 1", n, TABLE1_INTERVAL, _KEY_TABLE1, PAPER_TABLE1) for n in nodes_grid]
    points += [("Table 2", TABLE2_NODES, L, _KEY_TABLE2, PAPER_TABLE2) for L in interval_grid]
    for table, nodes, interval, key, paper in points:
        axis = nodes if table == "Table 1" else interval
        grid = TABLE1_NODES if table == "Table 1" else TABLE2_INTERVALS
        k = grid.index(axis) if axis in grid else -1
        runs = [
            time_algorithms(aep_table_domain(rng, nodes=nodes, interval=interval).slots, job)
            for rng in config.rngs(key, axis)
        ]
        rows += _point_rows(table, nodes, interval, runs, paper, k)
        progress(1)
    out = pd.DataFrame(rows, columns=TABLE1_2_COLUMNS)
    for col in ("nodes", "interval", "repetitions"):
        out[col] = out[col].astype("int64")
    return out, _table1_2_chart(out)
