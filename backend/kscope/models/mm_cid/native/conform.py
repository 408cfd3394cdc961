"""The binding of the mm_cid conformance replay (wasm-core/include/kscope/mm_cid/native/conform.h):
ks_event records in, agreement counts out. The mm_cid model's own: generic code reaches it through
the registry (kscope.models.registry), never directly."""

import ctypes
from typing import Any

from kscope.native import core

_u64, _i32 = ctypes.c_uint64, ctypes.c_int32


class KsConformSummary(ctypes.Structure):
    _fields_ = [(name, _u64) for name in (
        "events", "rseq_updates", "compared", "agree", "disagree", "unknown_mm", "no_cid", "gaps",
        "gaps_mm", "cold_starts", "missing_migrations", "ticks", "scans")] + [
        (name, _i32) for name in ("variant", "nr_cpus", "hz", "nr_tasks", "nr_mms", "kept")] + [
        ("bad_events", _u64), ("stopper_migrations", _u64), ("resyncs", _u64), ("causes", _u64 * 8),
        ("unprompted", _u64)]


class KsConformDisagreement(ctypes.Structure):
    _fields_ = [("ts_ns", _u64)] + [(name, _i32) for name in (
        "tid", "tgid", "cpu", "kernel_cid", "model_cid", "path", "gap_near", "cause")] + [
        ("why", ctypes.c_char * 216)]


assert ctypes.sizeof(KsConformSummary) == 224, "ks_conform_summary changed"
assert ctypes.sizeof(KsConformDisagreement) == 256, "ks_conform_disagreement changed"

VARIANTS = ("v6.12", "v6.13", "v6.18", "v6.19")
# KS_CONFORM_SCAN_AT_*, by value: at the modelled tick (the simulator), on return to user (kernels)
SCAN_AT = ("tick", "return")
# ks_conform_cause, by value (ks_conform_cause_name)
CAUSES = ("unexplained", "missing_events", "scan_not_visible", "state_before_trace", "cascade",
          "same_time_order")


class Conform:
    """One replay of a variant of the mm_cid model over events fed in time order."""

    def __init__(self, variant: str, nr_cpus: int, hz: int = 250, keep: int = 64, resync: bool = False,
                 scan_at: str = "tick") -> None:
        self._lib = core.lib()
        self._h = ctypes.c_void_p()
        core.check(self._lib.ks_conform_new(variant.encode(), nr_cpus, hz, keep, ctypes.byref(self._h)))
        if scan_at not in SCAN_AT:
            raise ValueError(f"scan_at {scan_at!r}: one of {', '.join(SCAN_AT)}")
        core.check(self._lib.ks_conform_set_scan_at(self._h, SCAN_AT.index(scan_at)))
        if resync:
            core.check(self._lib.ks_conform_set_resync(self._h, 1))

    def set_ticks(self, ts_ns: list[int], cpus: list[int]) -> None:
        """The kernel's recorded ticks (time order), before feeding: ks_conform_set_ticks."""
        n = len(ts_ns)
        ts = (_u64 * max(n, 1))(*ts_ns)
        cpu = (_i32 * max(n, 1))(*cpus)
        core.check(self._lib.ks_conform_set_ticks(self._h, ts, cpu, n))

    def feed(self, records: bytes) -> None:
        """Feeds raw 96-byte ks_event records (a whole trace at once is best: the replay
        learns every pid's tgid from the records of a call before it replays them)."""
        n = len(records) // 96
        if n:
            buf = ctypes.create_string_buffer(bytes(records[:n * 96]), n * 96)
            core.check(self._lib.ks_conform_feed(self._h, buf, n))

    def summary(self) -> dict[str, Any]:
        s = KsConformSummary()
        core.check(self._lib.ks_conform_result(self._h, ctypes.addressof(s)))
        out = {name: getattr(s, name) for name, _ in KsConformSummary._fields_ if name != "causes"}
        out["causes"] = {name: int(s.causes[i]) for i, name in enumerate(CAUSES)}
        return out

    def disagreements(self) -> list[dict[str, Any]]:
        out = []
        for i in range(self.summary()["kept"]):
            d = KsConformDisagreement()
            core.check(self._lib.ks_conform_disagreement_get(self._h, i, ctypes.addressof(d)))
            out.append({"ts": d.ts_ns / 1e9, "ts_ns": d.ts_ns, "tid": d.tid, "tgid": d.tgid, "cpu": d.cpu,
                        "kernel_cid": d.kernel_cid, "model_cid": d.model_cid, "gap_near": bool(d.gap_near),
                        "cause": CAUSES[d.cause] if 0 <= d.cause < len(CAUSES) else "?",
                        "why": core.text(d.why)})
        return out

    def close(self) -> None:
        if self._h:
            self._lib.ks_conform_free(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self) -> "Conform":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
