"""The C core's Parquet writer (kscope/parquet.h) read back by pyarrow and DuckDB.

Every kind, every null pattern, row groups cut at odd rows from one batch, dictionary
chunks using different subsets, empty and non-ASCII strings, pages split past 1 Mi
values, statistics, errors; and the store's own schema on a real trace, against what
pyarrow's writer stores for the same rows.
"""

import io
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kscope.ingest import decoders, records
from kscope.native import core
from kscope.native.columns import ColumnBuilder
from kscope.native.events import EVENT_SIZE
from kscope.native.parquet import (DICT8, DICT32, I8, I32, I64, STRING, Column, ParquetFileWriter, Strings,
                                   specs_of_arrow)
from kscope.store.events import read_range

TRACES = Path(__file__).resolve().parents[2] / "traces"
WORDS = ["", "bash", "héllo wörld", "swapper/0", "日本語", "kworker/u16:3", "x" * 40]
N = 1000
CUTS = [(0, 13), (13, 300), (313, 1), (314, 5), (319, 681)]  # row groups: odd starts and sizes


def _arrow_schema_kv(schema: pa.Schema) -> dict[str, str]:
    """The ARROW:schema footer entry pyarrow writes for `schema` (gives readers the exact types)."""
    buf = io.BytesIO()
    pq.write_table(schema.empty_table(), buf)
    return {"ARROW:schema": pq.read_metadata(io.BytesIO(buf.getvalue())).metadata[b"ARROW:schema"].decode()}


class _PyarrowStoreWriter:
    """The reference: pyarrow writing the store's schema as the store did before kscope's own
    writer (LZ4, dictionaries for the strings, ts_ns/cpu statistics, one row group per CPU run)."""

    def __init__(self, path: Path) -> None:
        self._writer = pq.ParquetWriter(
            str(path), records.SCHEMA, compression="lz4",
            use_dictionary=[f.name for f in records.SCHEMA if pa.types.is_dictionary(f.type)],
            write_statistics=["ts_ns", "cpu"])
        self.row_groups = 0

    def write(self, table: pa.Table) -> None:
        cpus = table.column("cpu").to_numpy()
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(cpus)) + 1, [table.num_rows]))
        for a, b in zip(bounds[:-1], bounds[1:]):
            self._writer.write_table(table.slice(int(a), int(b - a)), row_group_size=int(b - a))
            self.row_groups += 1

    def close(self) -> None:
        self._writer.close()


def _plain(table: pa.Table) -> pa.Table:
    """The table with dictionary columns decoded (dictionaries differ per row group)."""
    fields = [pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type) for f in table.schema]
    return table.cast(pa.schema(fields))


def _bitmap(mask: np.ndarray) -> np.ndarray:
    return np.packbits(mask, bitorder="little")


def _masks(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    edges = np.zeros(n, bool)
    edges[[0, n - 1]] = True
    return {"none": np.ones(n, bool), "all": np.zeros(n, bool), "sparse": np.arange(n) % 37 == 5,
            "edges": edges, "half": rng.random(n) < 0.5}


def _batch(n: int = N) -> tuple[list[tuple[str, int, bool]], list[Column], pa.Table]:
    """One batch: every kind under every null pattern; the expected Arrow table beside it."""
    rng = np.random.default_rng(1)
    specs, cols, arrays, fields = [], [], [], []
    words = Strings.of(WORDS)
    # Dictionary ids: each row group's slice uses its own subset.
    ids = rng.integers(0, len(WORDS), n).astype(np.int32)
    ids[13:313] = rng.choice([1, 2, 5], 300)
    ids[313:319] = [3, 4, 4, 3, 3, 4]  # row group 2: [3]; row group 3: 4 4 3 3 4
    plain = [WORDS[i] + str(k % 3) if k % 5 else "" for k, i in enumerate(rng.integers(0, len(WORDS), n))]
    raw = [s.encode() for s in plain]
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum([len(b) for b in raw], out=offsets[1:])
    string_bytes = np.frombuffer(b"".join(raw), np.uint8)
    values = {
        I64: (np.cumsum(rng.integers(-5, 1 << 40, n)).astype(np.int64), pa.int64()),
        I32: (rng.integers(-(1 << 31), (1 << 31) - 1, n).astype(np.int32), pa.int32()),
        I8: (rng.integers(-128, 128, n).astype(np.int8), pa.int8()),
    }
    for name, mask in _masks(n).items():
        valid = None if name == "none" else _bitmap(mask)
        for kind, (v, t) in values.items():
            specs.append((f"{t}_{name}", kind, True))
            cols.append(Column(v, valid))
            fields.append(pa.field(f"{t}_{name}", t))
            arrays.append(pa.array(v, t, mask=~mask))
        for kind, t in ((DICT32, pa.int32()), (DICT8, pa.int8())):
            dtype = pa.dictionary(t, pa.string())
            specs.append((f"dict{t.bit_width}_{name}", kind, kind == DICT32))
            cols.append(Column(ids.astype(np.int8 if kind == DICT8 else np.int32), valid, dictionary=words))
            fields.append(pa.field(f"dict{t.bit_width}_{name}", dtype))
            arrays.append(pa.DictionaryArray.from_arrays(pa.array(ids, t, mask=~mask), pa.array(WORDS)))
        specs.append((f"str_{name}", STRING, True))
        cols.append(Column(string_bytes, valid, offsets=offsets))
        fields.append(pa.field(f"str_{name}", pa.string()))
        arrays.append(pa.array(plain, pa.string(), mask=~mask))
    return specs, cols, pa.Table.from_arrays(arrays, schema=pa.schema(fields))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pa.Table, list[tuple[str, int, bool]]]:
    specs, cols, expected = _batch()
    path = tmp_path_factory.mktemp("pq") / "batch.parquet"
    with ParquetFileWriter(path, specs, _arrow_schema_kv(expected.schema)) as w:
        for row0, rows in CUTS:
            w.write_row_group(cols, row0, rows)
    assert (w.rows, w.row_groups, w.bytes) == (N, len(CUTS), path.stat().st_size)
    return path, expected, specs


