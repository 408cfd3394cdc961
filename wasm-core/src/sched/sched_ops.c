/*
 * The algorithm registry, and the "none" algorithm.
 *
 * ks_sim_config.algo names an entry here, optionally with a variant after a
 * colon ("mm_cid:v6.13" selects the ops named "mm_cid" and passes "v6.13" to
 * its init). "none" is the plain scheduler of core.c with no hook: tasks have
 * no concurrency id (mm_cid -1 in rseq_update), which is what a kernel
 * without CONFIG_SCHED_MM_CID, or before Linux 6.3, reports.
 *
 * An algorithm file in src/algo/ defines its `const ks_sched_ops` and adds one
 * line to `registry` below.
 */
#include <string.h>

#include "sched_ops.h"

static const ks_sched_ops none_ops = {
    .name = "none",
};

extern const ks_sched_ops mm_cid_ops;       /* src/algo/mm_cid.c */

static const ks_sched_ops *const registry[] = {
    &none_ops,
    &mm_cid_ops,
};

const ks_sched_ops *sched_ops_find(const char *algo, const char **variant)
{
    if (!algo || !algo[0])
        algo = "none";
    const char *colon = strchr(algo, ':');
    size_t len = colon ? (size_t)(colon - algo) : strlen(algo);
    *variant = colon ? colon + 1 : "";
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strlen(registry[i]->name) == len && strncmp(registry[i]->name, algo, len) == 0)
            return registry[i];
    return NULL;
}
