"""The binding of the mmap2 runner on the SLUB sheaves model
(wasm-core/include/kscope/sheaves/native/mmap2.h): a config in, one run's counts out.

The signatures are declared here on the shared library object (kscope.native.core.lib()),
so the generic loader names no model; errors go through core.check like every other call."""

import ctypes
from dataclasses import dataclass
from typing import Any

from kscope.native import core

_u64, _i32, _u32, _f64 = ctypes.c_uint64, ctypes.c_int32, ctypes.c_uint32, ctypes.c_double

VARIANTS = ("nofix", "fix", "fix-v2", "baseline")   # ks_sheaves_variant, by value
PLACEMENTS = ("wis-cores", "wis-pus")               # ks_sheaves_placement, by value
FN_COUNT = 21                                       # KS_SHEAVES_FN_COUNT
COST_PARTS = 14                                     # KS_COST_PARTS


class Mmap2Config(ctypes.Structure):
    _fields_ = [("preset", ctypes.c_char * 32)] + [(n, _i32) for n in (
        "variant", "nospare", "placement", "nr_tasks", "maple_capacity", "vma_capacity", "barn_max",
        "maple_allocs_mmap", "maple_rcu_mmap", "maple_allocs_munmap", "maple_rcu_munmap")] + [
        ("seed", _u32)] + [(n, _u64) for n in (
        "work_ns", "rcu_gp_ns", "warmup_ns", "measure_ns", "new_slab_ns", "kzalloc_sheaf_ns",
        "barn_hold_ns", "list_hold_ns", "fastpath_ns", "tick_ns")]


class Mmap2Result(ctypes.Structure):
    _fields_ = [("iterations", _u64), ("ops_per_sec_per_task", _f64), ("cpu_ns", _f64),
                ("fn", _u64 * FN_COUNT), ("vma_fn", _u64 * FN_COUNT), ("part_ns", _f64 * COST_PARTS),
                ("barn_wait_ns", _f64), ("list_wait_ns", _f64), ("barn_acquisitions", _u64),
                ("list_acquisitions", _u64), ("barn_full_hits", _u64), ("sheaves_live_max", _u64),
                ("events", _u64)]


_declared = False


def _lib() -> ctypes.CDLL:
    global _declared
    lib = core.lib()
    if not _declared:
        lib.ks_sheaves_mmap2_defaults.argtypes = [ctypes.POINTER(Mmap2Config)]
        lib.ks_sheaves_mmap2_defaults.restype = None
        lib.ks_sheaves_mmap2_run.argtypes = [ctypes.POINTER(Mmap2Config), ctypes.POINTER(Mmap2Result)]
        lib.ks_sheaves_mmap2_run.restype = _i32
        lib.ks_sheaves_fn_name.argtypes = [_i32]
        lib.ks_sheaves_fn_name.restype = ctypes.c_char_p
        lib.ks_cost_part_name.argtypes = [_i32]
        lib.ks_cost_part_name.restype = ctypes.c_char_p
        _declared = True
    return lib


def fn_names() -> list[str]:
    lib = _lib()
    return [core.text(lib.ks_sheaves_fn_name(i)) for i in range(FN_COUNT)]


def part_names() -> list[str]:
    lib = _lib()
    return [core.text(lib.ks_cost_part_name(i)) for i in range(COST_PARTS)]


def defaults() -> dict[str, Any]:
    """The C defaults (the kernel's values and the stated assumptions), as a dict."""
    cfg = Mmap2Config()
    _lib().ks_sheaves_mmap2_defaults(ctypes.byref(cfg))
    out: dict[str, Any] = {}
    for name, _ in Mmap2Config._fields_:
        value = getattr(cfg, name)
        out[name] = value.decode() if isinstance(value, bytes) else value
    out["variant"] = VARIANTS[cfg.variant]
    out["placement"] = PLACEMENTS[cfg.placement]
    return out


@dataclass(frozen=True)
class RunResult:
    iterations: int
    ops_per_sec_per_task: float
    cpu_ns: float
    fn: dict[str, int]
    vma_fn: dict[str, int]
    part_ns: dict[str, float]
    barn_wait_ns: float
    list_wait_ns: float
    barn_acquisitions: int
    list_acquisitions: int
    barn_full_hits: int
    sheaves_live_max: int
    events: int


def run(**overrides: Any) -> RunResult:
    """One point: ks_sheaves_mmap2_defaults, then these fields (variant and placement by name)."""
    lib = _lib()
    cfg = Mmap2Config()
    lib.ks_sheaves_mmap2_defaults(ctypes.byref(cfg))
    for name, value in overrides.items():
        if name == "variant":
            value = VARIANTS.index(value)
        elif name == "placement":
            value = PLACEMENTS.index(value)
        elif name == "preset":
            value = str(value).encode()
        elif name not in {f for f, _ in Mmap2Config._fields_}:
            raise ValueError(f"unknown mmap2 config field {name!r}")
        setattr(cfg, name, value)
    res = Mmap2Result()
    core.check(lib.ks_sheaves_mmap2_run(ctypes.byref(cfg), ctypes.byref(res)))
    names, parts = fn_names(), part_names()
    return RunResult(
        iterations=res.iterations, ops_per_sec_per_task=res.ops_per_sec_per_task, cpu_ns=res.cpu_ns,
        fn={names[i]: res.fn[i] for i in range(FN_COUNT)},
        vma_fn={names[i]: res.vma_fn[i] for i in range(FN_COUNT)},
        part_ns={parts[i]: res.part_ns[i] for i in range(COST_PARTS)},
        barn_wait_ns=res.barn_wait_ns, list_wait_ns=res.list_wait_ns,
        barn_acquisitions=res.barn_acquisitions, list_acquisitions=res.list_acquisitions,
        barn_full_hits=res.barn_full_hits, sheaves_live_max=res.sheaves_live_max, events=res.events)
