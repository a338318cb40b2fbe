"""The scheduling cycles run, as typed columns that grow in place: what ``cycles.parquet`` is."""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["CycleLog"]

#: numpy's dtype of each ``array`` type code a column may have.
_DTYPES = {"d": np.float64, "q": np.int64}


class CycleLog:
    """One row per scheduling cycle, held as one ``array.array`` per column.

    A long run has tens of thousands of cycles (whole UniLu-Gaia: ~60,000); a tuple of
    Python numbers per cycle held ~330 bytes a row to the end of the run, eight bytes a value
    here.

    Parameters
    ----------
    names : sequence of str
        The columns, in row order, shape (c,).
    types : str
        One ``array`` type code per column: ``"d"`` (float64) or ``"q"`` (int64), length c.

    Raises
    ------
    ValueError
        ``types`` has another length than ``names`` or an unknown code.
        From :meth:`append`: a row whose length is not c (nothing is logged).
    TypeError
        From :meth:`append`: a float in an integer column (the row is then not logged).

    References
    ----------
    vosim's record of its cycles (VO Preferences §2: the metascheduler's cyclic scheme).
    """

    def __init__(self, names: Sequence[str], types: str) -> None:
        if len(types) != len(names) or set(types) - set(_DTYPES):
            raise ValueError(f"types {types!r} do not give 'd' or 'q' for each of {len(names)}")
        self.names = tuple(names)
        self._columns = [array(code) for code in types]

    def __len__(self) -> int:
        """Cycles logged."""
        return len(self._columns[0]) if self._columns else 0

    def append(self, row: Sequence[float]) -> None:
        """Log one cycle's values, in the order of ``names`` (shape (c,))."""
        if len(row) != len(self._columns):
            raise ValueError(f"a cycle row has {len(self._columns)} values, got {len(row)}")
        done = 0
        try:
            for column, value in zip(self._columns, row, strict=True):
                column.append(value)
                done += 1
        except TypeError:
            for column in self._columns[:done]:  # the row is logged whole or not at all
                column.pop()
            raise

    def extend(self, columns: Sequence[np.ndarray]) -> None:
        """Log many cycles at once: one array per column in the order of ``names``, shape (r,).

        Raises
        ------
        ValueError
            Not one array per column, or arrays of different lengths (nothing is logged).
        TypeError
            A float array for an integer column (nothing is logged).

        References
        ----------
        vosim's record of its cycles (VO Preferences §2: the metascheduler's cyclic scheme).
        """
        if len(columns) != len(self._columns):
            raise ValueError(f"cycles have {len(self._columns)} columns, got {len(columns)}")
        if len({len(c) for c in columns}) > 1:
            raise ValueError(f"cycle columns of lengths {sorted({len(c) for c in columns})}")
        typed = []
        for name, column, values in zip(self.names, self._columns, columns, strict=True):
            values = np.asarray(values)
            if column.typecode == "q" and values.dtype.kind == "f":
                raise TypeError(f"cycle column {name!r} is integer, got floats")
            typed.append(values.astype(_DTYPES[column.typecode]))
        for column, values in zip(self._columns, typed, strict=True):
            column.frombytes(values.tobytes())

    def frame(self) -> pd.DataFrame:
        """The cycles logged so far, one row each; int64 and float64 columns ``names``."""
        return pd.DataFrame(
            {
                name: np.array(column, dtype=_DTYPES[column.typecode])
                for name, column in zip(self.names, self._columns, strict=True)
            }
        )
