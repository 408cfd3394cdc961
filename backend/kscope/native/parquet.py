"""The C core's Parquet writer (kscope/parquet.h) through ctypes, over numpy columns.

A ParquetFileWriter owns one ks_pq_writer: open with the column specs and the
footer's key/value metadata, append row groups as slices [row0, row0 + rows) of
one batch of Columns, close. Columns are numpy arrays the caller keeps alive during
the call (nothing is copied on the Python side): values, an Arrow validity bitmap
(packed uint8, LSB first, 1 = present) or None, offsets for plain strings, a
Strings table for dictionary ids.

columns_of_arrow() turns an Arrow table's columns into Columns (copying only what
is not already a plain buffer), for tests, benchmarks and callers holding Arrow.
"""

import ctypes
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from kscope.native import core

I64, I32, I8, DICT32, DICT8, STRING = range(6)  # ks_pq_kind

_P = ctypes.POINTER


class _Spec(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32), ("statistics", ctypes.c_int32)]


class _Strings(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint32), ("offsets", ctypes.c_void_p), ("bytes", ctypes.c_void_p)]


class _ColumnData(ctypes.Structure):
    _fields_ = [("values", ctypes.c_void_p), ("valid", ctypes.c_void_p), ("offsets", ctypes.c_void_p),
                ("dict", _P(_Strings))]


