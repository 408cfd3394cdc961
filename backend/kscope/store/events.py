"""Events in Parquet, read back by range. Written by kscope-ingest (wasm-core/tools/ingest,
its Parquet writer kscope/parquet.h) in batches, one row group per (batch, CPU).

Each batch (64 Ki records or more, in arrival order, which is time order for
every decoder; a text trace decoded in parts side by side makes batches per
part) is split by CPU with a stable sort, so each row group holds one CPU's
events in time order. The row groups' min/max statistics on `cpu` and `ts_ns`
then act as a per-CPU time index: a reader asking for CPUs 3 and 7 between t0
and t1 opens only the row groups whose statistics overlap, in time order, and
stops once its limit is certain. Across row groups the file is in batch order,
so readers sort what they read (`ORDER BY ts_ns` in SQL).
Dictionary encoding (comm, type, name), only the present values of the sparse typed
columns, and zstd pages keep a record near a few bytes.
"""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kscope.ingest.records import SCHEMA


def read_range(path: Path, t0: int | None, t1: int | None, cpus: list[int] | None,
               types: list[str] | None, limit: int, columns: list[str] | None = None) -> pa.Table:
    """The first `limit` events with t0 <= ts_ns < t1 on the given CPUs and of the given
    types, by time.

    Row groups whose cpu/ts_ns statistics cannot match are never read, and the others
    are read in order of their first timestamp only until `limit` rows are certain: a
    row group starting after the limit-th time found so far cannot contribute.
    """
    f = pq.ParquetFile(str(path))
    meta = f.metadata
    names = f.schema_arrow.names
    i_ts, i_cpu = names.index("ts_ns"), names.index("cpu")
    wanted = set(cpus) if cpus else None
    groups = []
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        s_ts, s_cpu = rg.column(i_ts).statistics, rg.column(i_cpu).statistics
        if t0 is not None and s_ts.max < t0:
            continue
        if t1 is not None and s_ts.min >= t1:
            continue
        if wanted is not None and not any(s_cpu.min <= c <= s_cpu.max for c in wanted):
            continue
        groups.append((s_ts.min, g))
    groups.sort()
    empty = SCHEMA.empty_table() if columns is None else SCHEMA.empty_table().select(columns)
    found: list[pa.Table] = []
    rows = 0
    for k, (first_ts, g) in enumerate(groups):
        if rows >= limit:
            ts = np.concatenate([t["ts_ns"].to_numpy() for t in found])
            if first_ts > np.partition(ts, limit - 1)[limit - 1]:
                break
        table = _filter(f.read_row_group(g, columns=columns), t0, t1, wanted, types)
        if table.num_rows:
            found.append(table)
            rows += table.num_rows
    if not found:
        return empty
    import pyarrow.compute as pc  # here, not at import: `kscope ingest` never reads (~50 ms)

    table = pa.concat_tables(found)
    table = table.take(pc.sort_indices(table, [("ts_ns", "ascending"), ("cpu", "ascending")]))
    return table.slice(0, limit)


class BadCursor(ValueError):
    """A cursor that is not one this module wrote (or skips more rows than a page holds)."""


def read_page(path: Path, t0: int | None, t1: int | None, cpus: list[int] | None, types: list[str] | None,
              limit: int, cursor: str | None, max_skip: int) -> tuple[pa.Table, str | None]:
    """One page of read_range's rows and the cursor of the next page (None after the last).

    A cursor "TS.N" means: the rows from ts_ns = TS on, less the first N of them (those at
    TS already sent; rows at one ts come in the same order on every read). It replaces t0.
    """
    skip = 0
    if cursor is not None:
        ts_text, _, n_text = cursor.partition(".")
        try:
            ts, skip = int(ts_text), int(n_text)
        except ValueError:
            raise BadCursor(f"cursor {cursor[:40]!r}: expected TS.N as given in X-Kscope-Next-Cursor") from None
        if not (0 <= skip <= max_skip and -(1 << 63) <= ts < (1 << 63)):
            raise BadCursor(f"cursor {cursor[:40]!r}: out of range")
        t0 = ts
    table = read_range(path, t0, t1, cpus, types, limit + skip + 1).slice(skip)
    if table.num_rows <= limit:
        return table, None
    page = table.slice(0, limit)
    import pyarrow.compute as pc

    ts_col = page["ts_ns"]
    last = ts_col[limit - 1].as_py()
    at_last = pc.sum(pc.equal(ts_col, last)).as_py() + (skip if cursor is not None and last == t0 else 0)
    return page, f"{last}.{at_last}"


def _filter(table: pa.Table, t0: int | None, t1: int | None, wanted: set[int] | None,
            types: list[str] | None) -> pa.Table:
    import pyarrow.compute as pc

    mask = None

    def both(m: pa.Array) -> pa.Array:
        return m if mask is None else pc.and_(mask, m)

    if t0 is not None:
        mask = both(pc.greater_equal(table["ts_ns"], t0))
    if t1 is not None:
        mask = both(pc.less(table["ts_ns"], t1))
    if wanted is not None:
        mask = both(pc.is_in(table["cpu"], pa.array(sorted(wanted), pa.int32())))
    if types:
        mask = both(pc.is_in(table["type"].cast(pa.string()), pa.array(types, pa.string())))
    return table if mask is None else table.filter(mask)
