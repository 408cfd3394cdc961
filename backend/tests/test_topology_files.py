"""A user's own machine: lscpu -p text, flattened sysfs dumps, sysfs directories and tarballs."""

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import KSCOPE, WORKLOADS
from kscope import topology_files
from kscope.cli import main
from kscope.topology import topology_of, topology_of_spec

# A 2-socket, 2-node machine: 4 cores x 2 threads, one L3 per socket, as `lscpu -p` prints it.
LSCPU = """\
# The following is the parsable format, which can be fed to other
# programs. Each different item in every column has an unique ID
# starting usually from zero.
# CPU,Core,Socket,Node,,L1d,L1i,L2,L3
0,0,0,0,,0,0,0,0
1,1,0,0,,1,1,1,0
2,2,1,1,,2,2,2,1
3,3,1,1,,3,3,3,1
4,0,0,0,,0,0,0,0
5,1,0,0,,1,1,1,0
6,2,1,1,,2,2,2,1
7,3,1,1,,3,3,3,1
"""
EXPECTED = {"cpus": 8, "cores": 4, "llcs": 2, "nodes": 2, "sockets": 2, "threads_per_core": 2}


def make_sysfs(root: Path) -> Path:
    """The same machine as /sys/devices/system/{cpu,node} under root; returns .../system."""
    system = root / "sys" / "devices" / "system"
    for cpu in range(8):
        core, socket = cpu % 4, (cpu % 4) // 2
        base = system / "cpu" / f"cpu{cpu}"
        files = {
            "topology/physical_package_id": socket,
            "topology/core_id": core % 2,
            "topology/thread_siblings_list": f"{core},{core + 4}",
            "cache/index0/level": 1, "cache/index0/type": "Data", "cache/index0/size": "32K",
            "cache/index0/shared_cpu_list": f"{core},{core + 4}",
            "cache/index2/level": 2, "cache/index2/type": "Unified", "cache/index2/size": "1024K",
            "cache/index3/level": 3, "cache/index3/type": "Unified", "cache/index3/size": "32768K",
            "cache/index3/id": socket,
            "cache/index3/shared_cpu_list": "0-1,4-5" if socket == 0 else "2-3,6-7",
            "cpufreq/scaling_cur_freq": 3000000,  # skipped
        }
        for rel, content in files.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(f"{content}\n")
    (system / "cpu" / "online").write_text("0-7\n")
    for node, cpus in ((0, "0-1,4-5"), (1, "2-3,6-7")):
        (system / "node" / f"node{node}").mkdir(parents=True)
        (system / "node" / f"node{node}" / "cpulist").write_text(f"{cpus}\n")
        os.symlink(f"../../cpu/cpu{node}", system / "node" / f"node{node}" / f"cpu{node}")  # as sysfs has
    return system


def shape(topo: dict) -> dict:
    return {k: topo[k] for k in EXPECTED}


def test_lscpu_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "lscpu.txt"
    path.write_text(LSCPU)
    assert main(["topology", str(path), "--json"]) == 0
    topo = json.loads(capsys.readouterr().out)
    assert topo["name"] == "lscpu" and shape(topo) == EXPECTED
    assert str(path) in topo["description"]
    assert [c["node"] for c in topo["cpu_list"]] == [0, 0, 1, 1, 0, 0, 1, 1]
    assert [c["smt_index"] for c in topo["cpu_list"]] == [0, 0, 0, 0, 1, 1, 1, 1]


@pytest.mark.parametrize("where", ["system/cpu", "system", "sys"])
def test_sysfs_directory(tmp_path: Path, where: str) -> None:
    system = make_sysfs(tmp_path)
    root = {"system/cpu": system / "cpu", "system": system, "sys": tmp_path / "sys"}[where]
    topo = topology_of_spec(str(root))
    assert topo["name"] == "sysfs" and shape(topo) == EXPECTED
    assert topo["cache_kib"] == {"l1d": 32, "l2": 1024, "l3": 32768}


def test_flattened_dump_matches_the_documented_form(tmp_path: Path) -> None:
    dump = topology_files.flatten_sysfs_dir(make_sysfs(tmp_path) / "cpu").decode()
    lines = dump.splitlines()
    assert "cpu3/topology/physical_package_id\t1" in lines
    assert "cpu3/cache/index3/shared_cpu_list\t2-3,6-7" in lines
    assert "../node/node1/cpulist\t2-3,6-7" in lines
    assert not any("cpufreq" in line or line.startswith("online") for line in lines)
    flat = tmp_path / "dump.txt"
    flat.write_text(dump)
    assert shape(topology_of_spec(str(flat))) == EXPECTED  # detected as sysfs by its TABs


@pytest.mark.parametrize("arcname,mode", [("sys", "w:gz"), (".", "w")])
def test_sysfs_tarball(tmp_path: Path, arcname: str, mode: str) -> None:
    system = make_sysfs(tmp_path / "tree")
    tarball = tmp_path / "sysfs.tar"
    with tarfile.open(tarball, mode) as tar:
        if arcname == "sys":
            tar.add(tmp_path / "tree" / "sys", arcname="sys")
        else:  # made inside /sys/devices/system: members ./cpu/..., ./node/...
            tar.add(system, arcname=".")
    topo = topology_of_spec(str(tarball))
    assert shape(topo) == EXPECTED


def test_tar_members_map_to_dump_paths() -> None:
    assert topology_files.record_path("sys/devices/system/cpu/cpu12/topology/core_id") == "cpu12/topology/core_id"
    assert topology_files.record_path("./cpu0/cache/index3/id") == "cpu0/cache/index3/id"
    assert topology_files.record_path("/sys/devices/system/node/node1/cpulist") == "../node/node1/cpulist"
    assert topology_files.record_path("sys/devices/system/node/node0/cpu0/topology/core_id") is None
    assert topology_files.record_path("sys/devices/system/cpu/cpu0/cache/index0/uevent") is None


def test_sim_runs_on_a_topology_file(tmp_path: Path) -> None:
    path = tmp_path / "lscpu.txt"
    path.write_text(LSCPU)
    result = subprocess.run([str(KSCOPE), "sim", "--preset", str(path), "--workload",
                             str(WORKLOADS / "hackbench-2g.json"), "--until", "1ms", "--json"],
                            capture_output=True, text=True, check=True)
    doc = json.loads(result.stdout)
    assert doc["preset"] == str(path) and len(doc["cpus"]) == 8 and doc["events"] > 0


def test_malformed_lscpu_exits_2_with_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("# CPU,Core,Socket,Node\n0,0,0,0\n1,x,0,0\n")
    assert main(["topology", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"topology {path}, line 3, column 2" in err


def test_malformed_sysfs_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text("cpu0/topology/physical_package_id\t0\ncpu0/topology/core_id\tzero\n")
    assert main(["topology", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"topology {path}, line 2, field 2" in err


def test_directory_without_cpus_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", str(tmp_path)]) == 2
    assert "no cpuN directories" in capsys.readouterr().err


def test_the_api_never_reads_files(tmp_path: Path) -> None:
    path = tmp_path / "lscpu.txt"
    path.write_text(LSCPU)
    from kscope.topology import UnknownPreset

    with pytest.raises(UnknownPreset):
        topology_of(str(path))
