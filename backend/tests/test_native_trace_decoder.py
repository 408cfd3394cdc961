"""kscope.native.decoders over ks_trace_decoder (trace_decoder.h): the C registry says which
decoder reads which detected format, and one want/feed loop drives every one of them."""

from pathlib import Path

import pytest

from kscope.core.config import REPO_ROOT
from kscope.ingest import decoders as ingest_decoders
from kscope.ingest import formats
from kscope.ingest.sources import InputError
from kscope.native import decoders
from kscope.native.log import EventLog

FIXTURES = REPO_ROOT / "wasm-core" / "tests" / "fixtures"


def test_registry_comes_from_the_c_core() -> None:
    assert decoders.registry() == {
        "ftrace": ("ftrace-text", "trace-cmd-report"),
        "trace.dat": ("trace.dat",),
        "perf": ("perf-script", "perf-sched-timehist"),
        "systrace": ("systrace-html",),
    }
    assert [(f.name, f.detected_as) for f in formats.registry()] == list(decoders.registry().items())
    for name in ("perf-report", "perf.data", "gzip", "zip", "unknown", "no-such-format"):
        assert decoders.decoder_of(name) is None
        with pytest.raises(ValueError):
            decoders.TraceDecoder.for_format(name)


def drive(decoder: decoders.TraceDecoder, data: bytes, piece: int) -> EventLog:
    """The loop of trace_decoder.h over bytes in memory."""
    decoder.set_piece(piece)
    log = EventLog()
    while (want := decoder.want())[1]:
        offset, n = want
        _, going = decoder.feed(offset, data[offset:offset + min(n, piece)], log)
        if not going:
            break
    decoder.finish(log)
    return log


@pytest.mark.parametrize("fixture, cls, fmt", [
    ("ftrace_6.18_tgid_irq.txt", decoders.FtraceTextDecoder, "ftrace-text"),
    ("perf_6.1_cpu_clock_g.txt", decoders.PerfDecoder, "perf-script"),
    ("perf_6.1_timehist.txt", decoders.PerfDecoder, "perf-sched-timehist"),
    ("tracecmd_6.18_v7_zlib.dat", decoders.TracedatDecoder, "trace.dat"),
])
def test_one_loop_for_every_format(fixture: str, cls: type, fmt: str) -> None:
    data = (FIXTURES / fixture).read_bytes()
    counts = set()
    for piece in (1 << 20, 777):
        with decoders.TraceDecoder.open(data[:65536]) as dec:
            assert type(dec) is cls and dec.format == fmt
            with drive(dec, data, piece) as log:
                common, own = dec.common_stats(), dec.stats()
                assert common["format"] == fmt and common["status"] == 0
                assert common["events"] == own["events"] == len(log) > 0
                assert common["generic_events"] == own["generic_events"]
                counts.add(len(log))
                if cls is not decoders.TracedatDecoder:
                    assert common["bytes_fed"] == len(data)
                    assert common["lines"] == own["lines"]
    assert len(counts) == 1  # the same records whatever the piece size


def test_truncated_tracedat_stops_with_its_offset() -> None:
    data = (FIXTURES / "tracecmd_6.18_v7_zlib.dat").read_bytes()[:300]
    with decoders.TracedatDecoder() as dec, drive(dec, data, 1 << 16):
        common = dec.common_stats()
        assert common["status"] == 4  # KS_ERR_PARSE
        assert common["error_offset"] >= 0 and common["first_error"]["field"]


def test_perf_report_text_met_while_decoding_is_refused_by_name(tmp_path: Path) -> None:
    """perf script text that turns into perf report lines: the decoder stops (KS_ERR_PARSE,
    not an exception out of the core) and the ingest says what to do instead."""
    text = (FIXTURES / "perf_6.1_cpu_clock_g.txt").read_bytes() + b"\n    29.86%  bloom_filter  [.] main\n"
    path = tmp_path / "mixed.txt"
    path.write_bytes(text)
    with pytest.raises(InputError, match="perf script"):
        ingest_decoders.decode(path, "mixed.txt", lambda raw, arena: None, lambda done: None,
                               format_name="perf-script")
