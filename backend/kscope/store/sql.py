"""Read-only SQL over one trace's events: one SELECT in a locked-down DuckDB, bounded.

Every bound holds from the first byte the query reads to the last byte of its answer:
- time: DuckDB is interrupted `timeout_s` after the query starts, and fetching and
  encoding check the same deadline, so a query whose rows are slow to fetch or to
  encode stops there too (SqlTimeout);
- DuckDB's memory: `memory_limit` for the query, no spilling to disk (SqlRefused);
- rows: at most `max_rows`, the result then says "truncated";
- bytes: the result encoded as JSON at most `max_bytes` (SqlTooBig). Rows are fetched a
  few at a time, fewer when they are wide, so no more than about one chunk of rows is
  held beyond what the answer itself may hold.

Values become JSON values here (both the API and `kscope query --json` print them):
BLOB as DuckDB prints it ('\\xFF' escapes), DECIMAL as a number, dates and times as ISO
text, NaN and infinities as text, LIST/STRUCT/MAP as arrays and objects.

Nothing the query can read names the server's folders: the events file is hard-linked
into a private temporary folder (`kscope-sql-<pid>-*`, removed when the query ends), and
that folder is the only one DuckDB may open, its temp and secret directory, and what its
view and settings (duckdb_views(), duckdb_settings(), current_setting()) show. Where no
hard link can be made (the store on another filesystem than the temporary folder) the
store's own trace folder is used, as before.
"""

import datetime
import decimal
import json
import math
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kscope.store.errors import SqlRefused, SqlTimeout, SqlTooBig

# Fetch chunks: rows per fetch, adapted so a chunk encodes to about CHUNK_BYTES.
CHUNK_BYTES = 256 * 1024
FIRST_CHUNK_ROWS = 16
MAX_CHUNK_ROWS = 4096


def json_value(v: Any) -> Any:
    """A DuckDB value as a JSON-encodable one."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else ("NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity"))
    if isinstance(v, (bytes, bytearray, memoryview)):
        return blob_text(bytes(v))
    if isinstance(v, decimal.Decimal):
        return json_value(float(v)) if not v == v.to_integral_value() else int(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return v.total_seconds()
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, dict):
        return {str(k): json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    return str(v)


def blob_text(b: bytes) -> str:
    """A BLOB as DuckDB's CAST(blob AS VARCHAR) writes it: printable ASCII as is, others as \\xHH."""
    return "".join(chr(c) if 32 <= c < 127 and c != 92 else f"\\x{c:02X}" for c in b)


def check_one_select(query: str) -> None:
    """SqlRefused unless `query` is exactly one SELECT."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as err:
        raise SqlRefused(f"SQL does not parse: {err}") from err
    if len(statements) != 1:
        raise SqlRefused(f"give exactly one SQL statement (got {len(statements)})")
    if statements[0].type != duckdb.StatementType.SELECT:
        raise SqlRefused(f"read-only: only SELECT queries are allowed, not {statements[0].type.name}")


class _Query:
    """One query's connection, deadline and interrupt timer."""

    def __init__(self, parquet: Path, timeout_s: float, memory_bytes: int) -> None:
        import duckdb

        self.timeout_s = timeout_s
        self.store_folder = str(parquet.parent.resolve()) + "/"
        self.link_dir = private_link(parquet.resolve())
        self.folder = self.link_dir + "/" if self.link_dir else self.store_folder
        events = self.folder + parquet.name
        self.conn = duckdb.connect(":memory:", config={"threads": 2})
        self.conn.execute("SET enable_progress_bar=false")
        self.conn.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{events}')")
        self.conn.execute(f"SET memory_limit='{max(1, memory_bytes // 1024)}KiB'")
        self.conn.execute("SET max_temp_directory_size='0KiB'")
        self.conn.execute(f"SET temp_directory='{self.folder}'")
        self.conn.execute(f"SET secret_directory='{self.folder}'")
        self.conn.execute(f"SET allowed_directories=['{self.folder}']")
        self.conn.execute("SET enable_external_access=false")
        self.conn.execute("SET lock_configuration=true")
        self.deadline = time.monotonic() + timeout_s
        self.timer = threading.Timer(timeout_s, self.conn.interrupt)
        self.timer.daemon = True
        self.timer.start()

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise SqlTimeout(f"query stopped at the {self.timeout_s:g} s limit (KSCOPE_SQL_TIMEOUT_S) "
                             f"while fetching its rows")

    def error(self, err: Exception) -> Exception:
        import duckdb

        text = str(err).replace(self.folder, "").replace(self.store_folder, "")
        if isinstance(err, duckdb.InterruptException):
            return SqlTimeout(f"query interrupted at the {self.timeout_s:g} s limit (KSCOPE_SQL_TIMEOUT_S)")
        if isinstance(err, duckdb.OutOfMemoryException):
            return SqlTooBig(f"query needs more memory than the per-query limit (KSCOPE_SQL_MEMORY_BYTES): {text}")
        return SqlRefused(f"query failed: {text}")

    def close(self) -> None:
        self.timer.cancel()
        self.conn.close()
        if self.link_dir:
            shutil.rmtree(self.link_dir, ignore_errors=True)


