"""``vosim ui`` (vosim.ui.cli): its options, the solara command, and one-line errors."""

from __future__ import annotations

import argparse
import importlib.util
import sys

import pytest

from vosim.ui import cli


def ui_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="vosim")
    cli.add_ui_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["ui", *argv])


def test_options_and_their_defaults():
    args = ui_args()
    assert (args.command, args.host, args.port) == ("ui", "127.0.0.1", 8765)
    args = ui_args("--host", "0.0.0.0", "--port", "9000")
    assert (args.host, args.port) == ("0.0.0.0", 9000)


def test_solara_command_serves_the_app_quietly():
    command = cli.solara_command("localhost", 8000)
    assert command[:5] == [sys.executable, "-m", "solara", "run", str(cli.APP_PATH)]
    assert command[5:9] == ["--host", "localhost", "--port", "8000"]
    assert {"--no-open", "--production"} <= set(command)
    assert cli.APP_PATH.name == "app.py" and cli.APP_PATH.is_file()


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_a_port_out_of_range_is_one_line_exit_2(port, capsys):
    assert cli.main(["--port", port]) == 2
    err = capsys.readouterr().err
    assert err == f"vosim: error: --port must be in 1..65535, got {port}\n"


def test_without_solara_the_error_names_the_install_command(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "solara" else real(name)
    )
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vosim: error: the UI needs solara, not installed; ")
    assert 'pip install "vosim[ui]" && python -m vosim.ui.assets' in err and err.count("\n") == 1


def test_serving_runs_solara_with_telemetry_off_and_local_assets(monkeypatch, tmp_path, capsys):
    pytest.importorskip("solara")
    pytest.importorskip("ipyvuetify")
    pytest.importorskip("mesa")
    started = []

    class FakeSolara:
        def __init__(self, command, env):
            started.append((command, env))

        def wait(self):
            return 0

    monkeypatch.setattr(cli, "cdn_dir", lambda: tmp_path)
    monkeypatch.setattr(cli.subprocess, "Popen", FakeSolara)
    monkeypatch.setattr(cli.signal, "signal", lambda *a: None)
    assert cli.main(["--port", "8123"]) == 0
    [(command, env)] = started
    assert command == cli.solara_command("127.0.0.1", 8123)
    assert env["SOLARA_TELEMETRY_MIXPANEL_ENABLE"] == "False"
    assert env["SOLARA_ASSETS_PROXY_CACHE_DIR"] == str(tmp_path)
    captured = capsys.readouterr()
    assert captured.out == "vosim ui: serving http://127.0.0.1:8123/ (Ctrl-C to stop)\n"
    # no asset on disk: a warning that names the command that installs them
    assert "asset package(s) not on disk" in captured.err
    assert "python -m vosim.ui.assets" in captured.err
