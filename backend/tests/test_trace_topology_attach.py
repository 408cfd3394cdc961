"""Issue 13 item 12: a trace without kscope's sysfs header (plain tracefs text) gets its
machine's topology afterwards (PUT /api/traces/{id}/topology), at upload (a multipart form's
`topology` part) or with `kscope ingest --topology FILE`: an `lscpu -p` file or a sysfs
tarball, read by the C importers. A bad file gets a located error; a topology of another CPU
count is refused, saying both counts. Before: no way to add one (flat lanes)."""

import io
import json
import tarfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import REPO
from kscope.api.app import create_app
from kscope.cli import EXIT_BAD_INPUT, main
from kscope.core.config import Settings

VM16 = REPO / "traces" / "intermittent8-linux6.12-vm16.txt"  # 16 vCPUs, 4 nodes of 4 (0-3, 4-7, ...)


def plain_vm16() -> bytes:
    """The 16-vCPU capture without kscope's header: no `# kscope-sysfs:` topology."""
    return b"".join(line for line in VM16.read_bytes().splitlines(keepends=True) if not line.startswith(b"# kscope"))


def lscpu(cpus: int = 16, per_node: int = 4) -> bytes:
    """`lscpu -p` of cpus CPUs, one socket, NUMA node and L3 per `per_node` CPUs."""
    rows = ["# The following is the parsable format, which can be fed to other", "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3"]
    rows += [f"{c},{c},{c // per_node},{c // per_node},,{c},{c},{c},{c // per_node}" for c in range(cpus)]
    return ("\n".join(rows) + "\n").encode()


