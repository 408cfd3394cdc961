"""`Simulation`: the C scheduler core (kscope/sim.h) behind a small Python class.

    with Topology.from_preset("classroom-8") as topo, \\
         Simulation(topo, workload_json, seed=1, source="w.json") as sim:
        sim.step()                                   # one event as a dict (None at the end)
        sim.run_until(until_ns=10_000_000)           # the events up to 10 ms, as dicts
        raw = sim.run_until(max_events=1000, raw=True)  # the same as 96-byte records
        for chunk in sim.iter_raw(until_ns=2 * 10**9):  # a long run, chunk by chunk
            ...
        sim.frame(); sim.stats(); sim.burst_costs()
        state = sim.snapshot(); sim.seek(0); sim.restore(state)

All stepping happens in C: run_until and iter_raw make one C call per chunk of
events, so Python costs nothing per event unless the caller decodes them.
"""

import ctypes
from collections.abc import Iterator
from typing import Any

from kscope.native import core, cost, events, machine
from kscope.native import structs as st
from kscope.native.log import EventLog
from kscope.native.machine import Topology

TASK_STATES = ("running", "runnable", "sleeping", "dead")  # ks_task_state
CACHE_SOURCES = machine.CACHE_SOURCES  # ks_cache_source
BURST_WARMUP = 1  # KS_BURST_WARMUP (kscope/sim.h)
COST_MODELS = {"v1": 1, "v2": 2}  # KS_COST_MODEL_V1 / _V2 (kscope/native/sim_cost.h)
CHUNK_EVENTS = 1 << 16  # records per C call when a run is read chunk by chunk (6 MiB)


def default_cache_params() -> st.KsCacheParams:
    """The core's documented eviction defaults (src/machine/cache_model.c)."""
    params = st.KsCacheParams()
    core.lib().ks_cache_default_params(ctypes.byref(params))
    return params


def cache_params(private_bytes_per_us: int | None = None, llc_bytes_per_us: int | None = None,
                 track_words: bool | None = None) -> st.KsCacheParams:
    """Eviction parameters: the core's defaults with the given fields replaced.

    The rates are bytes of background traffic per microsecond (0: never evicted);
    track_words keeps the per-8-byte-word counters (off is cheaper).
    """
    params = default_cache_params()
    if private_bytes_per_us is not None:
        params.private_background_bytes_per_us = private_bytes_per_us
    if llc_bytes_per_us is not None:
        params.llc_background_bytes_per_us = llc_bytes_per_us
    if track_words is not None:
        params.track_words = int(track_words)
    return params


