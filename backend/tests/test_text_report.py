"""text_report.py: the CLI's human-readable forms."""

from kscope.text_report import cpulist, topology_table
from kscope.topology import topology_of


def test_cpulist_compresses_runs() -> None:
    assert cpulist([]) == ""
    assert cpulist([3]) == "3"
    assert cpulist([193, 0, 1, 2, 192, 5]) == "0-2,5,192-193"


def test_topology_table_has_one_row_per_llc() -> None:
    table = topology_table(topology_of("classroom-8"))
    assert "cpus 8  cores 4  llcs 2" in table
    assert table.splitlines()[-2:] == ["    0     0       0  0-1,4-5", "    1     0       0  2-3,6-7"]
