"""The sweep report (HTML + PNG) and ``vosim report``, with the per-run cycle tables it reads."""

import importlib.util
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from vosim.analysis.report import ua_crossings, write_report
from vosim.errors import ConfigError
from vosim.runs.batch import expand, run_sweep
from vosim.runs.cli import main
from vosim.runs.config import parse_sweep
from vosim.runs.sweep_results import cycles_path, load_cycles, load_results

HAS_VLC = importlib.util.find_spec("vl_convert") is not None

# 2 x 2 policies x 2 repetitions of tiny runs (~0.7 s each). NASA's 128-node jobs starve behind
# the owners' local jobs: a short patience ends the drain (700 hourly cycles of waiting for the
# default 30 days, ~8 s a run).
SWEEP = """
name = "tiny-report"
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 30
scheduling_interval = 86400.0
cycle_period = 3600.0
max_alternatives = 3
user_exit_satisfaction = 0.6
patience = 172800.0
[sweep]
vo_objective = ["cost", "finish"]
ua = [0, 50]
[run]
repetitions = 2
seed = 3
"""

TITLES = (
    "Fairness-revenue trade-off",
    "Metrics vs vo_objective",
    "Metrics vs ua",
    "(A, U_a) plane",
    "Churn: who is still in the VO",
    "Market concentration per policy",
    "User-owner market of one run",
    "Mean wait by users' criterion",
)


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    result = run_sweep(parse_sweep(SWEEP), out, workers=1)
    assert (result.ran, result.failed) == (8, 0)
    return out


def test_cycle_tables_written_per_run(sweep_dir):
    config = parse_sweep(SWEEP)
    ids = [spec.run_id for spec in expand(config)]
    for rid in ids:
        assert cycles_path(sweep_dir, rid).is_file()
    cycles = load_cycles(sweep_dir)
    assert list(dict.fromkeys(cycles["run_id"])) == ids  # the sweep's order
    assert {"time", "owners_active", "users_active", "utilization"} <= set(cycles.columns)
    counts = cycles.groupby("run_id").size()
    table = load_results(sweep_dir).set_index("run_id")
    assert (counts == table.loc[counts.index, "cycles"]).all()
    assert not list((sweep_dir / "cycles").glob(".part-*.tmp"))


def test_resume_keeps_cycle_tables(sweep_dir):
    before = {p.name: p.stat().st_mtime_ns for p in (sweep_dir / "cycles").iterdir()}
    result = run_sweep(parse_sweep(SWEEP), sweep_dir, workers=1)
    assert (result.ran, result.skipped) == (0, 8)
    after = {p.name: p.stat().st_mtime_ns for p in (sweep_dir / "cycles").iterdir()}
    assert after == before


def test_write_report_has_every_figure_and_table(sweep_dir, tmp_path):
    out = tmp_path / "page.html"
    written = write_report(sweep_dir, out)
    assert written[0] == out and out.is_file()
    text = out.read_text()
    specs = re.findall(r'vegaEmbed\("#fig\d+", (.*?), \{"mode": "vega-lite"\}\)', text)
    assert len(specs) == len(TITLES)
    for spec in specs:  # valid JSON: no NaN or Infinity, which Vega-Lite would refuse
        json.loads(spec, parse_constant=lambda c: pytest.fail(f"{c} in a chart spec"))
    # the (A, U_a) plane's axes: A in [0, 100] %, intervals of few repetitions clipped
    plane = next(s for s in specs if "(A, U_a) plane" in s)
    assert '"domain": [0, 100]' in plane and '"clip": true' in plane
    for title in TITLES:
        assert title in text
    table = text[text.rindex("<table>") :]
    assert table.count("<tr>") == 1 + 4  # header and one row per policy
    assert "vo_objective=finish, ua=50" in text
    tables = ["page-summary.csv", "page-waits.csv", "page-crossings.csv"]
    if HAS_VLC:
        stems = {"tradeoff", "param-vo_objective", "param-ua", "ua-plane", "churn"}
        stems |= {"concentration", "market", "waits"}
        assert [p.name for p in written[1:4]] == tables
        assert {p.name for p in written[4:]} == {f"page-{s}.png" for s in stems}
        for png in written[4:]:
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "cdn.jsdelivr.net" not in text  # self-contained
    else:
        assert [p.name for p in written] == ["page.html", *tables]


