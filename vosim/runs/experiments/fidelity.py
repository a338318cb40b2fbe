"""``vosim experiment all``: every experiment, then ``fidelity.md`` (paper values beside vosim's).

Each registered experiment with a ``fidelity`` function (:class:`~vosim.runs.experiments.base.
Experiment`) contributes rows (:class:`~vosim.runs.experiments.base.Fidelity`): a value its
paper states, vosim's value read from the experiment's own table, and a verdict with its rule.
:func:`run_all` runs (or reuses) every experiment and writes the rows as ``fidelity.md`` (for
reading) and ``fidelity.csv`` (for pandas).

References
----------
vosim's own design: ``vosim experiment all`` regenerates every figure, and writes one
``fidelity.md`` table: figure, paper value, vosim value, match (yes / partly / no), reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from vosim.runs.experiments.base import (
    MATCHES,
    Fidelity,
    experiment_settings,
    experiments,
    run_experiment,
)
from vosim.runs.store import atomic_write_bytes

__all__ = ["ALL", "AllResult", "run_all", "fidelity_frame", "fidelity_markdown"]

#: The name ``vosim experiment`` takes for every experiment at once (no experiment may use it).
ALL = "all"

#: Columns of ``fidelity.csv``, in order.
COLUMNS = ["experiment", "figure", "quantity", "paper", "vosim", "match", "reason"]


@dataclass
class AllResult:
    """What :func:`run_all` did.

    Attributes
    ----------
    ran, reused : list of str
        Experiments run now, and those whose earlier result (same settings) was read back.
    failed : dict
        Experiment name -> error message, for those that raised (the others still ran).
    rows : pandas.DataFrame
        The fidelity rows, columns :data:`COLUMNS`.
    written : list of Path
        ``fidelity.md`` and ``fidelity.csv``.
    """

    ran: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    rows: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLUMNS))
    written: list[Path] = field(default_factory=list)


def _reusable(out: Path, name: str, settings: dict) -> bool:
    try:
        recorded = json.loads((out / f"{name}.json").read_text())
    except (OSError, ValueError):
        return False
    return recorded == settings and (out / f"{name}.parquet").exists()


def _read_table(out: Path, name: str) -> pd.DataFrame | None:
    """The stored ``NAME.parquet``, or ``None`` when it cannot be read (it is then run again)."""
    try:
        return pd.read_parquet(out / f"{name}.parquet")
    except Exception:  # a damaged or truncated file: the experiment runs again
        return None


def fidelity_frame(rows: list[tuple[str, Fidelity]]) -> pd.DataFrame:
    """The rows ``(experiment name, Fidelity)`` as a table with columns :data:`COLUMNS`.

    Parameters
    ----------
    rows : list of (str, Fidelity)
        Each experiment's rows, in order.

    Returns
    -------
    pandas.DataFrame
        One row per stated value, columns :data:`COLUMNS` (all text); empty with those columns
        when ``rows`` is.
    """
    return pd.DataFrame([{"experiment": n, **asdict(f)} for n, f in rows], columns=COLUMNS)


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def fidelity_markdown(
    frame: pd.DataFrame, settings: str, without: list[str], failed: dict[str, str]
) -> str:
    """``fidelity.md``: a count of verdicts, then one table row per stated value.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns :data:`COLUMNS` (:func:`fidelity_frame`).
    settings : str
        How the tables were made (grid, seed, vosim version), one line.
    without : list of str
        Experiments that reproduce no paper figure (listed, no rows).
    failed : dict
        Experiment -> error message: listed as not run.

    Returns
    -------
    str
        Markdown text.
    """
    counts = frame["match"].value_counts()
    tally = " · ".join(f"{m} {int(counts.get(m, 0))}" for m in MATCHES)
    lines = [
        "# vosim against the papers",
        "",
        f"Written by `vosim experiment all` ({settings}) from each experiment's table "
        "(`NAME.parquet` in the output directory it wrote). Each row is a value a paper states, "
        "vosim's value from the same procedure, and whether they match; the reason gives the "
        "rule and, where they differ, the known cause.",
        "",
        f"**{tally}** of {len(frame)} stated values.",
        "",
        "| experiment | figure | quantity | paper | vosim | match | reason |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame[COLUMNS].values]
    if without:
        lines += ["", "Experiments that reproduce no paper figure: " + ", ".join(without) + "."]
    if failed:
        lines += ["", "**Not run** (an error stopped them; their rows are missing):", ""]
        lines += [f"- `{name}`: {_cell(message)}" for name, message in failed.items()]
    return "\n".join(lines) + "\n"


def run_all(
    out: Path,
    *,
    quick: bool = False,
    seed: int = 1,
    redo: bool = False,
    progress: Callable[[int], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> AllResult:
    """Run every registered experiment into ``out``; write ``fidelity.md`` and ``fidelity.csv``.

    An experiment whose ``NAME.json`` in ``out`` records the same settings
    (:func:`~vosim.runs.experiments.base.experiment_settings`) is not run again but read back,
    so an interrupted ``all`` resumes where it stopped; if its stored table cannot be read
    (damaged, truncated), it runs again. An experiment that raises is reported
    in ``failed`` and in ``fidelity.md``; the others still run.

    Parameters
    ----------
    out : Path
        Output directory (created).
    quick : bool
        Every experiment's reduced grid (for CI).
    seed : int
        Seed of every experiment.
    redo : bool
        Run every experiment even when a result with the same settings exists.
    progress : callable, optional
        Called with the number of figure points just finished (across experiments).
    log : callable, optional
        Called with one line per experiment (ran, reused or failed).

    Returns
    -------
    AllResult

    References
    ----------
    vosim's own design: see the module docstring.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result, rows, without = AllResult(), [], []
    say = log or (lambda line: None)
    for name, experiment in experiments().items():
        reps = experiment.repetitions(quick)
        settings = experiment_settings(name, quick, reps, seed, None, None)
        table = _read_table(out, name) if not redo and _reusable(out, name, settings) else None
        if table is not None:
            result.reused.append(name)
            if progress:
                progress(experiment.points(quick))
            say(f"{name}: reused (same settings in {name}.json)")
        else:
            try:
                run_experiment(name, out, quick=quick, seed=seed, progress=progress)
                table = pd.read_parquet(out / f"{name}.parquet")
            except Exception as exc:  # reported; the others still run
                result.failed[name] = f"{type(exc).__name__}: {exc}"
                say(f"{name}: FAILED: {result.failed[name]}")
                continue
            result.ran.append(name)
            say(f"{name}: ran")
        if experiment.fidelity is None:
            without.append(name)
            continue
        rows += [(name, f) for f in experiment.fidelity(table)]
    result.rows = fidelity_frame(rows)
    from vosim import __version__

    grid = "quick grids" if quick else "default grids"
    settings_line = f"{grid}, seed {seed}, vosim {__version__}"
    text = fidelity_markdown(result.rows, settings_line, without, result.failed)
    atomic_write_bytes(out / "fidelity.md", text.encode())
    csv = out / "fidelity.csv"
    atomic_write_bytes(csv, result.rows.to_csv(index=False).encode())
    result.written = [out / "fidelity.md", csv]
    return result
