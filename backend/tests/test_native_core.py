"""The ctypes binding against the real libkscope.so: layouts, statuses, preset topologies."""

import ctypes

import pytest

from kscope.native import core


def test_struct_sizes_match_the_c_headers() -> None:
    assert ctypes.sizeof(core.KsCpu) == 24
    assert ctypes.sizeof(core.KsTopologySummary) == 36


def test_status_messages_come_from_the_core() -> None:
    assert core.status_message(0) == "ok"
    assert core.status_message(core.KS_ERR_NOT_FOUND) == "not found"
    assert core.status_message(999) == "unknown status"


def test_check_raises_a_typed_error_with_the_message() -> None:
    core.check(core.KS_OK)
    with pytest.raises(core.KscopeCoreError) as caught:
        core.check(core.KS_ERR_NOT_FOUND)
    assert caught.value.status == core.KS_ERR_NOT_FOUND
    assert caught.value.message == "not found"


def test_version() -> None:
    assert core.version() == "0.1.0"


def test_unknown_preset_is_not_found() -> None:
    with pytest.raises(core.KscopeCoreError) as caught:
        core.topology_from_preset("no-such-machine")
    assert caught.value.status == core.KS_ERR_NOT_FOUND


def test_epyc_9654_2s_counts() -> None:
    name, summary, cpus = core.topology_from_preset("epyc-9654-2s")
    assert name == "epyc-9654-2s"
    counts = (summary.cpus, summary.cores, summary.llcs, summary.nodes, summary.sockets)
    assert counts == (384, 192, 24, 2, 2)
    assert summary.threads_per_core == 2
    assert [c.cpu for c in cpus] == list(range(384))


def test_epyc_9654_2s_smt_siblings_share_a_core() -> None:
    _, _, cpus = core.topology_from_preset("epyc-9654-2s")
    for n in range(192):
        first, sibling = cpus[n], cpus[n + 192]
        assert sibling.core == first.core == n
        assert (first.smt_index, sibling.smt_index) == (0, 1)
        assert (sibling.llc, sibling.node, sibling.socket) == (first.llc, first.node, first.socket)


def test_classroom_8_has_8_cpus_in_2_llcs() -> None:
    _, summary, cpus = core.topology_from_preset("classroom-8")
    assert (summary.cpus, summary.llcs) == (8, 2)
    assert {c.llc for c in cpus} == {0, 1}
