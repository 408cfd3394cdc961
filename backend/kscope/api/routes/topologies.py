"""GET /api/topologies[/{name}]: the built-in machine presets."""

from typing import Any

from fastapi import APIRouter, HTTPException

from kscope import topology
from kscope.api.schemas import PresetPublic, TopologyPublic

router = APIRouter(prefix="/topologies", tags=["topologies"])


@router.get("", response_model=list[PresetPublic])
def read_presets() -> list[dict[str, str]]:
    """Name and description of every preset."""
    return topology.list_presets()


@router.get("/{name}", response_model=TopologyPublic, responses={404: {"description": "unknown preset"}})
def read_topology(name: str) -> dict[str, Any]:
    """The preset's counts, cache sizes and per-CPU placement."""
    try:
        return topology.topology_of(name)
    except topology.UnknownPreset as err:
        raise HTTPException(status_code=404, detail=str(err)) from err
