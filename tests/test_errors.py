"""vosim's exceptions: one base class, each a ValueError, messages that name the bad input."""

from __future__ import annotations

import pickle

import pytest

import vosim.errors as errors
from vosim.errors import (
    ConfigError,
    ParameterError,
    TraceFormatError,
    TraceWarning,
    UnknownAllocatorError,
    VosimError,
)

#: every error of malformed input (all but the base class and the warning)
INPUT_ERRORS = [errors.ConfigError, errors.ParameterError, errors.ProblemError, errors.RequestError]
INPUT_ERRORS += [errors.SlotError, errors.TraceFormatError, errors.UnknownAllocatorError]


def test_every_exported_name_is_defined_and_listed():
    public = {
        n
        for n, v in vars(errors).items()
        if isinstance(v, type) and v.__module__ == errors.__name__
    }
    assert set(errors.__all__) == public
    assert set(INPUT_ERRORS) | {VosimError, TraceWarning} == {getattr(errors, n) for n in public}


@pytest.mark.parametrize("cls", INPUT_ERRORS)
def test_every_input_error_is_a_vosim_error_and_a_value_error(cls):
    assert issubclass(cls, VosimError) and issubclass(cls, ValueError)
    args = ("f.swf", 3, "bad") if cls in (TraceFormatError, ConfigError) else ("bad",)
    with pytest.raises(ValueError, match="bad"):
        raise cls(*args)


def test_a_trace_warning_is_a_warning_not_an_error():
    assert issubclass(TraceWarning, UserWarning)
    assert not issubclass(TraceWarning, VosimError)
    with pytest.warns(TraceWarning, match="repeated ids"):
        import warnings

        warnings.warn("repeated ids", TraceWarning, stacklevel=1)


@pytest.mark.parametrize("cls", [TraceFormatError, ConfigError])
def test_file_errors_name_the_file_and_line(cls):
    err = cls("traces/gaia.swf", 12, "field 4: expected a number, got 'x'")
    assert str(err) == "traces/gaia.swf:12: field 4: expected a number, got 'x'"
    assert (err.path, err.line, err.message) == (
        "traces/gaia.swf",
        12,
        "field 4: expected a number, got 'x'",
    )
    whole = cls("sweep.toml", None, "empty file")
    assert str(whole) == "sweep.toml: empty file" and whole.line is None


def test_the_path_is_kept_as_a_string():
    from pathlib import Path

    err = TraceFormatError(Path("a") / "b.swf", 1, "bad")
    assert err.path == str(Path("a") / "b.swf") and isinstance(err.path, str)


def test_an_unknown_allocator_error_prints_its_message_unquoted():
    err = UnknownAllocatorError("unknown allocator 'x'; registered: amp, csa")
    assert isinstance(err, KeyError)
    assert str(err) == "unknown allocator 'x'; registered: amp, csa"  # KeyError would quote it
    with pytest.raises(KeyError):
        raise err


def test_errors_survive_pickling_with_their_message():
    err = pickle.loads(pickle.dumps(ParameterError("jobs must be >= 1, got 0")))
    assert type(err) is ParameterError and str(err) == "jobs must be >= 1, got 0"
