"""ICCS 2023's charts: each experiment's table drawn beside the values the paper states."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from vosim.runs.experiments.base import method_colour, paper_marks, value_labels
from vosim.runs.experiments.iccs2023.fidelity import (
    FIG4_PAPER_SINGLE_GAP,
    FIG5_PAPER_BRUTE,
    FIG6_PAPER_GREEDY_OPTIMAL_ABOVE,
    FIG6_PAPER_SINGLE_ADVANTAGE,
    FIG7_PAPER_GREEDY_LOSS,
    FIG7_PAPER_SINGLE_GAP,
    FIG8_PAPER_SECONDS,
    FIG8_PAPER_TREE,
)
from vosim.runs.experiments.iccs2023.setup import (
    FIG2_GLOBAL_P,
    FIG2_INTERVAL,
    FIG2_JOBS,
    FIG2_PAPER,
    SMALL_METHODS,
    TREE_METHODS,
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


def _fig4_5_chart(table: pd.DataFrame) -> alt.VConcatChart:
    """Mean ``P_a^w`` (Fig. 4) and mean time on a log scale (Fig. 5) against ``n``."""
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
    return alt.vconcat(
        _probability(table, "n", x_title, single),
        _seconds(table, "n", x_title, paper_marks(brute, "n:Q", "mean_seconds:Q")),
    ).properties(title="ICCS 2023 Figs. 4-5: N = 21, G = 8, no cost limit")


def _fig6_chart(table: pd.DataFrame) -> alt.LayerChart:
    """Mean ``P_a^w`` against ``C`` (Fig. 6), a line per method, with the paper's statements."""
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
    return _probability(table, "C", "budget C", alt.layer(single, rule)).properties(
        title="ICCS 2023 Fig. 6: N = 21, G = 8, n = 8"
    )


def _fig7_8_chart(table: pd.DataFrame) -> alt.VConcatChart:
    """Mean ``P_a^w`` (Fig. 7), mean time and mean tree size (Fig. 8) against ``C``, log scales."""
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
    return alt.vconcat(
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


def _fig2_chart(total: float) -> alt.LayerChart:
    """Fig. 2: ``P_o(t)`` of the two jobs, ``[545, 844]`` shaded, ``P_a^r = total`` labelled.

    The occupation probability of each job of :data:`FIG2_JOBS` (Figs. 1-2), the global
    events' :data:`FIG2_GLOBAL_P`, and vosim's ``P_a^r`` beside the paper's 0.235.
    """
    start, end = FIG2_INTERVAL
    first, second = FIG2_JOBS
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
    return alt.layer(band, glob, lines, label).properties(
        width=560,
        height=260,
        title="ICCS 2023 Fig. 2: availability of a resource over [545, 844] (shaded); "
        "gray line: global events, P_o = 0.06",
    )