class Simulation:
    """An owned ks_sim * running one workload on a topology (which must stay open)."""

    def __init__(self, topology: Topology, workload_json: str | bytes, *, seed: int = 0,
                 algo: str | None = None, cache: st.KsCacheParams | None = None,
                 source: str = "<workload>", cost_model: str = "v1",
                 cost_params: st.KsCostParams | None = None) -> None:
        """Builds the simulation; WorkloadError (naming `source`) for a refused workload.

        cost_model: "v1" (the cache model's serial trips, the default) or "v2" (the cost
        model v2 prices each burst, with its parts in burst_parts(); cost_params: v2's
        figures, the preset's when None). kscope/native/sim_cost.h."""
        if cost_model not in COST_MODELS:
            raise ValueError(f"cost_model must be one of {sorted(COST_MODELS)}, not {cost_model!r}")
        data = workload_json.encode("utf-8") if isinstance(workload_json, str) else workload_json
        self.topology = topology
        self.algo = algo or "none"
        self._algo_bytes = self.algo.encode("utf-8")  # kept alive: the config points at it
        config = st.KsSimConfig(seed=seed, algo=self._algo_bytes,
                                cache=cache if cache is not None else default_cache_params())
        self._handle = ctypes.c_void_p()
        err = st.KsParseError()
        status = core.lib().ks_sim_new(topology.handle, data, len(data), ctypes.byref(config),
                                       ctypes.byref(self._handle), ctypes.byref(err))
        if status == core.KS_ERR_PARSE:
            raise core.WorkloadError.from_struct(source, err)
        if status == core.KS_ERR_NOT_FOUND and core.text(err.field) == "algo":
            raise core.WorkloadError(source, 0, 0, "algo", f"unknown scheduling algorithm {self.algo!r}")
        core.check(status)
        self._event = st.KsEvent()
        self._produced = ctypes.c_int32()
        # What runs: "auto" resolved by the C core's algorithm registry (sched_ops.c); when each
        # model is picked is its descriptor's sim_auto (kscope.models.registry).
        self.algo_run = core.text(core.lib().ks_sim_algo_name(self._handle))
        self.cost_model = cost_model
        if cost_model != "v1" or cost_params is not None:
            status = core.lib().ks_sim_set_cost_model(
                self._handle, COST_MODELS[cost_model],
                ctypes.byref(cost_params) if cost_params is not None else None)
            if status != core.KS_OK:
                self.close()
                core.check(status)

    # ---- lifetime ----------------------------------------------------------------------

    @property
    def handle(self) -> ctypes.c_void_p:
        """The raw ks_sim *, for the other native wrappers."""
        if not self._handle:
            raise ValueError("simulation is closed")
        return self._handle

    def close(self) -> None:
        """Frees the simulation (idempotent); the topology stays the caller's."""
        if self._handle:
            core.lib().ks_sim_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- stepping ------------------------------------------------------------------------

    def step_raw(self) -> bytes | None:
        """The next event as a 96-byte record; None when the workload has finished."""
        core.check(core.lib().ks_sim_step(self.handle, ctypes.byref(self._event),
                                          ctypes.byref(self._produced)))
        return bytes(self._event) if self._produced.value else None

    def step(self) -> dict[str, Any] | None:
        """The next event as a dict (events.decode_event); None when finished."""
        record = self.step_raw()
        return events.decode_event(record) if record is not None else None

    def advance(self, until_ns: int = 0, type_mask: int = 0, tid: int = 0,
                max_events: int = 0) -> int:
        """Runs until a limit without keeping the events (the C hot loop); returns their count.

        A zero limit is "none"; the run stops after the first event that meets any
        (ts >= until_ns, type in type_mask, mentions tid) or after max_events, or at
        the workload's end.
        """
        return self._run(_limit(until_ns, type_mask, tid, max_events), None)

    def run_until(self, until_ns: int = 0, type_mask: int = 0, tid: int = 0,
                  max_events: int = 0, *, raw: bool = False) -> list[dict[str, Any]] | bytes:
        """Like advance(), returning the events: dicts, or (raw=True) records back to back."""
        with EventLog() as log:
            self._run(_limit(until_ns, type_mask, tid, max_events), log)
            return log.raw() if raw else log.decode()

    def iter_logs(self, until_ns: int = 0, chunk: int = CHUNK_EVENTS,
                  max_events: int = 0) -> Iterator[EventLog]:
        """The run up to until_ns (0: to the end), or max_events in all (0: no cap), as event
        logs of at most `chunk` records.

        Each log is freed when the iteration moves on: use it (export it, copy it)
        inside the loop body.
        """
        total = 0
        while True:
            want = min(chunk, max_events - total) if max_events else chunk
            if want <= 0:
                return
            with EventLog() as log:
                n = self._run(_limit(until_ns, 0, 0, want), log)
                last_ts = _ts_of_last(log)
                if n:
                    yield log
            total += n
            if n < want or (until_ns and last_ts >= until_ns):
                return

    def iter_raw(self, until_ns: int = 0, chunk: int = CHUNK_EVENTS,
                 max_events: int = 0) -> Iterator[bytes]:
        """Like iter_logs, as bytes (records back to back)."""
        for log in self.iter_logs(until_ns, chunk, max_events):
            yield log.raw()

    def _run(self, limit: st.KsRunLimit, log: EventLog | None) -> int:
        n = ctypes.c_uint32()
        core.check(core.lib().ks_sim_run_until(self.handle, ctypes.byref(limit),
                                               log.handle if log is not None else None,
                                               ctypes.byref(n)))
        return n.value

    def seek(self, step: int) -> None:
        """Goes to step `step` exactly, backwards or forwards (checkpoints + replay in C)."""
        core.check(core.lib().ks_sim_seek(self.handle, step))

    # ---- state ---------------------------------------------------------------------------

    def frame(self) -> dict[str, Any]:
        """The machine as a view draws it: clock, CPUs (with their runqueues), tasks."""
        base = core.lib().ks_sim_frame_get(self.handle)
        if not base:
            raise core.KscopeCoreError(core.KS_ERR_INVALID_ARG, "no frame")
        head = st.KsSimFrame.from_address(base)
        cpus = (st.KsSimCpu * head.nr_cpus).from_address(base + head.cpus_off)
        tasks = (st.KsSimTask * head.nr_tasks).from_address(base + head.tasks_off)
        rq_tids = list((ctypes.c_int32 * head.nr_rq_tids).from_address(base + head.rq_tids_off))
        ends = [c.rq_offset for c in cpus[1:]] + [head.nr_rq_tids]  # each CPU's slice ends at the next's
        return {
            "now_ns": head.now_ns,
            "step": head.step,
            "cpus": [
                {"cpu": c.cpu, "curr_tid": c.curr_tid, "nr_running": c.nr_running,
                 "busy_ns": c.busy_ns, "rq_tids": rq_tids[c.rq_offset : end]}
                for c, end in zip(cpus, ends)
            ],
            "tasks": [
                {"tid": t.tid, "tgid": t.tgid, "comm": core.text(t.comm), "cpu": t.cpu,
                 "state": TASK_STATES[t.state] if 0 <= t.state < len(TASK_STATES) else t.state,
                 "policy": t.policy, "prio": t.prio, "nr_cpus_allowed": t.nr_cpus_allowed,
                 "mm_cid": t.mm_cid, "vruntime_ns": t.vruntime_ns, "sum_exec_ns": t.sum_exec_ns}
                for t in tasks
            ],
        }

    def stats(self) -> dict[str, Any]:
        """Summary counters since the start: events by type, modelled access time, lines by source."""
        out = st.KsSimStats()
        core.check(core.lib().ks_sim_get_stats(self.handle, ctypes.byref(out)))
        return {
            "now_ns": out.now_ns,
            "events": out.events,
            "events_by_type": dict(zip(events.EVENT_TYPES, out.events_by_type)),
            "access_ns": out.access_ns,
            "lines_from": dict(zip(CACHE_SOURCES, out.lines_from)),
            "local_hitm": out.local_hitm,
            "remote_hitm": out.remote_hitm,
        }

    def burst_costs(self) -> list[dict[str, Any]]:
        """Every burst of the intermittent threads so far, in start order, with its modelled cost.

        A thread's warm-up (the workload's warmup_sweeps) is one entry with "warmup": True
        and the whole warm-up's cost.
        """
        lib = core.lib()
        n = lib.ks_sim_burst_count(self.handle)
        array = lib.ks_sim_burst_costs(self.handle)
        return [
            {"ts_ns": b.ts_ns, "tid": b.tid, "cpu": b.cpu, "index": b.index, "cost_ns": b.cost_ns,
             "warmup": bool(b.flags & BURST_WARMUP)}
            for b in (array[i] for i in range(n))
        ]

    def burst_parts(self) -> list[dict[str, float]]:
        """Each burst's cost by mechanism (v2's parts, {name: ns}), parallel to burst_costs();
        all zero under v1."""
        lib = core.lib()
        n = lib.ks_sim_burst_count(self.handle)
        array = lib.ks_sim_burst_parts(self.handle)
        return [cost.parts_dict(array[i].part_ns) for i in range(n)]

    def cache_lines(self) -> list[dict[str, Any]]:
        """Each simulated memory object with its per-line perf-c2c counters."""
        lib = core.lib()
        cache = lib.ks_sim_cache(self.handle)
        objects = []
        for obj in range(lib.ks_cache_object_count(cache)):
            n = lib.ks_cache_object_lines(cache, obj)
            stats = lib.ks_cache_line_stats(cache, obj)
            objects.append({
                "name": core.text(lib.ks_cache_object_name(cache, obj)),
                "lines": [{"loads": s.loads, "stores": s.stores, "local_hitm": s.local_hitm,
                           "remote_hitm": s.remote_hitm} for s in (stats[i] for i in range(n))],
            })
        return objects

    def snapshot(self) -> bytes:
        """The whole machine's state (restorable into this simulation, or one built alike)."""
        lib = core.lib()
        size = lib.ks_sim_snapshot_size(self.handle)
        buf = ctypes.create_string_buffer(size)
        core.check(lib.ks_sim_snapshot_save(self.handle, buf, size))
        return buf.raw

    def restore(self, state: bytes) -> None:
        """Puts the machine back to a snapshot() (KscopeCoreError if it is not this run's)."""
        core.check(core.lib().ks_sim_snapshot_restore(self.handle, state, len(state)))


def _ts_of_last(log: EventLog) -> int:
    n = len(log)
    return int.from_bytes(log.raw(n - 1, n)[:8], "little") if n else 0


def _limit(until_ns: int, type_mask: int, tid: int, max_events: int) -> st.KsRunLimit:
    if min(until_ns, type_mask, max_events) < 0:
        raise ValueError("run limits must not be negative")
    if max_events >= 1 << 32:
        raise ValueError("max_events must fit in 32 bits")
    return st.KsRunLimit(until_ns=until_ns, type_mask=type_mask, tid=tid, max_events=max_events)
