/*
 * The algorithm registry, and the "none" algorithm.
 *
 * ks_sim_config.algo names an entry here, optionally with a variant after a
 * colon ("<name>:<variant>" selects the ops named <name> and passes <variant>
 * to its init). "none" is the plain scheduler of core.c with no hook: tasks
 * have no concurrency id (-1 in rseq_update), which is what a kernel without
 * concurrency ids (before Linux 6.3) reports.
 *
 * An algorithm's folder src/algo/<name>/ defines its `const ks_sched_ops` and
 * adds one line to `registry` below (and its extern); the lines marked
 * "registry" are the only ones in the generic core that name a model
 * (scripts/check-c-layering.mjs checks that).
 *
 * The externs are weak: the browser's wasm module compiles in only the models with a browser
 * bridge (wasm-core/bindings/browser_models.txt; the browser build carries only what the
 * browser calls), and a model left out is a NULL entry here, which no lookup matches. The
 * native builds compile every model.
 */
#include <string.h>

#include "sched_ops.h"

#define KS_WEAK_MODEL __attribute__((weak))

static const ks_sched_ops none_ops = {
    .name = "none",
};

extern const ks_sched_ops mm_cid_ops KS_WEAK_MODEL; /* registry: src/algo/mm_cid/ */
extern const ks_sched_ops cpupri_ops KS_WEAK_MODEL; /* registry: src/algo/cpupri/ */
extern const ks_sched_ops sheaves_ops KS_WEAK_MODEL; /* registry: src/algo/sheaves/ */

static const ks_sched_ops *const registry[] = {
    &none_ops,
    &mm_cid_ops,                            /* registry */
    &cpupri_ops,                            /* registry */
    &sheaves_ops,                           /* registry */
};

const ks_sched_ops *sched_ops_find(const char *algo, const char **variant)
{
    if (!algo || !algo[0])
        algo = "none";
    const char *colon = strchr(algo, ':');
    size_t len = colon ? (size_t)(colon - algo) : strlen(algo);
    *variant = colon ? colon + 1 : "";
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i] && strlen(registry[i]->name) == len && strncmp(registry[i]->name, algo, len) == 0)
            return registry[i];
    return NULL;
}

/* "auto" for a workload with a process that registers rseq: every kernel since 6.3 built
 * with concurrency ids (default y wherever rseq is built in; Debian's 6.12 and 7.x
 * configs have them) gives each thread a cid and reports it in rseq_update, so such a
 * workload runs the newest cid model (this machine's 6.18). */
const char *sched_ops_auto_rseq(void)
{
    return "mm_cid:v6.18";                  /* registry: the auto choice */
}
