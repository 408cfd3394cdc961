/*
 * tally.h: what kscope-ingest counts while events stream past, batch by batch.
 *
 * The report's totals (events per type, CPUs, first and last time, distinct thread
 * ids) and the sched_switch log the summaries are built from (lod.h). Every batch
 * arrives as kscope/columns.h columns grouped by CPU, so each CPU is one run of rows:
 * CPUs are noted per run, switches go straight into their CPU's log.
 *
 * Thread ids: the current task's and those the payloads name (pid, task_pid,
 * prev_pid, next_pid, child_pid), each in (0, 2^26): a bitmap, no sort. Columns hold
 * 0 where a type has no such field, and 0 (idle) is never counted.
 */
#ifndef KSCOPE_INGEST_TALLY_H
#define KSCOPE_INGEST_TALLY_H

#include <stdint.h>
#include "kscope/native/columns.h"
#include "kscope/event.h"

#define TALLY_MAX_TID (1u << 26)

/* One CPU's sched_switch records, in arrival order. flags: bit 0 busy before (prev_pid
 * != 0), bit 1 busy after (next_pid != 0). */
typedef struct switch_log {
    int32_t cpu;
    uint32_t n, cap;
    int64_t *ts;
    uint8_t *flags;
} switch_log;

typedef struct ingest_tally {
    uint64_t events;
    uint64_t type_counts[KS_EV_TYPE_COUNT];
    int have_time;
    uint64_t t_first, t_last;
    uint64_t *tid_bits;            /* TALLY_MAX_TID bits, zero pages until touched */
    uint32_t tid_top;              /* largest thread id marked */
    switch_log *cpus;              /* one per CPU seen (switches or not), in first-seen order */
    uint32_t n_cpus, cap_cpus;
    int32_t *slot_of_cpu;          /* CPU id 0..65535 -> index in cpus, or -1 */
} ingest_tally;

int tally_init(ingest_tally *t);
void tally_free(ingest_tally *t);

/* Adds one batch: buf/offsets from ks_columns_layout/ks_columns_build (rows grouped by
 * CPU), stats from the same build. Returns 0, or -1 when memory runs out. */
int tally_add(ingest_tally *t, const uint8_t *buf, const uint64_t *offsets, uint32_t n,
              const ks_columns_stats *stats);

/* Distinct thread ids seen. */
uint64_t tally_tasks(const ingest_tally *t);

/* The CPUs seen, ascending, into out (n_cpus entries). */
void tally_sorted_cpus(const ingest_tally *t, int32_t *out);

/* The switch log of a CPU seen (NULL if not seen). */
switch_log *tally_cpu(const ingest_tally *t, int32_t cpu);

#endif
