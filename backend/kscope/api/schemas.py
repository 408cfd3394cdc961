"""Pydantic schemas of the API: the contract the frontend's client is generated from."""

from pydantic import BaseModel, Field


class Health(BaseModel):
    """Liveness and the versions of the backend and the C core it loaded."""

    status: str = Field(examples=["ok"])
    version: str = Field(description="kscope backend version")
    core_version: str = Field(description="version reported by the C core (ks_version)")


class PresetPublic(BaseModel):
    """A built-in topology preset."""

    name: str = Field(examples=["epyc-9654-2s"])
    description: str


class CacheKib(BaseModel):
    """Cache sizes in KiB: L1d and L2 per core, L3 per LLC instance."""

    l1d: int
    l2: int
    l3: int


class CpuPublic(BaseModel):
    """One logical CPU and where it sits; all ids are dense and 0-based."""

    cpu: int = Field(description="Linux CPU number")
    core: int = Field(description="physical core id, machine-wide")
    llc: int = Field(description="last-level cache (L3) instance id, machine-wide")
    node: int = Field(description="NUMA node id")
    socket: int = Field(description="package id")
    smt_index: int = Field(description="0 for a core's first hardware thread, 1 for its sibling, ...")


class TopologyPublic(BaseModel):
    """A machine topology built by the C core from a preset."""

    name: str
    description: str
    cpus: int
    cores: int
    llcs: int
    nodes: int
    sockets: int
    threads_per_core: int
    cache_kib: CacheKib
    cpu_list: list[CpuPublic] = Field(description="one record per CPU, in CPU order")
