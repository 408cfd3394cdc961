"""topology.py: the plain-data shape the API and the CLI share."""

import pytest

from kscope.topology import UnknownPreset, list_presets, topology_of

# The machines of the seed write-ups (shared/seeds/), plus the classroom one.
SEED_MACHINES = {"classroom-8", "epyc-9654-2s", "genoa-4n", "spr-2s", "gnr-2s-snc", "hcc-2s-480"}


def test_list_presets_names_and_descriptions() -> None:
    presets = list_presets()
    assert {p["name"] for p in presets} >= SEED_MACHINES
    assert all(p["description"] for p in presets)


def test_topology_of_epyc_shape() -> None:
    topo = topology_of("epyc-9654-2s")
    summary = {k: v for k, v in topo.items() if k not in ("description", "cpu_list")}
    assert summary == {
        "name": "epyc-9654-2s",
        "cpus": 384,
        "cores": 192,
        "llcs": 24,
        "nodes": 2,
        "sockets": 2,
        "threads_per_core": 2,
        "cache_kib": {"l1d": 32, "l2": 1024, "l3": 32768},
    }
    assert topo["cpu_list"][0] == {"cpu": 0, "core": 0, "llc": 0, "node": 0, "socket": 0, "smt_index": 0}
    assert topo["cpu_list"][192] == {"cpu": 192, "core": 0, "llc": 0, "node": 0, "socket": 0, "smt_index": 1}
    assert topo["cpu_list"][383]["socket"] == 1


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPreset) as caught:
        topology_of("nope")
    assert isinstance(caught.value, KeyError)
    assert str(caught.value).startswith("unknown topology preset 'nope'; known presets: classroom-8, epyc-9654-2s")
