"""Sweep files (vosim.runs.config): errors name the key and line, values are converted to the
model's types, and sweeps too big to expand are refused."""

import time

import pytest
from sweep_cases import _one_line, _write

from vosim.errors import ConfigError, VosimError
from vosim.runs.cli import main
from vosim.runs.config import MAX_RUNS, load_sweep, parse_sweep


@pytest.mark.parametrize(
    ("text", "key", "line", "needle"),
    [
        ('name = "x"\n[sweep]\nuaa = [1]\n', "uaa", 3, "did you mean 'ua'?"),
        ('name = "x"\n[scenario]\nfoo = 1\n', "foo", 3, "allowed: trace, jobs"),
        ('name = "x"\n[scenario]\njobs = 2.5\n', "jobs", 3, 'an integer or "none"'),
        ('name = "x"\n[scenario]\navailability = 1\n', "availability", 3, "true or false"),
        ('name = "x"\n[sweep]\nua = 25\n', "ua", 3, "expected a list of values"),
        ('name = "x"\n[sweep]\nua = []\n', "ua", 3, "non-empty list"),
        ('name = "x"\n[sweep]\nua = [1, 1.0]\n', "ua", 3, "listed twice"),
        ('name = "x"\n[sweep]\nua = [1, "a"]\n', "ua", 3, 'a number or "none", got "a"'),
        ('name = "x"\n[sweep]\nlocal_load = [[0.1]]\n', "local_load", 3, "array of 2 items"),
        ('name = "x"\n[run]\nrepetitions = 0\n', "repetitions", 3, "integer >= 1"),
        ('name = "x"\n[run]\nrepetitions = 2.0\n', "repetitions", 3, "integer >= 1"),
        ('name = "x"\n[run]\nseed = -1\n', "seed", 3, "integer >= 0"),
        ('name = "x"\n[run]\nrepeats = 3\n', "repeats", 3, "allowed: repetitions, seed, paired"),
        ('name = "x"\n\n[scenario]\nua = 1\n[sweep]\nua = [2]\n', "ua", 6, "both fixed"),
        (
            'name = "x"\n[sweep]\nvo_objective = ["cost", "money"]\n',
            "vo_objective",
            3,
            "'money' is not one of cost, runtime, finish",
        ),
        ('name = "x"\n[scenario]\nvo_limit = "budget"\n', "vo_limit", 3, "user, cost, time"),
        ('name = "x"\n[scenario]\ntrace = "no/such.swf"\n', "trace", 3, "UniLu-Gaia-2014-2"),
        ('name = "x"\n[scenario]\nrng = 3\n', "rng", 3, "[run] seed"),
        ('name = "x"\nsweeps = 1\n', "sweeps", 2, "allowed: name, description, scenario"),
        ("[scenario]\njobs = 3\n", "name", None, "missing"),
    ],
)
def test_validation_errors_name_the_key(text, key, line, needle):
    with pytest.raises(ConfigError) as info:
        parse_sweep(text, path="s.toml")
    error = info.value
    assert isinstance(error, VosimError) and isinstance(error, ValueError)
    assert f"{key}:" in error.message, error.message
    assert needle in error.message, error.message
    assert error.line == line
    assert str(error).startswith(f"s.toml:{line}: " if line else "s.toml: ")


def test_syntax_error_has_the_line_and_missing_file(tmp_path):
    path = _write(tmp_path, 'name = "x"\n[sweep]\nua = [1, 2\n')
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert info.value.line == 3 and "not valid TOML" in str(info.value)
    assert str(info.value).startswith(f"{path}:3: ")
    with pytest.raises(ConfigError, match="no such sweep file"):
        load_sweep(tmp_path / "absent.toml")


def test_values_are_converted_to_the_model_types(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; tiny\n")
    config = parse_sweep(
        'name = " n "\n[scenario]\ntrace = "t.swf"\njobs = "none"\nlocal_load = [0.2, 0.4]\n'
        '[sweep]\nua = ["none", 0]\ncriterion_allocators = [{cost = "min_cost"}, "none"]\n',
        path=tmp_path / "s.toml",
    )
    assert config.name == "n"
    assert config.scenario == {"trace": str(trace), "jobs": None, "local_load": (0.2, 0.4)}
    assert config.sweep["ua"] == (None, 0.0) and isinstance(config.sweep["ua"][1], float)
    assert config.sweep["criterion_allocators"] == ({"cost": "min_cost"}, None)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ("segments = true\n[sweep]\njobs = [10, 20]\n", r"one \[scenario\] jobs"),
        ('segments = true\n[scenario]\njobs = "none"\n', "a number of jobs"),
        ("segments = true\n[sweep]\nfirst_job = [0, 5]\n", "do not vary it"),
        ("segments = 1\n", "expected true or false, got 1"),
    ],
)
def test_bad_segments_are_named_with_their_line(change, needle):
    text = 'name = "x"\n[run]\nrepetitions = 2\n' + change
    with pytest.raises(ConfigError, match=needle) as info:
        parse_sweep(text)
    assert "segments" in str(info.value) and info.value.line == 4


def _values(start: int, count: int = 100) -> str:
    return "[" + ", ".join(str(start + i) for i in range(count)) + "]"


HUGE = (
    'name = "huge"\n[scenario]\ntrace = "NASA-iPSC-1993-3.1-cln"\n[sweep]\n'
    f"jobs = {_values(1)}\nowners = {_values(1)}\nua = {_values(0)}\n"
    f"max_alternatives = {_values(1)}\ncycle_period = {_values(60)}\n"
    "[run]\nrepetitions = 1000\n"
)


def test_a_huge_sweep_is_refused_before_expanding():
    started = time.perf_counter()
    with pytest.raises(ConfigError) as info:
        parse_sweep(HUGE, path="huge.toml")
    assert time.perf_counter() - started < 2
    error = info.value
    assert error.path == "huge.toml" and error.line == 4  # the [sweep] table
    message = str(error)
    assert "\n" not in message
    assert "10,000,000,000,000 runs" in message, message
    for key in ("jobs 100", "owners 100", "ua 100", "max_alternatives 100", "cycle_period 100"):
        assert key in message, message
    assert "repetitions 1000" in message and f"{MAX_RUNS:,}" in message, message


def test_a_sweep_at_the_bound_is_accepted_and_one_more_run_is_refused():
    text = f'name = "edge"\n[sweep]\nua = {_values(0, 100)}\n[run]\nrepetitions = '
    assert MAX_RUNS % 100 == 0
    assert parse_sweep(text + str(MAX_RUNS // 100)).run_count == MAX_RUNS
    with pytest.raises(ConfigError, match=f"{MAX_RUNS + 100:,} runs"):
        parse_sweep(text + str(MAX_RUNS // 100 + 1))


def test_cli_refuses_a_huge_sweep_in_one_line(tmp_path, capsys):
    path = tmp_path / "huge.toml"
    path.write_text(HUGE)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{path}:4:" in line and "10,000,000,000,000 runs" in line
    assert not (tmp_path / "o").exists()
