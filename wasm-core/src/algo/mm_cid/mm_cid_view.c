/*
 * mm_cid, part three: what the lesson sees (kscope/mm_cid.h), the allocation
 * log, and the invariant check the tests run after every step.
 *
 * The log is history, not state: a snapshot keeps only how many records have
 * been logged (hdr.log_seq), and the views show the stored records below that
 * number. Stored records past it stay: the run is deterministic, so after a
 * seek back the replay logs the very same records again (they are rewritten in
 * place), and seeking forward past them finds them still there. Only a restore
 * outside the stored window (a snapshot put into a fresh simulation) starts the
 * window afresh. When the log is full (MM_CID_LOG_MAX records) the oldest half
 * goes, and ks_mm_cid_log_first_seq says where the kept part starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_cid.h"

/* ---- the log ------------------------------------------------------------------------- */

ks_mm_cid_record mm_cid_record(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m,
                               int32_t path, int32_t task, int32_t cpu)
{
    const mm_cid_pcpu *slot = cpu >= 0 ? &m->pcpu[cpu] : NULL;
    int is613 = mm_cid_is_613(st);
    return (ks_mm_cid_record){
        .ts_ns = sched_now(sim), .path = path, .tgid = m->tgid,
        .tid = task >= 0 ? sched_task_tid(sim, task) : -1, .cpu = cpu, .cid = -1,
        .prev_cid = slot ? slot->cid : -1,
        .recent_cid = slot && is613 ? slot->recent_cid : -1,
        .max_nr_cid = is613 ? m->max_nr_cid : -1, .bound = -1, .mm_users = m->mm_users,
        .other_cpu = -1,
    };
}

/* Keeps the newer half when the log is full; grows by doubling below the cap. */
static int make_room(mm_cid_state *st)
{
    if (st->log_len < st->log_cap)
        return 1;
    if (st->log_cap >= MM_CID_LOG_MAX) {
        uint32_t drop = st->log_len / 2;
        memmove(st->log, st->log + drop, (size_t)(st->log_len - drop) * sizeof *st->log);
        st->log_len -= drop;
        st->log_first_seq += drop;
        return 1;
    }
    uint32_t cap = st->log_cap ? st->log_cap * 2 : 1024;
    ks_mm_cid_record *grown = realloc(st->log, (size_t)cap * sizeof *grown);
    if (!grown)
        return 0;
    st->log = grown;
    st->log_cap = cap;
    return 1;
}

/* Starts the stored window at seq when seq is outside it. */
static void log_window_at(mm_cid_state *st, uint64_t seq)
{
    if (seq < st->log_first_seq || seq > st->log_first_seq + st->log_len) {
        st->log_first_seq = seq;
        st->log_len = 0;
    }
}

void mm_cid_log(mm_cid_state *st, const ks_mm_cid_record *r)
{
    uint64_t seq = st->hdr.log_seq++;
    log_window_at(st, seq);
    if (seq < st->log_first_seq + st->log_len) {
        st->log[seq - st->log_first_seq] = *r;  /* a replay: the same record again */
        return;
    }
    if (make_room(st)) {
        st->log[st->log_len++] = *r;
    } else {
        st->log_first_seq = seq + 1;            /* out of memory: the record is lost */
        st->log_len = 0;
    }
}

void mm_cid_log_truncate(mm_cid_state *st, uint64_t seq)
{
    log_window_at(st, seq);
}

/* Records visible at the current step: the stored ones below hdr.log_seq. */
static uint32_t log_visible(const mm_cid_state *st)
{
    uint64_t end = st->log_first_seq + st->log_len;
    if (st->hdr.log_seq < end)
        end = st->hdr.log_seq;
    return end > st->log_first_seq ? (uint32_t)(end - st->log_first_seq) : 0;
}

/* ---- public views ------------------------------------------------------------------------ */

static mm_cid_state *state_of(const ks_sim *sim)
{
    return sched_algo_state(sim, &mm_cid_ops);
}

