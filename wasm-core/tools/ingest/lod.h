/*
 * lod.h: level-of-detail summaries, per-CPU occupancy per time bucket at a few widths.
 *
 * A CPU is busy from a sched_switch to a non-idle task (next_pid != 0) until its next
 * sched_switch, idle otherwise; before its first switch it runs prev_pid. Occupancy of
 * a bucket = busy time inside it / bucket width. With B(t) the busy time since the
 * trace's start (piecewise linear: slope 1 busy, 0 idle), a bucket [a, b) holds
 * B(b) - B(a), so each level is B at the bucket edges, then differences:
 *
 *     B(t)  ___/‾‾‾‾\___/‾‾...       switch times are B's knots
 *     edges |   |   |   |   |        B at each edge (one walk over the knots), then differences
 *
 * Written at ingest as lod.npz (npz_writer.h): "cpus" int32, and per level L
 * "edges<L>" int64 [buckets + 1] and "occ<L>" float32 [cpu slot, bucket].
 * backend/kscope/store/lod.py reads it and re-buckets a query's window from the
 * finest level that is fine enough, so a query costs the level's size, never the
 * number of events.
 *
 * Levels: 256, 4096 and 65536 buckets across the whole trace, but no finer than ~4
 * events per bucket (a small trace gets small summaries) and at most 2^23 cells
 * (CPUs x buckets: 32 MiB of float32) per level.
 */
#ifndef KSCOPE_INGEST_LOD_H
#define KSCOPE_INGEST_LOD_H

#include <stdint.h>
#include "tally.h"

#define LOD_LEVELS 3
#define LOD_MAX_CELLS (1u << 23)

extern const uint32_t lod_level_buckets[LOD_LEVELS];

/* Buckets of level `level` for a trace of `events` events on n_cpus CPUs. */
uint32_t lod_buckets(int level, uint64_t events, uint32_t n_cpus);

/* Sorts each CPU's switch log by time (stable: equal times keep arrival order), then
 * writes lod.npz at path. 0, or -1 (errno or memory). */
int lod_write(ingest_tally *t, const char *path);

#endif
