"""Experiment registry: each paper's figure set as a named, reproducible experiment."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd

from vosim.analysis.charts import save_chart
from vosim.core import registry
from vosim.errors import ParameterError, UnknownAllocatorError
from vosim.runs.store import write_json, write_table

__all__ = [
    "ExperimentConfig",
    "Experiment",
    "register_experiment",
    "experiments",
    "run_experiment",
    "paper_marks",
    "value_labels",
    "METHOD_COLOURS",
    "method_colour",
    "Fidelity",
    "MATCHES",
    "verdict",
    "experiment_settings",
    "NOT_IN_GRID",
    "NO_VALUE",
    "CAUSE_UNKNOWN",
    "cell",
    "percent",
    "fidelity_row",
    "close_row",
    "factor_row",
]

#: The mark of a value the paper states, on every experiment chart: a black cross, labelled.
PAPER_SHAPE = "cross"


@dataclass(frozen=True, slots=True)
class ExperimentConfig:
    """How to run an experiment.

    Parameters
    ----------
    repetitions : int
        Independent random instances per point of the figure (>= 1).
    seed : int
        Seed of the numpy Generator every instance is drawn from.
    quick : bool
        A reduced grid that finishes in seconds (for CI).
    trace : str, optional
        The trace (bundled name or SWF path) of an experiment that runs on one
        (``Experiment.takes_trace``); ``None``: its own default.
    jobs : int, optional
        How many of the trace's first jobs; ``None``: the experiment's default.
    """

    repetitions: int
    seed: int
    quick: bool
    trace: str | None = None
    jobs: int | None = None

    def rngs(self, *key: int) -> Iterator[np.random.Generator]:
        """One independent Generator per repetition, keyed by the figure point ``key``."""
        for rep in range(self.repetitions):
            yield np.random.default_rng([self.seed, *key, rep])


#: One colour per method on every experiment chart: a method drawn by two
#: papers' charts keeps its colour, whatever each paper calls it (ICCS 2021's Knapsack is
#: ICCS 2023's KnapsackSingle: ``knapsack_p``, the knapsack over single resources). Methods of
#: different papers never share a chart, so a colour may serve two of them (Tableau 10/20).
METHOD_COLOURS: dict[str, str] = {
    # availability allocators (ICCS 2021, ICCS 2023)
    "Knapsack": "#e45756",
    "KnapsackSingle": "#e45756",
    "GreedyJnt": "#72b7b2",
    "BruteForce": "#4c78a8",
    "KnapsackGroup": "#f58518",
    "Greedy": "#54a24b",
    "Greedy+": "#b279a2",
    "Exact (group DP)": "#79706e",
    # Knapsack Grid strategy families
    "FCFS": "#9d755d",
    "BF": "#4c78a8",  # the slides' name of EASY backfilling
    "gang": "#bab0ac",
    "KS": "#e45756",
    "KS+BF": "#f58518",
    # AEP's algorithms: the paper's own procedure in a lighter shade of vosim's exact one
    "AMP": "#4c78a8",
    "AMP (paper)": "#9ecae9",
    "minFinish": "#f58518",
    "minFinish (paper's procedure)": "#ffbf79",
    "minCost": "#54a24b",
    "minRuntime": "#e45756",
    "minRuntime (paper's procedure)": "#ff9d98",
    "minProcTime": "#b279a2",
    "CSA": "#72b7b2",
    "CSA per alternative": "#9d755d",
    "CSA (paper)": "#eeca3b",
    "CSA (paper) per alternative": "#bab0ac",
}


def method_colour(field: str, labels: Iterable[str], title: str | None = "method") -> alt.Color:
    """The colour encoding of ``field`` with :data:`METHOD_COLOURS`, legend in that order.

    Parameters
    ----------
    field : str
        The column holding method labels (nominal).
    labels : iterable of str
        The labels the chart draws; only those appear in the legend.
    title : str or None
        The legend's title.

    Returns
    -------
    altair.Color

    Raises
    ------
    ParameterError
        A label without a colour in :data:`METHOD_COLOURS` (add it there, once).

    References
    ----------
    vosim's rule: one colour per method across all charts.
    """
    drawn = set(labels)
    unknown = sorted(drawn - set(METHOD_COLOURS))
    if unknown:
        raise ParameterError(f"no colour for method(s) {unknown}; add them to METHOD_COLOURS")
    shown = [label for label in METHOD_COLOURS if label in drawn]
    scale = alt.Scale(domain=shown, range=[METHOD_COLOURS[label] for label in shown])
    return alt.Color(f"{field}:N", title=title, scale=scale)


#: The verdicts of a fidelity row, from best to worst.
MATCHES = ("yes", "partly", "no")


@dataclass(frozen=True, slots=True)
class Fidelity:
    """One row of ``fidelity.md``: a value a paper states beside vosim's for the same figure.

    Parameters
    ----------
    figure : str
        The paper and figure, e.g. ``"ICCS 2021 Fig. 3"``.
    quantity : str
        What is compared, e.g. ``"peak of max P_a^w(t)"``.
    paper : str
        The paper's value as it states it (with units), e.g. ``"0.93 at t = 834"``.
    vosim : str
        vosim's value, read from the experiment's table.
    match : {"yes", "partly", "no"}
        The verdict, by the rule ``reason`` states.
    reason : str
        The rule applied and, when the values differ, why (a known cause, or "unknown").

    Raises
    ------
    ParameterError
        ``match`` not one of :data:`MATCHES`, or an empty field.

    References
    ----------
    vosim's own design: ``vosim experiment all`` writes one ``fidelity.md`` of these rows.
    """

    figure: str
    quantity: str
    paper: str
    vosim: str
    match: str
    reason: str

    def __post_init__(self) -> None:
        if self.match not in MATCHES:
            raise ParameterError(f"match must be one of {MATCHES}, got {self.match!r}")
        for name in ("figure", "quantity", "paper", "vosim", "reason"):
            if not str(getattr(self, name)).strip():
                raise ParameterError(f"Fidelity.{name} is empty ({self.figure!r})")


def verdict(vosim: float, paper: float, yes: float, partly: float) -> str:
    """``"yes"`` when ``|vosim - paper| <= yes * |paper|``, ``"partly"`` within ``partly``.

    Parameters
    ----------
    vosim, paper : float
        The two values, same units.
    yes, partly : float
        Relative tolerances, ``0 <= yes <= partly`` (e.g. 0.05 and 0.25).

    Returns
    -------
    str
        One of :data:`MATCHES`; ``"no"`` when ``vosim`` is NaN.

    Raises
    ------
    ParameterError
        Negative or unordered tolerances.

    Examples
    --------
    >>> [verdict(v, 0.93, 0.05, 0.25) for v in (0.95, 1.1, 2.0)]
    ['yes', 'partly', 'no']
    """
    if not 0 <= yes <= partly:
        raise ParameterError(f"tolerances must satisfy 0 <= yes <= partly, got {yes}, {partly}")
    gap = abs(vosim - paper)
    if not gap == gap:  # NaN
        return "no"
    if gap <= yes * abs(paper):
        return "yes"
    return "partly" if gap <= partly * abs(paper) else "no"


#: vosim's value of a point the paper states that this run's grid lacks (e.g. ``--quick``).
NOT_IN_GRID = "not in this run's grid"
#: vosim's value where its table holds NaN (e.g. a point without a feasible instance).
NO_VALUE = "no value (NaN)"
#: The reason's last sentence when the values differ and no cause is stated in the notes.
CAUSE_UNKNOWN = "Cause unknown."


def cell(table: pd.DataFrame, column: str, **where: float | str) -> float | None:
    """The value of ``column`` in the first row of ``table`` matching ``where``.

    Parameters
    ----------
    table : pandas.DataFrame
        An experiment's table.
    column : str
        The column read.
    **where : float or str
        Column values the row must have: text exactly, numbers within :func:`numpy.isclose`
        (job-loads such as 0.9 are computed floats).

    Returns
    -------
    float or None
        The value (NaN stays NaN); ``None`` when no row matches (the point is not in the run's
        grid).
    """
    mask = np.ones(len(table), dtype=bool)
    for key, want in where.items():
        values = table[key]
        mask &= (
            (values == want).to_numpy()
            if isinstance(want, str)
            else np.isclose(values.to_numpy(dtype=float), want)
        )
    hits = table.loc[mask, column]
    return float(hits.iloc[0]) if len(hits) else None


def percent(share: float) -> str:
    """A share as the papers write it: ``0.134 -> "13.4 %"``, ``0.001 -> "0.1 %"``."""
    return f"{100 * share:.3g} %"


def _like(value: float, paper: float) -> str:
    """``value`` with as many decimals as the paper's ``paper`` (at least two)."""
    text = f"{paper:g}"
    places = len(text.split(".")[1]) if "." in text else 0
    return f"{value:.{max(places, 2)}f}"