/* The live mm of process tgid, or NULL. */
static mm_cid_mm *mm_of_tgid(mm_cid_state *st, int32_t tgid)
{
    for (int32_t e = 0; e < st->hdr.nr_pool; e++) {
        mm_cid_mm *m = (mm_cid_mm *)(st->pool + (size_t)e * st->mm_stride);
        if (m->in_use && m->tgid == tgid)
            return m;
    }
    return NULL;
}

int32_t ks_mm_cid_mm_get(const ks_sim *sim, int32_t tgid, ks_mm_cid_mm *out)
{
    mm_cid_state *st = state_of(sim);
    mm_cid_mm *m = st ? mm_of_tgid(st, tgid) : NULL;
    if (!out)
        return KS_ERR_INVALID_ARG;
    if (!m)
        return KS_ERR_NOT_FOUND;
    int is613 = mm_cid_is_613(st);
    *out = (ks_mm_cid_mm){
        .tgid = tgid, .mm = m->mm, .variant = st->variant, .race = st->race,
        .nr_cpu_ids = st->nr_cpus, .nr_cpus_allowed = is613 ? m->nr_cpus_allowed : -1,
        .max_nr_cid = is613 ? m->max_nr_cid : -1, .mm_users = m->mm_users,
        .cidmask_weight = cpumask_weight(&m->cidmask, st->nwords),
        .held_cids = cpumask_weight(&m->held, st->nwords),
        .next_scan_ns = m->next_scan, .last_scan_ns = m->last_scan, .nr_scans = m->nr_scans,
    };
    return KS_OK;
}

int32_t ks_mm_cid_mask_get(const ks_sim *sim, int32_t tgid, int32_t which, uint8_t *out,
                           int32_t len)
{
    mm_cid_state *st = state_of(sim);
    mm_cid_mm *m = st ? mm_of_tgid(st, tgid) : NULL;
    int known = which == KS_MM_CID_MASK_CIDMASK || which == KS_MM_CID_MASK_CPUS_ALLOWED;
    if (!out || len < 0 || !known)
        return KS_ERR_INVALID_ARG;
    if (!m)
        return KS_ERR_NOT_FOUND;
    int32_t need = (st->nr_cpus + 7) / 8;
    if (len < need)
        return KS_ERR_RANGE;
    const cpumask *mask = which == KS_MM_CID_MASK_CIDMASK ? &m->cidmask : &m->cpus_allowed;
    int show = which == KS_MM_CID_MASK_CIDMASK || mm_cid_is_613(st);
    for (int32_t i = 0; i < need; i++)
        out[i] = show ? (uint8_t)(mask->bits[i / 8] >> (8 * (i % 8))) : 0;
    return KS_OK;
}

int32_t ks_mm_cid_pcpu_get(const ks_sim *sim, int32_t tgid, ks_mm_cid_pcpu *out, int32_t n)
{
    mm_cid_state *st = state_of(sim);
    mm_cid_mm *m = st ? mm_of_tgid(st, tgid) : NULL;
    if (!out || n < 0)
        return KS_ERR_INVALID_ARG;
    if (!m)
        return KS_ERR_NOT_FOUND;
    if (n < st->nr_cpus)
        return KS_ERR_RANGE;
    for (int32_t cpu = 0; cpu < st->nr_cpus; cpu++) {
        const mm_cid_pcpu *slot = &m->pcpu[cpu];
        int32_t curr = mm_cid_curr_of_mm(st, sim, m, cpu);
        out[cpu] = (ks_mm_cid_pcpu){
            .cpu = cpu, .cid = slot->cid, .recent_cid = slot->recent_cid,
            .lazy_put = slot->lazy_put, .running_tid = curr >= 0 ? sched_task_tid(sim, curr) : -1,
            .time_ns = slot->time,
        };
    }
    return KS_OK;
}

uint32_t ks_mm_cid_log_count(const ks_sim *sim)
{
    mm_cid_state *st = state_of(sim);
    return st ? log_visible(st) : 0;
}

uint64_t ks_mm_cid_log_first_seq(const ks_sim *sim)
{
    mm_cid_state *st = state_of(sim);
    return st ? st->log_first_seq : 0;
}

