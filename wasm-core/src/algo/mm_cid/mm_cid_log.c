/*
 * mm_cid, the decision log: one ks_mm_cid_record per decision the allocator
 * takes (mm_cid.c and mm_cid_scan.c write it; the views, the lesson block and
 * the conformance classifier read it), the names of its paths, and its public
 * readers (ks_mm_cid_log_*). It sits below the model and the views: it knows
 * the model's state layout (mm_cid.h) but calls nothing of either.
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

/* ---- public readers ----------------------------------------------------------------------- */

static mm_cid_state *state_of(const ks_sim *sim)
{
    return sched_algo_state(sim, &mm_cid_ops);
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
    [KS_MM_CID_KEEP_TASK_CID] = { "KEEP_TASK_CID",
        "mm_cid_from_task (6.19+): per-task mode, the thread owns its cid from fork to exit and keeps it on every CPU (bound = max_cids)" },
    [KS_MM_CID_HANDOVER] = { "HANDOVER",
        "mm_cid_from_cpu / mm_cid_from_task (6.19+): after a mode change the cid passes between the thread and the CPU instead of being freed" },
    [KS_MM_CID_CONVERGE] = { "CONVERGE",
        "mm_cid_converge (6.19+): the cid (prev_cid) was >= max_cids (bound) after threads left: a lower free one replaces it" },
    [KS_MM_CID_MODE_PER_CPU] = { "MODE_PER_CPU",
        "mm_update_max_cids (6.19+): more threads (mm_users) than max_cids (bound): CPUs own the cids from now on, threads borrow them" },
    [KS_MM_CID_MODE_PER_TASK] = { "MODE_PER_TASK",
        "mm_update_max_cids (6.19+): mm_users fell below pcpu_thrs (bound): threads own cids again, the CPUs' cids are freed" },
    [KS_MM_CID_DROPPED] = { "DROPPED",
        "6.19+: a cid went back to the mm's pool: its thread exited, or a mode change's fixup found its owner not running" },
};

const char *ks_mm_cid_path_name(int32_t path)
{
    return path >= 0 && path < KS_MM_CID_PATH_COUNT ? paths[path].name : "?";
}

const char *ks_mm_cid_path_help(int32_t path)
{
    return path >= 0 && path < KS_MM_CID_PATH_COUNT ? paths[path].help : "?";
}
