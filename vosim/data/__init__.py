"""The traces a ``trace`` argument may name: bundled SWF files and generated job streams.

The real traces bundled with vosim (and where they are on disk), and the names of the
papers' synthetic streams and fitted job flows that :mod:`vosim.market.synthetic` draws.

See ``vosim/data/README.md`` for the provenance of each file and the archive's citation request.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from vosim.errors import TraceFormatError

__all__ = ["TRACES", "DEFAULT_TRACE", "SYNTHETIC_PREFIX", "SYNTHETIC_TRACES", "trace_path"]

#: Bundled traces: name -> (file name, role).
TRACES: dict[str, tuple[str, str]] = {
    "UniLu-Gaia-2014-2": (
        "UniLu-Gaia-2014-2.swf.gz",
        "main parallel-job trace: 51,987 jobs, 151 nodes, 2004 processors",
    ),
    "NASA-iPSC-1993-3.1-cln": (
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        "small trace for tests and demos: 18,239 jobs, 128 nodes",
    ),
    "LCG-2005-1": (
        "LCG-2005-1.swf.gz",
        "multi-site grid trace (170 sites, serial jobs): owners' local job flows",
    ),
}

#: The trace ``vosim run`` reads by default.
DEFAULT_TRACE = "UniLu-Gaia-2014-2"

#: Prefix of the papers' synthetic job streams' names.
SYNTHETIC_PREFIX = "synthetic:"
#: Generated job streams any ``trace`` argument accepts: name -> description
#: (:func:`vosim.market.synthetic.synthetic_trace` draws them).
SYNTHETIC_TRACES: dict[str, str] = {
    "synthetic:aep": "AEP §3.1 jobs (5 slots x 150 on the slowest node), Poisson arrivals",
    "synthetic:vo-preferences": "VO Preferences §4 batches of 40 jobs, one every 600",
    **{
        f"fitted:{name}": f"a job flow fitted to {name} (vosim.market.fitted), any length"
        for name in TRACES
    },
}


def trace_path(name: str) -> Path:
    """Return the path of a bundled trace, or of a file if ``name`` is an existing path.

    Parameters
    ----------
    name : str
        A key of :data:`TRACES` (e.g. ``"UniLu-Gaia-2014-2"``) or a path to an SWF file.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TraceFormatError
        ``name`` is neither a bundled trace nor an existing file (a directory is named as
        one).

    Examples
    --------
    >>> trace_path("UniLu-Gaia-2014-2").name
    'UniLu-Gaia-2014-2.swf.gz'
    """
    if name in TRACES:
        return Path(str(files("vosim.data").joinpath(TRACES[name][0])))
    path = Path(name)
    if path.is_file():
        return path
    if path.is_dir():
        raise TraceFormatError(name, None, "is a directory, not an SWF file")
    known = ", ".join(TRACES)
    raise TraceFormatError(name, None, f"no such file and not a bundled trace (bundled: {known})")
