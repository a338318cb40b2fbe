"""``vosim ui``: serve the live VO page (:mod:`vosim.ui.app`) with ``solara run``.

This module imports neither solara nor Mesa's visualization, so ``vosim --help`` works
without the ``ui`` extra; ``vosim ui`` then explains what to install.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

from vosim.ui.assets import ASSETS, cdn_dir

__all__ = ["APP_PATH", "add_ui_parser", "main", "run_ui", "solara_command"]

#: The page solara serves.
APP_PATH = Path(__file__).with_name("app.py")
_INSTALL_HINT = 'pip install "vosim[ui]" && python -m vosim.ui.assets'


def add_ui_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``ui`` subcommand to ``vosim``'s subparsers.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers`` returned.

    Returns
    -------
    argparse.ArgumentParser
        The ``ui`` parser (options ``--host``, ``--port``).
    """
    ui = subparsers.add_parser(
        "ui",
        help="watch the VO live in the browser (Mesa SolaraViz)",
        description=(
            "Serve a page where you set the scenario, owners, users, pricing, VO criterion, "
            "U_a, allocator, local load and seed, then Step / Play / Run to end one VO and "
            "watch its Gantt chart, queue, utilization, revenue, fairness and the current "
            f"cycle. Needs the ui extra and its assets: {_INSTALL_HINT}."
        ),
    )
    ui.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    return ui


def solara_command(host: str, port: int) -> list[str]:
    """The ``solara run`` command line that serves :data:`APP_PATH`.

    Parameters
    ----------
    host : str
        Address to listen on.
    port : int
        TCP port (1..65535).

    Returns
    -------
    list of str
        ``[python, -m, solara, run, APP_PATH, --host, H, --port, P, --no-open, ...]``.
    """
    return [
        sys.executable,
        "-m",
        "solara",
        "run",
        str(APP_PATH),
        "--host",
        host,
        "--port",
        str(port),
        "--no-open",
        "--no-check-version",
        "--production",
    ]


def _missing_assets() -> list[str]:
    root = cdn_dir()
    return [spec for spec in ASSETS if not (root / spec).is_dir()]


def run_ui(args: argparse.Namespace) -> int:
    """Serve the page until interrupted; returns the exit status.

    Prints the URL first. Without solara (the ``ui`` extra) prints one line
    ``vosim: error: ...`` naming the install command and returns 2. Telemetry is off; assets
    are served from ``<sys.prefix>/share/solara/cdn`` (:mod:`vosim.ui.assets`).

    Parameters
    ----------
    args : argparse.Namespace
        ``host`` (str) and ``port`` (int).
    """
    if not 0 < args.port < 65536:
        print(f"vosim: error: --port must be in 1..65535, got {args.port}", file=sys.stderr)
        return 2
    missing = [m for m in ("solara", "ipyvuetify", "mesa") if importlib.util.find_spec(m) is None]
    if missing:
        print(
            f"vosim: error: the UI needs {', '.join(missing)}, not installed; {_INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    absent = _missing_assets()
    if absent:
        print(
            f"vosim: warning: {len(absent)} solara asset package(s) not on disk "
            f"({', '.join(absent)}); without them the page loads them from a public CDN. "
            "Run: python -m vosim.ui.assets",
            file=sys.stderr,
        )
    env = {
        **os.environ,
        "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False",
        "SOLARA_ASSETS_PROXY": "True",
        "SOLARA_ASSETS_PROXY_CACHE_DIR": str(cdn_dir()),
    }
    print(f"vosim ui: serving http://{args.host}:{args.port}/ (Ctrl-C to stop)", flush=True)
    process = subprocess.Popen(solara_command(args.host, args.port), env=env)
    # SIGTERM (e.g. a test stopping the server) stops the solara child too, as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        return 130


def _interrupt(signum: int, frame: object) -> None:
    """Turn SIGTERM into KeyboardInterrupt so :func:`run_ui` stops its solara child."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point, ``python -m vosim.ui.cli [--host H] [--port P]``."""
    parser = argparse.ArgumentParser(prog="vosim")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_ui_parser(sub)
    args = parser.parse_args(["ui", *(sys.argv[1:] if argv is None else argv)])
    return run_ui(args)


if __name__ == "__main__":
    raise SystemExit(main())
