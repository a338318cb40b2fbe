"""Which findings hold in two studies: their paired tests side by side, in one environment.

Each study's report tests every policy against every baseline on paired runs
(:func:`~vosim.analysis.stats.paired_tests`). :func:`compare_studies` matches the tests of two
sweeps that name the same policy, baseline and metric in the same environment, and says for
each whether the finding holds in both (both significant, the same direction), differs
(both significant, opposite directions), shows in one study only, or in neither.
:func:`write_comparison` writes that as a page of sentences and a CSV.

The environment of a test is the value of every factor of either study: a study's own
factor level, else the value its scenario fixes, else the model's default
(:class:`vosim.scenario.Scenario`). So UniLu-Gaia's main study (fixed prices, users who
stay, no factors) meets LCG-2005-1's tests at ``pricing_policy=fixed,
user_exit_satisfaction=none`` only.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from vosim.analysis.report import CLAIMED, METRICS, Sweep, read_sweep
from vosim.errors import ConfigError
from vosim.runs.config import value_label
from vosim.scenario import Scenario

__all__ = ["compare_studies", "write_comparison", "VERDICTS"]

#: What a pair of tests says, in the order the page lists them.
VERDICTS = ("holds in both", "differs", "only in the first", "only in the second", "in neither")


def _environment(sweep: Sweep, tests: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``tests`` with one text column per key of ``keys``: the environment of each test."""
    scenario = sweep.manifest.get("sweep", {}).get("scenario", {})
    defaults = Scenario()
    out = tests.copy()
    levels = [
        dict(part.split("=", 1) for part in text.split(", ")) if text else {}
        for text in out["factors"].fillna("")
    ]
    for key in keys:
        fixed = scenario.get(key, getattr(defaults, key, None))
        fixed = None if fixed == "none" else fixed
        out[key] = [level.get(key, value_label(fixed)) for level in levels]
    return out


def _verdict(a: pd.Series, b: pd.Series) -> str:
    if a["significant"] and b["significant"]:
        same = np.sign(a["difference"]) == np.sign(b["difference"])
        return VERDICTS[0] if same else VERDICTS[1]
    if a["significant"]:
        return VERDICTS[2]
    return VERDICTS[3] if b["significant"] else VERDICTS[4]


def compare_studies(first: str | Path, second: str | Path) -> pd.DataFrame:
    """The paired tests two sweeps share, side by side, with a verdict each.

    Parameters
    ----------
    first, second : str or Path
        Two :func:`vosim.runs.batch.run_sweep` output directories with baselines.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, policy, baseline, environment) tested in both: ``metric``,
        ``policy``, ``baseline``, one column per factor of either study, then per study
        (suffix ``_first``/``_second``) ``policy_mean``, ``baseline_mean``, ``difference``
        with ``difference_lo``/``difference_hi`` (95% CI), ``p_holm``, ``n`` and
        ``significant``, then ``direction`` (the signs of the two mean differences,
        significant or not: ``"same"``, ``"opposite"`` or ``"none in one"``, where one is 0 or
        not measured) and ``verdict``
        (one of :data:`VERDICTS`). Sorted by verdict, then metric. Empty (with those
        columns) when they share no test. ``attrs["environment"]`` lists the factor columns.

    Raises
    ------
    ConfigError
        A directory has no manifest, no finished run or no baseline (so no paired test); the
        directory is named.

    References
    ----------
    Law, *Simulation Modeling and Analysis* (5th ed., 2015), §11.2 (paired comparisons);
    Holm (1979) (each study's family-wise level).
    """
    sweeps = [read_sweep(first), read_sweep(second)]
    for path, sweep in zip((first, second), sweeps, strict=True):
        if sweep.tests is None:
            raise ConfigError(str(path), None, "the sweep has no baseline, so no paired test")
    keys = list(dict.fromkeys([*sweeps[0].factors, *sweeps[1].factors]))
    on = ["metric", "policy", "baseline", *keys]
    kept = ["policy_mean", "baseline_mean", "difference", "difference_lo", "difference_hi",
            "p_holm", "n", "significant"]  # fmt: skip
    a, b = (_environment(s, s.tests, keys)[on + kept] for s in sweeps)
    both = a.merge(b, on=on, suffixes=("_first", "_second"))
    columns = [
        *on,
        *(f"{k}_{side}" for side in ("first", "second") for k in kept),
        "direction",
        "verdict",
    ]
    if both.empty:
        empty = pd.DataFrame(columns=columns)
        empty.attrs["environment"] = keys
        return empty
    first_side = both[[f"{k}_first" for k in kept]].set_axis(kept, axis=1)
    second_side = both[[f"{k}_second" for k in kept]].set_axis(kept, axis=1)
    both["verdict"] = [
        _verdict(x, y)
        for (_, x), (_, y) in zip(first_side.iterrows(), second_side.iterrows(), strict=True)
    ]
    signs = np.nan_to_num(np.sign(both[["difference_first", "difference_second"]].to_numpy(float)))
    both["direction"] = np.where(
        (signs == 0).any(axis=1),  # no difference, or none measured (NaN: no pair)
        "none in one",
        np.where(signs[:, 0] == signs[:, 1], "same", "opposite"),
    )
    rank = both["verdict"].map({v: i for i, v in enumerate(VERDICTS)})
    table = both.assign(_rank=rank).sort_values(["_rank", "metric"], kind="stable")[columns]
    table.attrs["environment"] = keys
    return table.reset_index(drop=True)


