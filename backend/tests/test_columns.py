"""kscope.native.columns: C-built columns, and the buffer reuse that must never touch live data."""

import numpy as np

from kscope.ingest import records
from kscope.native.columns import ColumnBuilder, column_names


def _records(n: int, cpu_of, ts0: int = 0) -> np.ndarray:  # type: ignore[no-untyped-def]
    rec = np.zeros(n, records.RECORD)
    rec["ts_ns"] = ts0 + np.arange(n)
    rec["type"] = records.RSEQ
    rec["cpu"] = [cpu_of(i) for i in range(n)]
    rec["comm"] = [b"task%d" % (i % 3) for i in range(n)]
    rec["r_mm_cid"] = np.arange(n) % 5
    return rec


def test_columns_are_grouped_by_cpu_in_time_order() -> None:
    rec = _records(10, lambda i: (i * 7) % 3)
    with ColumnBuilder() as b:
        cols = b.build(rec.ctypes.data, len(rec))
    cpu, ts, order = cols.arrays["cpu"], cols.arrays["ts_ns"], cols.arrays["order"]
    assert list(cpu) == sorted(cpu)
    for c in set(cpu.tolist()):
        assert list(ts[cpu == c]) == sorted(ts[cpu == c])
    assert list(rec["ts_ns"][order]) == list(ts)
    assert cols.comm_names == ["task0", "task1", "task2"] and cols.nulls["valid_rseq"] == 0
    assert cols.nulls["valid_switch"] == 10 and "valid_generic" in column_names()


def test_a_buffer_in_use_is_never_reused() -> None:
    with ColumnBuilder() as b:
        first = _records(5000, lambda i: i % 4)
        second = _records(5000, lambda i: i % 4, ts0=1 << 40)
        kept = b.build(first.ctypes.data, len(first))
        table = records.table_of(kept)
        del kept  # the Arrow table alone still refers to the buffer
        b.build(second.ctypes.data, len(second))
        assert table["ts_ns"].to_numpy().max() < 1 << 40  # first batch's values intact
        del table
        for _ in range(5):  # nothing refers to earlier batches: their buffers come back
            b.build(second.ctypes.data, len(second))
        assert len(b._buffers) <= 2
