"""The ctypes loader of libkscope.so: signatures, statuses, and the one door for errors.

`kscope.native` is the only package that touches ctypes: this module loads the
library and declares every signature; structs.py mirrors the shared structs;
machine.py, log.py, sim.py and ftrace.py wrap the handles in small Python
classes. Every C status goes through `check()`, which raises `KscopeCoreError`
with the core's own message, and every `ks_parse_error` becomes a `ParseError`
naming the input, line, column and field; callers outside this package never
see a raw status code or a ctypes object.
"""

import ctypes
from functools import lru_cache
from pathlib import Path

from kscope.core.config import get_settings
from kscope.native import structs as st

KS_OK = 0
KS_ERR_INVALID_ARG = 1
KS_ERR_NOT_FOUND = 2
KS_ERR_PARSE = 4
KS_ERR_RANGE = 5
KS_ERR_IO = 6


class KscopeCoreError(RuntimeError):
    """A non-zero ks_status from the C core, with its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"kscope core: {message} (status {status})")
        self.status = status
        self.message = message


class CoreLibraryMissing(RuntimeError):
    """libkscope.so is not where Settings.core_lib says it is."""


class ParseError(ValueError):
    """Bad user input the core refused, located: source, line, column (or field number), field."""

    kind = "input"
    position_word = "column"  # what ks_parse_error.column_or_field counts for this input

    def __init__(self, source: str, line: int, column: int, field: str, message: str) -> None:
        self.source, self.line, self.column, self.field, self.detail = source, line, column, field, message
        where = [source]
        if line > 0:
            where.append(f"line {line}")
        if column > 0:
            where.append(f"{self.position_word} {column}")
        if field:
            where.append(f'field "{field}"')
        super().__init__(f"{self.kind} {', '.join(where)}: {message or 'malformed'}")

    @classmethod
    def from_struct(cls, source: str, err: st.KsParseError) -> "ParseError":
        """The error a decoder filled in, for the input named `source`."""
        return cls(source, err.line, err.column_or_field, _text(err.field), _text(err.message))


class WorkloadError(ParseError):
    """A workload JSON the simulator refused (syntax, schema, or an unknown algorithm)."""

    kind = "workload"


class TopologyFileError(ParseError):
    """An lscpu or sysfs topology dump the importers refused (lscpu: columns)."""

    kind = "topology"


class SysfsFileError(TopologyFileError):
    """A flattened sysfs dump the importer refused (field 1 = path, 2 = content)."""

    position_word = "field"


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
_Handle = ctypes.c_void_p  # any other opaque handle: ks_sim *, ks_event_log *, ...
_P = ctypes.POINTER
_i32, _u32, _u64, _str = ctypes.c_int32, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_char_p
_HandleOut = _P(_Handle)

_SIGNATURES: dict[str, tuple[list, object]] = {
    "ks_status_message": ([_i32], _str),
    "ks_version": ([], _str),
    # topology.h
    "ks_topology_preset_count": ([], _i32),
    "ks_topology_preset_name": ([_i32], _str),
    "ks_topology_preset_description": ([_i32], _str),
    "ks_topology_from_preset": ([_str, _P(_TopologyPtr)], _i32),
    "ks_topology_free": ([_TopologyPtr], None),
    "ks_topology_name": ([_TopologyPtr], _str),
    "ks_topology_summarize": ([_TopologyPtr, _P(KsTopologySummary)], _i32),
    "ks_topology_cpus": ([_TopologyPtr], _P(KsCpu)),
    "ks_topology_from_lscpu": ([ctypes.c_void_p, _i32, _P(_TopologyPtr), _P(st.KsParseError)], _i32),
    "ks_topology_from_sysfs": ([ctypes.c_void_p, _i32, _P(_TopologyPtr), _P(st.KsParseError)], _i32),
    # cache.h
    "ks_topology_latency": ([_TopologyPtr, _P(st.KsLatencyTable)], _i32),
    # event.h
    "ks_event_type_name": ([_i32], _str),
    "ks_fnv1a64": ([ctypes.c_void_p, _u32, ctypes.c_uint64], ctypes.c_uint64),
    "ks_event_log_new": ([_HandleOut], _i32),
    "ks_event_log_free": ([_Handle], None),
    "ks_event_log_count": ([_Handle], _u32),
    "ks_event_log_data": ([_Handle], ctypes.c_void_p),
    "ks_event_log_text": ([_Handle, _u32], _str),
    # cache.h
    "ks_cache_default_params": ([_P(st.KsCacheParams)], None),
    "ks_cache_new": ([_TopologyPtr, _P(st.KsCacheParams), _HandleOut], _i32),
    "ks_cache_free": ([_Handle], None),
    "ks_cache_add_object": ([_Handle, _str, _u32, _i32, _P(_i32)], _i32),
    "ks_cache_access": ([_Handle, _i32, _i32, _u32, _u32, _i32, _u64, _P(st.KsAccessCost)], _i32),
    "ks_cache_object_count": ([_Handle], _i32),
    "ks_cache_object_name": ([_Handle, _i32], _str),
    "ks_cache_object_lines": ([_Handle, _i32], _u32),
    "ks_cache_line_stats": ([_Handle, _i32], _P(st.KsLineStats)),
    # sim.h
    "ks_sim_new": ([_TopologyPtr, ctypes.c_void_p, _i32, _P(st.KsSimConfig), _HandleOut,
                    _P(st.KsParseError)], _i32),
    "ks_sim_free": ([_Handle], None),
    "ks_sim_algo_name": ([_Handle], _str),
    "ks_sim_step": ([_Handle, _P(st.KsEvent), _P(_i32)], _i32),
    "ks_sim_run_until": ([_Handle, _P(st.KsRunLimit), _Handle, _P(_u32)], _i32),
    "ks_sim_seek": ([_Handle, _u64], _i32),
    "ks_sim_frame_get": ([_Handle], ctypes.c_void_p),
    "ks_sim_cache": ([_Handle], _Handle),
    "ks_sim_get_stats": ([_Handle, _P(st.KsSimStats)], _i32),
    "ks_sim_burst_count": ([_Handle], _u32),
    "ks_sim_burst_costs": ([_Handle], _P(st.KsBurstCost)),
    # native/sim_cost.h, native/cost.h: the cost model v2
    "ks_sim_set_cost_model": ([_Handle, _i32, _P(st.KsCostParams)], _i32),
    "ks_sim_cost_model": ([_Handle], _i32),
    "ks_sim_burst_parts": ([_Handle], _P(st.KsCostParts)),
    "ks_topology_cost_params": ([_TopologyPtr, _P(st.KsCostParams)], _i32),
    "ks_cost_part_name": ([_i32], _str),
    "ks_cost_sweep_run": ([_P(st.KsCostParams), _P(st.KsCostSweep), _P(st.KsCostResult)], _i32),
    "ks_cost_contended_line": ([_P(st.KsCostParams), _i32, _i32, ctypes.c_double, _P(st.KsCostResult)], _i32),
    "ks_cost_mcs_acquire": ([_P(st.KsCostParams), _i32, _i32, ctypes.c_double, _i32, _P(st.KsCostResult)], _i32),
    "ks_sim_snapshot_size": ([_Handle], _u32),
    "ks_sim_snapshot_save": ([_Handle, ctypes.c_void_p, _u32], _i32),
    "ks_sim_snapshot_restore": ([_Handle, ctypes.c_void_p, _u32], _i32),
    # ftrace.h
    "ks_ftrace_decoder_new": ([_HandleOut], _i32),
    "ks_ftrace_decoder_free": ([_Handle], None),
    "ks_ftrace_decoder_feed": ([_Handle, ctypes.c_void_p, _i32, _Handle], _i32),
    "ks_ftrace_decoder_finish": ([_Handle, _Handle], _i32),
    "ks_ftrace_decoder_stats": ([_Handle, _P(st.KsFtraceStats)], _i32),
    "ks_ftrace_format_header": ([_u32, _i32, _u32, ctypes.c_void_p, _i32, _P(_i32)], _i32),
    "ks_ftrace_exporter_new": ([_Handle, _i32, _u32, _HandleOut], _i32),
    "ks_ftrace_exporter_free": ([_Handle], None),
    "ks_ftrace_exporter_read": ([_Handle, ctypes.c_void_p, _i32, _P(_i32)], _i32),
    "ks_ftrace_exporter_flags": ([_Handle], _u32),
    # trace_detect.h
    "ks_trace_detect": ([ctypes.c_void_p, _i32], _i32),
    "ks_trace_format_name": ([_i32], _str),
    # trace_decoder.h
    "ks_trace_format_decoder": ([_i32], ctypes.c_char_p),
    "ks_trace_decoder_new": ([_i32, _HandleOut], _i32),
    "ks_trace_decoder_open": ([ctypes.c_void_p, _i32, _P(_i32), _HandleOut], _i32),
    "ks_trace_decoder_free": ([_Handle], None),
    "ks_trace_decoder_format": ([_Handle], _i32),
    "ks_trace_decoder_name": ([_Handle], ctypes.c_char_p),
    "ks_trace_decoder_set_piece": ([_Handle, _i32], _i32),
    "ks_trace_decoder_want": ([_Handle, _P(ctypes.c_int64), _P(_i32)], _i32),
    "ks_trace_decoder_feed": ([_Handle, ctypes.c_int64, ctypes.c_void_p, _i32, _Handle], _i32),
    "ks_trace_decoder_finish": ([_Handle, _Handle], _i32),
    "ks_trace_decoder_stats": ([_Handle, _P(st.KsTraceStats)], _i32),
    "ks_trace_decoder_format_stats": ([_Handle, ctypes.c_void_p, _i32], _i32),
    "ks_trace_decoder_format_stats_size": ([_Handle], _i32),
    "ks_trace_decoder_inner": ([_Handle], ctypes.c_void_p),
    # tracedat.h
    "ks_tracedat_decoder_new": ([_HandleOut], _i32),
    "ks_tracedat_decoder_free": ([_Handle], None),
    "ks_tracedat_decoder_want": ([_Handle, _P(ctypes.c_int64), _P(_i32)], _i32),
    "ks_tracedat_decoder_feed": ([_Handle, ctypes.c_int64, ctypes.c_void_p, _i32, _Handle], _i32),
    "ks_tracedat_decoder_finish": ([_Handle, _Handle], _i32),
    "ks_tracedat_decoder_stats": ([_Handle, _P(st.KsTracedatStats)], _i32),
    "ks_tracedat_decoder_buffer_count": ([_Handle], _i32),
    "ks_tracedat_decoder_buffer_name": ([_Handle, _i32], ctypes.c_char_p),
    "ks_tracedat_decoder_held_peak": ([_Handle], ctypes.c_int64),
    # perf.h
    "ks_perf_decoder_new": ([_HandleOut], _i32),
    "ks_perf_decoder_free": ([_Handle], None),
    "ks_perf_decoder_feed": ([_Handle, ctypes.c_void_p, _i32, _Handle], _i32),
    "ks_perf_decoder_finish": ([_Handle, _Handle], _i32),
    "ks_perf_decoder_stats": ([_Handle, _P(st.KsPerfStats)], _i32),
    # systrace.h
    "ks_systrace_decoder_new": ([_HandleOut], _i32),
    "ks_systrace_decoder_free": ([_Handle], None),
    "ks_systrace_decoder_feed": ([_Handle, ctypes.c_void_p, _i32, _Handle], _i32),
    "ks_systrace_decoder_finish": ([_Handle, _Handle], _i32),
    "ks_systrace_decoder_stats": ([_Handle, _P(st.KsSystraceStats)], _i32),
    # a model's native/conform.h (its structs live in the model's own binding, passed by address)
    "ks_conform_new": ([_str, _i32, _i32, _i32, _HandleOut], _i32),
    "ks_conform_free": ([_Handle], None),
    "ks_conform_feed": ([_Handle, ctypes.c_void_p, _u32], _i32),
    "ks_conform_result": ([_Handle, ctypes.c_void_p], _i32),
    "ks_conform_disagreement_get": ([_Handle, _i32, ctypes.c_void_p], _i32),
    "ks_conform_set_resync": ([_Handle, _i32], _i32),
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
    for name, (argtypes, restype) in _SIGNATURES.items():  # every one: the core is built with them all
        fn = getattr(cdll, name)
        fn.argtypes = argtypes
        fn.restype = restype
    return cdll


def text(raw: bytes | None) -> str:
    """A C string (or NUL-padded char array) from the core as str ("" for NULL)."""
    return raw.decode("utf-8", "replace") if raw is not None else ""


_text = text


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


def event_type_name(type_id: int) -> str:
    """The core's tracepoint name of a ks_event_type ("generic" for 0)."""
    return _text(lib().ks_event_type_name(type_id))


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
