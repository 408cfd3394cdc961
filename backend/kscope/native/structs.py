"""ctypes mirrors of the C core's shared structs (wasm-core/include/kscope/*.h).

Fixed-width fields only, in header order. Each size is asserted against the C
side's `_Static_assert` (or, where the header has none, against the layout the
header documents), so a changed header fails at import, not with corrupt data.
`ks_sim_config` is the one struct with a pointer (`algo`): it is built here for
the native ABI only and never crosses to JS.
"""

import ctypes

KS_COMM_LEN = 16
KS_EV_TYPE_COUNT = 16  # ks_event_type: generic .. barn_put (events.EVENT_TYPES, checked in a test)
KS_SRC_COUNT = 8  # ks_cache_source: l1 .. dram_remote
EVENT_SIZE = 96

_i32 = ctypes.c_int32
_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64


class KsEvent(ctypes.Structure):
    """struct ks_event: header (40 bytes) + per-type payload (56 bytes, see events.py)."""

    _fields_ = [
        ("ts_ns", _u64),
        ("type", ctypes.c_uint16),
        ("buffer", ctypes.c_uint16),  # the trace buffer's index (0: simulated, single-buffer)
        ("cpu", _i32),
        ("pid", _i32),
        ("tgid", _i32),
        ("comm", ctypes.c_char * KS_COMM_LEN),
        ("raw", ctypes.c_uint8 * 56),
    ]


class KsSimCpu(ctypes.Structure):
    """struct ks_sim_cpu: one CPU of a frame."""

    _fields_ = [("cpu", _i32), ("curr_tid", _i32), ("nr_running", _i32), ("rq_offset", _i32),
                ("busy_ns", _u64)]


class KsSimTask(ctypes.Structure):
    """struct ks_sim_task: one task of a frame."""

    _fields_ = [
        ("tid", _i32), ("tgid", _i32), ("cpu", _i32), ("state", _i32), ("policy", _i32),
        ("prio", _i32), ("nr_cpus_allowed", _i32), ("mm_cid", _i32),
        ("vruntime_ns", _u64), ("sum_exec_ns", _u64), ("comm", ctypes.c_char * KS_COMM_LEN),
    ]


class KsSimFrame(ctypes.Structure):
    """struct ks_sim_frame: the frame header; arrays follow at the byte offsets it gives."""

    _fields_ = [
        ("now_ns", _u64), ("step", _u64), ("nr_cpus", _i32), ("nr_tasks", _i32),
        ("nr_rq_tids", _i32), ("reserved", _i32), ("cpus_off", _u32), ("tasks_off", _u32),
        ("rq_tids_off", _u32), ("size", _u32),
    ]


class KsSimStats(ctypes.Structure):
    """struct ks_sim_stats: summary counters since the start (23 x u64)."""

    _fields_ = [
        ("now_ns", _u64), ("events", _u64), ("events_by_type", _u64 * KS_EV_TYPE_COUNT),
        ("access_ns", _u64), ("lines_from", _u64 * KS_SRC_COUNT), ("local_hitm", _u64),
        ("remote_hitm", _u64),
    ]


class KsRunLimit(ctypes.Structure):
    """struct ks_run_limit: stop conditions of ks_sim_run_until (0 = no limit)."""

    _fields_ = [("until_ns", _u64), ("type_mask", _u32), ("tid", _i32), ("max_events", _u32),
                ("reserved", _u32)]


class KsParseError(ctypes.Structure):
    """struct ks_parse_error: where a decoder gave up, and why."""

    _fields_ = [("line", _i32), ("column_or_field", _i32), ("field", ctypes.c_char * 32),
                ("message", ctypes.c_char * 128)]


class KsBurstCost(ctypes.Structure):
    """struct ks_burst_cost: one burst of an intermittent thread and its modelled cost."""

    _fields_ = [("ts_ns", _u64), ("tid", _i32), ("cpu", _i32), ("index", _i32), ("flags", _i32),
                ("cost_ns", _u64)]


class KsLatencyTable(ctypes.Structure):
    """struct ks_latency_table: a preset's load-to-use cycles per cache source, and its clock."""

    _fields_ = [("core_mhz", _i32), ("cycles", _i32 * 8)]


