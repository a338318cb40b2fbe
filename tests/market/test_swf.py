"""Tests of the SWF reader (vosim.market.swf) on the bundled traces and on malformed input."""

from __future__ import annotations

import gzip
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vosim.data import TRACES, trace_path
from vosim.errors import TraceFormatError, TraceWarning, VosimError
from vosim.market.swf import SWF_COLUMNS, header_int, read_swf

FLOAT_COLUMNS = {"average_cpu_time", "used_memory"}

# name -> (MaxJobs from the header, MaxNodes, MaxProcs), see /work/shared/data/PROVENANCE.md
EXPECTED = {
    "UniLu-Gaia-2014-2": (51987, 151, 2004),
    "NASA-iPSC-1993-3.1-cln": (18239, 128, 128),
    "LCG-2005-1": (188041, None, 24515),
}


def job(i: int = 1, **fields: str) -> str:
    """One valid 18-field job line; keyword arguments override fields by column name."""
    values = dict.fromkeys(SWF_COLUMNS, "-1")
    values.update(job_id=str(i), submit_time=str(10 * i), run_time="100", allocated_processors="4")
    values.update(fields)
    return " ".join(values.values())


def write(tmp_path: Path, text: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


@pytest.fixture(scope="module")
def traces() -> dict[str, pd.DataFrame]:
    return {name: read_swf(trace_path(name)) for name in TRACES}


# --------------------------------------------------------------------------------------------
# bundled traces


def test_bundled_trace_names_match_expectations():
    assert set(TRACES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bundled_trace_job_count_equals_header_maxjobs(traces, name):
    df = traces[name]
    header = df.attrs["header"]
    max_jobs, _, _ = EXPECTED[name]
    assert len(df) == max_jobs
    assert header_int(header, "MaxJobs") == max_jobs
    assert header_int(header, "MaxRecords") == max_jobs
    assert df.attrs["path"] == str(trace_path(name))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bundled_trace_columns_and_dtypes(traces, name):
    df = traces[name]
    assert list(df.columns) == list(SWF_COLUMNS)
    assert len(SWF_COLUMNS) == 18
    for col in df.columns:
        expected = np.float64 if col in FLOAT_COLUMNS else np.int64
        assert df[col].dtype == expected, col
    assert df.index.equals(pd.RangeIndex(len(df)))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bundled_trace_max_nodes_and_procs(traces, name):
    header = traces[name].attrs["header"]
    _, max_nodes, max_procs = EXPECTED[name]
    assert header_int(header, "MaxNodes") == max_nodes
    assert header_int(header, "MaxProcs") == max_procs
    assert header["MaxProcs"] == str(max_procs)  # no trailing '\r' from the CRLF lines


def test_gaia_header_and_content(traces):
    df = traces["UniLu-Gaia-2014-2"]
    header = df.attrs["header"]
    assert header["MaxNodes"] == "151"
    assert header["UnixStartTime"] == "1400749079"
    assert header["Installation"] == "UNILU Gaia Cluster"
    # Three 'Queue:' lines in one block and three in another: a repeated key becomes a list.
    assert isinstance(header["Queue"], list) and len(header["Queue"]) == 6
    # job numbers 1..51987 without gaps, sorted by submit time (PROVENANCE §1)
    assert df["job_id"].tolist() == list(range(1, 51988))
    assert df["submit_time"].is_monotonic_increasing
    assert (df["requested_memory"] == -1).all()
    assert df["allocated_processors"].min() == 1
    assert df["allocated_processors"].max() == 516
    assert df["status"].value_counts().to_dict() == {1: 41268, 0: 10592, 2: 127}
    # sample line of job 6: '6 339299 1 214651 24 358.00 2560 24 432000 -1 1 5 5 6 1 -1 -1 -1'
    row = df.iloc[5]
    assert row["job_id"] == 6
    assert row["submit_time"] == 339299
    assert row["run_time"] == 214651
    assert row["average_cpu_time"] == 358.0
    assert row["used_memory"] == 2560.0
    assert row["requested_time"] == 432000


def test_gaia_decorative_column_title_block_is_skipped(traces):
    header = traces["UniLu-Gaia-2014-2"].attrs["header"]
    # The '; 1|   2|  ...' / '; j|  s| ...' lines are no 'Key: value' pairs.
    for key in header:
        assert key[0].isalpha() and "|" not in key and " " not in key, key
    assert set(header) == {
        "Version",
        "Computer",
        "Conversion",
        "Installation",
        "Acknowledge",
        "Information",
        "MaxJobs",
        "MaxRecords",
        "UnixStartTime",
        "TimeZoneString",
        "StartTime",
        "EndTime",
        "MaxNodes",
        "MaxProcs",
        "MaxQueues",
        "Queues",
        "Queue",
        "Note",
    }


def test_lcg_has_no_max_nodes_and_170_partitions(traces):
    df = traces["LCG-2005-1"]
    header = df.attrs["header"]
    assert "MaxNodes" not in header
    assert header_int(header, "MaxNodes") is None
    assert header_int(header, "MaxPartitions") == 170
    partitions = header["Partition"]
    assert isinstance(partitions, list)
    assert len(partitions) == 170
    assert partitions[0].split() == ["1", "grid.ici.ro"]
    assert [int(p.split()[0]) for p in partitions] == list(range(1, 171))
    assert (df["allocated_processors"] == 1).all()  # every LCG job is serial
    assert df["partition_id"].min() == 1
    assert df["partition_id"].max() == 170


def test_nasa_content(traces):
    df = traces["NASA-iPSC-1993-3.1-cln"]
    assert df["run_time"].max() == 62643
    assert int((df["run_time"] == 0).sum()) == 173
    assert (df["requested_time"] == -1).all()
    assert df["job_id"].iloc[-1] == 42264  # job numbers have gaps after cleaning


@pytest.mark.parametrize("name", ["NASA-iPSC-1993-3.1-cln", "LCG-2005-1"])
def test_url_continuation_line_is_not_a_header_key(traces, name):
    # '; Information: http://a/' is followed by ';              http://b/': a continuation of
    # the Information value, not a header field named 'http'.
    header = traces[name].attrs["header"]
    assert "http" not in header
    assert header["Information"].startswith("http://")


def test_max_jobs_reads_a_prefix(traces):
    full = traces["UniLu-Gaia-2014-2"]
    for k in (1, 7, 1000):
        part = read_swf(trace_path("UniLu-Gaia-2014-2"), max_jobs=k)
        assert len(part) == k
        pd.testing.assert_frame_equal(part, full.iloc[:k])
        assert part.attrs["header"]["MaxNodes"] == "151"


def test_max_jobs_larger_than_trace_reads_everything(tmp_path):
    path = write(tmp_path, "; MaxJobs: 2\n" + job(1) + "\n" + job(2) + "\n")
    assert len(read_swf(path, max_jobs=50)) == 2


def test_max_jobs_ignores_bad_lines_after_the_prefix(tmp_path):
    path = write(tmp_path, job(1) + "\n" + job(2) + "\nthis is not a job line\n")
    df = read_swf(path, max_jobs=2)
    assert df["job_id"].tolist() == [1, 2]
    with pytest.raises(TraceFormatError):
        read_swf(path)


@pytest.mark.parametrize("bad", [0, -1])
def test_max_jobs_below_one_is_a_value_error(tmp_path, bad):
    path = write(tmp_path, job(1) + "\n")
    with pytest.raises(ValueError, match="max_jobs"):
        read_swf(path, max_jobs=bad)


def test_max_jobs_zero_on_the_bundled_trace():
    with pytest.raises(ValueError, match="max_jobs"):
        read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=0)


def test_plain_and_gzip_give_identical_frames(tmp_path, traces):
    plain = tmp_path / "NASA.swf"
    with gzip.open(trace_path("NASA-iPSC-1993-3.1-cln"), "rb") as src, plain.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    a = read_swf(plain)
    b = traces["NASA-iPSC-1993-3.1-cln"]
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["header"] == b.attrs["header"]
    assert a.attrs["path"] == str(plain)


def test_plain_and_gzip_identical_on_small_file(tmp_path):
    text = "; MaxNodes: 4\r\n" + job(1, average_cpu_time="3.25") + "\r\n" + job(2) + "\r\n"
    plain = write(tmp_path, text)
    packed = tmp_path / "t.swf.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    a, b = read_swf(plain), read_swf(packed)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["header"] == b.attrs["header"] == {"MaxNodes": "4"}


# --------------------------------------------------------------------------------------------
# valid small files


def test_decimal_fields_are_parsed(tmp_path):
    line = job(1, average_cpu_time="358.75", used_memory="12.5", run_time="1451.00")
    df = read_swf(write(tmp_path, line + "\n"))
    assert df["average_cpu_time"].iloc[0] == 358.75
    assert df["used_memory"].iloc[0] == 12.5
    assert df["run_time"].iloc[0] == 1451
    assert df["run_time"].dtype == np.int64
    assert df["average_cpu_time"].dtype == np.float64


def test_header_keys_repeats_blank_and_decorative_lines(tmp_path):
    text = "\n".join(
        [
            ";   --- decorative banner ---   ",
            "; Version: 2.2",
            ";",
            "; MaxNodes: 8   ",
            ";  |     1|     2|",
            "; j|     s|     w|",
            "; Partition: 1 a.example",
            "; Partition: 2 b.example",
            "",
            "   ",
            job(1),
            "; Note: a comment between job lines",
            job(2),
            "",
        ]
    )
    df = read_swf(write(tmp_path, text))
    assert df["job_id"].tolist() == [1, 2]
    assert df.attrs["header"] == {
        "Version": "2.2",
        "MaxNodes": "8",
        "Partition": ["1 a.example", "2 b.example"],
        "Note": "a comment between job lines",
    }


def test_no_trailing_newline_and_leading_whitespace(tmp_path):
    df = read_swf(write(tmp_path, "   " + job(1) + "\n\t" + job(2)))
    assert df["job_id"].tolist() == [1, 2]


@pytest.mark.parametrize("char", ["\f", "\u2028"], ids=["form feed", "line separator"])
def test_odd_control_character_in_a_comment_does_not_split_the_line(tmp_path, char):
    # Only '\n' (and '\r\n', '\r') end an SWF line; a form feed or another Unicode line
    # separator inside a comment is part of the comment, it must not turn its tail into a
    # "job line" or shift the line numbers of later errors.
    text = f"; Note: page one{char} page two\n{job(1)}\n{job(2)}\n"
    df = read_swf(write(tmp_path, text))
    assert df["job_id"].tolist() == [1, 2]
    bad = write(tmp_path, text + "1 2 3\n", "bad.swf")
    with pytest.raises(TraceFormatError) as info:
        read_swf(bad)
    assert info.value.line == 4


# --------------------------------------------------------------------------------------------
# malformed input


def _lines_before(bad: str) -> str:
    """Lines 1..7 of a file whose bad job line is line 8."""
    return "\n".join(
        [
            "; Version: 2.2",  # 1
            "; MaxJobs: 4",  # 2
            "",  # 3
            job(1),  # 4
            "   ",  # 5
            job(2),  # 6
            ";",  # 7
            bad,  # 8
            job(4),  # 9
            "",
        ]
    )


BAD_LINES = {
    "17 fields": " ".join(["1"] * 17),
    "19 fields": " ".join(["1"] * 19),
    "one field": "42",
    "non-numeric": job(3, run_time="abc"),
    "comma decimal": job(3, average_cpu_time="3,5"),
    "nan": job(3, run_time="nan"),
    "NaN in float column": job(3, used_memory="NaN"),
    "inf": job(3, submit_time="inf"),
    "-inf": job(3, average_cpu_time="-inf"),
    "Infinity": job(3, wait_time="Infinity"),
}


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_bad_job_line_reports_file_and_line(tmp_path, kind):
    path = write(tmp_path, _lines_before(BAD_LINES[kind]))
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    err = info.value
    assert isinstance(err, VosimError) and isinstance(err, ValueError)
    assert err.line == 8
    assert err.path == str(path)
    assert str(path) in str(err)
    assert f"{path}:8:" in str(err)


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_bad_job_line_in_gzip_reports_line(tmp_path, kind):
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress(_lines_before(BAD_LINES[kind]).encode()))
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line == 8
    assert f"{path}:8:" in str(info.value)


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("17 fields", "found 17"),
        ("19 fields", "found 19"),
        ("non-numeric", "'abc'"),
        ("nan", "'nan'"),
        ("inf", "'inf'"),
    ],
)
def test_bad_job_line_message_names_the_problem(tmp_path, kind, needle):
    path = write(tmp_path, _lines_before(BAD_LINES[kind]))
    with pytest.raises(TraceFormatError, match=needle.replace("(", r"\(")):
        read_swf(path)


