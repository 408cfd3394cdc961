"""What the C cost model charges today for each measured sequence.

Each value comes from the model itself: ks_cache_access (cache_model.c) replaying the same
accesses on a fresh cache of a preset topology, with the default parameters
(ks_cache_default_params: background traffic 1000 B/us per core), or its latency table
(latency_tables.c, ks_topology_latency). Nothing here changes or re-implements the model.
"""

from typing import Any

from kscope.native.cache_model import CacheModel
from kscope.native.machine import Topology

AREA = 16384       # the seed's burst
T0 = 1_000_000_000  # 1 s into the run: nothing before it
MS = 1_000_000


class ModelProbe:
    """A fresh ks_cache on a preset; each probe registers its own object (fresh lines)."""

    def __init__(self, preset: str) -> None:
        self.topology = Topology.from_preset(preset)
        cpus = self.topology.cpus()
        a = cpus[0]
        # "the other vCPU": another core of the same LLC (the closest pair that is not SMT siblings)
        b = next((c for c in cpus if c.llc == a.llc and c.core != a.core), cpus[1])
        self.cpu_a, self.cpu_b = a.cpu, b.cpu
        self.cache = CacheModel(self.topology)
        self.params = self.cache.params
        latency = self.topology.latency()
        self.core_mhz = latency["core_mhz"]
        self.cycles = latency["cycles"]

    def close(self) -> None:
        self.cache.close()
        self.topology.close()

    def __enter__(self) -> "ModelProbe":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def table_ns(self, source: str) -> float:
        """A latency-table entry (cycles at the table's clock) in ns."""
        return self.cycles[source] * 1000.0 / self.core_mhz

    def new_object(self, size: int) -> int:
        return self.cache.new_object(size)

    def access(self, cpu: int, obj: int, offset: int, length: int, store: bool, t: int) -> int:
        """The model's ns for one access."""
        return self.cache.access(cpu, obj, offset, length, store, t)

    def burst(self, cpu: int, obj: int, t: int) -> int:
        """The seed's increment burst: every line loaded, then stored."""
        return self.access(cpu, obj, 0, AREA, False, t) + self.access(cpu, obj, 0, AREA, True, t)

    def after_write(self, size: int, loads: bool = True) -> int:
        """CPU B's load (if loads) and store of a line CPU A has just written."""
        obj = self.new_object(size)
        self.access(self.cpu_a, obj, 0, size, True, T0)
        cost = self.access(self.cpu_b, obj, 0, size, False, T0 + 100) if loads else 0
        return cost + self.access(self.cpu_b, obj, 0, size, True, T0 + 200)


def model_values(preset: str) -> dict[str, Any]:
    """{figure id: (model value or None, how the model gets it)} for every measured figure."""
    with ModelProbe(preset) as m:
        v: dict[str, tuple[float | None, str]] = {}
        obj = m.new_object(AREA)
        m.burst(m.cpu_a, obj, T0)
        v["sweep16k.hot"] = (m.burst(m.cpu_a, obj, T0 + 10_000),
                             "ks_cache_access: burst 10 us after the same burst")
        for ms in (1, 10, 100, 200, 1000):
            obj = m.new_object(AREA)
            m.burst(m.cpu_a, obj, T0)
            v[f"sweep16k.sleep_{ms}ms"] = (m.burst(m.cpu_a, obj, T0 + ms * MS),
                                           f"ks_cache_access: burst {ms} ms after the same burst "
                                           f"(default background {m.params['private_background_bytes_per_us']} B/us)")
        obj = m.new_object(AREA)
        m.burst(m.cpu_a, obj, T0)
        m.burst(m.cpu_b, obj, T0 + 10_000)
        v["sweep16k.after_remote_write"] = (m.burst(m.cpu_a, obj, T0 + 20_000),
                                            f"ks_cache_access: burst on cpu {m.cpu_a} after cpu {m.cpu_b} "
                                            "(same LLC) incremented the area")
        v["sweep16k.first_touch"] = (m.burst(m.cpu_a, m.new_object(AREA), T0),
                                     "ks_cache_access: burst on a never-touched object (DRAM lines; "
                                     "no page faults modelled)")
        v["pingpong.one_way"] = (m.after_write(64), "ks_cache_access: load + store of a line the other core "
                                                    "just wrote (a HITM, then the upgrade)")
        v["atomic.uncontended"] = (m.table_ns("l1"), "latency table: L1 (a lock op on an owned line)")
        v["atomic.contended"] = (m.after_write(8, loads=False),
                                 "ks_cache_access: a store to a line Modified in the other core, per op "
                                 "(no queueing modelled)")
        obj_lock, obj_counter = m.new_object(64), m.new_object(64)
        for o in (obj_lock, obj_counter):
            m.access(m.cpu_a, o, 0, 8, True, T0)
        handoff = (m.access(m.cpu_b, obj_lock, 0, 8, False, T0 + 100)
                   + m.access(m.cpu_b, obj_counter, 0, 8, False, T0 + 200)
                   + m.access(m.cpu_b, obj_counter, 0, 8, True, T0 + 300)
                   + m.access(m.cpu_b, obj_lock, 0, 8, True, T0 + 400))
        v["spinlock.handoff"] = (handoff, "ks_cache_access: the hand-off's accesses (load lock, load+store "
                                          "counter, store lock) after the other core held both lines")
        for level in ("l1", "l2", "llc"):
            v[f"latency.{level}"] = (m.table_ns(level), f"latency table: {level} cycles at {m.core_mhz} MHz")
        dram = m.access(m.cpu_a, m.new_object(64), 0, 64, False, T0)
        v["latency.dram"] = (dram, "ks_cache_access: one never-touched line (local DRAM)")
        v["mlp.independent"] = (dram, "no memory-level parallelism: each line costs the full DRAM latency")
        v["mlp.misses_in_flight"] = (1.0, "no memory-level parallelism (cache.h: costs add up line by line)")
        v["prefetch.sequential"] = (dram, "no prefetch: a sequential line costs the full DRAM latency")
        v["prefetch.random"] = (dram, "each line costs the full DRAM latency")
        v["prefetch.gain"] = (1.0, "no prefetch modelled")
        v["pagewalk.spread"] = (None, "no TLB in the model")
        v["pagewalk.packed"] = (None, "no TLB in the model")
        v["pagewalk.cost"] = (0.0, "no TLB in the model: a page walk costs nothing")
        v["bandwidth.dram_read"] = (64.0 / dram if dram else None,
                                    "implied: 64 B per DRAM latency (no bandwidth term, no overlap)")
        return {"preset": preset, "core_mhz": m.core_mhz, "cpu_a": m.cpu_a, "cpu_b": m.cpu_b,
                "params": {k: m.params[k] for k in ("private_background_bytes_per_us",
                                                    "llc_background_bytes_per_us")},
                "values": v}