class _KeyValue(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


@lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL:
    lib = core.lib()
    h = ctypes.c_void_p
    sigs = {
        "ks_pq_writer_open": ([ctypes.c_char_p, _P(_Spec), ctypes.c_int32, _P(_KeyValue), ctypes.c_int32,
                               ctypes.c_int32, _P(h)], ctypes.c_int32),
        "ks_pq_write_row_group": ([h, _P(_ColumnData), ctypes.c_uint32, ctypes.c_uint32], ctypes.c_int32),
        "ks_pq_writer_close": ([h], ctypes.c_int32),
        "ks_pq_writer_free": ([h], None),
        "ks_pq_writer_rows": ([h], ctypes.c_uint64),
        "ks_pq_writer_row_groups": ([h], ctypes.c_uint32),
        "ks_pq_writer_bytes": ([h], ctypes.c_uint64),
        "ks_pq_writer_error": ([h], ctypes.c_char_p),
    }
    for name, (argtypes, restype) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
    return lib


class Strings:
    """A string table (dictionary): string i is data[offsets[i]:offsets[i + 1]]."""

    def __init__(self, offsets: np.ndarray, data: np.ndarray) -> None:
        self.offsets = np.ascontiguousarray(offsets, np.int32)
        self.data = np.ascontiguousarray(data, np.uint8) if len(data) else np.zeros(1, np.uint8)
        self.struct = _Strings(len(self.offsets) - 1, self.offsets.ctypes.data, self.data.ctypes.data)

    @classmethod
    def of(cls, strings: list[str]) -> "Strings":
        raw = [s.encode() for s in strings]
        offsets = np.zeros(len(raw) + 1, np.int32)
        np.cumsum([len(b) for b in raw], out=offsets[1:])
        return cls(offsets, np.frombuffer(b"".join(raw), np.uint8))


@dataclass
class Column:
    """One column of a batch: values (int64 / int32 / int8 values or ids; uint8 bytes for
    plain strings), valid (packed bitmap or None), offsets (plain strings), dictionary."""

    values: np.ndarray | None
    valid: np.ndarray | None = None
    offsets: np.ndarray | None = None
    dictionary: Strings | None = None


def _address(a: np.ndarray | None) -> int | None:
    if a is None:
        return None
    if not a.flags.c_contiguous:
        raise ValueError("parquet writer: columns must be contiguous arrays")
    return a.ctypes.data


class ParquetFileWriter:
    """Writes one Parquet file through the C core; every error raises KscopeCoreError
    with the writer's message (path, column, row)."""

    def __init__(self, path: str | Path, columns: list[tuple[str, int, bool]],
                 key_values: dict[str, str] | None = None, level: int = 1) -> None:
        self._lib = _lib()
        self._h = ctypes.c_void_p()
        self.names = [name for name, _, _ in columns]
        specs = (_Spec * len(columns))(*[_Spec(n.encode(), k, int(s)) for n, k, s in columns])
        kv = list((key_values or {}).items())
        kvs = (_KeyValue * max(len(kv), 1))(*[_KeyValue(k.encode(), v.encode()) for k, v in kv])
        status = self._lib.ks_pq_writer_open(str(path).encode(), specs, len(columns), kvs, len(kv), level,
                                             ctypes.byref(self._h))
        self._check(status)

    def _check(self, status: int) -> None:
        if status != core.KS_OK:
            message = core.text(self._lib.ks_pq_writer_error(self._h)) if self._h else ""
            raise core.KscopeCoreError(status, message or core.status_message(status))

    def write_row_group(self, columns: list[Column], row0: int, rows: int) -> None:
        """Rows [row0, row0 + rows) of the batch `columns` (one per spec) as one row group."""
        if len(columns) != len(self.names):
            raise ValueError(f"parquet writer: {len(columns)} columns for {len(self.names)} specs")
        data = (_ColumnData * len(columns))()
        for d, c in zip(data, columns):
            d.values, d.valid, d.offsets = _address(c.values), _address(c.valid), _address(c.offsets)
            if c.dictionary is not None:
                d.dict = ctypes.pointer(c.dictionary.struct)
        self._check(self._lib.ks_pq_write_row_group(self._h, data, row0, rows))

    def close(self) -> None:
        if self._h:
            try:
                self._check(self._lib.ks_pq_writer_close(self._h))
            finally:
                self.rows, self.row_groups, self.bytes = self._counts()
                self._lib.ks_pq_writer_free(self._h)
                self._h = ctypes.c_void_p()

    def _counts(self) -> tuple[int, int, int]:
        return (self._lib.ks_pq_writer_rows(self._h), self._lib.ks_pq_writer_row_groups(self._h),
                self._lib.ks_pq_writer_bytes(self._h))

    def __enter__(self) -> "ParquetFileWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        elif self._h:
            self._lib.ks_pq_writer_free(self._h)
            self._h = ctypes.c_void_p()

    def __del__(self) -> None:
        if getattr(self, "_h", None):
            self._lib.ks_pq_writer_free(self._h)


# ---- Arrow -> Columns ---------------------------------------------------------------

def kind_of(arrow_type) -> int:  # noqa: ANN001 - a pyarrow DataType
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        return DICT8 if arrow_type.index_type == pa.int8() else DICT32
    return {pa.int64(): I64, pa.int32(): I32, pa.int8(): I8, pa.string(): STRING}[arrow_type]


def _bitmap(arr) -> np.ndarray | None:  # noqa: ANN001
    if arr.null_count == 0:
        return None
    return np.packbits(arr.is_valid().to_numpy(zero_copy_only=False), bitorder="little")


def column_of_arrow(arr) -> Column:  # noqa: ANN001 - a pyarrow Array or ChunkedArray
    """The Column of one Arrow array (int64, int32, int8, string, dictionary<int8|int32, string>)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    kind = kind_of(arr.type)
    if kind in (DICT32, DICT8):
        ids = arr.indices.fill_null(0).to_numpy().astype(np.int8 if kind == DICT8 else np.int32)
        d = column_of_arrow(arr.dictionary)
        return Column(ids, _bitmap(arr), dictionary=Strings(d.offsets, d.values))
    if kind == STRING:
        n, off = len(arr), arr.offset
        bufs = arr.buffers()
        offsets = np.frombuffer(bufs[1], np.int32)[off: off + n + 1] if n else np.zeros(1, np.int32)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and len(bufs[2]) else np.zeros(1, np.uint8)
        return Column(data, _bitmap(arr), offsets=np.ascontiguousarray(offsets))
    dtype = {I64: np.int64, I32: np.int32, I8: np.int8}[kind]
    return Column(arr.fill_null(0).to_numpy().astype(dtype, copy=False), _bitmap(arr))


def columns_of_arrow(table) -> list[Column]:  # noqa: ANN001 - a pyarrow Table
    return [column_of_arrow(table.column(i)) for i in range(table.num_columns)]


def specs_of_arrow(schema, statistics: tuple[str, ...] = ()) -> list[tuple[str, int, bool]]:  # noqa: ANN001
    return [(f.name, kind_of(f.type), f.name in statistics) for f in schema]