def test_bad_first_line_is_line_one(tmp_path):
    path = write(tmp_path, "1 2 3\n" + job(2) + "\n")
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line == 1


def test_crlf_file_line_numbers(tmp_path):
    text = "\r\n".join(["; MaxNodes: 4", ";", job(1), job(2, status="x"), job(3)]) + "\r\n"
    path = write(tmp_path, text)
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line == 4


def test_first_of_several_bad_lines_is_reported(tmp_path):
    text = "\n".join([job(1), job(2, run_time="?"), " ".join(["1"] * 17), ""])
    with pytest.raises(TraceFormatError) as info:
        read_swf(write(tmp_path, text))
    assert info.value.line == 2


def test_short_and_long_lines_that_compensate_are_still_rejected(tmp_path):
    # 17 + 19 = 2 * 18 tokens: a reader that only counts the total would silently shift the
    # fields of both jobs instead of rejecting line 2.
    text = "\n".join(["; MaxNodes: 4", " ".join(["1"] * 17), " ".join(["2"] * 19), ""])
    path = write(tmp_path, text)
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line == 2
    assert "found 17" in str(info.value)


@pytest.mark.parametrize(
    "text",
    ["", "\n\n   \n", "; Version: 2.2\n; MaxJobs: 0\n;\n", "; only a header"],
    ids=["empty", "blank lines", "header only", "header no newline"],
)
def test_file_without_job_lines(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line is None
    assert str(path) in str(info.value)


def test_empty_gzip_file(tmp_path):
    path = tmp_path / "empty.swf.gz"
    path.write_bytes(gzip.compress(b""))
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line is None
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name", ["missing.swf", "missing.swf.gz"])
def test_missing_file(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line is None
    assert str(path) in str(info.value)
    assert "no such file" in str(info.value)


@pytest.mark.parametrize("name", ["adir", "adir.swf.gz"])
def test_directory(tmp_path, name):
    path = tmp_path / name
    path.mkdir()
    with pytest.raises(TraceFormatError) as info:
        read_swf(str(path))
    assert info.value.line is None
    assert str(path) in str(info.value)
    assert "directory" in str(info.value)


def _gzip_of_jobs(count: int = 300) -> bytes:
    text = f"; MaxJobs: {count}\n" + "\n".join(job(i) for i in range(1, count + 1)) + "\n"
    return gzip.compress(text.encode())


def _corrupt(data: bytes, pos: int) -> bytes:
    out = bytearray(data)
    out[pos] ^= 0xFF
    return bytes(out)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: b"this is not gzip data at all", id="not gzip"),
        pytest.param(lambda: _gzip_of_jobs()[:-40], id="truncated"),
        pytest.param(lambda: _gzip_of_jobs()[:15], id="header only"),
        pytest.param(lambda: _corrupt(_gzip_of_jobs(), -6), id="bad crc"),
        pytest.param(lambda: _corrupt(_gzip_of_jobs(), -2), id="bad length"),
        pytest.param(lambda: _corrupt(_gzip_of_jobs(), 12), id="bad deflate block header"),
        pytest.param(lambda: _corrupt(_gzip_of_jobs(), 200), id="bad deflate data mid-stream"),
    ],
)
def test_corrupt_gzip(tmp_path, make):
    path = tmp_path / "corrupt.swf.gz"
    path.write_bytes(make())
    with pytest.raises(TraceFormatError) as info:
        read_swf(path)
    assert info.value.line is None
    assert str(path) in str(info.value)


