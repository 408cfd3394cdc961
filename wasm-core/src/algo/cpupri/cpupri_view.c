/*
 * cpupri_view.c: view_get, the bytes kscope/cpupri/cpupri.h describes (the summary, the
 * perf c2c rows with their object and symbol names, the CPUs' levels). The rows are in
 * the order the run first touched them; readers sort them as perf does.
 */
#include <stdio.h>
#include <string.h>

#include "cpupri.h"

static void fill_summary(const cpupri_state *st, ks_sim *sim, ks_cpupri_summary *out)
{
    memset(out, 0, sizeof *out);
    out->variant = st->variant;
    out->flags = st->flags;
    out->nr_cpus = st->nr_cpus;
    out->nr_nodes = st->nr_nodes;
    out->nr_rows = st->nr_rows;
    out->mask_bytes = st->mask_bytes;
    out->set_cpus = cpumask_weight(&st->setters, st->nwords);
    out->sets = st->sets;
    out->finds = st->finds;
    out->finds_found = st->finds_found;
    out->nodes_scanned = st->nodes_scanned;
    out->finds_changed_by_inflight = st->finds_changed;
    out->accesses = st->accesses;
    out->access_ns = st->access_ns;
    out->wait_ns = st->wait_ns;
    for (int32_t i = 0; i < st->nr_objects; i++) {
        const cpupri_object *o = &st->objects[i];
        if (o->level < 0 && st->variant != KS_CPUPRI_PERNODE_KSCOPE)
            continue;
        for (int32_t l = 0; l < o->lines; l++) {
            const ks_cost_line_server *ls = &st->servers[o->first_server + l];
            if (ls->busy_ns > out->mask_line_busy_ns) {
                out->mask_line_busy_ns = ls->busy_ns;
                out->mask_line_wait_ns = ls->wait_ns;
                out->mask_line_served = ls->served;
            }
        }
    }
    out->now_ns = (double)sched_now(sim);
}

static void fill_row(const cpupri_state *st, const cpupri_row *r, ks_cpupri_c2c_row *out)
{
    memset(out, 0, sizeof *out);
    const cpupri_object *o = &st->objects[r->object];
    snprintf(out->object, sizeof out->object, "%s", o->name);
    snprintf(out->symbol, sizeof out->symbol, "%s", cpupri_site_names[r->site]);
    out->level = o->level;
    out->node = o->node;
    if (st->variant == KS_CPUPRI_PERNODE_KSCOPE && o->level < 0 && o->node >= 0 &&
        r->offset >= 448)
        out->level = (int32_t)((r->offset - 448) / (uint32_t)st->mask_bytes);
    out->offset = r->offset;
    out->line_offset = r->offset % KS_CACHE_LINE;
    out->loads = r->loads;
    out->sampled_loads = r->sampled_loads;
    out->local_hitm = r->local_hitm;
    out->remote_hitm = r->remote_hitm;
    out->stores = r->stores;
    out->store_l1_hit = r->store_l1_hit;
    out->store_l1_miss = r->store_l1_miss;
    out->load_cycles_sum = r->load_cycles_sum;
    out->wait_cycles_sum = r->wait_cycles_sum;
}

int32_t cpupri_view_get(void *state, ks_sim *sim, void *buf, uint32_t len)
{
    const cpupri_state *st = state;
    ks_cpupri_view_request req;
    if (!buf || len < sizeof req)
        return KS_ERR_RANGE;
    memcpy(&req, buf, sizeof req);
    switch (req.view) {
    case KS_CPUPRI_VIEW_SUMMARY: {
        if (len < sizeof(ks_cpupri_summary))
            return KS_ERR_RANGE;
        ks_cpupri_summary s;
        fill_summary(st, sim, &s);
        memcpy(buf, &s, sizeof s);
        return KS_OK;
    }
    case KS_CPUPRI_VIEW_C2C: {
        if (req.first < 0 || len < sizeof(ks_cpupri_c2c_row))
            return KS_ERR_RANGE;
        uint32_t n = len / (uint32_t)sizeof(ks_cpupri_c2c_row);
        ks_cpupri_c2c_row row;
        for (uint32_t i = 0; i < n && req.first + (int32_t)i < st->nr_rows; i++) {
            fill_row(st, &st->rows[req.first + (int32_t)i], &row);
            memcpy((uint8_t *)buf + i * sizeof row, &row, sizeof row);
        }
        return KS_OK;
    }
    case KS_CPUPRI_VIEW_LEVELS:
        if (len < 4u * (uint32_t)st->nr_cpus)
            return KS_ERR_RANGE;
        memcpy(buf, st->cpu_to_pri, 4u * (size_t)st->nr_cpus);
        return KS_OK;
    default:
        return KS_ERR_INVALID_ARG;
    }
}