def fidelity_row[T](
    figure: str,
    quantity: str,
    paper: str,
    value: T | None,
    show: Callable[[T], str],
    judge: Callable[[T], str],
    rule: str,
    cause: str = CAUSE_UNKNOWN,
) -> Fidelity:
    """One fidelity row: vosim's ``value`` shown and judged, or a point the run did not compute.

    Parameters
    ----------
    figure, quantity, paper : str
        As in :class:`~vosim.runs.experiments.base.Fidelity` (``paper`` as the paper states it).
    value : object or None
        What vosim's table gives for the quantity; ``None``: the point is not in this run's
        grid (vosim's value :data:`NOT_IN_GRID`, match ``"no"``); a NaN float: the table has no
        value there (e.g. no feasible instance; vosim's value :data:`NO_VALUE`, match
        ``"no"``).
    show : callable
        ``value`` as text, in the paper's units and precision.
    judge : callable
        ``value``'s match, one of ``"yes"``, ``"partly"``, ``"no"``.
    rule : str
        The rule ``judge`` applies, one sentence (the reason's start).
    cause : str
        Appended to the reason when the match is not ``"yes"``: the cause the module notes or
        README state, else :data:`CAUSE_UNKNOWN`. A cause starting with "Calibrated" (the value
        depends on a parameter vosim chose to match the paper) is appended whatever the match.

    Returns
    -------
    Fidelity
    """
    if value is None:
        return Fidelity(
            figure, quantity, paper, NOT_IN_GRID, "no", f"Not in this run's grid. {rule}"
        )
    if isinstance(value, float) and np.isnan(value):
        return Fidelity(figure, quantity, paper, NO_VALUE, "no", f"{rule} {cause}")
    match = judge(value)
    shown = match != "yes" or cause.startswith("Calibrated")  # a calibrated match says so
    return Fidelity(
        figure, quantity, paper, show(value), match, f"{rule} {cause}" if shown else rule
    )