def test_pyarrow_reads_back_every_kind_and_null_pattern(written) -> None:  # noqa: ANN001
    path, expected, _ = written
    got = pq.read_table(path)
    assert got.schema.remove_metadata() == expected.schema  # dictionary<int8|int32, string>, int8, ...
    assert _plain(got).equals(_plain(expected))
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == N and meta.num_row_groups == len(CUTS)
    assert meta.created_by.startswith("kscope-parquet-writer version ")
    assert [meta.row_group(g).num_rows for g in range(len(CUTS))] == [rows for _, rows in CUTS]


def test_each_dictionary_page_holds_only_the_strings_its_chunk_uses(written) -> None:  # noqa: ANN001
    path, expected, _ = written
    f = pq.ParquetFile(path)
    for g, (row0, rows) in enumerate(CUTS):
        table = f.read_row_group(g, columns=["dict32_none", "dict8_half", "dict32_all"])
        for name in table.column_names:
            want = expected.column(name).slice(row0, rows).to_pylist()
            first_use = list(dict.fromkeys(s for s in want if s is not None))
            chunk = table.column(name).chunk(0)
            assert chunk.dictionary.to_pylist() == first_use, (g, name)
            assert chunk.to_pylist() == want
    # Row group 3 (rows 314..318: ids 4 4 3 3 4): two strings, in order of first use.
    assert f.read_row_group(3, columns=["dict32_none"]).column(0).chunk(0).dictionary.to_pylist() == [
        WORDS[4], WORDS[3]]


def test_row_group_statistics(written) -> None:  # noqa: ANN001
    path, expected, specs = written
    meta = pq.ParquetFile(path).metadata
    for g, (row0, rows) in enumerate(CUTS):
        rg = meta.row_group(g)
        for i, (name, kind, stats) in enumerate(specs):
            col = rg.column(i)
            assert col.num_values == rows and col.compression == "ZSTD"
            assert col.has_dictionary_page == (kind in (DICT32, DICT8))
            if not stats:
                assert not col.is_stats_set
                continue
            values = expected.column(name).slice(row0, rows).to_pylist()
            present = [v for v in values if v is not None]
            s = col.statistics
            assert s.null_count == rows - len(present), (g, name)
            assert s.has_min_max == bool(present), (g, name)
            if present:
                assert (s.min, s.max) == (min(present), max(present)), (g, name)


def test_column_chunks_tile_the_file_and_sizes_add_up(written) -> None:  # noqa: ANN001
    """Every chunk starts where the one before ended (from 4, the magic, to the footer), so
    each offset and total_compressed_size is right; row-group totals are the chunks' sums."""
    path, _, specs = written
    meta = pq.ParquetFile(path).metadata
    data = path.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little")
    assert data[:4] == data[-4:] == b"PAR1"
    end = 4
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        assert rg.total_byte_size == sum(rg.column(i).total_uncompressed_size for i in range(rg.num_columns))
        for i in range(rg.num_columns):
            col = rg.column(i)
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            assert start == end, (g, specs[i][0])
            assert col.has_dictionary_page == (col.data_page_offset > start)
            end = start + col.total_compressed_size
    assert end == len(data) - 8 - footer
    rows = duckdb.connect().execute(
        "select row_group_id, any_value(row_group_compressed_bytes), sum(total_compressed_size) "
        "from parquet_metadata(?) group by 1 order by 1",
        [str(path)]).fetchall()
    assert len(rows) == len(CUTS) and all(r[1] == r[2] for r in rows)


