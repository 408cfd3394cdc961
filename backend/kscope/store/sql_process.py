"""The server's SQL runs in a process of its own, one per query, with a hard memory limit.

DuckDB's `memory_limit` bounds its buffer manager, not every allocation: one vector of
`repeat('x', 10000000)` over 100 rows is a gigabyte of string heap, and `range(1e8)`
is an 800 MB list value. No setting inside the server's process can bound those, so
the server forks a child per query (from a fork server that has DuckDB loaded, a few
milliseconds) and gives it RLIMIT_DATA = what it holds at start + Settings.sql_memory_bytes:
an allocation past that fails inside DuckDB (an Out of Memory error we pass on as 422)
or ends the child, never the server. The child answers with the encoded result (at
most Settings.sql_max_bytes, store/sql.py); the parent reads no more than that, and
kills the child at the time limit (plus a short grace for it to say so itself).

The in-process `run_sql` (store/sql.py) stays for `kscope query`, whose user owns the process.
"""

import multiprocessing
import os
import resource
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kscope.store.errors import SqlRefused, SqlTimeout, SqlTooBig

GRACE_S = 1.0  # after the time limit, for the child to report its own SqlTimeout
_ctx_lock = threading.Lock()
_ctx: Any = None

_KINDS = {b"T": SqlTimeout, b"B": SqlTooBig, b"R": SqlRefused}


def _context() -> Any:
    global _ctx
    with _ctx_lock:
        if _ctx is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["kscope.store.sql_process", "kscope.store.sql", "duckdb"])
            _ctx = ctx
        return _ctx


def warm_up() -> None:
    """Starts the fork server now (it loads DuckDB, ~0.3 s of CPU), not on the first query."""
    _context()
    from multiprocessing import forkserver

    forkserver.ensure_running()


def _data_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def _child(out: Connection, parquet: str, query: str, timeout_s: float, max_rows: int, max_bytes: int,
           memory_bytes: int) -> None:
    limit = _data_bytes() + memory_bytes
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    os.nice(10)  # below the server itself: a busy query must not slow the API's answers
    from kscope.store.sql import run_sql_json

    try:
        # DuckDB's own limit a little below the process's, so it usually reports first.
        body = run_sql_json(Path(parquet), query, timeout_s, max_rows, max_bytes, memory_bytes * 3 // 4)
        out.send_bytes(b"K" + body)
    except (SqlTimeout, SqlTooBig, SqlRefused) as err:
        kind = next(k for k, cls in _KINDS.items() if isinstance(err, cls))
        out.send_bytes(kind + str(err).encode("utf-8", "replace"))
    except MemoryError:
        out.send_bytes(b"B" + _over_memory(memory_bytes).encode())
    except Exception as err:  # anything else: said to the client, never a traceback in the log
        out.send_bytes(b"R" + f"query failed: {type(err).__name__}: {err}".encode("utf-8", "replace"))
    finally:
        out.close()


def _over_memory(memory_bytes: int) -> str:
    return f"query needs more memory than the per-query limit of {memory_bytes} bytes (KSCOPE_SQL_MEMORY_BYTES)"


def run_sql_isolated(parquet: Path, query: str, timeout_s: float, max_rows: int, max_bytes: int,
                     memory_bytes: int) -> bytes:
    """run_sql_json in a child process under RLIMIT_DATA; the same answer or the same errors."""
    from kscope.store.sql import check_one_select

    check_one_select(query)  # parse errors answered without a process
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, str(parquet), query, timeout_s, max_rows, max_bytes,
                                             memory_bytes), daemon=True, name="kscope-sql")
    child.start()
    send.close()
    try:
        if not receive.poll(timeout_s + GRACE_S):
            raise SqlTimeout(f"query stopped at the {timeout_s:g} s limit (KSCOPE_SQL_TIMEOUT_S)")
        try:
            message = receive.recv_bytes(maxlength=max_bytes + (1 << 20))
        except EOFError:
            child.join(GRACE_S)
            raise SqlTooBig(f"the query's process ended without an answer (exit code {child.exitcode}); "
                             f"most likely the {_over_memory(memory_bytes)}") from None
        except OSError as err:  # longer than maxlength: the child's own byte check failed
            raise SqlTooBig(f"query result over the {max_bytes} byte limit (KSCOPE_SQL_MAX_BYTES)") from err
    finally:
        receive.close()
        if child.is_alive():
            child.kill()
        child.join()
        if child.pid is not None and child.exitcode != 0:
            from kscope.store.sql import remove_links_of

            remove_links_of(child.pid)  # a killed child could not remove its own (a clean one did)
    kind, body = message[:1], message[1:]
    if kind == b"K":
        return body
    raise _KINDS.get(kind, SqlRefused)(body.decode("utf-8", "replace"))