def test_trace_path_unknown_name(tmp_path):
    with pytest.raises(TraceFormatError, match="not a bundled trace"):
        trace_path(str(tmp_path / "nope.swf"))
    existing = write(tmp_path, job(1) + "\n")
    assert trace_path(str(existing)) == existing


def test_header_int():
    assert header_int({"MaxNodes": "151"}, "MaxNodes") == 151
    assert header_int({"MaxNodes": "151 nodes"}, "MaxNodes") == 151
    assert header_int({"MaxNodes": ["3", "4"]}, "MaxNodes") == 3
    assert header_int({"MaxNodes": "many"}, "MaxNodes") is None
    assert header_int({"MaxNodes": ""}, "MaxNodes") is None
    assert header_int({}, "MaxNodes") is None


# -- ranges and repeated ids -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [("submit_time", "1e300"), ("requested_processors", "9.3e18"), ("user_id", "-1e19")],
)
def test_a_field_beyond_2_to_53_is_an_error_naming_file_line_and_field(tmp_path, field, value):
    """Values the int64 columns cannot hold exactly (9.2e18 wrapped to -9.2e18 before)."""
    path = write(tmp_path, f"; MaxProcs: 8\n{job(1)}\n{job(2, **{field: value})}\n")
    with pytest.raises(TraceFormatError) as err:
        read_swf(path)
    assert err.value.line == 3
    assert field in str(err.value) and str(path) in str(err.value)