def test_duckdb_reads_back_counts_sums_and_strings(written) -> None:  # noqa: ANN001
    path, expected, _ = written
    con = duckdb.connect()
    for name in ("int64_half", "int32_sparse", "int8_edges", "int64_all", "int32_none"):
        want = [v for v in expected.column(name).to_pylist() if v is not None]
        got = con.execute(f"select count(*), count({name}), sum({name}) from read_parquet(?)", [str(path)]).fetchone()
        assert got == (N, len(want), sum(want) if want else None), name
    for name in ("dict32_half", "dict8_none", "str_sparse", "str_none", "dict8_all"):
        col = expected.column(name).to_pylist()
        for word in ("héllo wörld", "日本語", ""):
            want = sum(1 for v in col if v == word)
            got = con.execute(f"select count(*) from read_parquet(?) where {name} = ?", [str(path), word]).fetchone()
            assert got == (want,), (name, word)
        rows = con.execute(f"select {name} from read_parquet(?)", [str(path)]).fetchall()
        assert sorted(r[0] for r in rows if r[0] is not None) == sorted(v for v in col if v is not None)


def test_pages_split_past_a_million_values(tmp_path: Path) -> None:
    n = (1 << 20) + 1000
    rng = np.random.default_rng(3)
    mask = rng.random(n) < 0.9
    ts = np.arange(n, dtype=np.int64) * 3
    ids = rng.integers(0, 3, n).astype(np.int8)
    strings = Strings.of(["a", "b", "c"])
    specs = [("ts", I64, True), ("d", DICT8, False), ("s", STRING, False)]
    text = np.frombuffer(b"xy" * n, np.uint8)
    offsets = (np.arange(n + 1) * 2).astype(np.int32)
    cols = [Column(ts, _bitmap(mask)), Column(ids, _bitmap(~mask), dictionary=strings),
            Column(text, _bitmap(mask), offsets=offsets)]
    path = tmp_path / "big.parquet"
    with ParquetFileWriter(path, specs) as w:
        w.write_row_group(cols, 5, n - 5)
    got = pq.read_table(path)
    assert got.column("ts").to_numpy(zero_copy_only=False)[mask[5:]].tolist() == ts[5:][mask[5:]].tolist()
    assert got.column("ts").null_count == int((~mask[5:]).sum())
    d = got.column("d").to_pylist()
    assert [v for v in d if v is not None] == [["a", "b", "c"][i] for i in ids[5:][~mask[5:]]]
    assert got.column("s").null_count == int((~mask[5:]).sum())
    con = duckdb.connect()
    assert con.execute("select count(ts), sum(ts), count(d), count(s) from read_parquet(?)",
                       [str(path)]).fetchone() == (int(mask[5:].sum()), int(ts[5:][mask[5:]].sum()),
                                                   int((~mask[5:]).sum()), int(mask[5:].sum()))


def test_errors_name_the_path_column_and_row(tmp_path: Path) -> None:
    specs = [("comm", DICT32, False)]
    with pytest.raises(core.KscopeCoreError) as e:
        ParquetFileWriter(tmp_path / "no" / "such" / "dir.parquet", specs)
    assert e.value.status == core.KS_ERR_IO and "dir.parquet: cannot create: No such file" in e.value.message
    with pytest.raises(core.KscopeCoreError) as e:
        ParquetFileWriter(tmp_path / "k.parquet", [("x", 9, False)])
    assert e.value.status == core.KS_ERR_INVALID_ARG and "column x: kind 9 out of range" in e.value.message
    path = tmp_path / "range.parquet"
    with ParquetFileWriter(path, specs) as w:
        col = Column(np.array([0, 1, 7, 0], np.int32), dictionary=Strings.of(["a", "b"]))
        with pytest.raises(core.KscopeCoreError) as e:
            w.write_row_group([col], 1, 3)
        assert e.value.status == core.KS_ERR_RANGE
        assert "column comm: row 2: dictionary id 7 out of range (the dictionary has 2 strings)" in e.value.message
        w.write_row_group([col], 0, 2)  # the writer goes on; the refused group left nothing behind
    assert pq.read_table(path).column("comm").to_pylist() == ["a", "b"]


