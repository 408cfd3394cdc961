"""The trace store: metadata rows (SQLite or PostgreSQL), events in Parquet, summaries.

    <data_dir>/meta.sqlite           one row per trace (or a PostgreSQL database)
    <data_dir>/traces/<id>/
        events.parquet               the records, one row group per (time window, CPU)
        lod.npz                      per-CPU occupancy at a few bucket widths
    <data_dir>/tmp/<id>/             an ingest in progress; moved into traces/ on success

An ingest writes its files under tmp/, moves the folder into place and adds the
metadata row last, so a failed or interrupted ingest leaves nothing a reader sees.
"""
