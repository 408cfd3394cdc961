/*
 * The cache-line cost model: where each 64-byte line of the simulated kernel
 * objects lives, and what a load or store of it costs.
 *
 * The problem. The seed patches are about data that is in the wrong cache at
 * the wrong time: a concurrency id's 16 KiB data area that went cold (or sits in
 * another LLC) by the time a thread runs again (seed 000), an RT priority-map mask that
 * every CPU reads while a few CPUs keep writing it (seed 001, perf c2c's HITM
 * table), a barn->lock bouncing between sockets (seed 002). To teach them we
 * need, per access, "which cache had this line, and how far away was it", and
 * per line and word the counters perf c2c shows. A full set-associative
 * simulator of 192 cores would be slow and would need the whole machine's
 * traffic as input; we have only the kernel objects of the lesson.
 *
 * The idea. Track each line's holders, not the caches. A line has a short list
 * of private caches (a core's L1d+L2; SMT siblings share it) holding a copy,
 * each with a MESI-like state and the time it was last touched, and a short
 * list of LLCs holding it. Everything else the machine does is summarised as a
 * background traffic rate (ks_cache_params): a copy nobody touched for longer
 * than capacity / rate has been pushed out by that other work. So a private
 * copy is in L1 while its age is below l1d / rate, in L2 while below l2 / rate,
 * and then it is gone; when it leaves L2 it drops into its LLC as a victim (as
 * on Zen's victim L3 and Intel's non-inclusive L3), where it lives for
 * l3 / llc_rate more. Decay is evaluated lazily: at the next access to a line
 * (or a view of it), from the stored times, so idle lines cost nothing.
 *
 *     line_state (176 bytes)                          one line, seen machine-wide
 *     +-----------------------------------------+
 *     | private slots (<= 8):  core  state  t   |     core 17  M  t=1200   <- only slot
 *     |                        ...              |        when state is M or E
 *     | LLC slots (<= 8):      llc   t          |     llc 3       t=900    (victims)
 *     +-----------------------------------------+
 *       + ks_line_stats (16 B) + 8 word stats (128 B, if track_words)
 *
 *     age of a private copy: 0 ....... l1_ns ....... l2_ns ........... gone
 *                               L1            L2         -> its LLC, t += l2_ns
 *     age of an LLC copy:    0 ...................... llc_ns ......... gone
 *
 * Where a load finds the line, nearest first: own private cache (L1 or L2 by
 * age); a core holding it Modified (must supply it: a HITM, local if that core
 * is in the loader's NUMA node, remote otherwise, as perf c2c counts; the owner
 * drops to Shared); else the nearest copy: own LLC, another core of the same
 * LLC, another LLC or core of the same socket, another socket; else DRAM, local
 * if the object's home node is on the loader's socket. The loader gets the line
 * Exclusive when no other private cache has it, Shared otherwise.
 *
 * A store needs the line Modified in its own private cache: from E or M it is a
 * private hit; otherwise every other copy must be invalidated, so it costs the
 * farthest copy's distance (at least the LLC when upgrading our own Shared
 * copy: the request goes through the LLC's directory), or DRAM if there is no
 * copy. Stores into a line Modified elsewhere are counted as stores, not HITMs.
 *
 * Invariants (tests/test_cache_model.c checks them after random sequences):
 *   - a line has at most one private slot per core and one LLC slot per LLC;
 *   - a slot in state M or E is the line's only private slot; while a slot is
 *     M the line has no LLC slot either: a store leaves exactly one copy (an E
 *     copy may coexist with clean LLC copies, as after a load from the LLC);
 *   - costs depend only on the stored state and now_ns: the same accesses from
 *     the same state (ks_cache_snapshot_restore) give the same costs.
 *
 * Approximations (kept on purpose; each is a knob to revisit if a lesson needs it):
 *   - Holder lists are bounded (LINE_PRIV_SLOTS / LINE_LLC_SLOTS = 8 each). A
 *     line read by more cores keeps the 8 most recently used private copies;
 *     the oldest is evicted into its LLC. Readers beyond 8 then hit their LLC
 *     instead of their L1: a read-mostly line shared by hundreds of CPUs looks
 *     a little colder than it is. Memory: 176 B of state + 16 B of counters per
 *     line (+128 B with word counters): 19 MB for 100k lines, 32 MB with word
 *     counters, independent of the core count. A sharer bitmap sized by cores would be
 *     exact but needs a time per (line, core) to decay: 1.5 KiB per line at 192
 *     cores, 150 MB for 100k lines.
 *   - Eviction is by time only: the modelled objects' own traffic does not push
 *     other modelled lines out (a 4 MiB object sweep still hits L1). Their size
 *     is assumed small next to the background.
 *   - No memory-level parallelism: costs add up line by line (see cache.h).
 *   - DRAM is local or remote by socket: SNC/NPS sub-node distances are below
 *     the table's resolution (AnandTech measured NPS4 vs NPS1 within ~7% on
 *     Rome). A node spanning sockets (spr-2s interleaves DRAM across both) homes
 *     its 4 KiB pages on its sockets in turn (ASSUMPTION: the interleave
 *     granularity).
 *   - No write-back cost, no prefetching, no contention queueing.
 */