const ks_mm_cid_record *ks_mm_cid_log_records(const ks_sim *sim)
{
    mm_cid_state *st = state_of(sim);
    return st ? st->log : NULL;
}

/* ---- path names -------------------------------------------------------------------------- */

static const struct {
    const char *name;
    const char *help;
} paths[KS_MM_CID_PATH_COUNT] = {
    [KS_MM_CID_KEEP_PCPU_CID] = { "KEEP_PCPU_CID",
        "mm_cid_get: this CPU still owns a cid for the mm (lazy put kept it): the thread takes it, no cidmask access" },
    [KS_MM_CID_RECENT_CID] = { "RECENT_CID",
        "__mm_cid_try_get (6.13+): the cid this CPU used last (recent_cid) was free: the thread gets its old data back" },
    [KS_MM_CID_EXPAND_MAX_NR_CID] = { "EXPAND_MAX_NR_CID",
        "__mm_cid_try_get (6.13+): no usable hint; max_nr_cid < bound = min(nr_cpus_allowed, mm_users), so a never-used cid is taken and max_nr_cid grows" },
    [KS_MM_CID_FIRST_FREE] = { "FIRST_FREE",
        "__mm_cid_try_get: the lowest free cid below bound (nr_cpu_ids on 6.12, mm->nr_cpus_allowed on 6.13+)" },
    [KS_MM_CID_PUT_LAZY] = { "PUT_LAZY",
        "mm_cid_put_lazy / mm_cid_get: the slot's cid carried LAZY_PUT (a remote clear wanted it): freed before anything else" },
    [KS_MM_CID_MIGRATE_TAKEN_FROM_SRC] = { "MIGRATE_TAKEN_FROM_SRC",
        "sched_mm_cid_migrate_to: dst had no cid, so the task's cid moved with it from the source CPU (other_cpu)" },
    [KS_MM_CID_MIGRATE_SRC_DROPPED] = { "MIGRATE_SRC_DROPPED",
        "sched_mm_cid_migrate_to: dst already had a cid and mm_users < bound, so the source CPU's cid was freed (compaction)" },
    [KS_MM_CID_MIGRATE_KEPT_SRC] = { "MIGRATE_KEPT_SRC",
        "sched_mm_cid_migrate_to: dst had a cid (6.13+: or a recent_cid) and mm_users >= bound (6.12: the task's nr_cpus_allowed, 6.13+: the mm's), so the source CPU keeps the task's old cid" },
    [KS_MM_CID_MIGRATE_SRC_IN_USE] = { "MIGRATE_SRC_IN_USE",
        "__sched_mm_cid_migrate_from_fetch_cid: another thread of the mm runs on the source CPU and uses that cid: nothing moves" },
    [KS_MM_CID_SCAN] = { "SCAN",
        "task_mm_cid_work: a tick found a thread of the mm running after mm_cid_next_scan: scan every CPU (bound = cids taken before)" },
    [KS_MM_CID_SCAN_DROPPED_OLD] = { "SCAN_DROPPED_OLD",
        "sched_mm_cid_remote_clear_old: the CPU had not used its cid for age_ns >= 100 ms (SCHED_MM_CID_PERIOD_NS): taken back" },
    [KS_MM_CID_COMPACT_DROPPED] = { "COMPACT_DROPPED",
        "sched_mm_cid_remote_clear_weight: the cid was >= bound, the number of cids still taken: taken back to keep cids compact" },
    [KS_MM_CID_MARKED_LAZY] = { "MARKED_LAZY",
        "sched_mm_cid_remote_clear: a thread of the mm runs on that CPU, so its cid only got LAZY_PUT; the thread frees it at switch-out" },
    [KS_MM_CID_EXIT_PUT] = { "EXIT_PUT",
        "sched_mm_cid_exit_signals: the exiting thread's CPU gives its cid back at once" },
    [KS_MM_CID_REMOTE_CLEAR_HELD] = { "REMOTE_CLEAR_HELD",
        "the race: a remote clear emptied the slot but has not freed the cid yet; an allocation now sees it taken" },
    [KS_MM_CID_REMOTE_CLEAR_DONE] = { "REMOTE_CLEAR_DONE",
        "the race is over: the remote clear freed the cid it held" },
    [KS_MM_CID_MAX_NR_CID_SHRUNK] = { "MAX_NR_CID_SHRUNK",
        "__mm_cid_try_get (6.18, 02d954c0): fewer threads or CPUs than max_nr_cid (prev_cid holds the old value): cut to bound" },
};

