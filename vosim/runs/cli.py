"""The ``vosim`` command line: run, experiment, sweep, report (of a sweep) and study."""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from vosim import __version__
from vosim.allocators.base import criteria
from vosim.core.code_path import code_path, on_compile, reference
from vosim.errors import VosimError
from vosim.scenario import GROUPS, PARAMETERS, PRESETS, Choice, Flag, Integer, Param, Real
from vosim.ui.cli import add_ui_parser, run_ui

__all__ = ["main", "build_parser", "run_values"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Adds "(default: ...)" to an option's help unless the help already says its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.help and "default" in action.help:
            return action.help
        return super()._get_help_string(action)


def _int_at_least(low: int, words: str):
    """An argparse ``type``: an integer >= ``low``; ``words`` name it in the error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"expected {words}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_seed = _int_at_least(0, "an integer >= 0")


#: Mutually exclusive parameters of ``vosim run`` (their aliases join them).
_EXCLUSIVE = (("jobs",), ("local_load", "local_trace"), ("vo_criterion", "criterion_allocators"))

#: Options kept from earlier versions that set a parameter under another name: parameter ->
#: (option, argparse keywords), added next to the parameter's own option.
_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "jobs": (
        "--all-jobs",
        {
            "dest": "jobs",
            "action": "store_const",
            "const": None,
            "default": argparse.SUPPRESS,
            "help": "simulate every job of the trace (as --jobs none)",
        },
    ),
    "local_load": (
        "--no-local-load",
        {
            "dest": "local_load",
            "action": "store_const",
            "const": None,
            "default": argparse.SUPPRESS,
            "help": "owners run no local jobs: dedicated nodes (as --local-load none)",
        },
    ),
    "criterion_allocators": (
        "--allocator",
        {
            "dest": "allocator",
            "type": lambda text: _criterion(text),
            "default": None,
            "metavar": "CRITERION",
            "help": "window search of every user with the finish, runtime or cost criterion: "
            f"{', '.join(criteria())} (AEP §2.2; amp: the earliest window within budget) or a "
            "fallback chain such as min_cost>amp (the exact search under --fallback-after, then "
            "the fast one); users with the availability criterion keep max_availability "
            "(default: each user's own, min_finish, min_runtime or min_cost)",
        },
    ),
}


def _converter(param: Param):
    """The argparse ``type`` of ``param``: :meth:`~vosim.scenario.Param.from_text`."""

    def convert(text: str) -> Any:
        try:
            return param.from_text(text)
        except VosimError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = param.name
    return convert


def _option(param: Param) -> dict[str, Any]:
    """The argparse keywords of ``param``'s option, from its declaration.

    Every option's default is ``argparse.SUPPRESS``: an option not given is absent from the
    namespace, so :func:`run_values` can tell it from a value equal to the default (a preset
    may change the default). The help says the declared default.
    """
    help_text = param.help_text
    options: dict[str, Any] = {"dest": param.name, "default": argparse.SUPPRESS}
    if isinstance(param.check, Flag):
        return {**options, "action": "store_true", "help": help_text.replace("%", "%%")}
    if param.metavar is not None:
        options["metavar"] = param.metavar
    elif isinstance(param.check, Integer):
        options["metavar"] = "N"
    elif isinstance(param.check, Real):
        options["metavar"] = "SECONDS" if param.unit == "s" else "X"
    # Subset (user_criteria) reads its names only when a value is checked: they import Mesa.
    if isinstance(param.check, Choice):
        choices = param.choices or ()
        if param.metavar is not None:  # the metavar hides the choices: the help lists them
            help_text = param.format_help(list_choices=True)
        if not param.optional:
            options["choices"] = list(choices)
            if all(isinstance(c, int) for c in choices):
                options["type"] = int
            return {**options, "help": help_text.replace("%", "%%")}
        options.setdefault("metavar", "{" + ",".join([*map(str, choices), "none"]) + "}")
    return {**options, "type": _converter(param), "help": help_text.replace("%", "%%")}


def _add_run_options(run: argparse.ArgumentParser) -> None:
    """Add ``vosim run``'s options: the hand-written ones, then one per model parameter."""
    run.add_argument(
        "--preset",
        choices=list(PRESETS),
        default=None,
        metavar="NAME",
        help="start from a named preset, the options given override it: "
        + "; ".join(f"{name} ({p.description})" for name, p in PRESETS.items()).replace("%", "%%")
        + " (default: none, the defaults below)",
    )
    run.add_argument(
        "--seed",
        type=_seed,
        default=1,
        help="random seed, an integer >= 0 (same seed, same results)",
    )
    run.add_argument("--out", type=Path, default=Path("vosim-out"), help="output directory")
    run.add_argument(
        "--csv",
        action="store_true",
        help="also write jobs.csv: the Batsim _jobs.csv columns of jobs.parquet, in Batsim's "
        "order (evalys reads it with JobSet.from_csv)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    groups = {key: run.add_argument_group(title, text) for key, (title, text) in GROUPS.items()}
    exclusive: dict[tuple[str, ...], Any] = {}
    for name, param in PARAMETERS.items():
        target = groups[param.group]
        members = next((m for m in _EXCLUSIVE if name in m), None)
        if members is not None:
            if members not in exclusive:
                exclusive[members] = target.add_mutually_exclusive_group()
            target = exclusive[members]
        target.add_argument(param.flag, **_option(param))
        if name in _ALIASES:
            flag, options = _ALIASES[name]
            target.add_argument(flag, **options)


def run_values(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~vosim.model.VOModel` keyword arguments (but ``rng``) of a parsed ``vosim run``.

    The declared defaults (:data:`vosim.scenario.PARAMETERS`), then ``--preset``'s values
    (:data:`vosim.scenario.PRESETS`), then the options given (``--allocator NAME`` as
    ``criterion_allocators``).

    Parameters
    ----------
    args : argparse.Namespace
        ``build_parser().parse_args(["run", ...])``.

    Returns
    -------
    dict
        Parameter name -> value, every declared parameter.
    """
    values = {name: param.default for name, param in PARAMETERS.items()}
    if getattr(args, "preset", None) is not None:
        values.update(PRESETS[args.preset].values)
    values.update({name: getattr(args, name) for name in PARAMETERS if hasattr(args, name)})
    if getattr(args, "allocator", None) is not None:
        values["criterion_allocators"] = _allocators(args.allocator)
    return values


def build_parser() -> argparse.ArgumentParser:
    """The ``vosim`` argument parser (``run``, ``experiment``, ``sweep``, ``report``, ``study``)."""
    parser = _Parser(
        prog="vosim",
        description=(
            "Simulate resource sharing in a grid/cloud virtual organization (VO): users submit "
            "the jobs of a real workload trace, resource owners price their nodes and run local "
            "jobs, and a metascheduler co-allocates windows of concurrent slots cycle by cycle."
        ),
    )
    parser.add_argument("--version", action="version", version=f"vosim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    run = sub.add_parser(
        "run",
        help="run the VO model on an SWF trace and write jobs, cycles, summary and a chart",
        description=(
            "Run the VO model on an SWF workload trace. Writes to --out: jobs.parquet (one row per "
            "job read; Batsim _jobs.csv column names plus vosim's own), tasks.parquet (one row per "
            "task that ran), network.graphml (the user-owner market: who bought how much processor "
            "time from whom, for networkx or Gephi), cycles.parquet (one row per scheduling cycle "
            "run; idle stretches are skipped), groups.parquet (one row per group of users, "
            "LCG-2005-1's VOs: jobs, waits, where its work ran and, with --owners trace, where the "
            "traced grid ran it), group_sites.parquet (the site x VO view: processor time each "
            "group bought from each site), summary.json (the metrics, and under 'parameters' every "
            "model argument, so the run can be repeated) and chart.html/.png (utilization and queue"
            " length over time). With no --horizon the run drains: every job ends completed, "
            "rejected (never runnable here) or withdrawn (its user left, or it waited past "
            "--patience), each with its reason; with --horizon, jobs still waiting or running then "
            "end unfinished. Times are model time units = trace seconds. Every option below but "
            "--preset, --seed, --out, --csv and --quiet is a VOModel parameter (vosim.scenario "
            "declares them; sweep files use the same names with _); --preset NAME starts from a "
            "named preset and the options given override it."
        ),
        formatter_class=_Defaults,
    )
    _add_run_options(run)

    exp = sub.add_parser(
        "experiment",
        help="reproduce a paper's figure set; writes a table (Parquet, CSV) and an altair chart",
        description=(
            "Run a named experiment that reproduces a figure set of the papers (see --list). "
            "Writes NAME.parquet, NAME.csv, NAME.html/.png and NAME.json (its settings) to "
            "--out. Same seed, same table (timing columns aside). NAME 'all' runs every "
            "experiment and writes fidelity.md and fidelity.csv: each value a paper states "
            "beside vosim's, with a verdict (yes / partly / no) and its reason; an experiment "
            "whose result with the same settings is already in --out is reused (--redo runs it "
            "again), so an interrupted 'all' resumes."
        ),
        formatter_class=_Defaults,
    )
    exp.add_argument("name", nargs="?", help="experiment name (see --list), or 'all'")
    exp.add_argument("--list", action="store_true", help="list the experiments and exit")
    exp.add_argument("--out", type=Path, default=Path("vosim-out"), help="output directory")
    exp.add_argument("--quick", action="store_true", help="small grid and few repetitions (CI)")
    exp.add_argument(
        "--repetitions",
        type=_positive_int,
        default=None,
        help="random instances per figure point (default: the experiment's own)",
    )
    exp.add_argument("--seed", type=_seed, default=1, help="random seed, an integer >= 0")
    exp.add_argument(
        "--trace",
        default=None,
        help="trace of an experiment that runs on one (validation): a bundled name or an SWF "
        "path (default: the experiment's own)",
    )
    exp.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        help="the trace's first N jobs (default: the experiment's own)",
    )
    exp.add_argument("--quiet", action="store_true", help="no progress bar")
    exp.add_argument(
        "--redo",
        action="store_true",
        help="with 'all': run every experiment again, even those already in --out (the "
        "recorded settings hold vosim's version, not its code: use --redo after editing it)",
    )

    sweep = sub.add_parser(
        "sweep",
        help="run a parameter sweep from a TOML file; resumable, on local processes or Ray",
        description=(
            "Run every combination of the values in a sweep file (TOML: [scenario] fixed VOModel "
            "arguments, [sweep] lists of values, [run] repetitions and seed; see "
            "vosim.runs.config). Writes DIR/manifest.json and DIR/runs/part-<id>.parquet, one "
            "row per finished run (parameters, seed, status, error, metrics). Run the same "
            "command again after an interruption: finished runs are skipped. Same seeds, same "
            "table from any backend and worker count. Exit status 1 if a run failed (its error "
            "is in the table), 130 if interrupted."
        ),
    )
    sweep.add_argument("file", type=Path, metavar="FILE", help="sweep file (TOML)")
    sweep.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory")
    sweep.add_argument(
        "--workers",
        type=_positive_int,
        default=None,
        help="runs at once (default: this machine's CPUs for local, the cluster's for ray)",
    )
    _add_backend_options(sweep)
    sweep.add_argument(
        "--retry-failed", action="store_true", help="run again the runs recorded as errors"
    )
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")

    report = sub.add_parser(
        "report",
        help="write a one-page HTML report (and PNG figures) of a sweep's results",
        description=(
            "Read a sweep output directory (vosim sweep or vosim study) and write one "
            "self-contained HTML page: the fairness-revenue trade-off of the policies, each "
            "metric vs each swept parameter, the (A, U_a) plane when ua is swept, owners' and "
            "users' churn over time, the VOs (each group's concentration over sites beside the "
            "trace's own placement, with --owners trace), the paired tests against the "
            "baselines and a table of the means (mean +- sd over repetitions). "
            "The figures are also written as PNG when vl-convert-python is installed."
        ),
    )
    report.add_argument("dir", type=Path, metavar="DIR", help="sweep output directory")
    report.add_argument(
        "--out", type=Path, default=None, metavar="FILE", help="HTML file (default DIR/report.html)"
    )

    compare = sub.add_parser(
        "compare",
        help="say which findings of two sweeps hold in both (their paired tests side by side)",
        description=(
            "Read two sweep output directories with baselines (e.g. vosim study vo-policies "
            "and vosim study lcg-grid) and write an HTML page and a CSV of the paired tests "
            "they share (same policy, baseline, metric and environment: every factor of "
            "either, at a study's fixed value where it does not vary it): which differences "
            "hold in both studies, which differ, which show in one only."
        ),
    )
    compare.add_argument("first", type=Path, metavar="DIR1", help="first sweep output directory")
    compare.add_argument("second", type=Path, metavar="DIR2", help="second sweep output directory")
    compare.add_argument(
        "--out",
        type=Path,
        default=Path("compare.html"),
        metavar="FILE",
        help="HTML file; the CSV goes beside it as FILE with .csv (default compare.html)",
    )

    from vosim.runs.studies import STUDIES

    study = sub.add_parser(
        "study",
        help="run a built-in sweep (resumable) and write its report",
        description=(
            "Run a built-in sweep like vosim sweep (the same --out skips finished runs) and "
            "write DIR/report.html. Studies: "
            + "; ".join(f"{name}: {s.description}" for name, s in STUDIES.items())
            + "."
        ),
    )
    study.add_argument(
        "name", choices=list(STUDIES), metavar="NAME", help=f"study name: {', '.join(STUDIES)}"
    )
    study.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help="output directory (default: NAME)"
    )
    size = study.add_mutually_exclusive_group()
    size.add_argument(
        "--quick", action="store_true", help="a small variant (a few minutes on 2 cores)"
    )
    size.add_argument(
        "--full",
        action="store_true",
        help="the whole grid: every factor at the trace's whole size (hours; for a cluster: "
        "--backend ray --ray-address ADDR)",
    )
    study.add_argument(
        "--workers", type=_positive_int, default=None, help="runs at once (default: the CPUs)"
    )
    _add_backend_options(study)
    study.add_argument("--quiet", action="store_true", help="no progress bar")
    add_ui_parser(sub)
    return parser


def _add_backend_options(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--ray-address``: where a sweep's runs run."""
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help='local processes (default), or Ray tasks (pip install "vosim[ray]")',
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="Ray cluster to use (e.g. auto, ray://host:10001, host:6379); default: start a "
        "local one",
    )


def _criteria(summary: dict) -> list[str]:
    """The users' criteria a run summary gives waits for (``jobs_entered_<c>`` keys)."""
    return [k.removeprefix("jobs_entered_") for k in summary if k.startswith("jobs_entered_")]


def _summary_lines(summary: dict) -> list[str]:
    def num(x, fmt):
        return "n/a" if x is None or x != x else format(x, fmt)

    bound = ">= " if summary["mean_wait_lower_bound"] else ""
    return [
        f"jobs read {summary['jobs_read']}: completed {summary['completed']}, "
        f"rejected {summary['rejected']}, withdrawn {summary['withdrawn']}, "
        f"unfinished {summary['unfinished']}",
        f"over the {summary['jobs_entered']} jobs that entered the queue: mean wait "
        f"{bound}{num(summary['mean_wait'], ',.0f')} s, mean bounded slowdown (tau=10 s) "
        f"{bound}{num(summary['mean_bounded_slowdown'], ',.2f')}",
        f"of the mean wait, chosen by users (a later, cheaper or faster window) "
        f"{num(summary['mean_chosen_delay'], ',.0f')} s, queueing (no affordable window "
        f"earlier) {bound}{num(summary['mean_queue_wait'], ',.0f')} s",
        "by users' criterion, mean wait (chosen + queueing): "
        + "; ".join(
            f"{c} {bound}{num(summary[f'mean_wait_{c}'], ',.0f')} s "
            f"({num(summary[f'mean_chosen_delay_{c}'], ',.0f')} + "
            f"{num(summary[f'mean_queue_wait_{c}'], ',.0f')}) over "
            f"{summary[f'jobs_entered_{c}']} jobs"
            for c in _criteria(summary)
        ),
        f"completed jobs only: mean wait {num(summary['mean_wait_completed'], ',.0f')} s, "
        f"mean bounded slowdown {num(summary['mean_bounded_slowdown_completed'], ',.2f')}",
        f"utilization: VO {num(summary['utilization'], '.1%')}, local "
        f"{num(summary['utilization_local'], '.1%')}, total "
        f"{num(summary['utilization_total'], '.1%')}",
        f"owners' revenue {num(summary['owners_revenue'], ',.0f')} cost units; market: "
        f"largest owner's share {num(summary['market_owner_share_max'], '.1%')}, HHI "
        f"{num(summary['market_owner_hhi'], '.3f')}, users' dependence on one owner "
        f"{num(summary['market_user_dependence'], '.1%')}",
        *(
            [
                f"local jobs {summary['local_jobs']} ({summary['local_priority']}): mean wait "
                f"{num(summary['local_mean_wait'], ',.0f')} s, 95th percentile "
                f"{num(summary['local_p95_wait'], ',.0f')} s; VO reservations displaced "
                f"{summary['displaced']}, VO jobs preempted {summary['preempted']} (work lost "
                f"{num(summary['lost_work'], ',.0f')} processor-s)"
            ]
            if "local_jobs" in summary
            else []
        ),
        *(
            [
                f"users who left the VO {summary['users_left']}: at leaving their satisfaction's "
                f"parts averaged choice (1 - U) {num(summary['users_left_choice_part'], '.2f')}"
                f", wait {num(summary['users_left_wait_part'], '.2f')} (queueing alone "
                f"{num(summary['users_left_queue_part'], '.2f')})"
            ]
            if summary["users_left"]
            else []
        ),
        f"simulated {summary['jobs_read']} jobs in {summary['wall_seconds']:.2f} s: "
        f"{num(summary['completed_jobs_per_second'], ',.0f')} completed jobs/s",
    ]


def _criterion(text: str) -> str:
    """A registered window criterion or a chain of them (``min_cost>amp``), for argparse."""
    from vosim.allocators.fallback import resolve

    try:
        return str(resolve(text, "criteria"))
    except VosimError as e:
        raise argparse.ArgumentTypeError(str(e).strip("'\"")) from None


def _allocators(name: str | None) -> dict[str, str] | None:
    """``VOModel``'s ``criterion_allocators`` for ``--allocator`` (``None``: the default)."""
    from vosim.policies.cyclic_scheme import one_criterion

    return None if name is None else one_criterion(name)


def _local_flow_summary(model) -> dict:
    """The owners' local job flow for ``summary.json``: model, kind, and a trace's use."""
    from vosim.market.local_trace import TraceLocalFlow

    flow = model.local_flow
    if model.local_jobs is not None:
        lengths = model.local_lengths
        return {
            "local_model": "online",
            "local_priority": model.local_jobs.priority,
            "local_load": "trace" if lengths is None else list(model.local_load),
            "local_trace": model.local_trace_name,
            "local_length_median": None if lengths is None else lengths.median,
            "local_length_sigma": None if lengths is None else lengths.sigma,
            "local_trace_jobs": model.local_trace_jobs,
            "local_trace_dropped": model.local_trace_dropped,
        }
    if flow is None:
        return {"local_model": None, "local_load": None}
    if isinstance(flow, TraceLocalFlow):
        return {
            "local_model": "interval",
            "local_load": "trace",
            "local_trace": flow.name,
            "local_trace_jobs": flow.jobs,
            "local_trace_dropped": flow.dropped,
        }
    return {"local_model": "interval", "local_load": [flow.low, flow.high]}


def _waiting_for_kernels(waiting: bool) -> None:
    """Say why a run stalls at its start: another vosim process is compiling the kernels."""
    if waiting:
        print(
            "vosim: waiting for another vosim process compiling the kernels (first run only)",
            file=sys.stderr,
            flush=True,
        )


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vosim.analysis.network import TASK_COLUMNS, graphml_text
    from vosim.runs.memory import release_memory
    from vosim.runs.store import ROW_GROUP, atomic_write_bytes, write_json, write_table
    from vosim.scenario import Scenario

    values = Scenario(**run_values(args)).kwargs()  # checked before Mesa is imported
    _output_dir(args.out)
    if not reference():  # a cold cache: the kernels compile in parallel with the trace's read
        from vosim.core import precompile

        precompile.start(waiting=None if args.quiet else _waiting_for_kernels)
    from vosim.model import VOModel

    started = time.perf_counter()
    model = VOModel(**values, rng=args.seed)
    bar = tqdm(
        total=len(model.jobs), unit="job", desc="simulating", disable=args.quiet, leave=False
    )

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    def compiling(busy: bool) -> None:
        bar.set_description("compiling kernels (first run only)" if busy else "simulating")

    on_compile(None if args.quiet else compiling)

    interrupted = False
    try:
        model.run(progress=progress)
    except KeyboardInterrupt:
        interrupted = True
        model.finish(interrupted=True)
    finally:
        on_compile(None)
        bar.close()
    wall = time.perf_counter() - started

    out: Path = args.out
    # One table at a time, each written before the next is built, and the pages its build
    # and write freed given back (release_memory): the peak is the model and the largest
    # table, not all of them. The run's own freed pages go back first. The task table, the
    # largest, is written one row group at a time from the model's task log; then the log's
    # columns that the market and the site x VO view read are handed to them.
    release_memory(collect=False)
    write_table(model.task_frames(ROW_GROUP), out / "tasks.parquet")
    release_memory(collect=False)
    tasks = model.task_frame(release=True, columns=TASK_COLUMNS)
    market = model.market_graph(tasks)
    pairs = model.group_site_frame(tasks)
    del tasks
    release_memory(collect=False)
    jobs = model.job_frame()
    release_memory(collect=False)
    write_table(jobs, out / "jobs.parquet")
    release_memory(collect=False)
    cycles = model.cycle_frame()
    write_table(cycles, out / "cycles.parquet")
    write_table(model.group_frame(jobs, pairs), out / "groups.parquet")
    write_table(pairs, out / "group_sites.parquet")
    del pairs
    release_memory(collect=False)
    summary = model.summary(jobs, cycles, market)
    failures = int(jobs["failures"].sum())
    extra = []
    if getattr(args, "csv", False):  # Batsim's _jobs.csv columns, for evalys and Batsim tools
        from vosim.analysis.metrics import batsim_jobs

        atomic_write_bytes(out / "jobs.csv", batsim_jobs(jobs).to_csv(index=False).encode())
        extra.append("jobs.csv")
    del jobs  # every table that reads it is written
    release_memory(collect=False)
    summary.update(
        {
            "vosim_version": __version__,
            "code_path": code_path(),
            "trace": str(values["trace"]),
            "first_job": values["first_job"],
            "preset": args.preset,
            "seed": args.seed,
            # every VOModel argument of the run: VOModel(**Scenario(**p).kwargs(), rng=seed)
            # repeats it
            "parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()},
            "policy": model.policy_name,
            "machine": model.machine,
            "utility_policy": values["utility_policy"],
            "nodes": model.node_count,
            "owners": len(model.owners),
            "cycle_period": model.cycle_period,
            "scheduling_interval": model.scheduling_interval,
            "look_ahead": model.look_ahead,
            "cycles": len(cycles),
            "horizon": model.horizon,
            "interrupted": interrupted,
            "wall_seconds": wall,
            # what matters is the jobs brought to completion, not the jobs read
            "completed_jobs_per_second": summary["completed"] / wall if wall > 0 else None,
            "availability": model.availability,
            "failures": failures,
            "vo_policy": dataclasses.asdict(model.vo_policy),
            "pricing_policy": model.pricing_policy,
            "criterion_allocators": model.metascheduler.scheduler.criterion_allocators,
            "fallback_after": (
                None if values["fallback_after"] is None else str(model.fallback_after)
            ),
            "fallbacks": model.metascheduler.fallbacks.to_dict(),
            "owners_left": sum(not o.active for o in model.owners),
            "budget_period": model.budget_period,
            "budget_allowance": model.budget_allowance,
            **_local_flow_summary(model),
        }
    )
    atomic_write_bytes(out / "network.graphml", graphml_text(market).encode())
    del market
    if model.local_jobs is not None:
        write_table(model.local_jobs.frame(), out / "local_jobs.parquet")
    write_json(summary, out / "summary.json")
    attempts = model.attempt_frame() if model.availability else None
    if attempts is not None:
        write_table(attempts, out / "attempts.parquet")
        extra.append("attempts.parquet")
    local = model.local_jobs is not None
    # every table is written: the model is freed before the charts are drawn (lower peak)
    del model
    release_memory()
    from vosim.analysis.charts import calibration_chart, save_chart, utilization_queue_chart

    charts = save_chart(
        utilization_queue_chart(cycles, title=f"vosim on {Path(str(values['trace'])).name}"),
        out / "chart",
    )
    if attempts is not None and len(attempts):
        charts += save_chart(calibration_chart(attempts), out / "calibration")
    for line in _summary_lines(summary):
        print(line)
    written = [
        "jobs.parquet",
        "cycles.parquet",
        "tasks.parquet",
        "groups.parquet",
        "group_sites.parquet",
        *(["local_jobs.parquet"] if local else []),
        "network.graphml",
        "summary.json",
        *extra,
        *(p.name for p in charts),
    ]
    print(f"wrote {', '.join(written)} to {out}/")
    if interrupted:
        print("interrupted: jobs not yet done are recorded as unfinished", file=sys.stderr)
        return 130
    return 0


def _output_dir(path: Path) -> Path:
    """Create ``path`` (the ``--out`` directory) and check it is writable, before any work.

    Raises
    ------
    VosimError
        It cannot be created or written (a file on the way, no permission), naming it: the
        check comes before the simulation, so nothing computed is lost.
    """
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise VosimError(f"--out {str(path)!r}: cannot write there ({exc.strerror})") from None
    return path


def _experiment(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vosim.runs.experiments import experiments, run_experiment

    registry = experiments()
    if args.list or args.name is None:
        for name, e in registry.items():
            print(f"{name:20s} {e.description}")
        print(f"{'all':20s} every experiment above, then fidelity.md (paper vs vosim)")
        return 0 if args.list else 2
    if args.name == "all":
        return _experiment_all(args, registry)
    if args.redo:
        raise VosimError("--redo goes with 'all' (a single experiment always runs)")
    if args.name not in registry:
        raise VosimError(f"unknown experiment {args.name!r}; available: {', '.join(registry)}")
    e = registry[args.name]
    _output_dir(args.out)
    started = time.perf_counter()
    with tqdm(total=e.points(args.quick), unit="point", desc=args.name, disable=args.quiet) as bar:
        written = run_experiment(
            args.name,
            args.out,
            quick=args.quick,
            repetitions=args.repetitions,
            seed=args.seed,
            progress=bar.update,
            trace=args.trace,
            jobs=args.jobs,
        )
    print(f"{args.name}: {time.perf_counter() - started:.1f} s")
    print(f"wrote {', '.join(p.name for p in written)} to {args.out}/")
    return 0


def _experiment_all(args: argparse.Namespace, registry: dict) -> int:
    """``vosim experiment all``: every experiment (resumable), then fidelity.md; 1 on a failure."""
    from tqdm import tqdm

    from vosim.runs.experiments.fidelity import run_all

    if args.repetitions is not None or args.trace is not None or args.jobs is not None:
        raise VosimError("'all' runs each experiment with its own --repetitions, trace and jobs")
    _output_dir(args.out)
    started = time.perf_counter()
    total = sum(e.points(args.quick) for e in registry.values())
    with tqdm(total=total, unit="point", desc="all", disable=args.quiet) as bar:
        result = run_all(
            args.out,
            quick=args.quick,
            seed=args.seed,
            redo=args.redo,
            progress=bar.update,
            log=bar.write if not args.quiet else None,
        )
    counts = result.rows["match"].value_counts()
    print(
        f"all: {len(result.ran)} ran, {len(result.reused)} reused, {len(result.failed)} failed "
        f"in {time.perf_counter() - started:.1f} s; fidelity: "
        + ", ".join(f"{m} {int(counts.get(m, 0))}" for m in ("yes", "partly", "no"))
    )
    print(f"wrote {', '.join(p.name for p in result.written)} to {args.out}/")
    for name, message in result.failed.items():
        print(f"vosim: error: experiment {name}: {message}", file=sys.stderr)
    return 1 if result.failed else 0


def _sweep(args: argparse.Namespace) -> int:
    from vosim.runs.config import load_sweep

    config = load_sweep(args.file)
    return _run_config(config, _output_dir(args.out), args)


def _run_config(config, out: Path, args: argparse.Namespace) -> int:
    """Run a sweep into ``out`` with a progress bar; print what was done; the exit status."""
    if args.ray_address is not None and args.backend != "ray":
        raise VosimError("--ray-address needs --backend ray")
    import signal

    from tqdm import tqdm

    from vosim.runs.batch import run_sweep
    from vosim.runs.sweep_results import load_results

    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # the first call says how many runs were already finished
            quiet = args.quiet or done == total
            bar = tqdm(total=total, initial=done, unit="run", desc=config.name, disable=quiet)
        else:
            bar.update(done - bar.n)

    def terminate(signum, frame):  # SIGTERM stops like Ctrl-C: workers ended, parts kept
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        result = run_sweep(
            config,
            out,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            retry_failed=getattr(args, "retry_failed", False),
            progress=progress,
        )
    except RuntimeError as exc:  # a local worker process died
        print(f"vosim: error: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        if bar is not None:
            bar.close()
    print(
        f"{config.name}: {result.total} runs: {result.ran} run now, {result.skipped} already "
        f"done, {result.failed} failed, {result.remaining} left; {result.seconds:.1f} s"
    )
    print(f"wrote {out}/manifest.json, {out}/runs/ and {out}/cycles/ (one Parquet part per run)")
    if result.interrupted:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    if result.failed:
        table = load_results(out)
        first = table.loc[table["status"] == "error"].iloc[0]
        print(
            f"{result.failed} run(s) failed, e.g. {first['run_id']}: {first['error']} "
            "(see the status and error columns)",
            file=sys.stderr,
        )
        return 1
    return 0


def _report(args: argparse.Namespace) -> int:
    from vosim.analysis.report import write_report

    _print_written(write_report(args.dir, args.out))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from vosim.analysis.compare import write_comparison

    page, csv = write_comparison(args.first, args.second, args.out)
    print(f"wrote {page} and {csv}")
    return 0


def _print_written(written: list[Path]) -> None:
    """Say what a report wrote: the page, its tables and its figures."""
    tables = [p for p in written[1:] if p.suffix == ".csv"]
    figures = [p for p in written[1:] if p.suffix == ".png"]
    print(f"wrote {written[0]}, {len(tables)} tables (CSV) and {len(figures)} figures (PNG)")


def _study(args: argparse.Namespace) -> int:
    from vosim.analysis.report import write_report
    from vosim.runs.studies import study_config

    config = study_config(args.name, "quick" if args.quick else "full" if args.full else "main")
    out: Path = _output_dir(args.out if args.out is not None else Path(config.name))
    status = _run_config(config, out, args)
    if status == 130:
        return status
    _print_written(write_report(out))
    return status


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``vosim`` console script; returns the exit status.

    Input errors (a bad trace, a bad parameter) print one line ``vosim: error: ...`` on stderr
    and return 2, without a traceback.
    """
    parser = build_parser()
    args = parser.parse_args(_attach_negative_values(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return 2
    try:
        code_path()  # a bad VOSIM_REFERENCE is refused before any work, not in mid-run
    except VosimError as exc:
        print(f"vosim: error: {exc}", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _dispatch(args)


#: A value that starts with "-" but is a number or a list of numbers ("-1", "-1,1", "-.5,2").
_NEGATIVE_VALUE = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)


def _attach_negative_values(argv: list[str]) -> list[str]:
    """``["--opt", "-1,1"]`` as ``["--opt=-1,1"]``: a negative value is a value, not an option.

    argparse takes a token starting with ``-`` for an option unless it is one plain negative
    number, so ``--budget-range -1,1`` would fail with "expected one argument" instead of the
    range check's message naming the value. Tokens after ``--`` are left
    alone.
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if token.startswith("--") and "=" not in token and _NEGATIVE_VALUE.match(value):
            out.append(f"{token}={value}")
            i += 2
        else:
            out.append(token)
            i += 1
    return out


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Print a warning as one line ``vosim: warning: ...`` on stderr (no source location)."""
    print(f"vosim: warning: {message}", file=sys.stderr if file is None else file)


def _dispatch(args: argparse.Namespace) -> int:
    """Run the chosen command; input errors become one line on stderr and exit status 2."""
    try:
        commands = {
            "run": _run,
            "experiment": _experiment,
            "sweep": _sweep,
            "report": _report,
            "compare": _compare,
            "study": _study,
            "ui": run_ui,
        }
        return commands[args.command](args)
    except VosimError as exc:
        print(f"vosim: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. the output directory cannot be written
        print(f"vosim: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