#include <stdlib.h>
#include <string.h>

#include "cache_model.h"

/*
 * Default background traffic: an ASSUMPTION about the "other work" each core
 * does between the modelled accesses; exposed in ks_cache_params so a lesson or
 * a user can change it, and 0 turns eviction off.
 *
 * 1000 bytes/us (1 GB/s, one new 64-byte line every 64 ns) per core is about a
 * fifth of a Genoa core's fair share of DRAM bandwidth (12 channels of DDR5-4800
 * x 8 B = 460.8 GB/s per socket, AMD's EPYC 9004 spec, / 96 cores = 4.8 GB/s):
 * a busy but not memory-bound core. It gives a 32 KiB L1d a ~33 us lifetime and
 * a 1 MiB L2 ~1 ms. The LLC default is that rate times the 8 cores of a Zen 4
 * CCX (8000 bytes/us): a 32 MiB L3 turns over in ~4.2 ms. For the presets with a
 * whole socket per LLC the true per-LLC rate is higher; we keep one default for
 * every machine rather than tune per preset.
 */
#define DEFAULT_PRIVATE_BYTES_PER_US 1000
#define DEFAULT_LLC_BYTES_PER_US 8000
/* Word counters on by default: perf c2c's offsets within a line are what the
 * false-sharing lessons show. Cost: 128 B per line. */
#define DEFAULT_TRACK_WORDS 1

/* Sizes for an imported topology that did not report them: Zen 4's per-core
 * L1d/L2 and per-CCX L3 (AMD EPYC 9004 spec), an ASSUMPTION. */
#define FALLBACK_L1D_BYTES (32u * 1024)
#define FALLBACK_L2_BYTES (1024u * 1024)
#define FALLBACK_L3_BYTES (32u * 1024 * 1024)

/* A node spanning several sockets interleaves its memory by pages of this many lines. */
#define INTERLEAVE_LINES (4096 / KS_CACHE_LINE)

#define NEVER UINT64_MAX

void ks_cache_default_params(ks_cache_params *out)
{
    if (!out)
        return;
    *out = (ks_cache_params){
        .private_background_bytes_per_us = DEFAULT_PRIVATE_BYTES_PER_US,
        .llc_background_bytes_per_us = DEFAULT_LLC_BYTES_PER_US,
        .track_words = DEFAULT_TRACK_WORDS,
        .reserved = 0,
    };
}

int32_t cache_check_params(const ks_cache_params *p)
{
    if (p->private_background_bytes_per_us < 0 || p->llc_background_bytes_per_us < 0)
        return KS_ERR_INVALID_ARG;
    if (p->track_words != 0 && p->track_words != 1)
        return KS_ERR_INVALID_ARG;
    return KS_OK;
}