def close_row(
    figure: str,
    quantity: str,
    paper: float,
    value: float | None,
    yes: float,
    partly: float,
    *,
    stated: str | None = None,
    show: Callable[[float], str] | None = None,
    note: str = "",
    cause: str = CAUSE_UNKNOWN,
) -> Fidelity:
    """A row judged by :func:`~vosim.runs.experiments.base.verdict` (relative tolerances).

    Parameters
    ----------
    figure, quantity : str
        As in :class:`~vosim.runs.experiments.base.Fidelity`.
    paper : float
        The paper's value.
    value : float or None
        vosim's value; ``None`` when the point is not in this run's grid.
    yes, partly : float
        The relative tolerances of ``verdict``.
    stated : str, optional
        The paper's value as it states it (default ``paper`` as ``%g``).
    show : callable, optional
        vosim's value as text (default: the paper's decimals).
    note : str
        A sentence appended to the rule (e.g. what vosim's value is a mean of).
    cause : str
        See :func:`fidelity_row`.

    Returns
    -------
    Fidelity
    """
    rule = (
        f"Yes if vosim differs from the paper's value by at most {percent(yes)} of it, partly "
        f"at most {percent(partly)}."
    )
    return fidelity_row(
        figure,
        quantity,
        f"{paper:g}" if stated is None else stated,
        value,
        show or (lambda v: _like(v, paper)),
        lambda v: verdict(v, paper, yes, partly),
        f"{rule} {note}".strip(),
        cause,
    )