def _sentence(row: pd.Series, keys: list[str], names: tuple[str, str]) -> str:
    where = ", ".join(f"{k}={row[k]}" for k in keys)
    metric = METRICS.get(row["metric"], row["metric"])

    def side(suffix: str, name: str) -> str:
        difference = row[f"difference_{suffix}"]
        direction = "higher" if difference > 0 else "lower" if difference < 0 else "equal"
        return (
            f"{name}: {row[f'policy_mean_{suffix}']:,.4g} vs {row[f'baseline_mean_{suffix}']:,.4g}"
            f" ({direction}, Holm p {row[f'p_holm_{suffix}']:.2g})"
        )

    return (
        f"{row['policy']} against {row['baseline']}{f' at {where}' if where else ''}, "
        f"{metric}: {side('first', names[0])}; {side('second', names[1])}"
    )


def write_comparison(
    first: str | Path, second: str | Path, out: str | Path, *, claimed_only: bool = True
) -> list[Path]:
    """Write the comparison of two studies as an HTML page of sentences and a CSV.

    Parameters
    ----------
    first, second : str or Path
        Two sweep output directories (:func:`compare_studies`).
    out : str or Path
        The HTML file; the CSV (every shared test) is written beside it as ``<stem>.csv``.
    claimed_only : bool
        The page's sentences cover the report's headline metrics (:data:`~vosim.analysis.
        report.CLAIMED`) only (default); the CSV always has every metric.

    Returns
    -------
    list of Path
        The page, then the CSV.

    Raises
    ------
    ConfigError
        As :func:`compare_studies`.

    References
    ----------
    Holm (1979) (each study's family-wise level); Law, *Simulation Modeling and Analysis*
    (5th ed., 2015), §11.2.
    """
    table = compare_studies(first, second)
    out = Path(out)
    names = (Path(first).name, Path(second).name)
    keys = table.attrs["environment"]
    shown = table[table["metric"].isin(CLAIMED)] if claimed_only else table
    parts = []
    for verdict in VERDICTS:
        rows = shown[shown["verdict"] == verdict]
        parts.append(f"<h2>{html.escape(verdict.capitalize())}: {len(rows)}</h2>")
        groups = (
            [
                ("same direction in both", rows["direction"] == "same"),
                ("opposite directions", rows["direction"] == "opposite"),
                ("no difference in one", rows["direction"] == "none in one"),
            ]
            if verdict == VERDICTS[-1]
            else [("", rows["direction"].notna())]
        )
        for title, mask in groups:
            items = "".join(
                f"<li>{html.escape(_sentence(r, keys, names))}</li>"
                for _, r in rows[mask].iterrows()
            )
            head = f"<h3>{html.escape(title)}: {int(mask.sum())}</h3>\n" if title else ""
            parts.append(head + (f"<ul>{items}</ul>" if items else ""))
    page = f"""<!DOCTYPE html>
<html>
<head><meta charset="UTF-8"><title>vosim: {html.escape(" vs ".join(names))}</title>
<style>body {{ font-family: sans-serif; margin: 2em; }}</style></head>
<body>
<h1>Which findings hold in both studies: {html.escape(names[0])} and {html.escape(names[1])}</h1>
<p>{len(table)} paired tests (policy against baseline, metric, environment) are in both
studies; the sentences cover the {len(shown)} of headline metrics. A finding is a difference
significant at the 5 % family-wise level of its own study (Holm). Environment: every factor of
either study, at a study's fixed value where it does not vary it.</p>
{chr(10).join(parts)}
</body>
</html>
"""
    from vosim.runs.store import atomic_write_bytes

    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out, page.encode("utf-8"))
    csv = out.with_suffix(".csv")
    atomic_write_bytes(csv, table.to_csv(index=False).encode("utf-8"))
    return [out, csv]