/* bytes / (bytes per us), in ns; a rate of 0 means never evicted. */
static uint64_t residency_ns(uint64_t bytes, int32_t bytes_per_us)
{
    if (bytes_per_us <= 0)
        return NEVER;
    return bytes * 1000u / (uint64_t)bytes_per_us;
}

void cache_apply_params(ks_cache *cache, const ks_cache_params *params)
{
    cache->params = *params;
    cache->l1_ns = residency_ns(cache->l1_bytes, params->private_background_bytes_per_us);
    cache->l2_ns = residency_ns(cache->l2_bytes, params->private_background_bytes_per_us);
    cache->llc_ns = residency_ns(cache->l3_bytes, params->llc_background_bytes_per_us);
}

/* ---- topology maps ------------------------------------------------------- */

static int32_t *alloc_ids(int32_t n)
{
    int32_t *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    if (a)
        for (int32_t i = 0; i < n; i++)
            a[i] = -1;
    return a;
}

static void free_maps(ks_cache *c)
{
    free(c->cpu_core);
    free(c->cpu_node);
    free(c->core_llc);
    free(c->core_node);
    free(c->core_socket);
    free(c->llc_socket);
    free(c->node_sockets);
    free(c->node_socket_count);
}

/* Records that node's CPUs include one on socket (each socket once, in CPU order). */
static void add_node_socket(ks_cache *c, int32_t node, int32_t socket)
{
    int32_t *list = &c->node_sockets[node * c->sockets];
    for (int32_t i = 0; i < c->node_socket_count[node]; i++)
        if (list[i] == socket)
            return;
    list[c->node_socket_count[node]++] = socket;
}

static int32_t build_maps(ks_cache *c, const ks_topology *topo)
{
    ks_topology_summary s;
    int32_t rc = ks_topology_summarize(topo, &s);
    if (rc != KS_OK)
        return rc;
    const ks_cpu *cpus = ks_topology_cpus(topo);
    if (!cpus || s.cpus <= 0 || s.cores <= 0 || s.llcs <= 0 || s.nodes <= 0 || s.sockets <= 0)
        return KS_ERR_INVALID_ARG;
    if (s.cores > UINT16_MAX || s.llcs > UINT16_MAX)
        return KS_ERR_RANGE;   /* line_state keeps core and LLC ids in 16 bits */
    c->cpus = s.cpus;
    c->cores = s.cores;
    c->llcs = s.llcs;
    c->nodes = s.nodes;
    c->sockets = s.sockets;
    c->l1_bytes = s.l1d_kib > 0 ? (uint64_t)s.l1d_kib * 1024 : FALLBACK_L1D_BYTES;
    c->l2_bytes = s.l2_kib > 0 ? (uint64_t)s.l2_kib * 1024 : FALLBACK_L2_BYTES;
    c->l3_bytes = s.l3_kib > 0 ? (uint64_t)s.l3_kib * 1024 : FALLBACK_L3_BYTES;

    c->cpu_core = alloc_ids(s.cpus);
    c->cpu_node = alloc_ids(s.cpus);
    c->core_llc = alloc_ids(s.cores);
    c->core_node = alloc_ids(s.cores);
    c->core_socket = alloc_ids(s.cores);
    c->llc_socket = alloc_ids(s.llcs);
    c->node_sockets = alloc_ids(s.nodes * s.sockets);
    c->node_socket_count = calloc((size_t)s.nodes, sizeof *c->node_socket_count);
    if (!c->cpu_core || !c->cpu_node || !c->core_llc || !c->core_node || !c->core_socket
        || !c->llc_socket || !c->node_sockets || !c->node_socket_count)
        return KS_ERR_NO_MEMORY;

    for (int32_t i = 0; i < s.cpus; i++) {
        const ks_cpu *p = &cpus[i];
        if (p->core < 0 || p->core >= s.cores || p->llc < 0 || p->llc >= s.llcs
            || p->node < 0 || p->node >= s.nodes || p->socket < 0 || p->socket >= s.sockets)
            return KS_ERR_INVALID_ARG;
        c->cpu_core[i] = p->core;
        c->cpu_node[i] = p->node;
        c->core_llc[p->core] = p->llc;
        c->core_node[p->core] = p->node;
        c->core_socket[p->core] = p->socket;
        c->llc_socket[p->llc] = p->socket;
        add_node_socket(c, p->node, p->socket);
    }
    return KS_OK;
}

