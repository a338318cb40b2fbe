"""Writing results (vosim.runs.store): parts and manifests are flushed to disk before the rename."""

import json
import os
import stat

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from vosim.runs import store


def test_parts_are_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    synced = []
    fsync = os.fsync

    def record(fd):
        info = os.fstat(fd)
        synced.append((stat.S_ISDIR(info.st_mode), info.st_ino))
        fsync(fd)

    monkeypatch.setattr(store.os, "fsync", record)
    target = tmp_path / "runs" / "part-x.parquet"
    store.write_table(pd.DataFrame({"a": [1, 2]}), target)
    inode = target.stat().st_ino  # the temporary file renamed: same inode
    assert (False, inode) in synced
    assert (True, target.parent.stat().st_ino) in synced
    assert synced.index((False, inode)) < synced.index((True, target.parent.stat().st_ino))
    synced.clear()
    store.write_json({"runs": []}, tmp_path / "manifest.json")
    assert (False, (tmp_path / "manifest.json").stat().st_ino) in synced
    assert (True, tmp_path.stat().st_ino) in synced


def test_tables_and_json_read_back_as_written(tmp_path):
    frame = pd.DataFrame({"run_id": ["a", "b"], "x": [1.5, float("nan")], "n": [1, 2]})
    path = store.write_table(frame, tmp_path / "deep" / "dir" / "t.parquet")
    assert path == tmp_path / "deep" / "dir" / "t.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)
    obj = {"a": float("nan"), "b": [1.0, float("nan"), {"c": float("nan")}], "d": "x"}
    written = store.write_json(obj, tmp_path / "m.json")
    assert json.loads(written.read_text()) == {"a": None, "b": [1.0, None, {"c": None}], "d": "x"}
    assert written.read_text().endswith("\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "m.json"]  # no temporary left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "t.bin"
    store.atomic_write_bytes(path, b"old")

    class Boom(Exception):
        pass

    def fail(fh):
        fh.write(b"half")
        raise Boom

    with pytest.raises(Boom):
        store._write_atomically(path, fail)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.bin"]
    store.atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("rows", [0, 1, 7, 10])
def test_a_table_written_in_row_groups_reads_back_as_pandas_own_write(tmp_path, monkeypatch, rows):
    """Row groups of 3 rows: the same frame as ``DataFrame.to_parquet`` gives, every dtype."""
    monkeypatch.setattr(store, "ROW_GROUP", 3)
    frame = pd.DataFrame(
        {
            "job": np.arange(10),
            "state": pd.Categorical(list("abcabcxyzq")),
            "reason": list("0123456789"),
            "wait": [1.5] * 5 + [np.nan] * 5,
            "site": [None, "u"] * 5,
        }
    ).iloc[:rows]
    frame.to_parquet(tmp_path / "pandas.parquet", index=False)
    store.write_table(frame, tmp_path / "vosim.parquet")
    groups = pq.ParquetFile(tmp_path / "vosim.parquet").metadata.num_row_groups
    assert groups == max(1, -(-rows // 3))
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "vosim.parquet"), pd.read_parquet(tmp_path / "pandas.parquet")
    )


def test_frames_given_one_by_one_are_row_groups_of_one_table(tmp_path):
    """An iterable of frames: one row group each, read back as their concatenation."""
    frame = pd.DataFrame({"job": np.arange(7), "end": np.linspace(0, 1, 7)})
    parts = (frame.iloc[low:high] for low, high in ((0, 2), (2, 2), (2, 7)))
    store.write_table(parts, tmp_path / "t.parquet")
    assert pq.ParquetFile(tmp_path / "t.parquet").metadata.num_row_groups == 3
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), frame)
    with pytest.raises(ValueError, match="no frame to write"):
        store.write_table(iter([]), tmp_path / "none.parquet")
    assert not (tmp_path / "none.parquet").exists()
