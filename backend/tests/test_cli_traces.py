"""`kscope ingest / traces / query`: JSON documents, text, and exit 2 on bad input."""

import json
import subprocess
from pathlib import Path

import pytest

from kscope.cli import main
from kscope.core.config import get_settings
import sys
KSCOPE_BIN = Path(sys.executable).parent / "kscope"

INGEST_KEYS = {"trace_id", "format", "events", "by_type", "cpus", "t_first_ns", "t_last_ns", "tasks", "kernel",
               "malformed_lines", "first_error"}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KSCOPE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path / "data"
    get_settings.cache_clear()


def test_ingest_traces_query(sim_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(sim_trace), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert INGEST_KEYS <= set(doc) and doc["events"] == 32176 and doc["format"] == "ftrace"
    assert main(["traces", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["id"] for t in listed] == [doc["trace_id"]]
    assert main(["query", doc["trace_id"], "SELECT count(*) AS n FROM events WHERE cpu = 0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"columns": ["n"], "rows": [[4023]], "truncated": False}
    assert main(["query", doc["trace_id"], "SELECT cpu FROM events LIMIT 1"]) == 0
    assert capsys.readouterr().out.startswith("cpu\n")


def test_query_refuses_writes_with_exit_2(sim_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(sim_trace), "--json"]) == 0
    tid = json.loads(capsys.readouterr().out)["trace_id"]
    assert main(["query", tid, "DELETE FROM events"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert main(["query", "0123456789abcdef", "SELECT 1"]) == 2
    assert "no trace" in capsys.readouterr().err


@pytest.mark.parametrize("content, words", [
    (b"\x00\x01binary", ["bad.bin", "byte 0", "binary data"]),
    (b"hello world\n", ["bad.bin", "line 1", "not a trace"]),
])
def test_ingest_bad_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes,
                                 words: list[str]) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    assert main(["ingest", str(path)]) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err
    assert main(["traces", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_ingest_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt" in capsys.readouterr().err


def test_ingest_as_a_process(sim_trace: Path, data_dir: Path) -> None:
    run = subprocess.run([str(KSCOPE_BIN), "ingest", str(sim_trace), "--json"], capture_output=True, text=True,
                         env={"KSCOPE_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["events"] == 32176