def test_the_largest_exact_value_is_read_exactly(tmp_path):
    df = read_swf(write(tmp_path, job(1, think_time=str(2**53)) + "\n"))
    assert int(df["think_time"].iloc[0]) == 2**53


def test_repeated_ids_warn_once_naming_the_lines(tmp_path):
    text = "\n".join([job(1), job(2), job(1, submit_time="40"), job(-1), job(-1)]) + "\n"
    with pytest.warns(TraceWarning) as caught:
        df = read_swf(write(tmp_path, text))
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "2 job line(s) repeat" in message and "lines 1 and 3" in message
    assert df["job_id"].tolist() == [1, 2, 1, -1, -1]  # kept as read


def test_distinct_ids_do_not_warn(tmp_path, recwarn):
    read_swf(write(tmp_path, "\n".join([job(1), job(2), job(-1)]) + "\n"))
    assert not [w for w in recwarn if issubclass(w.category, TraceWarning)]


# -- header sizes and long lines --------------------------------------------------------------
@pytest.mark.parametrize("value", ["-5", "0", "151.5", "lots", "100000000000", "-1"])
@pytest.mark.parametrize("key", ["MaxNodes", "MaxProcs"])
def test_a_bad_domain_size_in_the_header_names_file_line_and_value(tmp_path, key, value):
    """Before: -5 and 0 gave errors naming no file, 151.5 and lots were ignored, 1e11 ran
    out of memory with a traceback."""
    path = write(tmp_path, f"; Version: 2.2\n; {key}: {value}\n{job(1)}\n")
    with pytest.raises(TraceFormatError) as err:
        read_swf(path)
    assert err.value.line == 2
    assert str(path) in str(err.value) and key in str(err.value)
    assert repr(value) in str(err.value)


