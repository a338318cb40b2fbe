"""Exceptions raised by vosim for malformed input.

Every class derives from :class:`VosimError` and from :class:`ValueError`, so callers may catch
either. The command-line interface prints their message on one line and exits with status 2.
"""

from __future__ import annotations

__all__ = [
    "VosimError",
    "TraceFormatError",
    "TraceWarning",
    "RequestError",
    "SlotError",
    "UnknownAllocatorError",
    "ParameterError",
    "ProblemError",
    "ConfigError",
]


class VosimError(ValueError):
    """Base class of every input error vosim raises."""


class TraceFormatError(VosimError):
    """A workload trace is not valid Standard Workload Format.

    Parameters
    ----------
    path : str
        The trace file.
    line : int or None
        1-based line number of the offending line, ``None`` for whole-file problems.
    message : str
        What is wrong, naming the bad value.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class TraceWarning(UserWarning):
    """A workload trace is valid but unusual in a way a user should know (e.g. repeated ids).

    The CLI prints it as one line ``vosim: warning: ...``.
    """


class RequestError(VosimError):
    """A resource request is malformed (for example ``n < 1`` or a negative budget ``C``)."""


class SlotError(VosimError):
    """A slot or slot list is malformed (for example ``end <= start``)."""


class UnknownAllocatorError(VosimError, KeyError):
    """An allocator or criterion name is not registered.

    The message lists the registered names.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class ParameterError(VosimError):
    """A model or run parameter is out of its allowed range; the message names it."""


class ProblemError(VosimError):
    """An availability allocation problem is malformed; the message names the field."""


class ConfigError(VosimError):
    """A sweep or scenario file (TOML) is invalid; the message names the key.

    Parameters
    ----------
    path : str
        The file (``"<string>"`` for text given directly).
    line : int or None
        1-based line of the offending key or syntax error, ``None`` when unknown.
    message : str
        What is wrong, naming the key and, where there is a list, the allowed values.

    Examples
    --------
    >>> str(ConfigError("sweep.toml", 4, "[sweep] ua: expected a list of values, got 25.0"))
    'sweep.toml:4: [sweep] ua: expected a list of values, got 25.0'
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")