class KsCacheParams(ctypes.Structure):
    """struct ks_cache_params: eviction by time decay (bytes of other work per us)."""

    _fields_ = [("private_background_bytes_per_us", _i32), ("llc_background_bytes_per_us", _i32),
                ("track_words", _i32), ("reserved", _i32)]


class KsAccessCost(ctypes.Structure):
    """struct ks_access_cost: the cost of one (multi-line) access."""

    _fields_ = [("cycles", _u64), ("ns", _u64), ("lines", _u32), ("lines_from", _u32 * KS_SRC_COUNT),
                ("local_hitm", _u32), ("remote_hitm", _u32), ("reserved", _u32)]


KS_COST_PARTS = 15  # ks_cost_part: core .. first_touch (kscope/cost.h)
KS_COST_MAX_CSTATES = 4
KS_COST_MAX_GROUPS = 8
_f64 = ctypes.c_double


class KsCostCstate(ctypes.Structure):
    """struct ks_cost_cstate: one idle state as the cpuidle driver declares it."""

    _fields_ = [("name", ctypes.c_char * 8), ("exit_ns", _i32), ("residency_ns", _i32),
                ("flushes_private", _i32), ("flushes_tlb", _i32)]


class KsCostParams(ctypes.Structure):
    """struct ks_cost_params: the cost model v2's per-machine figures."""

    _fields_ = [
        ("latency", KsLatencyTable), ("demand_mlp", _i32), ("prefetch_mlp", _i32),
        ("prefetch_trigger_lines", _i32), ("page_bytes", _i32), ("sweep_cycles_per_line", _i32),
        ("stlb_entries", _i32), ("walk_levels", _i32), ("walk_ns_measured", _i32),
        ("fabric_gbps_per_llc", _i32), ("dram_gbps_per_socket", _i32), ("l1_bytes", _i32),
        ("l2_bytes", _i32), ("l3_bytes", _i32), ("n_cstates", _i32),
        ("cstates", KsCostCstate * KS_COST_MAX_CSTATES), ("first_touch_ns_per_page", _i32),
        ("reserved", _i32),
    ]


class KsCostLines(ctypes.Structure):
    """struct ks_cost_lines: a group of a burst's lines (where, state, age, holder's idle)."""

    _fields_ = [("lines", _u32), ("where", _i32), ("state", _i32), ("home_remote", _i32),
                ("age_ns", _u64), ("holder_idle_ns", _u64)]


class KsCostSweep(ctypes.Structure):
    """struct ks_cost_sweep: one burst for the cost model v2."""

    _fields_ = [
        ("order", _i32), ("is_store", _i32), ("page_offset", _i32), ("wake_in_burst", _i32),
        ("background_private_bytes_per_us", _i32), ("background_llc_bytes_per_us", _i32),
        ("streams_per_llc", _i32), ("streams_per_socket", _i32), ("idle_ns", _u64),
        ("since_own_touch_ns", _u64), ("n_groups", _i32), ("first_touch_pages", _i32),
        ("groups", KsCostLines * KS_COST_MAX_GROUPS),
    ]


class KsCostResult(ctypes.Structure):
    """struct ks_cost_result: a total and the parts that add up to it."""

    _fields_ = [
        ("total_ns", _f64), ("part_ns", _f64 * KS_COST_PARTS), ("serial_ns", _f64),
        ("overlap_saved_ns", _f64), ("lines", _u32), ("lines_from", _u32 * KS_SRC_COUNT),
        ("lines_rfo", _u32), ("lines_prefetched", _u32), ("lines_idle_flushed", _u32),
        ("lines_capacity_evicted", _u32), ("hitm", _u32), ("pages", _u32), ("pages_walked", _u32),
        ("pages_faulted", _u32), ("reserved", _u32), ("cstate", _i32), ("bound", _i32),
    ]


class KsCostParts(ctypes.Structure):
    """struct ks_cost_parts: one simulated burst's cost by mechanism (ks_sim_burst_parts)."""

    _fields_ = [("part_ns", _f64 * KS_COST_PARTS)]


class KsLineStats(ctypes.Structure):
    """struct ks_line_stats: perf c2c-style counters of one line or word."""

    _fields_ = [("loads", _u32), ("stores", _u32), ("local_hitm", _u32), ("remote_hitm", _u32)]