LINK_PREFIX = "kscope-sql-"


def private_link(parquet: Path) -> str | None:
    """A new private folder holding a hard link to `parquet` (same name), or None when the
    link cannot be made (another filesystem, or links refused)."""
    folder = tempfile.mkdtemp(prefix=f"{LINK_PREFIX}{os.getpid()}-")
    try:
        os.link(parquet, os.path.join(folder, parquet.name))
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return folder


def remove_links_of(pid: int) -> None:
    """Removes the private folders a query process left (it was killed before its close)."""
    for name in os.listdir(tempfile.gettempdir()):
        if name.startswith(f"{LINK_PREFIX}{pid}-"):
            shutil.rmtree(os.path.join(tempfile.gettempdir(), name), ignore_errors=True)


def _chunks(q: _Query, query: str, max_rows: int, max_bytes: int) -> Iterator[tuple[list[str], list[str], bool]]:
    """(columns, encoded rows of a chunk, truncated) until done; SqlTooBig past max_bytes."""
    import duckdb

    try:
        cur = q.conn.execute(query)
        columns = [d[0] for d in cur.description]
        total, sent, want = 0, 0, FIRST_CHUNK_ROWS
        while True:
            q.check_time()
            rows = cur.fetchmany(min(want, max_rows + 1 - sent))
            truncated = sent + len(rows) > max_rows
            rows = rows[:max_rows - sent]
            encoded = []
            for r in rows:
                text = json.dumps([json_value(v) for v in r], separators=(",", ":"), ensure_ascii=False)
                total += len(text) + 1
                if total > max_bytes:
                    raise SqlTooBig(f"query result over the {max_bytes} byte limit (KSCOPE_SQL_MAX_BYTES) "
                                    f"after {sent + len(encoded)} rows: select fewer or narrower columns, "
                                    f"or add a LIMIT")
                encoded.append(text)
            q.check_time()
            sent += len(encoded)
            done = truncated or len(rows) < want or sent >= max_rows
            yield columns, encoded, truncated
            if done:
                return
            per_row = max(1, sum(len(t) for t in encoded) // max(1, len(encoded)))
            want = max(1, min(MAX_CHUNK_ROWS, CHUNK_BYTES // per_row))
    except duckdb.Error as err:
        raise q.error(err) from err


def run_sql_json(parquet: Path, query: str, timeout_s: float, max_rows: int, max_bytes: int,
                 memory_bytes: int) -> bytes:
    """The result as the API's JSON document {"columns", "rows", "truncated"}, encoded."""
    check_one_select(query)
    q = _Query(parquet, timeout_s, memory_bytes)
    try:
        columns: list[str] = []
        parts: list[str] = []
        truncated = False
        for columns, encoded, truncated in _chunks(q, query, max_rows, max_bytes):
            parts.extend(encoded)
        body = (f'{{"columns":{json.dumps(columns, ensure_ascii=False)},"rows":[' + ",".join(parts)
                + f'],"truncated":{"true" if truncated else "false"}}}')
        del parts
        q.check_time()
        return body.encode("utf-8", "replace")
    finally:
        q.close()


def run_sql(parquet: Path, query: str, timeout_s: float, max_rows: int, max_bytes: int,
            memory_bytes: int) -> dict[str, Any]:
    """The result as a dict of JSON values: {"columns", "rows", "truncated"}."""
    doc = json.loads(run_sql_json(parquet, query, timeout_s, max_rows, max_bytes, memory_bytes))
    return doc