const char *ks_mm_cid_path_name(int32_t path)
{
    return path >= 0 && path < KS_MM_CID_PATH_COUNT ? paths[path].name : "?";
}

const char *ks_mm_cid_path_help(int32_t path)
{
    return path >= 0 && path < KS_MM_CID_PATH_COUNT ? paths[path].help : "?";
}

/* ---- invariants -------------------------------------------------------------------------- */

static int32_t fail(char *why, int32_t len, const char *fmt, int a, int b, int c)
{
    if (why && len > 0)
        snprintf(why, (size_t)len, fmt, a, b, c);
    return -1;
}

/* Slots own distinct cids below the bound; every cidmask bit is a slot's or held. */
static int32_t check_slots(const mm_cid_state *st, const mm_cid_mm *m, char *why, int32_t len)
{
    cpumask owned = { { 0 } };
    int32_t bound = mm_cid_is_613(st) ? m->nr_cpus_allowed : st->nr_cpus;
    for (int32_t cpu = 0; cpu < st->nr_cpus; cpu++) {
        int32_t cid = m->pcpu[cpu].cid;
        if (cid == MM_CID_UNSET)
            continue;
        if (cid < 0 || cid >= bound)
            return fail(why, len, "mm %d: CPU %d owns cid %d, out of bound", m->mm, cpu, cid);
        if (cpumask_test(&owned, cid) || cpumask_test(&m->held, cid))
            return fail(why, len, "mm %d: cid %d owned twice (CPU %d)", m->mm, cid, cpu);
        cpumask_set(&owned, cid);
    }
    for (int32_t w = 0; w < st->nwords; w++)
        if (m->cidmask.bits[w] != (owned.bits[w] | m->held.bits[w]))
            return fail(why, len, "mm %d: cidmask word %d differs from the owned cids (%d)",
                        m->mm, w, 0);
    return 0;
}

/* A running thread's cid is its CPU's; a thread not running has none. */
static int32_t check_tasks(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m,
                           char *why, int32_t len)
{
    for (int32_t t = 0; t < st->hdr.nr_tasks; t++) {
        if (sched_task_mm(sim, t) != m->mm || !st->tasks[t].active)
            continue;
        int32_t cpu = sched_task_cpu(sim, t);
        int running = sched_task_state(sim, t) == KS_TASK_RUNNING && sched_cpu_curr(sim, cpu) == t;
        int32_t want = running ? m->pcpu[cpu].cid : -1;
        if (st->tasks[t].mm_cid != want || (running && want < 0))
            return fail(why, len, "task %d: mm_cid %d, its CPU's slot says %d",
                        sched_task_tid(sim, t), st->tasks[t].mm_cid, want);
    }
    return 0;
}

int32_t mm_cid_check_invariants(const ks_sim *sim, char *why, int32_t why_len)
{
    mm_cid_state *st = state_of(sim);
    if (!st)
        return 0;
    for (int32_t e = 0; e < st->hdr.nr_pool; e++) {
        const mm_cid_mm *m = (const mm_cid_mm *)(st->pool + (size_t)e * st->mm_stride);
        if (!m->in_use)
            continue;
        if (check_slots(st, m, why, why_len) || check_tasks(st, sim, m, why, why_len))
            return -1;
        if (mm_cid_is_613(st) && m->max_nr_cid > m->nr_cpus_allowed)
            return fail(why, why_len, "mm %d: max_nr_cid %d > nr_cpus_allowed %d", m->mm,
                        m->max_nr_cid, m->nr_cpus_allowed);
    }
    return 0;
}
