"""The small hostile findings of issue 20 (finding 8): each a crafted request that once gave a
500, a traceback, a closed socket or an error text without its place or with a server path."""

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

from .conftest import Uploaded
from .hostile_support import KSCOPE, Server


def test_nested_json_gets_an_error_frame_and_the_room_socket_stays_open(big_server: Uploaded) -> None:
    url = big_server.server.url
    room = httpx.post(url + "/api/rooms", json={"lesson": "demo-lesson"}, timeout=30).json()
    ws_url = url.replace("http://", "ws://") + f"/api/rooms/{room['code']}/ws?role=follower&client=deep"
    with connect(ws_url, open_timeout=10) as ws:
        assert json.loads(ws.recv(10))["type"] == "welcome"
        ws.send("[" * 5000 + "]" * 5000)
        reply = json.loads(ws.recv(10))
        assert reply["type"] == "error" and "nested too deeply" in reply["message"], reply
        ws.send(json.dumps({"type": "hello", "since": 0}))  # the socket still serves
        ws.send("{" * 1)
        assert json.loads(ws.recv(10))["type"] == "error"


def test_an_aborted_upload_logs_one_line_not_a_traceback(server_factory, tmp_path: Path) -> None:
    server: Server = server_factory()
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"POST /api/traces?name=cut.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n"
                  + b"x" * 100_000)
        time.sleep(0.3)
    time.sleep(1.0)
    assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200
    log = next(tmp_path.glob("server-*.log")).read_text(errors="replace")
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]
    assert not list((tmp_path / "data" / "tmp").glob("upload-*")), "the partial upload was left behind"


def test_an_input_without_events_names_the_place_read(big_server: Uploaded) -> None:
    # Before: "empty.txt: no events found in this ftrace input", nothing on where was looked.
    for name, body, place in (
            ("empty.txt", b"# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:4\n#\n"
             + b"#    TASK-PID\n" * 3, "empty.txt: lines 1-7 (bytes 0-108): no events found in this ftrace input"),
            ("sys.html", b'<html><script class="trace-data" type="application/text">\n# tracer: nop\n#\n'
             b"</script></html>\n", "sys.html: bytes 0-91: no events found in this systrace input, 1 trace text blocks")):
        r = httpx.post(big_server.server.url + f"/api/traces?name={name}", content=body, timeout=60)
        assert r.status_code == 422, r.text
        assert r.json()["detail"].startswith(place), r.json()["detail"]


def test_error_texts_name_no_server_path(server_factory, tmp_path: Path, sim_trace: Path,
                                        big_server: Uploaded) -> None:
    # An ingest that fails inside the server (here: its ingest program is missing) reports
    # the failure on the progress stream; the text named the program by its absolute path.
    missing = tmp_path / "data" / "bin" / "kscope-ingest"
    server: Server = server_factory(ingest_program=missing)
    r = httpx.post(server.url + "/api/traces?name=t.txt&background=true", content=sim_trace.read_bytes(), timeout=60)
    assert r.status_code == 202, r.text
    progress = httpx.get(server.url + r.json()["progress_url"], params={"token": r.json()["token"]}, timeout=60).text
    assert "event: error" in progress, progress
    assert "bin/kscope-ingest" in progress, progress
    assert str(tmp_path) not in progress and "/work/" not in progress, progress
    # And a 4xx's text never carries one either.
    for name, body in (("junk.dat", b"\x17\x08\x44tracing6" + b"\0" * 64), ("bad.gz", b"\x1f\x8b\x08\x00" + b"\xff" * 200)):
        r = httpx.post(big_server.server.url + f"/api/traces?name={name}", content=body, timeout=60)
        assert 400 <= r.status_code < 500, (name, r.status_code, r.text)
        assert "/tmp/" not in r.text and "/work/" not in r.text, r.text


def test_kscope_query_json_prints_a_blob(tmp_path: Path, sim_trace: Path) -> None:
    env = {**os.environ, "KSCOPE_DATA_DIR": str(tmp_path / "data")}
    ingest = subprocess.run([str(KSCOPE), "ingest", str(sim_trace), "--json"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert ingest.returncode == 0, ingest.stderr
    trace_id = json.loads(ingest.stdout)["trace_id"]
    out = subprocess.run([str(KSCOPE), "query", trace_id, "SELECT '\\xff'::BLOB AS b, count(*) AS n FROM events",
                          "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    doc = json.loads(out.stdout)
    assert doc["rows"][0][0] == "\\xFF" and doc["rows"][0][1] > 0