int32_t ks_cache_new(const ks_topology *topo, const ks_cache_params *params, ks_cache **out)
{
    if (!topo || !out)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    ks_cache_params p;
    if (params)
        p = *params;
    else
        ks_cache_default_params(&p);
    int32_t rc = cache_check_params(&p);
    if (rc != KS_OK)
        return rc;

    ks_cache *c = calloc(1, sizeof *c);
    if (!c)
        return KS_ERR_NO_MEMORY;
    rc = build_maps(c, topo);
    if (rc == KS_OK)
        rc = ks_topology_latency(topo, &c->table);
    if (rc == KS_OK && c->table.core_mhz <= 0)
        rc = KS_ERR_INVALID_ARG;
    if (rc != KS_OK) {
        free_maps(c);
        free(c);
        return rc;
    }
    cache_apply_params(c, &p);
    *out = c;
    return KS_OK;
}

void cache_free_objects(ks_cache *c)
{
    for (int32_t i = 0; i < c->n_objects; i++)
        free(c->objects[i].name);
    free(c->objects);
    free(c->lines);
    free(c->line_stats);
    free(c->word_stats);
    free(c->places);
    c->objects = NULL;
    c->lines = NULL;
    c->line_stats = NULL;
    c->word_stats = NULL;
    c->places = NULL;
    c->n_objects = c->cap_objects = 0;
    c->n_lines = c->cap_lines = 0;
    c->cap_places = 0;
}

void ks_cache_free(ks_cache *cache)
{
    if (!cache)
        return;
    cache_free_objects(cache);
    free_maps(cache);
    free(cache);
}

/* ---- objects ------------------------------------------------------------- */

/* Grows *p from old_n to new_n elements of size, zeroing the new tail. */
static int grow_zeroed(void **p, size_t old_n, size_t new_n, size_t size)
{
    void *q = realloc(*p, new_n * size);
    if (!q)
        return 0;
    memset((char *)q + old_n * size, 0, (new_n - old_n) * size);
    *p = q;
    return 1;
}

static int32_t reserve_lines(ks_cache *c, uint32_t need)
{
    if (need <= c->cap_lines)
        return KS_OK;
    uint64_t cap = c->cap_lines ? c->cap_lines : 64;
    while (cap < need)
        cap *= 2;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    if (!grow_zeroed((void **)&c->lines, c->cap_lines, cap, sizeof *c->lines)
        || !grow_zeroed((void **)&c->line_stats, c->cap_lines, cap, sizeof *c->line_stats)
        || (c->params.track_words
            && !grow_zeroed((void **)&c->word_stats, (size_t)c->cap_lines * WORDS_PER_LINE,
                            (size_t)cap * WORDS_PER_LINE, sizeof *c->word_stats)))
        return KS_ERR_NO_MEMORY;   /* arrays already grown stay valid, cap unchanged */
    c->cap_lines = (uint32_t)cap;
    return KS_OK;
}

