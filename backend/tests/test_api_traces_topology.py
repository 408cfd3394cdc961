"""GET /api/traces/{id}/topology: the capture's sysfs dump as stored at ingest (the timeline
groups CPU lanes from it), 204 without one, 404 without the owner's token."""

from pathlib import Path

from fastapi.testclient import TestClient

from kscope.api.app import create_app
from kscope.core.config import Settings

LINES = [  # the capture header comes first (kscope.ingest.pipeline.read_capture_header)
    "# kscope: kernel=6.18.0-test",
    "# kscope-sysfs: cpu0/cache/index3/level\t3",
    "# kscope-sysfs: cpu0/cache/index3/shared_cpu_list\t0-1",
    "# kscope-sysfs: ../node/node0/cpulist\t0-1",
    "#",
    "# entries-in-buffer/entries-written: 2/2   #P:2",
    "          <idle>-0       [000] d..2.   100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
    "prev_state=R ==> next_comm=a next_pid=42 next_prio=120",
    "               a-42      [000] d..2.   100.000900: sched_switch: prev_comm=a prev_pid=42 prev_prio=120 "
    "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    "",
]


def test_topology_dump_round_trips(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", frontend_dist=tmp_path / "dist")
    with TestClient(create_app(settings)) as client:
        body = client.post("/api/traces", params={"name": "topo.txt"}, content="\n".join(LINES).encode()).json()
        auth = {"X-Kscope-Token": body["token"]}
        r = client.get(f"/api/traces/{body['id']}/topology", headers=auth)
        assert r.status_code == 200, r.text
        assert r.text.splitlines() == ["cpu0/cache/index3/level\t3", "cpu0/cache/index3/shared_cpu_list\t0-1",
                                       "../node/node0/cpulist\t0-1"]
        assert client.get(f"/api/traces/{body['id']}/topology", headers={"X-Kscope-Token": "x"}).status_code == 404
        plain = [line for line in LINES if "kscope-sysfs" not in line]
        other = client.post("/api/traces", params={"name": "flat.txt"}, content="\n".join(plain).encode(),
                            headers=auth).json()
        assert client.get(f"/api/traces/{other['id']}/topology", headers=auth).status_code == 204