def sysfs_tarball(cpus: int = 16, per_node: int = 4) -> bytes:
    """A tar.gz of /sys/devices/system as `tar czf sys.tgz /sys/devices/system/{cpu,node}` makes it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        def add(name: str, text: str) -> None:
            data = (text + "\n").encode()
            info = tarfile.TarInfo(f"sys/devices/system/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for c in range(cpus):
            node = c // per_node
            first = node * per_node
            add(f"cpu/cpu{c}/topology/physical_package_id", str(node))
            add(f"cpu/cpu{c}/topology/core_id", str(c % per_node))
            add(f"cpu/cpu{c}/cache/index3/level", "3")
            add(f"cpu/cpu{c}/cache/index3/type", "Unified")
            add(f"cpu/cpu{c}/cache/index3/size", "16384K")
            add(f"cpu/cpu{c}/cache/index3/shared_cpu_list", f"{first}-{first + per_node - 1}")
        for n in range(cpus // per_node):
            add(f"node/node{n}/cpulist", f"{n * per_node}-{n * per_node + per_node - 1}")
    return buf.getvalue()


def nodes_of(dump: str) -> dict[str, str]:
    return {line.split("\t")[0]: line.split("\t")[1] for line in dump.splitlines() if line.startswith("../node/")}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist", max_upload_bytes=8 << 20)
    with TestClient(create_app(settings)) as c:
        yield c


def upload(client: TestClient) -> tuple[str, dict[str, str]]:
    r = client.post("/api/traces", params={"name": "vm16-plain.txt"}, content=plain_vm16())
    assert r.status_code == 201, r.text
    return r.json()["id"], {"X-Kscope-Token": r.json()["token"]}


@pytest.mark.parametrize("kind", ["lscpu", "tarball"])
def test_put_topology_on_a_plain_trace(client: TestClient, kind: str) -> None:
    tid, auth = upload(client)
    assert client.get(f"/api/traces/{tid}/topology", headers=auth).status_code == 204  # flat before
    body = lscpu() if kind == "lscpu" else sysfs_tarball()
    r = client.put(f"/api/traces/{tid}/topology", params={"name": f"vm16.{kind}"}, content=body, headers=auth)
    assert r.status_code == 200, r.text
    assert r.json() == {"source": f"vm16.{kind}", "format": "lscpu" if kind == "lscpu" else "sysfs", "cpus": 16,
                        "nodes": 4, "llcs": 4, "sockets": 4, "cores": 16}
    dump = client.get(f"/api/traces/{tid}/topology", headers=auth)
    assert dump.status_code == 200
    assert nodes_of(dump.text) == {f"../node/node{n}/cpulist": f"{4 * n}-{4 * n + 3}" for n in range(4)}
    assert "cpu13/cache/index3/shared_cpu_list\t12-15" in dump.text
    # Someone else's token still sees nothing, and cannot attach.
    assert client.put(f"/api/traces/{tid}/topology", content=lscpu(), headers={"X-Kscope-Token": "x"}).status_code == 404


def test_a_bad_lscpu_file_gets_a_located_error(client: TestClient) -> None:
    tid, auth = upload(client)
    bad = lscpu().replace(b"\n5,5,1,1,,5,5,5,1\n", b"\n5,5,1,x,,5,5,5,1\n")
    r = client.put(f"/api/traces/{tid}/topology", params={"name": "lscpu.txt"}, content=bad, headers=auth)
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "lscpu.txt" in detail and "line 8" in detail, detail
    r = client.put(f"/api/traces/{tid}/topology", params={"name": "junk.bin"}, content=b"\x00\x01\x02garbage",
                   headers=auth)
    assert r.status_code == 422 and "junk.bin" in r.json()["detail"]
    assert client.get(f"/api/traces/{tid}/topology", headers=auth).status_code == 204  # nothing attached


def test_another_cpu_count_is_refused_naming_both(client: TestClient) -> None:
    tid, auth = upload(client)
    r = client.put(f"/api/traces/{tid}/topology", params={"name": "laptop.lscpu"}, content=lscpu(8, 4),
                   headers=auth)
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "laptop.lscpu: 8 CPUs" in detail and "recorded on 16 CPUs" in detail, detail
    assert client.get(f"/api/traces/{tid}/topology", headers=auth).status_code == 204


def test_upload_form_with_a_topology_part(client: TestClient) -> None:
    r = client.post("/api/traces", files={"trace": ("vm16-plain.txt", plain_vm16()),
                                          "topology": ("sys.tgz", sysfs_tarball())})
    assert r.status_code == 201, r.text
    doc = r.json()
    assert doc["name"] == "vm16-plain.txt" and doc["cpus"] == 12  # CPUs with events (of #P:16)
    dump = client.get(f"/api/traces/{doc['id']}/topology", headers={"X-Kscope-Token": doc["token"]})
    assert dump.status_code == 200 and len(nodes_of(dump.text)) == 4
    # A topology of another machine: the upload is refused, nothing stored.
    bad = client.post("/api/traces", files={"trace": ("vm16-plain.txt", plain_vm16()),
                                            "topology": ("small.lscpu", lscpu(4, 4))},
                      headers={"X-Kscope-Token": doc["token"]})
    assert bad.status_code == 422 and "small.lscpu: 4 CPUs" in bad.json()["detail"]
    assert len(client.get("/api/traces", headers={"X-Kscope-Token": doc["token"]}).json()) == 1
    unknown = client.post("/api/traces", files={"trace": ("a.txt", plain_vm16()), "extra": ("x", b"1")})
    assert unknown.status_code == 422 and "'extra'" in unknown.json()["detail"]


def test_cli_ingest_with_topology(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KSCOPE_DATA_DIR", str(tmp_path / "data"))
    from kscope.core import config
    config.get_settings.cache_clear()
    trace = tmp_path / "vm16-plain.txt"
    trace.write_bytes(plain_vm16())
    topo = tmp_path / "lscpu.txt"
    topo.write_bytes(lscpu())
    try:
        assert main(["ingest", str(trace), "--topology", str(topo), "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["topology"] is True and doc["topology_from"] == f"attached: {topo}"
        stored = tmp_path / "data" / "traces" / doc["trace_id"] / "topology.sysfs"
        assert len(nodes_of(stored.read_text())) == 4
        small = tmp_path / "small.txt"
        small.write_bytes(lscpu(8, 4))
        assert main(["ingest", str(trace), "--topology", str(small)]) == EXIT_BAD_INPUT
        assert "8 CPUs" in capsys.readouterr().err
        bad = tmp_path / "bad.txt"
        bad.write_bytes(b"# CPU,Core,Socket,Node\n0,0,0,0\n1,1,0,x\n")
        assert main(["ingest", str(trace), "--topology", str(bad)]) == EXIT_BAD_INPUT
        assert "line 3" in capsys.readouterr().err
    finally:
        config.get_settings.cache_clear()