int32_t ks_cache_add_object(ks_cache *cache, const char *name, uint32_t size_bytes,
                            int32_t home_node, int32_t *out_id)
{
    if (!cache || !name || !out_id || size_bytes == 0)
        return KS_ERR_INVALID_ARG;
    if (home_node < 0 || home_node >= cache->nodes)
        return KS_ERR_RANGE;
    uint32_t lines = (uint32_t)(((uint64_t)size_bytes + KS_CACHE_LINE - 1) / KS_CACHE_LINE);
    if ((uint64_t)cache->n_lines + lines > UINT32_MAX || cache->n_objects == INT32_MAX)
        return KS_ERR_RANGE;

    int32_t rc = reserve_lines(cache, cache->n_lines + lines);
    if (rc != KS_OK)
        return rc;
    if (lines > cache->cap_places) {
        ks_line_place *pl = realloc(cache->places, (size_t)lines * sizeof *pl);
        if (!pl)
            return KS_ERR_NO_MEMORY;
        cache->places = pl;
        cache->cap_places = lines;
    }
    if (cache->n_objects == cache->cap_objects) {
        int32_t cap = cache->cap_objects ? cache->cap_objects * 2 : 16;
        if (!grow_zeroed((void **)&cache->objects, (size_t)cache->cap_objects, (size_t)cap,
                         sizeof *cache->objects))
            return KS_ERR_NO_MEMORY;
        cache->cap_objects = cap;
    }
    size_t name_len = strlen(name);
    char *copy = malloc(name_len + 1);
    if (!copy)
        return KS_ERR_NO_MEMORY;
    memcpy(copy, name, name_len + 1);

    cache->objects[cache->n_objects] = (cache_object){
        .name = copy,
        .size_bytes = size_bytes,
        .lines = lines,
        .first_line = cache->n_lines,
        .home_node = home_node,
    };
    cache->n_lines += lines;
    *out_id = cache->n_objects++;
    return KS_OK;
}

int32_t ks_cache_object_count(const ks_cache *cache)
{
    return cache ? cache->n_objects : 0;
}

static const cache_object *object_at(const ks_cache *cache, int32_t object)
{
    if (!cache || object < 0 || object >= cache->n_objects)
        return NULL;
    return &cache->objects[object];
}

const char *ks_cache_object_name(const ks_cache *cache, int32_t object)
{
    const cache_object *o = object_at(cache, object);
    return o ? o->name : NULL;
}

uint32_t ks_cache_object_lines(const ks_cache *cache, int32_t object)
{
    const cache_object *o = object_at(cache, object);
    return o ? o->lines : 0;
}

/* ---- one line: decay ----------------------------------------------------- */

static inline uint64_t age_at(uint64_t now, uint64_t t)
{
    return now > t ? now - t : 0;
}