def factor_row(
    figure: str,
    quantity: str,
    paper: float,
    value: float | None,
    yes: float,
    partly: float,
    *,
    stated: str,
    show: Callable[[float], str],
    note: str = "",
    cause: str = CAUSE_UNKNOWN,
) -> Fidelity:
    """A row judged by the ratio of the two values (for times and sizes spanning decades).

    ``"yes"`` when ``max(value / paper, paper / value) <= yes``, ``"partly"`` within
    ``partly``, else (or ``value <= 0`` or NaN) ``"no"``. Parameters as :func:`close_row`,
    with ``yes`` and ``partly`` factors (>= 1).

    Returns
    -------
    Fidelity
    """

    def judge(v: float) -> str:
        if not v > 0:
            return "no"
        return verdict(max(v / paper, paper / v), 1.0, yes - 1, partly - 1)

    rule = f"Yes within a factor {yes:g} of the paper's value, partly within {partly:g}."
    return fidelity_row(
        figure, quantity, stated, value, show, judge, f"{rule} {note}".strip(), cause
    )


@dataclass(frozen=True, slots=True)
class Experiment:
    """A registered experiment: ``run(config, progress) -> (table, chart)``.

    ``takes_trace``: the experiment runs on a trace chosen by ``config.trace`` and
    ``config.jobs`` (the others reproduce a paper's own generated instances).
    ``fidelity``: ``fidelity(table) -> list[Fidelity]``, the paper's stated values beside
    vosim's, read from the experiment's table (``None`` for an experiment that reproduces no
    paper figure, e.g. ``validation``).
    """

    name: str
    description: str
    default_repetitions: int
    quick_repetitions: int
    run: Callable[[ExperimentConfig, Callable[[int], None]], tuple[pd.DataFrame, alt.TopLevelMixin]]
    points: Callable[[bool], int]
    takes_trace: bool = False
    fidelity: Callable[[pd.DataFrame], list[Fidelity]] | None = None

    def repetitions(self, quick: bool) -> int:
        """The default instances per figure point of the full (or ``quick``) grid."""
        return self.quick_repetitions if quick else self.default_repetitions


def register_experiment(experiment: Experiment) -> Experiment:
    """Add ``experiment`` to the registry (``ValueError`` if its name is taken or ``"all"``)."""
    if experiment.name == "all":
        raise ValueError("'all' names every experiment at once; choose another name")
    registry.register("experiment", experiment.name, experiment)
    return experiment


def experiments() -> dict[str, Experiment]:
    """All registered experiments by name."""
    return {name: registry.entry("experiment", name) for name in registry.names("experiment")}


def run_experiment(
    name: str,
    out: Path,
    *,
    quick: bool = False,
    repetitions: int | None = None,
    seed: int = 1,
    progress: Callable[[int], None] | None = None,
    trace: str | None = None,
    jobs: int | None = None,
) -> list[Path]:
    """Run the named experiment; write ``NAME.parquet``, ``.csv``, ``.html/.png`` and ``.json``.

    ``NAME.json`` (written last: its presence means the others are complete) records the
    settings (:func:`experiment_settings`), so ``vosim experiment all`` can reuse the result.

    Parameters
    ----------
    name : str
        A registered experiment (see :func:`experiments`).
    out : Path
        Output directory (created).
    quick : bool
        Reduced grid and repetitions, for CI.
    repetitions : int, optional
        Instances per figure point; default the experiment's own (or its quick value).
    seed : int
        Seed; the same seed gives the same table (timings aside).
    progress : callable, optional
        Called with the number of figure points just finished.
    trace, jobs : optional
        The trace and its job prefix, for an experiment that ``takes_trace``.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    UnknownAllocatorError
        ``name`` is not registered (the message lists the experiments).
    ValueError
        ``repetitions < 1``.
    ParameterError
        ``trace``/``jobs`` given to an experiment that does not take a trace, or ``jobs < 1``.
    """
    try:
        experiment = registry.entry("experiment", name)
    except KeyError:
        raise UnknownAllocatorError(
            f"unknown experiment {name!r}; available: {', '.join(experiments())}"
        ) from None
    if repetitions is None:
        repetitions = experiment.repetitions(quick)
    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1, got {repetitions}")
    if (trace is not None or jobs is not None) and not experiment.takes_trace:
        raise ParameterError(
            f"experiment {name!r} runs the paper's own instances: it takes no trace or jobs"
        )
    if jobs is not None and jobs < 1:
        raise ParameterError(f"jobs must be >= 1, got {jobs}")
    config = ExperimentConfig(repetitions, seed, quick, trace, jobs)
    table, chart = experiment.run(config, progress or (lambda k: None))
    out = Path(out)
    written = [write_table(table, out / f"{name}.parquet")]
    csv = out / f"{name}.csv"
    table.to_csv(csv, index=False)
    written.append(csv)
    written += save_chart(chart, out / name)
    settings = experiment_settings(name, quick, repetitions, seed, trace, jobs)
    written.append(write_json(settings, out / f"{name}.json"))
    return written


