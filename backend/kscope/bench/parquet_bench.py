"""The C Parquet writer (kscope/parquet.h) vs pyarrow's, on the store's schema (figures, not a test).

    .venv/bin/python -m kscope.bench.parquet_bench [--events 1000000] [--trace FILE] [--runs 3] [--json]

A simulated ftrace text trace of ~1 M events (the ingest benchmark's generator:
hackbench-like pipe pairs on classroom-8; or --trace FILE) is decoded and turned
into the store's columns once (kscope/columns.h, records.table_of), batch by batch
as `kscope ingest` does. Then the same rows, cut into the same row groups (one per
CPU per batch), are written three ways, each `--runs` times (best kept):

  kscope-zstd1   this writer at zstd level 1, from the column builder's own buffers
  kscope-zstd3   the same at zstd level 3 (zstd's default)
  pyarrow-lz4    pq.ParquetWriter with the store's settings (store/events.py)
  pyarrow-zstd1  the same with compression="zstd", level 1

and for each: wall seconds, CPU seconds (this process), MB/s of column data in
(the Arrow tables' buffer bytes), bytes per row of the file, and time relative to
kscope-zstd1. Every file is read back (pyarrow) and compared before figures print.
The machine is shared: wall times vary from run to run; CPU times vary less.
"""

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kscope.bench.ingest_bench import generate
from kscope.ingest import arrow_schema_gen, decoders, records
from kscope.native.columns import ColumnBuilder
from kscope.native.events import EVENT_SIZE
from kscope.native.parquet import Column, ParquetFileWriter, specs_of_arrow


def load(path: Path) -> list[tuple[pa.Table, list[Column], list[tuple[int, int]]]]:
    """Per batch: the Arrow table, our columns, the row groups (row0, rows) by CPU."""
    builder = ColumnBuilder()
    batches = []

    def on_batch(raw: memoryview, arena: bytes) -> None:
        cols = builder.build(np.frombuffer(raw, np.uint8).ctypes.data, len(raw) // EVENT_SIZE)
        table = records.table_of(cols, arena)
        cpus = cols.arrays["cpu"]
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(cpus)) + 1, [cols.n]))
        batches.append((table, records.parquet_columns(cols, table),
                        [(int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:])]))

    decoders.decode_ftrace(path, path.name, on_batch, lambda done: None, batch_events=65536)
    return batches


def _ours(level: int) -> Any:
    def write(batches: list, out: Path) -> None:
        specs = specs_of_arrow(records.SCHEMA, ("ts_ns", "cpu"))
        with ParquetFileWriter(out, specs, {"ARROW:schema": arrow_schema_gen.arrow_schema_b64()}, level) as w:
            for _, columns, groups in batches:
                for row0, rows in groups:
                    w.write_row_group(columns, row0, rows)
    return write


def _pyarrow(compression: str, level: int | None) -> Any:
    def write(batches: list, out: Path) -> None:
        # The settings the store used with pyarrow before kscope's own writer, compression aside.
        writer = pq.ParquetWriter(
            str(out), records.SCHEMA, compression=compression, compression_level=level,
            use_dictionary=[f.name for f in records.SCHEMA if pa.types.is_dictionary(f.type)],
            write_statistics=["ts_ns", "cpu"], data_page_size=1 << 20, write_batch_size=8192)
        for table, _, groups in batches:
            for row0, rows in groups:
                writer.write_table(table.slice(row0, rows), row_group_size=rows)
        writer.close()
    return write


def _plain(table: pa.Table) -> pa.Table:
    fields = [pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type) for f in table.schema]
    return table.cast(pa.schema(fields))


def run(events: int = 1_000_000, trace: Path | None = None, runs: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kscope-pq-bench-") as tmp:
        work = Path(tmp)
        if trace is None:
            trace, _ = generate(events, work)
        batches = load(trace)
        rows = sum(t.num_rows for t, _, _ in batches)
        data_bytes = sum(t.nbytes for t, _, _ in batches)
        writers = {"kscope-zstd1": _ours(1), "kscope-zstd3": _ours(3), "pyarrow-lz4": _pyarrow("lz4", None),
                   "pyarrow-zstd1": _pyarrow("zstd", 1)}
        figures: dict[str, dict[str, float]] = {}
        for name, write in writers.items():
            best_wall = best_cpu = float("inf")
            out = work / f"{name}.parquet"
            for _ in range(runs):
                w0, c0 = time.perf_counter(), time.process_time()
                write(batches, out)
                best_wall = min(best_wall, time.perf_counter() - w0)
                best_cpu = min(best_cpu, time.process_time() - c0)
            size = out.stat().st_size
            figures[name] = {"wall_s": round(best_wall, 4), "cpu_s": round(best_cpu, 4),
                             "mb_per_s": round(data_bytes / best_wall / 1e6, 1),
                             "bytes_per_row": round(size / rows, 2), "file_bytes": size}
        reference = _plain(pq.read_table(work / "pyarrow-lz4.parquet"))
        for name in writers:
            if not _plain(pq.read_table(work / f"{name}.parquet")).equals(reference):
                raise SystemExit(f"parquet_bench: {name} read back differs from pyarrow-lz4")
        ours = figures["kscope-zstd1"]
        for f in figures.values():
            f["wall_vs_kscope"] = round(f["wall_s"] / ours["wall_s"], 2)
            f["cpu_vs_kscope"] = round(f["cpu_s"] / ours["cpu_s"], 2)
        return {"trace": trace.name, "rows": rows, "row_groups": sum(len(g) for _, _, g in batches),
                "column_mb": round(data_bytes / 1e6, 1), "runs": runs, "writers": figures}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=1_000_000, help="events to simulate (default 1 M)")
    ap.add_argument("--trace", type=Path, help="an ftrace text file instead of a simulated one")
    ap.add_argument("--runs", type=int, default=3, help="writes per writer; the best is kept")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = run(args.events, args.trace, args.runs)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['rows']} rows ({result['trace']}), {result['row_groups']} row groups, "
          f"{result['column_mb']} MB of columns; best of {result['runs']}")
    print(f"{'writer':<15}{'wall s':>8}{'cpu s':>8}{'MB/s':>8}{'B/row':>8}{'wall x':>8}{'cpu x':>8}")
    for name, f in result["writers"].items():
        print(f"{name:<15}{f['wall_s']:>8.3f}{f['cpu_s']:>8.3f}{f['mb_per_s']:>8.0f}{f['bytes_per_row']:>8.2f}"
              f"{f['wall_vs_kscope']:>8.2f}{f['cpu_vs_kscope']:>8.2f}")


if __name__ == "__main__":
    main()
