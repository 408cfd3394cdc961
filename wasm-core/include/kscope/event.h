/*
 * kscope/event.h: the one event model.
 *
 * Simulated runs and decoded real traces both produce ks_event records, named
 * after the kernel tracepoints they mirror, with the tracepoints' own field
 * names. Every view, export and test consumes these records, so anything that
 * works on a simulation works on a real trace and the other way round.
 *
 * Layout (96 bytes, fixed-width fields only: shared with JS and Python):
 *
 *     0  ts_ns     u64   nanoseconds: since the start of a simulated run; the kernel's
 *                         own clock (as printed) for a decoded real trace
 *     8  type      u16   ks_event_type
 *    10  buffer    u16   the trace buffer the record came from: an index into the decoder's
 *                         buffer names (trace.dat instances, `trace-cmd record -B NAME`);
 *                         0 for simulated runs and every single-buffer trace. Readers that
 *                         took bytes 8..11 as one u32 type read the same for buffer 0.
 *    12  cpu       i32   CPU the event was recorded on
 *    16  pid       i32   current task's pid (kernel tid)
 *    20  tgid      i32   current task's process id (-1 when the trace lacks it)
 *    24  comm      char[16] current task's name, NUL-padded
 *    40  u         per-type fields (56 bytes), see below
 *
 * Events the model does not know are never dropped: they become KS_EV_GENERIC
 * records whose name and "key=value ..." text live in the log's text arena.
 */
#ifndef KSCOPE_EVENT_H
#define KSCOPE_EVENT_H

#include <stdint.h>
#include "kscope/status.h"

#define KS_COMM_LEN 16   /* TASK_COMM_LEN in the kernel */

typedef enum ks_event_type {
    KS_EV_GENERIC = 0,          /* any other event: name + key/value text */
    KS_EV_SCHED_SWITCH,         /* sched:sched_switch */
    KS_EV_SCHED_WAKING,         /* sched:sched_waking */
    KS_EV_SCHED_WAKEUP,         /* sched:sched_wakeup */
    KS_EV_SCHED_WAKEUP_NEW,     /* sched:sched_wakeup_new */
    KS_EV_SCHED_MIGRATE_TASK,   /* sched:sched_migrate_task */
    KS_EV_SCHED_PROCESS_FORK,   /* sched:sched_process_fork */
    KS_EV_SCHED_PROCESS_EXIT,   /* sched:sched_process_exit */
    KS_EV_SCHED_PROCESS_FREE,   /* sched:sched_process_free */
    KS_EV_RSEQ_UPDATE,          /* rseq:rseq_update */
    KS_EV_KMEM_CACHE_ALLOC,     /* kmem:kmem_cache_alloc */
    KS_EV_KMEM_CACHE_FREE,      /* kmem:kmem_cache_free */
    /* kscope's own events for a SLUB sheaf-cache model: the kernel has NO tracepoint for
     * these (they are named after the mm/slub.c functions they stand for), so only a
     * simulated run produces them, and an export/decode round trip reads them back. */
    KS_EV_SHEAF_REFILL,         /* kscope: refill_sheaf(): objects from slabs into a CPU's sheaf */
    KS_EV_SHEAF_FLUSH,          /* kscope: sheaf_flush_main()/sheaf_flush_unused(): objects back to slabs */
    KS_EV_BARN_GET,             /* kscope: barn_get_empty_sheaf()/barn_get_full_sheaf() */
    KS_EV_BARN_PUT,             /* kscope: barn_put_empty_sheaf()/barn_put_full_sheaf() */
    KS_EV_TYPE_COUNT
} ks_event_type;

/* sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d */
typedef struct ks_ev_sched_switch {
    char prev_comm[KS_COMM_LEN];
    int32_t prev_pid;
    int32_t prev_prio;
    int64_t prev_state;         /* TASK_REPORT bits; 0 = "R", 0x100 = preempted "R+" */
    char next_comm[KS_COMM_LEN];
    int32_t next_pid;
    int32_t next_prio;
} ks_ev_sched_switch;

/* sched_waking / sched_wakeup / sched_wakeup_new: comm=%s pid=%d prio=%d target_cpu=%03d */
typedef struct ks_ev_sched_wakeup {
    char comm[KS_COMM_LEN];
    int32_t pid;
    int32_t prio;
    int32_t target_cpu;
} ks_ev_sched_wakeup;

/* sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d */
typedef struct ks_ev_sched_migrate_task {
    char comm[KS_COMM_LEN];
    int32_t pid;
    int32_t prio;
    int32_t orig_cpu;
    int32_t dest_cpu;
} ks_ev_sched_migrate_task;

/* sched_process_fork: comm=%s pid=%d child_comm=%s child_pid=%d */
typedef struct ks_ev_sched_process_fork {
    char parent_comm[KS_COMM_LEN];
    int32_t parent_pid;
    char child_comm[KS_COMM_LEN];
    int32_t child_pid;
} ks_ev_sched_process_fork;

/* sched_process_exit / sched_process_free: comm=%s pid=%d prio=%d
 * (sched_process_exit adds group_dead=%s since Linux 6.16) */
typedef struct ks_ev_sched_process_exit {
    char comm[KS_COMM_LEN];
    int32_t pid;
    int32_t prio;
    int32_t group_dead;         /* 1: last thread of its process; 0: not; -1: not recorded */
} ks_ev_sched_process_exit;

/* rseq_update: cpu_id=%d node_id=%d mm_cid=%d  (the last two since Linux 6.3; -1 when absent) */
typedef struct ks_ev_rseq_update {
    int32_t cpu_id;
    int32_t node_id;
    int32_t mm_cid;             /* rseq ABI field name */
} ks_ev_rseq_update;

/* kmem_cache_alloc: call_site=%pS ptr=%p name=%s bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s
 * kmem_cache_free:  call_site=%pS ptr=%p name=%s
 * (the 6.18 print fmts, from events/kmem/<event>/format on a 6.18 host; name since 6.2,
 * accounted since 6.0.) ftrace text prints call_site as "symbol+0xoff/0xsize" (%pS):
 * only an address is kept, so such a call_site reads as 0 with call_site_symbolic = 1
 * (the symbol is NOT kept: the payload has no room for it). %p prints the pointer
 * hashed unless the kernel runs with no_hash_pointers: ptr is whatever hex was printed.
 * gfp_flags keeps the gfp_t bits in Linux 6.18's numbering (src/trace/gfp_flags.c),
 * read from and written back as the kernel's "GFP_KERNEL|__GFP_ZERO" text.
 * A cache name longer than 23 bytes does not fit: such a line stays a generic record. */
#define KS_KMEM_NAME_LEN 24
typedef struct ks_ev_kmem_cache {
    uint64_t call_site;         /* caller's address; 0 when only its symbol was printed */
    uint64_t ptr;               /* the object */
    uint32_t bytes_req;         /* alloc: bytes asked for; free: 0 */
    uint32_t bytes_alloc;       /* alloc: the cache's object size; free: 0 */
    uint32_t gfp_flags;         /* alloc: gfp_t bits (6.18 numbering); free: 0 */
    int16_t node;               /* alloc: requested NUMA node, -1 = any (NUMA_NO_NODE); free: -1 */
    int8_t accounted;           /* alloc: 1 charged to a memcg, 0 not; -1 not recorded / free */
    uint8_t call_site_symbolic; /* 1: the trace printed call_site as a symbol (lost, see above) */
    char name[KS_KMEM_NAME_LEN]; /* the kmem_cache's name, NUL-terminated ("kmalloc-64", "filp") */
} ks_ev_kmem_cache;

/* kscope's sheaf events (no kernel tracepoint; written and read back as one format):
 *     <event>: name=%s node=%d objects=%u size=%u capacity=%u full=%d barn_full=%u barn_empty=%u
 * sheaf_refill/sheaf_flush: objects moved into/out of the CPU's sheaf, size after, full = -1;
 * barn_get/barn_put: the sheaf handed over (size objects, full 1/0), the barn's counts after. */
typedef struct ks_ev_sheaf {
    char name[KS_KMEM_NAME_LEN]; /* the kmem_cache's name */
    int32_t node;               /* the barn's node (the CPU's node) */
    uint32_t objects;           /* objects moved by a refill/flush; barn ops: 0 */
    uint32_t size;              /* objects in the sheaf after the event */
    uint32_t capacity;          /* the cache's sheaf capacity */
    int32_t full;               /* barn ops: 1 a full sheaf, 0 an empty one; refill/flush: -1 */
    uint32_t barn_full;         /* full sheaf structs in the node's barn after the event */
    uint32_t barn_empty;        /* empty sheaf structs in the node's barn after the event */
} ks_ev_sheaf;

