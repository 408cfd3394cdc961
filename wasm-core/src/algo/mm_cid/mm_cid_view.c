/*
 * mm_cid, part three: what the lesson sees (kscope/mm_cid/mm_cid.h) and the invariant
 * check the tests run after every step. The decision log they read is
 * mm_cid_log.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_cid.h"

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

/* ---- ks_sim_model_view_get ----------------------------------------------------------- */

int32_t mm_cid_view_get(void *state, ks_sim *sim, void *buf, uint32_t len)
{
    (void)state;
    ks_mm_cid_view_request q;
    if (len < sizeof q)
        return KS_ERR_RANGE;
    memcpy(&q, buf, sizeof q);
    int32_t room = len > INT32_MAX ? INT32_MAX : (int32_t)len;
    switch (q.view) {
    case KS_MM_CID_VIEW_LESSON_SIZE: {
        uint32_t size = ks_mm_cid_lesson_size(sim);
        memcpy(buf, &size, sizeof size);
        return KS_OK;
    }
    case KS_MM_CID_VIEW_LESSON:
        return ks_mm_cid_lesson_get(sim, q.tgid, buf, len);
    case KS_MM_CID_VIEW_MM: {
        ks_mm_cid_mm mm;
        if (len < sizeof mm)
            return KS_ERR_RANGE;
        int32_t status = ks_mm_cid_mm_get(sim, q.tgid, &mm);
        if (status == KS_OK)
            memcpy(buf, &mm, sizeof mm);
        return status;
    }
    case KS_MM_CID_VIEW_MASK:
        return ks_mm_cid_mask_get(sim, q.tgid, q.arg, buf, room);
    case KS_MM_CID_VIEW_PCPU:
        if ((uint64_t)sched_nr_cpus(sim) * sizeof(ks_mm_cid_pcpu) > len)
            return KS_ERR_RANGE;
        return ks_mm_cid_pcpu_get(sim, q.tgid, buf, room / (int32_t)sizeof(ks_mm_cid_pcpu));
    case KS_MM_CID_VIEW_LOG: {
        ks_mm_cid_log_view log = {
            .first_seq = ks_mm_cid_log_first_seq(sim),
            .records = (uint64_t)(uintptr_t)ks_mm_cid_log_records(sim),
            .count = ks_mm_cid_log_count(sim),
        };
        if (len < sizeof log)
            return KS_ERR_RANGE;
        memcpy(buf, &log, sizeof log);
        return KS_OK;
    }
    case KS_MM_CID_VIEW_PATH: {
        if (q.arg < 0 || q.arg >= KS_MM_CID_PATH_COUNT)
            return KS_ERR_NOT_FOUND;
        const char *name = ks_mm_cid_path_name(q.arg), *help = ks_mm_cid_path_help(q.arg);
        size_t n = strlen(name) + 1, h = strlen(help) + 1;
        if (n + h > len)
            return KS_ERR_RANGE;
        memcpy(buf, name, n);
        memcpy((char *)buf + n, help, h);
        return KS_OK;
    }
    default:
        return KS_ERR_NOT_FOUND;
    }
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
        if (st->variant == KS_MM_CID_V6_19) {
            if (mm_cid_v619_check(st, sim, m, why, why_len))
                return -1;
            continue;
        }
        if (check_slots(st, m, why, why_len) || check_tasks(st, sim, m, why, why_len))
            return -1;
        if (mm_cid_is_613(st) && m->max_nr_cid > m->nr_cpus_allowed)
            return fail(why, why_len, "mm %d: max_nr_cid %d > nr_cpus_allowed %d", m->mm,
                        m->max_nr_cid, m->nr_cpus_allowed);
    }
    return 0;
}
