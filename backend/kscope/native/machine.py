"""A live ks_topology handle: a preset or an imported lscpu/sysfs dump, freed on close.

The simulator needs the topology to outlive it, so `Topology` is a context
manager the caller keeps open around the `Simulation` built on it.
"""

import ctypes
from typing import Any

from kscope.native import core
from kscope.native import structs as st


CACHE_SOURCES = ("l1", "l2", "llc", "same_llc_core", "other_llc", "other_socket",
                 "dram_local", "dram_remote")  # ks_cache_source, in order


class Topology:
    """An owned ks_topology *; build with from_preset / from_lscpu / from_sysfs."""

    def __init__(self, handle: ctypes.c_void_p, source: str) -> None:
        self._handle = handle
        self.source = source  # the preset name or the file it was imported from

    @classmethod
    def from_preset(cls, name: str) -> "Topology":
        """A built-in preset; KscopeCoreError (KS_ERR_NOT_FOUND) if unknown."""
        handle = ctypes.c_void_p()
        core.check(core.lib().ks_topology_from_preset(name.encode("utf-8"), ctypes.byref(handle)))
        return cls(handle, name)

    @classmethod
    def _import(cls, fn_name: str, text: bytes, source: str,
                error: type[core.ParseError]) -> "Topology":
        handle = ctypes.c_void_p()
        err = st.KsParseError()
        status = getattr(core.lib(), fn_name)(text, len(text), ctypes.byref(handle), ctypes.byref(err))
        if status == core.KS_ERR_PARSE:
            raise error.from_struct(source, err)
        core.check(status)
        return cls(handle, source)

    @classmethod
    def from_lscpu(cls, text: bytes, source: str = "<lscpu>") -> "Topology":
        """`lscpu -p` output; TopologyFileError naming source, line and column if malformed."""
        return cls._import("ks_topology_from_lscpu", text, source, core.TopologyFileError)

    @classmethod
    def from_sysfs(cls, text: bytes, source: str = "<sysfs>") -> "Topology":
        """A flattened sysfs dump ("<path>\\t<content>" lines, see topology.h)."""
        return cls._import("ks_topology_from_sysfs", text, source, core.SysfsFileError)

    @property
    def handle(self) -> ctypes.c_void_p:
        """The raw handle, for the other native wrappers."""
        if not self._handle:
            raise ValueError("topology is closed")
        return self._handle

    @property
    def name(self) -> str:
        """The preset name, or "lscpu" / "sysfs" for an import."""
        return core.text(core.lib().ks_topology_name(self.handle))

    def summary(self) -> core.KsTopologySummary:
        """Counts and cache sizes (a copy)."""
        out = core.KsTopologySummary()
        core.check(core.lib().ks_topology_summarize(self.handle, ctypes.byref(out)))
        return out

    def cpus(self) -> list[core.KsCpu]:
        """One ks_cpu per logical CPU, in CPU order (copies)."""
        n = self.summary().cpus
        array = core.lib().ks_topology_cpus(self.handle)
        return [core.KsCpu.from_buffer_copy(array[i]) for i in range(n)]

    def latency(self) -> dict[str, Any]:
        """The cache model's latency table for this topology (src/machine/latency_tables.c):
        {"core_mhz": int, "cycles": {source: cycles}} with the sources of ks_cache_source."""
        out = st.KsLatencyTable()
        core.check(core.lib().ks_topology_latency(self.handle, ctypes.byref(out)))
        return {"core_mhz": out.core_mhz, "cycles": dict(zip(CACHE_SOURCES, out.cycles))}

    def close(self) -> None:
        """Frees the topology (idempotent); simulations built on it must be closed first."""
        if self._handle:
            core.lib().ks_topology_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> "Topology":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
