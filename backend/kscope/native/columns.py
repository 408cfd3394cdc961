"""ks_event records -> columns through the C core (kscope/columns.h), into numpy memory.

One call per batch fills one uint8 buffer with every column and validity bitmap
(ks_columns_layout gives the regions); the call runs without the GIL. A
ColumnBuilder keeps the comm dictionary (distinct task names -> ids) across
the batches of one input.
"""

import ctypes
import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kscope.native import core
from kscope.native.structs import KS_EV_TYPE_COUNT

BY_CPU = 1  # KS_COLUMNS_BY_CPU
COMM_LEN = 16
TYPE_COUNT = KS_EV_TYPE_COUNT


@lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL:
    lib = core.lib()
    sigs = {
        "ks_column_name": ([ctypes.c_int32], ctypes.c_char_p),
        "ks_column_width": ([ctypes.c_int32], ctypes.c_int32),
        "ks_columns_layout": ([ctypes.c_uint32, ctypes.c_void_p], ctypes.c_int32),
        "ks_comm_dict_new": ([ctypes.POINTER(ctypes.c_void_p)], ctypes.c_int32),
        "ks_comm_dict_free": ([ctypes.c_void_p], None),
        "ks_comm_dict_count": ([ctypes.c_void_p], ctypes.c_uint32),
        "ks_comm_dict_names": ([ctypes.c_void_p], ctypes.c_void_p),
        "ks_columns_build": ([ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32,
                              ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int32),
    }
    for name, (argtypes, restype) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
    return lib


@lru_cache(maxsize=1)
def column_names() -> tuple[str, ...]:
    """The C core's column and bitmap names, in buffer order."""
    lib, names = _lib(), []
    while (name := lib.ks_column_name(len(names))) is not None:
        names.append(name.decode())
    return tuple(names)


def _bitmaps() -> int:
    return sum(1 for n in column_names() if n.startswith("valid_"))


class _Stats(ctypes.Structure):
    _fields_ = [("ts_min", ctypes.c_uint64), ("ts_max", ctypes.c_uint64), ("last_fields_off", ctypes.c_int64),
                ("nulls", ctypes.c_uint32 * 11), ("type_counts", ctypes.c_uint32 * TYPE_COUNT)]


@dataclass
class Columns:
    """One batch: each column's numpy view (bitmaps as packed uint8), by name."""

    n: int
    arrays: dict[str, np.ndarray]
    nulls: dict[str, int]  # bitmap name -> rows without a value
    ts_min: int
    ts_max: int
    last_fields_off: int  # -1: no generic row
    type_counts: np.ndarray  # per ks_event_type
    comm_names: list[str]  # the comm dictionary (ids index it), as of this batch


class ColumnBuilder:
    """Builds Columns from contiguous records; one per input (it owns the comm dictionary)."""

    def __init__(self) -> None:
        self._lib = _lib()
        self._dict = ctypes.c_void_p()
        core.check(self._lib.ks_comm_dict_new(ctypes.byref(self._dict)))
        self._names: list[str] = []
        names = column_names()
        if _bitmaps() != len(_Stats().nulls):
            raise core.KscopeCoreError(core.KS_ERR_INVALID_ARG, "ks_columns_stats does not match columns.h")
        self._widths = [self._lib.ks_column_width(i) for i in range(len(names))]
        self._dtypes = {8: np.int64, 4: np.int32, 1: np.int8, 0: np.uint8}
        self._buffers: list[np.ndarray] = []  # earlier batches' buffers, reused once unreferenced

    def _buffer(self, size: int) -> np.ndarray:
        """A buffer of at least size bytes: one nothing else refers to any more (its Arrow
        arrays are gone, e.g. written), else a new one. Reuse spares the page faults and
        zeroing of fresh memory. A free buffer that is too small is replaced; new ones get a
        quarter more room, as batches vary in size a little (a log is handed over once it
        holds a batch, after the piece that filled it)."""
        for i in range(len(self._buffers)):
            buf = self._buffers[i]
            # References: the list, `buf` and getrefcount's argument (not enumerate(): its
            # reused result tuple would hold one more).
            if sys.getrefcount(buf) <= 3:
                if len(buf) < size:
                    self._buffers[i] = buf = np.empty(size + size // 4, np.uint8)
                return buf
        buf = np.empty(size + size // 4, np.uint8)
        if len(self._buffers) < 4:
            self._buffers.append(buf)
        return buf

    def build(self, address: int, n: int, by_cpu: bool = True) -> Columns:
        """Columns of the n records at address (a ks_event array that stays alive meanwhile)."""
        names = column_names()
        offsets = (ctypes.c_uint64 * (len(names) + 1))()
        core.check(self._lib.ks_columns_layout(n, offsets))
        buf = self._buffer(max(offsets[len(names)], 8))
        stats = _Stats()
        core.check(self._lib.ks_columns_build(address, n, self._dict, BY_CPU if by_cpu else 0,
                                              buf.ctypes.data, ctypes.byref(stats)))
        arrays = {}
        for i, name in enumerate(names):
            width = self._widths[i]
            size = n * width if width else (n + 7) // 8
            arrays[name] = buf[offsets[i]: offsets[i] + size].view(self._dtypes[width])
        count = self._lib.ks_comm_dict_count(self._dict)
        if count > len(self._names):
            raw = ctypes.string_at(self._lib.ks_comm_dict_names(self._dict), count * COMM_LEN)
            self._names.extend(raw[i * COMM_LEN: (i + 1) * COMM_LEN].split(b"\0", 1)[0].decode("utf-8", "replace")
                               for i in range(len(self._names), count))
        bitmaps = [nm for nm in names if nm.startswith("valid_")]
        return Columns(n=n, arrays=arrays, nulls=dict(zip(bitmaps, stats.nulls)), ts_min=stats.ts_min,
                       ts_max=stats.ts_max, last_fields_off=stats.last_fields_off,
                       type_counts=np.array(stats.type_counts, np.int64), comm_names=list(self._names))

    def close(self) -> None:
        self._buffers.clear()
        if self._dict:
            self._lib.ks_comm_dict_free(self._dict)
            self._dict = ctypes.c_void_p()

    def __enter__(self) -> "ColumnBuilder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