def test_a_domain_size_followed_by_words_is_read_and_an_empty_one_is_absent(tmp_path):
    path = write(tmp_path, f"; MaxProcs: 128 (4 per node)\n; MaxNodes: \n{job(1)}\n")
    header = read_swf(path).attrs["header"]
    assert header_int(header, "MaxProcs") == 128 and header_int(header, "MaxNodes") is None


@pytest.mark.parametrize("bad", ["x" * 2_000_000, "1 " * 1_000_000])
def test_a_huge_bad_line_is_cut_in_the_message(tmp_path, bad):
    """Before: a 2 MB line was echoed whole in the one-line error."""
    path = write(tmp_path, f"{job(1)}\n{bad}\n")
    with pytest.raises(TraceFormatError) as err:
        read_swf(path)
    assert err.value.line == 2
    assert len(str(err.value)) < 300
    assert "characters)" in str(err.value)


def test_a_directory_given_as_a_trace_name_is_called_a_directory(tmp_path):
    """Before: trace_path said "no such file and not a bundled trace" for a directory."""
    with pytest.raises(TraceFormatError, match="is a directory"):
        trace_path(str(tmp_path))


# -- fuzzing: the SWF fuzz harness, hypothesis, bounded time ---------------------------------
_TOKENS = ["1", "0", "-1", "12.5", "1e3", "9e18", "1e300", "nan", "inf", "x", "", "-", "1,2"]


@st.composite
def swf_texts(draw) -> str:
    """SWF-like files: header lines, good job lines, and job lines with mangled fields."""
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["header", "job", "mangled", "blank", "junk"]))
        if kind == "header":
            key = draw(st.sampled_from(["MaxNodes", "MaxProcs", "Version", "Note"]))
            value = draw(st.sampled_from(["4", "0", "-5", "151.5", "lots", "", "8 cores"]))
            lines.append(f"; {key}: {value}")
        elif kind == "job":
            lines.append(job(draw(st.integers(-1, 5))))
        elif kind == "mangled":
            fields = job(1).split()
            for _ in range(draw(st.integers(1, 3))):
                at = draw(st.integers(0, len(fields)))
                fields[at : at + draw(st.integers(0, 1))] = [draw(st.sampled_from(_TOKENS))]
            lines.append(" ".join(fields))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "   ", "\t"])))
        else:
            lines.append(draw(st.text(max_size=30)))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=swf_texts())
@example(text="0 0 -1 100 4 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n\r0\n; MaxNodes: 0")
@example(text="\r0")  # old Mac line ends
def test_fuzzed_swf_reads_or_fails_with_one_trace_error(tmp_path, text):
    """Any input: a frame of one row per job line, or a TraceFormatError naming the file (and
    the line, which exists), never another exception."""
    path = tmp_path / "fuzz.swf"
    path.write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TraceWarning)  # repeated ids: tested above
            frame = read_swf(path)
    except TraceFormatError as err:
        assert str(path) in str(err)
        # lines end at "\n", or at "\r" in a text without any "\n" (old Mac line ends)
        lines = text.count("\n") + 1 if "\n" in text else text.count("\r") + 1
        assert err.line is None or 1 <= err.line <= lines
        assert len(str(err)) < 400
        return
    assert list(frame.columns) == list(SWF_COLUMNS)
    assert len(frame) >= 1
    assert (frame.abs() <= 2**53).all().all()  # nothing wrapped around (item 2)