def experiment_settings(
    name: str, quick: bool, repetitions: int, seed: int, trace: str | None, jobs: int | None
) -> dict:
    """What determines an experiment's table: its name, grid, repetitions, seed, trace, vosim.

    Two runs with equal settings give the same table (timing columns aside), so a result whose
    ``NAME.json`` holds these settings can be reused. The settings record vosim's version, not
    its code: after editing the code, run again (``vosim experiment all --redo``).

    Parameters
    ----------
    name : str
        The experiment.
    quick : bool
        Its reduced grid.
    repetitions : int
        Instances per figure point (resolved, not ``None``).
    seed : int
        The seed (>= 0).
    trace, jobs : str or None, int or None
        The trace and job prefix of an experiment that takes one, else ``None``.

    Returns
    -------
    dict
        JSON-ready: keys ``experiment``, ``quick``, ``repetitions``, ``seed``, ``trace``,
        ``jobs``, ``vosim``.

    References
    ----------
    vosim's own design: ``vosim experiment all`` resumes from these records.
    """
    from vosim import __version__

    return {
        "experiment": name,
        "quick": bool(quick),
        "repetitions": int(repetitions),
        "seed": int(seed),
        "trace": trace,
        "jobs": jobs,
        "vosim": __version__,
    }


def paper_marks(points: pd.DataFrame, x: str, y: str) -> alt.LayerChart:
    """The paper's stated values as black crosses labelled with their text, for a chart layer.

    Parameters
    ----------
    points : pandas.DataFrame
        One row per value: columns ``x`` and ``y`` (the chart's fields, with its units) and
        ``text`` (what the paper says, e.g. ``"paper: 0.93 at t = 834"``).
    x, y : str
        The encodings, as altair shorthands (e.g. ``"C:Q"``); give the same scale as the
        chart the marks join (e.g. ``alt.Y("seconds:Q", scale=alt.Scale(type="log"))``).

    Returns
    -------
    altair.LayerChart
        Crosses and their labels; layer it over vosim's marks (``alt.layer(chart, marks)``).

    Raises
    ------
    ParameterError
        ``points`` lacks ``text``.

    References
    ----------
    vosim's rule: every experiment chart shows the paper's values beside vosim's.
    """
    if "text" not in points:
        raise ParameterError(f"paper points need a 'text' column, got {list(points.columns)}")
    base = alt.Chart(points).encode(x=x, y=y, tooltip=["text:N"])
    return alt.layer(
        base.mark_point(shape=PAPER_SHAPE, size=160, color="black", strokeWidth=2),
        base.mark_text(align="left", dx=8, dy=-10, color="black").encode(text="text:N"),
    )


def value_labels(x: str, y: str, at: tuple[float, float], texts: list[str]) -> alt.Chart:
    """Lines of text (e.g. vosim's value, then the paper's) stacked down from a point.

    Parameters
    ----------
    x, y : str
        The chart's quantitative fields (altair shorthands such as ``"t:Q"``).
    at : (float, float)
        Data coordinates of the first line's left end; each next line sits 10 % of ``y``'s
        value lower (charts whose y axis runs from 0 to 1 get evenly spaced lines).
    texts : list of str
        The lines, e.g. ``["vosim: K-S 0.008", "paper: K-S 0.14"]``.

    Returns
    -------
    altair.Chart
        Black, left-aligned text marks; layer them over the chart.

    References
    ----------
    vosim's rule: the paper's value beside vosim's on each chart.
    """
    fx, fy = x.split(":")[0], y.split(":")[0]
    frame = pd.DataFrame(
        {fx: [at[0]] * len(texts), fy: [at[1] - 0.1 * k for k in range(len(texts))], "text": texts}
    )
    return alt.Chart(frame).mark_text(align="left", color="black").encode(x=x, y=y, text="text:N")