class KsFtraceStats(ctypes.Structure):
    """struct ks_ftrace_stats: what the ftrace decoder has seen."""

    _fields_ = [
        ("lines", _u32), ("events", _u32), ("generic_events", _u32), ("comment_lines", _u32),
        ("malformed_lines", _u32), ("lost_events", _u32), ("nr_cpus", _i32), ("format", _i32),
        ("columns", _u32), ("reserved", _u32), ("first_error", KsParseError),
    ]


class KsTracedatStats(ctypes.Structure):
    """struct ks_tracedat_stats: the trace.dat decoder's counters and what the file says."""

    _fields_ = [
        ("events", _u32), ("generic_events", _u32), ("malformed", _u32), ("lost_events", _u32),
        ("pages", _u32), ("event_formats", _u32), ("nr_cpus", _i32), ("version", _i32),
        ("long_size", _i32), ("page_size", _i32), ("big_endian", _i32), ("status", _i32),
        ("error_offset", ctypes.c_int64), ("bytes_fed", ctypes.c_int64), ("skipped_buffers", _u32),
        ("lost_pages", _u32), ("uname", ctypes.c_char * 96), ("trace_clock", ctypes.c_char * 32),
        ("first_error", KsParseError),
    ]


class KsTraceStats(ctypes.Structure):
    """struct ks_trace_stats: what every decoder counts (trace_decoder.h)."""

    _fields_ = [
        ("format", _i32), ("status", _i32), ("events", _u32), ("generic_events", _u32), ("malformed", _u32),
        ("lost_events", _u32), ("nr_cpus", _i32), ("lines", _u32), ("bytes_fed", ctypes.c_int64),
        ("error_offset", ctypes.c_int64), ("first_error", KsParseError),
    ]


class KsPerfStats(ctypes.Structure):
    """struct ks_perf_stats: what the perf script / timehist decoder has seen."""

    _fields_ = [
        ("lines", _u32), ("events", _u32), ("generic_events", _u32), ("samples", _u32),
        ("comment_lines", _u32), ("malformed_lines", _u32), ("frame_lines", _u32), ("nr_cpus", _i32),
        ("format", _i32), ("columns", _u32), ("status", _i32), ("reserved", _u32),
        ("first_error", KsParseError),
    ]


class KsSystraceStats(ctypes.Structure):
    """struct ks_systrace_stats: the embedded ftrace text's stats plus the HTML's blocks."""

    _fields_ = [("ftrace", KsFtraceStats), ("text_blocks", _u32), ("json_blocks", _u32),
                ("first_text_line", _i32), ("html_lines", _u32)]


class KsSimConfig(ctypes.Structure):
    """struct ks_sim_config (native ABI: the algo pointer is 8 bytes here, 4 in wasm32)."""

    _fields_ = [("seed", _u64), ("algo", ctypes.c_char_p), ("cache", KsCacheParams)]


# Sizes the C headers _Static_assert (ks_sim_stats: 23 x u64, as its fields add up).
SIZES = {
    KsEvent: EVENT_SIZE,
    KsSimCpu: 24,
    KsSimTask: 64,
    KsSimFrame: 48,
    KsSimStats: 8 * (2 + KS_EV_TYPE_COUNT + 1 + KS_SRC_COUNT + 2),
    KsRunLimit: 24,
    KsParseError: 168,
    KsBurstCost: 32,
    KsCacheParams: 16,
    KsLatencyTable: 36,
    KsAccessCost: 64,
    KsLineStats: 16,
    KsCostCstate: 24,
    KsCostParams: 36 + 14 * 4 + KS_COST_MAX_CSTATES * 24 + 2 * 4,
    KsCostLines: 32,
    KsCostSweep: 8 * 4 + 2 * 8 + 8 + KS_COST_MAX_GROUPS * 32,
    KsCostResult: 8 * (3 + KS_COST_PARTS) + 4 * (KS_SRC_COUNT + 12),
    KsCostParts: 8 * KS_COST_PARTS,
    KsFtraceStats: 208,
    KsTracedatStats: 368,
    KsPerfStats: 216,
    KsSystraceStats: 224,
}
for _struct, _size in SIZES.items():
    assert ctypes.sizeof(_struct) == _size, f"{_struct.__name__}: {ctypes.sizeof(_struct)} != {_size}"