static inline uint64_t add_saturating(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A copy of the line arrives in llc at time t (a victim from a private cache). */
static void llc_fill(line_state *ls, uint16_t llc, uint64_t t)
{
    for (uint8_t i = 0; i < ls->n_llc; i++)
        if (ls->llc_id[i] == llc) {
            if (t > ls->llc_time[i])
                ls->llc_time[i] = t;
            return;
        }
    if (ls->n_llc < LINE_LLC_SLOTS) {
        ls->llc_id[ls->n_llc] = llc;
        ls->llc_time[ls->n_llc++] = t;
        return;
    }
    uint8_t oldest = 0;     /* list full: the least recently touched LLC copy goes */
    for (uint8_t i = 1; i < ls->n_llc; i++)
        if (ls->llc_time[i] < ls->llc_time[oldest])
            oldest = i;
    if (ls->llc_time[oldest] < t) {
        ls->llc_id[oldest] = llc;
        ls->llc_time[oldest] = t;
    }
}

/* Drops what decayed by now: private copies older than l2_ns fall into their
 * LLC (as of the moment they left L2), LLC copies older than llc_ns vanish. */
static void line_decay(const ks_cache *c, line_state *ls, uint64_t now)
{
    uint8_t keep = 0;
    for (uint8_t i = 0; i < ls->n_priv; i++) {
        uint64_t t = ls->priv_time[i];
        if (age_at(now, t) <= c->l2_ns) {
            ls->priv_time[keep] = t;
            ls->priv_core[keep] = ls->priv_core[i];
            ls->priv_state[keep++] = ls->priv_state[i];
            continue;
        }
        uint64_t left_l2 = add_saturating(t, c->l2_ns);
        if (age_at(now, left_l2) <= c->llc_ns)
            llc_fill(ls, (uint16_t)c->core_llc[ls->priv_core[i]], left_l2);
    }
    ls->n_priv = keep;
    keep = 0;
    for (uint8_t i = 0; i < ls->n_llc; i++)
        if (age_at(now, ls->llc_time[i]) <= c->llc_ns) {
            ls->llc_time[keep] = ls->llc_time[i];
            ls->llc_id[keep++] = ls->llc_id[i];
        }
    ls->n_llc = keep;
}

/* ---- one line: distances ------------------------------------------------- */

static inline int priv_level(const ks_cache *c, uint64_t t, uint64_t now)
{
    return age_at(now, t) <= c->l1_ns ? KS_SRC_L1 : KS_SRC_L2;
}

/* Where core's request finds a copy in holder's private cache. */
static inline int core_distance(const ks_cache *c, int32_t core, int32_t holder)
{
    if (c->core_llc[core] == c->core_llc[holder])
        return KS_SRC_SAME_LLC_CORE;
    if (c->core_socket[core] == c->core_socket[holder])
        return KS_SRC_OTHER_LLC;
    return KS_SRC_OTHER_SOCKET;
}

/* Where core's request finds a copy in LLC llc. */
static inline int llc_distance(const ks_cache *c, int32_t core, int32_t llc)
{
    if (c->core_llc[core] == llc)
        return KS_SRC_LLC;
    if (c->core_socket[core] == c->llc_socket[llc])
        return KS_SRC_OTHER_LLC;
    return KS_SRC_OTHER_SOCKET;
}

static inline int dram_source(const ks_cache *c, int32_t core, int32_t home_socket)
{
    return home_socket == c->core_socket[core] ? KS_SRC_DRAM_LOCAL : KS_SRC_DRAM_REMOTE;
}

/* The socket whose DRAM holds line (index within its object). */
static int32_t home_socket_of(const ks_cache *c, const cache_object *o, uint32_t line)
{
    int32_t n = c->node_socket_count[o->home_node];
    if (n == 0)
        return -1;     /* a memory-only node: remote to every CPU */
    return c->node_sockets[o->home_node * c->sockets + (int32_t)((line / INTERLEAVE_LINES) % (uint32_t)n)];
}

static int find_priv(const line_state *ls, int32_t core)
{
    for (int i = 0; i < ls->n_priv; i++)
        if (ls->priv_core[i] == core)
            return i;
    return -1;
}

/* Adds core's copy; a full list first evicts its least recently touched copy
 * into that core's LLC. */
static void priv_insert(const ks_cache *c, line_state *ls, int32_t core, uint8_t state, uint64_t now)
{
    if (ls->n_priv == LINE_PRIV_SLOTS) {
        uint8_t oldest = 0;
        for (uint8_t i = 1; i < ls->n_priv; i++)
            if (ls->priv_time[i] < ls->priv_time[oldest])
                oldest = i;
        llc_fill(ls, (uint16_t)c->core_llc[ls->priv_core[oldest]], now);
        for (uint8_t i = oldest; i + 1 < ls->n_priv; i++) {
            ls->priv_time[i] = ls->priv_time[i + 1];
            ls->priv_core[i] = ls->priv_core[i + 1];
            ls->priv_state[i] = ls->priv_state[i + 1];
        }
        ls->n_priv--;
    }
    ls->priv_core[ls->n_priv] = (uint16_t)core;
    ls->priv_state[ls->n_priv] = state;
    ls->priv_time[ls->n_priv++] = now;
}

/* ---- one line: load and store -------------------------------------------- */

enum { NO_HITM = 0, LOCAL_HITM = 1, REMOTE_HITM = 2 };

static int line_load(const ks_cache *c, line_state *ls, int32_t core, int32_t cpu_node,
                     int32_t home_socket, uint64_t now, int *hitm)
{
    line_decay(c, ls, now);
    int own = find_priv(ls, core);
    if (own >= 0) {
        int src = priv_level(c, ls->priv_time[own], now);
        ls->priv_time[own] = now;
        return src;
    }
    int src = KS_SRC_COUNT;
    if (ls->n_priv == 1 && ls->priv_state[0] == PRIV_M) {
        /* The owner must supply its dirty copy: perf c2c's HITM. */
        int32_t owner = ls->priv_core[0];
        src = core_distance(c, core, owner);
        *hitm = c->core_node[owner] == cpu_node ? LOCAL_HITM : REMOTE_HITM;
    } else {
        for (uint8_t i = 0; i < ls->n_priv; i++) {
            int d = core_distance(c, core, ls->priv_core[i]);
            src = d < src ? d : src;
        }
        for (uint8_t i = 0; i < ls->n_llc; i++) {
            int d = llc_distance(c, core, ls->llc_id[i]);
            src = d < src ? d : src;
        }
    }
    if (src == KS_SRC_COUNT)
        src = dram_source(c, core, home_socket);
    if (ls->n_priv == 1)
        ls->priv_state[0] = PRIV_S;     /* an M or E owner is downgraded */
    priv_insert(c, ls, core, ls->n_priv ? PRIV_S : PRIV_E, now);
    return src;
}

static int line_store(const ks_cache *c, line_state *ls, int32_t core, int32_t home_socket,
                      uint64_t now)
{
    line_decay(c, ls, now);
    int own = find_priv(ls, core);
    if (own >= 0 && ls->priv_state[own] >= PRIV_E) {
        int src = priv_level(c, ls->priv_time[own], now);
        ls->priv_state[own] = PRIV_M;
        ls->priv_time[own] = now;
        ls->n_llc = 0;      /* E -> M silently: any clean LLC copy is now stale */
        return src;
    }
    int src = -1;
    if (own >= 0) {
        int lvl = priv_level(c, ls->priv_time[own], now);
        src = lvl > KS_SRC_LLC ? lvl : KS_SRC_LLC;   /* an upgrade asks the LLC */
    }
    for (uint8_t i = 0; i < ls->n_priv; i++)
        if ((int)i != own) {
            int d = core_distance(c, core, ls->priv_core[i]);
            src = d > src ? d : src;
        }
    for (uint8_t i = 0; i < ls->n_llc; i++) {
        int d = llc_distance(c, core, ls->llc_id[i]);
        src = d > src ? d : src;
    }
    if (src < 0)
        src = dram_source(c, core, home_socket);
    /* Every other copy is invalidated: the writer's is the only one left. */
    ls->n_llc = 0;
    ls->n_priv = 1;
    ls->priv_core[0] = (uint16_t)core;
    ls->priv_state[0] = PRIV_M;
    ls->priv_time[0] = now;
    return src;
}

/* ---- the API -------------------------------------------------------------- */

static void count_event(ks_line_stats *st, int is_store, int hitm)
{
    if (is_store)
        st->stores++;
    else
        st->loads++;
    if (hitm == LOCAL_HITM)
        st->local_hitm++;
    else if (hitm == REMOTE_HITM)
        st->remote_hitm++;
}

/* Counts the event on each word of the line (starting at line_start) that
 * [offset, end) touches: a 16-byte load counts once on the line, on two words. */
static void count_words(ks_line_stats *words, uint64_t line_start, uint64_t offset, uint64_t end,
                        int is_store, int hitm)
{
    uint64_t lo = offset > line_start ? offset - line_start : 0;
    uint64_t hi = end < line_start + KS_CACHE_LINE ? end - line_start : KS_CACHE_LINE;
    for (uint64_t w = lo / KS_CACHE_WORD; w <= (hi - 1) / KS_CACHE_WORD; w++)
        count_event(&words[w], is_store, hitm);
}

/*
 * A zero-length access is valid and costs nothing. The end of an object is its
 * last whole line (sizes are rounded up to lines, cache.h).
 */
int32_t ks_cache_access(ks_cache *cache, int32_t cpu, int32_t object, uint32_t offset,
                        uint32_t len, int32_t is_store, uint64_t now_ns, ks_access_cost *out)
{
    if (!cache || !out)
        return KS_ERR_INVALID_ARG;
    const cache_object *o = object_at(cache, object);
    if (!o || cpu < 0 || cpu >= cache->cpus)
        return KS_ERR_RANGE;
    uint64_t end = (uint64_t)offset + len;
    if (end > (uint64_t)o->lines * KS_CACHE_LINE)
        return KS_ERR_RANGE;

    memset(out, 0, sizeof *out);
    if (len == 0)
        return KS_OK;
    int32_t core = cache->cpu_core[cpu];
    int32_t node = cache->cpu_node[cpu];
    uint32_t first = offset / KS_CACHE_LINE, last = (uint32_t)((end - 1) / KS_CACHE_LINE);
    uint64_t cycles = 0;
    for (uint32_t l = first; l <= last; l++) {
        uint32_t idx = o->first_line + l;
        line_state *ls = &cache->lines[idx];
        int32_t home = home_socket_of(cache, o, l);
        int hitm = NO_HITM;
        int src = is_store ? line_store(cache, ls, core, home, now_ns)
                           : line_load(cache, ls, core, node, home, now_ns, &hitm);
        cycles += (uint64_t)cache->table.cycles[src];
        out->lines_from[src]++;
        out->local_hitm += hitm == LOCAL_HITM;
        out->remote_hitm += hitm == REMOTE_HITM;
        count_event(&cache->line_stats[idx], is_store, hitm);
        if (cache->word_stats)
            count_words(&cache->word_stats[(size_t)idx * WORDS_PER_LINE],
                        (uint64_t)l * KS_CACHE_LINE, offset, end, is_store, hitm);
    }
    out->lines = last - first + 1;
    out->cycles = cycles;
    uint64_t mhz = (uint64_t)cache->table.core_mhz;
    out->ns = (cycles * 1000u + mhz / 2) / mhz;
    return KS_OK;
}

const ks_line_stats *ks_cache_line_stats(const ks_cache *cache, int32_t object)
{
    const cache_object *o = object_at(cache, object);
    return o ? &cache->line_stats[o->first_line] : NULL;
}

const ks_line_stats *ks_cache_word_stats(const ks_cache *cache, int32_t object)
{
    const cache_object *o = object_at(cache, object);
    if (!o || !cache->word_stats)
        return NULL;
    return &cache->word_stats[(size_t)o->first_line * WORDS_PER_LINE];
}

/* The line as it stands at now, without changing the stored state (views never mutate). */
static ks_line_place place_of(const ks_cache *c, const line_state *stored, uint64_t now)
{
    line_state ls = *stored;
    line_decay(c, &ls, now);
    ks_line_place p = { .owner_core = -1, .owner_llc = -1, .sharers = ls.n_priv, .state = 0 };
    if (ls.n_priv == 1 && ls.priv_state[0] >= PRIV_E) {
        p.owner_core = ls.priv_core[0];
        p.owner_llc = c->core_llc[p.owner_core];
        p.state = ls.priv_state[0] == PRIV_M ? 3 : 2;
        return p;
    }
    uint64_t newest = 0;
    for (uint8_t i = 0; i < ls.n_priv; i++)
        if (p.owner_llc < 0 || ls.priv_time[i] > newest) {
            newest = ls.priv_time[i];
            p.owner_llc = c->core_llc[ls.priv_core[i]];
        }
    for (uint8_t i = 0; i < ls.n_llc; i++)
        if (p.owner_llc < 0 || ls.llc_time[i] > newest) {
            newest = ls.llc_time[i];
            p.owner_llc = ls.llc_id[i];
        }
    p.state = p.owner_llc >= 0 ? 1 : 0;
    return p;
}

const ks_line_place *ks_cache_line_places(ks_cache *cache, int32_t object, uint64_t now_ns)
{
    const cache_object *o = object_at(cache, object);
    if (!o)
        return NULL;
    for (uint32_t l = 0; l < o->lines; l++)
        cache->places[l] = place_of(cache, &cache->lines[o->first_line + l], now_ns);
    return cache->places;
}