/* Any other event: offsets into the owning log's text arena. */
typedef struct ks_ev_generic {
    uint32_t name_off;          /* NUL-terminated event name, e.g. "irq_handler_entry" */
    uint32_t fields_off;        /* NUL-terminated "key=value ..." text as the trace had it */
} ks_ev_generic;

typedef struct ks_event {
    uint64_t ts_ns;
    uint16_t type;
    uint16_t buffer;
    int32_t cpu;
    int32_t pid;
    int32_t tgid;
    char comm[KS_COMM_LEN];
    union {
        ks_ev_sched_switch sched_switch;
        ks_ev_sched_wakeup sched_wakeup;            /* also waking, wakeup_new */
        ks_ev_sched_migrate_task sched_migrate_task;
        ks_ev_sched_process_fork sched_process_fork;
        ks_ev_sched_process_exit sched_process_exit; /* also process_free */
        ks_ev_rseq_update rseq_update;
        ks_ev_kmem_cache kmem_cache;                /* kmem_cache_alloc, kmem_cache_free */
        ks_ev_sheaf sheaf;                          /* sheaf_refill/flush, barn_get/put */
        ks_ev_generic generic;
        uint8_t raw[56];
    } u;
} ks_event;
_Static_assert(sizeof(ks_ev_sched_switch) == 56, "sched_switch payload fills the union");
_Static_assert(sizeof(ks_ev_kmem_cache) == 56, "kmem_cache payload fills the union");
_Static_assert(sizeof(ks_ev_sheaf) <= 56, "sheaf payload fits the union");
_Static_assert(sizeof(ks_event) == 96, "ks_event is shared with JS and Python: 96 bytes");
_Static_assert(__builtin_offsetof(ks_event, u) == 40, "payload starts at byte 40");
_Static_assert(__builtin_offsetof(ks_event, buffer) == 10, "buffer index at byte 10");

/* Tracepoint name of a type ("sched_switch", ...; "generic" for KS_EV_GENERIC). */
KS_API const char *ks_event_type_name(int32_t type);

/* FNV-1a 64 of len bytes, continuing from h (0xcbf29ce484222325 to start). Over whole
 * records it is the event-stream hash the tests, `kscope sim` and the benchmarks print,
 * so native and wasm runs can be compared. */
KS_API uint64_t ks_fnv1a64(const void *data, uint32_t len, uint64_t h);

/* Inverse of ks_event_type_name for tracepoint names; KS_EV_GENERIC if unknown. */
KS_API int32_t ks_event_type_from_name(const char *name);

/*
 * An append-only log of events plus the text arena generic records point into.
 * Producers (the simulator, decoders) append; consumers read the contiguous
 * array through ks_event_log_data() (one typed-array view in JS).
 */
typedef struct ks_event_log ks_event_log;

KS_API int32_t ks_event_log_new(ks_event_log **out);
KS_API void ks_event_log_free(ks_event_log *log);
KS_API int32_t ks_event_log_append(ks_event_log *log, const ks_event *ev);
/* Appends n typed records at once (a stored trace read back: kscope/native/from_arrow.py).
 * All or nothing: a generic record (its text offsets would point into another log) or an
 * unknown type refuses the whole batch with KS_ERR_INVALID_ARG. */
KS_API int32_t ks_event_log_append_many(ks_event_log *log, const ks_event *evs, uint32_t n);

/* Appends a generic record; name and fields are copied into the arena. */
KS_API int32_t ks_event_log_append_generic(ks_event_log *log, uint64_t ts_ns, int32_t cpu,
                                           int32_t pid, int32_t tgid, const char *comm,
                                           const char *name, const char *fields);
/* The same from a whole record: its name and fields are copied into the arena, and
 * u.generic is set; ts, type (forced generic), buffer, cpu, pid, tgid, comm are kept. */
KS_API int32_t ks_event_log_append_generic_event(ks_event_log *log, const ks_event *ev,
                                                 const char *name, const char *fields);
KS_API uint32_t ks_event_log_count(const ks_event_log *log);
/* Empties the log, keeping its memory for the next appends (a reader's views go stale). */
KS_API void ks_event_log_clear(ks_event_log *log);
KS_API const ks_event *ks_event_log_data(const ks_event_log *log);

/* Text at an arena offset taken from a generic record (NULL if out of range). */
KS_API const char *ks_event_log_text(const ks_event_log *log, uint32_t offset);

#endif