def test_waits_per_criterion_add_up_and_cover_every_job(sweep_dir, tmp_path):
    """Per run: the criteria's jobs are the jobs that entered, their waits average to the
    run's mean wait; per report row: chosen delay + queueing = the wait."""
    table = load_results(sweep_dir)
    criteria = [c.removeprefix("jobs_entered_") for c in table if c.startswith("jobs_entered_")]
    assert criteria == ["finish", "runtime", "cost"]
    counts = table[[f"jobs_entered_{c}" for c in criteria]]
    assert (counts.sum(axis=1) == table["jobs_entered"]).all()
    weighted = sum(
        table[f"mean_wait_{c}"].fillna(0.0) * table[f"jobs_entered_{c}"] for c in criteria
    )
    np.testing.assert_allclose(weighted / table["jobs_entered"], table["mean_wait"], rtol=1e-9)
    write_report(sweep_dir, tmp_path / "page.html")
    waits = pd.read_csv(tmp_path / "page-waits.csv")
    assert set(waits["criterion"]) <= set(criteria) and len(waits) >= 4
    np.testing.assert_allclose(waits["chosen"] + waits["queueing"], waits["wait"], rtol=1e-9)
    assert (waits["wait_lo"] <= waits["wait"]).all() and (waits["wait"] <= waits["wait_hi"]).all()


def test_write_report_default_path(sweep_dir):
    written = write_report(sweep_dir)
    assert written[0] == sweep_dir / "report.html"


def test_report_without_cycle_tables_skips_churn(sweep_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(sweep_dir, copy)
    shutil.rmtree(copy / "cycles")
    assert load_cycles(copy).empty
    text = write_report(copy)[0].read_text()
    assert len(re.findall(r'vegaEmbed\("#fig\d+"', text)) == len(TITLES) - 1
    assert "Churn" not in text


def test_report_without_networks_skips_the_market_graph(sweep_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(sweep_dir, copy)
    shutil.rmtree(copy / "networks")
    text = write_report(copy)[0].read_text()
    assert len(re.findall(r'vegaEmbed\("#fig\d+"', text)) == len(TITLES) - 1
    assert "User-owner market of one run" not in text
    assert "Market concentration per policy" in text  # from the runs' table


def test_report_of_an_empty_dir_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="no sweep results"):
        write_report(tmp_path)


def test_cli_report_empty_dir_one_line_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vosim: error:") and err.count("\n") == 1
    assert "no sweep results" in err


def test_cli_report(sweep_dir, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(sweep_dir), "--out", str(out)]) == 0
    assert out.is_file()
    assert str(out) in capsys.readouterr().out


def _strict_json(text: str) -> dict:
    """``json.loads`` that refuses NaN and Infinity, as Vega-Lite's parsers do."""

    def refuse(constant: str):
        raise ValueError(f"{constant} in a Vega-Lite spec")

    return json.loads(text, parse_constant=refuse)


def test_charts_of_undefined_means_are_valid_json():
    # mean A is NaN for a policy whose runs had no cycle with a choice, and an
    # infinite value must not reach the spec either: Vega-Lite rejects NaN and Infinity
    from vosim.analysis.report import _parameter_chart, _summary

    ok = pd.DataFrame(
        {
            "ua": [0.0, 0.0, 50.0, 50.0],
            "mean_vo_evaluation": [math.nan, math.nan, 0.4, 0.6],
            "mean_wait": [1.0, math.inf, 3.0, 5.0],
            "label": ["ua=0", "ua=0", "ua=50", "ua=50"],
        }
    )
    summary = _summary(ok, ["ua"], ["mean_vo_evaluation", "mean_wait"])
    assert summary["mean_vo_evaluation"].isna().any()
    chart = _parameter_chart(
        summary, ["ua"], "ua", ["mean_vo_evaluation", "mean_wait"], ["0", "50"]
    )
    spec = _strict_json(chart.to_json())
    rows = [r for data in spec["datasets"].values() for r in data]
    undefined = [r for r in rows if r["metric"] == "mean_vo_evaluation" and r["value"] == "0"]
    assert undefined and all(r["mean"] is None for r in undefined)


def test_ua_crossings_interpolate_where_a_meets_u_a():
    """A - U_a: +35 at 25, -30 at 50 -> 25 + 35 * 25 / 65; a line that stays above has none;
    a line that touches the diagonal at a limit crosses there."""
    plot = pd.DataFrame(
        {
            "ua": [0, 25, 50, 0, 50, 90, 0, 40, 80],
            "mean": [100, 60, 20, 100, 90, 95, 100, 40, 0],
            "line": ["a"] * 3 + ["b"] * 3 + ["c"] * 3,
        }
    )
    got = ua_crossings(plot, ["line"]).set_index("line")
    assert got.loc["a", "crossing"] == pytest.approx(25 + 35 * 25 / 65)
    assert (got.loc["a", "below"], got.loc["a", "above"]) == (25.0, 50.0)
    assert math.isnan(got.loc["b", "crossing"])
    assert got.loc["c", "crossing"] == pytest.approx(40.0)
