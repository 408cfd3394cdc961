"""Ingest: a trace file (any registered format, maybe compressed) into the trace store.

    sources.py      compressed inputs (gzip, xz, zstd, zip) with size and ratio limits
    formats.py      format detection from content + the decoder registry
    ftrace_text.py  ftrace text through the C streaming decoder (more formats register
                    themselves the same way)
    records.py      96-byte ks_event records -> Arrow columns (vectorized)
    pipeline.py     the whole path: detect, decode, write Parquet + summaries, commit
"""
