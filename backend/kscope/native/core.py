"""The ctypes binding to libkscope.so: the only module that touches ctypes.

Mirrors the public headers wasm-core/include/kscope/{status,topology}.h. Every C
status goes through `check()`, which raises `KscopeCoreError` with the core's own
message; callers never see a raw status code or a ctypes object.
"""

import ctypes
from functools import lru_cache
from pathlib import Path

from kscope.core.config import get_settings

KS_OK = 0
KS_ERR_NOT_FOUND = 2


class KscopeCoreError(RuntimeError):
    """A non-zero ks_status from the C core, with its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"kscope core: {message} (status {status})")
        self.status = status
        self.message = message


class CoreLibraryMissing(RuntimeError):
    """libkscope.so is not where Settings.core_lib says it is."""


class KsCpu(ctypes.Structure):
    """struct ks_cpu: one logical CPU, 6 x int32."""

    _fields_ = [
        ("cpu", ctypes.c_int32),
        ("core", ctypes.c_int32),
        ("llc", ctypes.c_int32),
        ("node", ctypes.c_int32),
        ("socket", ctypes.c_int32),
        ("smt_index", ctypes.c_int32),
    ]


class KsTopologySummary(ctypes.Structure):
    """struct ks_topology_summary: counts and cache sizes, 9 x int32."""

    _fields_ = [
        ("cpus", ctypes.c_int32),
        ("cores", ctypes.c_int32),
        ("llcs", ctypes.c_int32),
        ("nodes", ctypes.c_int32),
        ("sockets", ctypes.c_int32),
        ("threads_per_core", ctypes.c_int32),
        ("l1d_kib", ctypes.c_int32),
        ("l2_kib", ctypes.c_int32),
        ("l3_kib", ctypes.c_int32),
    ]


# The C side _Static_asserts the same sizes: a mismatch means the header changed.
assert ctypes.sizeof(KsCpu) == 24, "ks_cpu must be 6 x int32"
assert ctypes.sizeof(KsTopologySummary) == 36, "ks_topology_summary must be 9 x int32"

_TopologyPtr = ctypes.c_void_p  # opaque ks_topology *

_SIGNATURES: dict[str, tuple[list, object]] = {
    "ks_status_message": ([ctypes.c_int32], ctypes.c_char_p),
    "ks_version": ([], ctypes.c_char_p),
    "ks_topology_preset_count": ([], ctypes.c_int32),
    "ks_topology_preset_name": ([ctypes.c_int32], ctypes.c_char_p),
    "ks_topology_preset_description": ([ctypes.c_int32], ctypes.c_char_p),
    "ks_topology_from_preset": ([ctypes.c_char_p, ctypes.POINTER(_TopologyPtr)], ctypes.c_int32),
    "ks_topology_free": ([_TopologyPtr], None),
    "ks_topology_name": ([_TopologyPtr], ctypes.c_char_p),
    "ks_topology_summarize": ([_TopologyPtr, ctypes.POINTER(KsTopologySummary)], ctypes.c_int32),
    "ks_topology_cpus": ([_TopologyPtr], ctypes.POINTER(KsCpu)),
}


@lru_cache(maxsize=1)
def lib() -> ctypes.CDLL:
    """The C core, loaded once from Settings.core_lib with every signature declared."""
    path: Path = get_settings().core_lib
    if not path.is_file():
        raise CoreLibraryMissing(
            f"C core library not found at {path}: build it with `npm start` "
            f"(or `make -C wasm-core native`), or point KSCOPE_CORE_LIB at it"
        )
    cdll = ctypes.CDLL(str(path))
    for name, (argtypes, restype) in _SIGNATURES.items():
        fn = getattr(cdll, name)
        fn.argtypes = argtypes
        fn.restype = restype
    return cdll


def _text(raw: bytes | None) -> str:
    return raw.decode("utf-8") if raw is not None else ""


def status_message(status: int) -> str:
    """The core's message for a status code."""
    return _text(lib().ks_status_message(status))


def check(status: int) -> None:
    """The one door for errors: raise KscopeCoreError for any non-zero status."""
    if status != KS_OK:
        raise KscopeCoreError(status, status_message(status))


def version() -> str:
    """The core's version string, e.g. "0.1.0"."""
    return _text(lib().ks_version())


def preset_names_and_descriptions() -> list[tuple[str, str]]:
    """(name, description) of every built-in topology preset, in the core's order."""
    core = lib()
    return [
        (_text(core.ks_topology_preset_name(i)), _text(core.ks_topology_preset_description(i)))
        for i in range(core.ks_topology_preset_count())
    ]


def topology_from_preset(name: str) -> tuple[str, KsTopologySummary, list[KsCpu]]:
    """Builds preset `name` in the core and copies out (name, summary, cpus in CPU order)."""
    core = lib()
    topo = _TopologyPtr()
    check(core.ks_topology_from_preset(name.encode("utf-8"), ctypes.byref(topo)))
    try:
        summary = KsTopologySummary()
        check(core.ks_topology_summarize(topo, ctypes.byref(summary)))
        cpus = core.ks_topology_cpus(topo)
        copied = [KsCpu.from_buffer_copy(cpus[i]) for i in range(summary.cpus)]
        return _text(core.ks_topology_name(topo)), summary, copied
    finally:
        core.ks_topology_free(topo)