# ---- the store's schema on a real trace ------------------------------------------------

def test_store_schema_on_a_real_trace_matches_pyarrows_file(tmp_path: Path) -> None:
    ours_path, theirs_path = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    specs = specs_of_arrow(records.SCHEMA, statistics=("ts_ns", "cpu"))
    ours = ParquetFileWriter(ours_path, specs, _arrow_schema_kv(records.SCHEMA))
    theirs = _PyarrowStoreWriter(theirs_path)
    builder = ColumnBuilder()

    def on_batch(raw: memoryview, arena: bytes) -> None:
        cols = builder.build(np.frombuffer(raw, np.uint8).ctypes.data, len(raw) // EVENT_SIZE)
        table = records.table_of(cols, arena)
        theirs.write(table)
        columns = records.parquet_columns(cols, table)
        cpus = cols.arrays["cpu"]
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(cpus)) + 1, [cols.n]))
        for a, b in zip(bounds[:-1], bounds[1:]):
            ours.write_row_group(columns, int(a), int(b - a))

    decoders.decode_ftrace(TRACES / "intermittent8-linux6.12-vm16.txt", "intermittent8", on_batch, lambda done: None,
                           batch_events=3000)
    ours.close()
    theirs.close()
    builder.close()
    got, want = pq.read_table(ours_path), pq.read_table(theirs_path)
    assert got.num_rows > 1000 and ours.row_groups == theirs.row_groups >= 8
    assert got.schema == want.schema
    assert _plain(got).equals(_plain(want))
    m_got, m_want = pq.ParquetFile(ours_path).metadata, pq.ParquetFile(theirs_path).metadata
    names = records.SCHEMA.names
    for g in range(m_got.num_row_groups):
        for name in ("ts_ns", "cpu"):
            a, b = m_got.row_group(g).column(names.index(name)), m_want.row_group(g).column(names.index(name))
            assert (a.statistics.min, a.statistics.max, a.statistics.null_count) == (
                b.statistics.min, b.statistics.max, b.statistics.null_count)
    con = duckdb.connect()
    q = "select type, count(*), count(distinct comm), sum(prev_state), max(fields) from read_parquet(?) group by 1 order by 1"
    assert con.execute(q, [str(ours_path)]).fetchall() == con.execute(q, [str(theirs_path)]).fetchall()
    # Filters DuckDB may answer from the row-group statistics (ts_ns, cpu).
    mid = int(np.median(want.column("ts_ns").to_numpy()))
    q = "select count(*), min(ts_ns), max(ts_ns) from read_parquet(?) where ts_ns >= ? and cpu in (1, 3)"
    got_rows = con.execute(q, [str(ours_path), mid]).fetchall()
    assert got_rows == con.execute(q, [str(theirs_path), mid]).fetchall() and got_rows[0][0] > 0
    # The store's per-CPU time index (row-group statistics) over our file.
    for cpus in ([1], [0, 5], None):
        a = read_range(ours_path, mid, None, cpus, None, limit=50)
        b = read_range(theirs_path, mid, None, cpus, None, limit=50)
        assert a.num_rows == 50 and _plain(a).equals(_plain(b))


def test_a_file_without_row_groups_is_an_empty_table(tmp_path: Path) -> None:
    schema = pa.schema([("ts", pa.int64()), ("comm", pa.dictionary(pa.int32(), pa.string())), ("g", pa.int8())])
    path = tmp_path / "empty.parquet"
    with ParquetFileWriter(path, specs_of_arrow(schema, ("ts",)), _arrow_schema_kv(schema)) as w:
        w.write_row_group([Column(None), Column(None), Column(None)], 0, 0)  # 0 rows: nothing
    got = pq.read_table(path)
    assert got.num_rows == 0 and got.schema.remove_metadata() == schema
    assert duckdb.connect().execute("select count(*) from read_parquet(?)", [str(path)]).fetchone() == (0,)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full (a device that is always full)")
def test_a_failed_write_names_the_path_and_errno() -> None:
    w = ParquetFileWriter("/dev/full", [("x", I64, False)])
    big = Column(np.arange(1 << 16, dtype=np.int64) * 7919)  # more than stdio's buffer
    with pytest.raises(core.KscopeCoreError) as e:
        w.write_row_group([big], 0, 1 << 16)
        w.close()
    assert e.value.status == core.KS_ERR_IO
    assert e.value.message == "/dev/full: write failed: No space left on device"
    with pytest.raises(core.KscopeCoreError) as e:  # the failure is sticky
        w.write_row_group([big], 0, 1)
    assert e.value.status == core.KS_ERR_IO
