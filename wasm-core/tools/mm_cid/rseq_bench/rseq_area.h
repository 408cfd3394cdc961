/*
 * The calling thread's registered rseq area (struct rseq, include/uapi/linux/rseq.h), from
 * which the benchmark reads its index, as librseq's rseq_cpu_start() / rseq_current_mm_cid()
 * do: a plain load of a field the kernel rewrites on return to user space.
 *
 * glibc >= 2.35 registers an area for every thread and exports where it is
 * (__rseq_offset from the thread pointer, __rseq_size); when glibc did not register one
 * (older glibc, or GLIBC_TUNABLES=glibc.pthread.rseq=0), each thread registers its own.
 */
#ifndef KSCOPE_RSEQ_AREA_H
#define KSCOPE_RSEQ_AREA_H

#include <stdint.h>

/* struct rseq's fields that are read here (offsets fixed by the kernel's ABI). */
#define RSEQ_OFF_CPU_ID_START 0
#define RSEQ_OFF_CPU_ID 4
#define RSEQ_OFF_NODE_ID 20
#define RSEQ_OFF_MM_CID 24      /* kernels >= 6.3 */
#define RSEQ_MM_CID_END 28      /* the feature size a kernel with mm_cid reports */

typedef struct rseq_info {
    const char *source;          /* "glibc" or "own" */
    long offset;                 /* glibc's __rseq_offset (0 for "own") */
    unsigned size;               /* glibc's __rseq_size, or the size registered here */
    unsigned long feature_size;  /* getauxval(AT_RSEQ_FEATURE_SIZE): 0 before 6.3 */
} rseq_info;

/* Decides, once, in the main thread, where areas come from; 0 ok, -1 (message on stderr). */
int rseq_area_init(rseq_info *info);
/* Per thread: registers the thread's own area if glibc did not; 0 ok, -1 (message printed). */
int rseq_area_thread_start(void);
void rseq_area_thread_end(void);
/* The thread's area (valid between start and end). */
volatile const uint32_t *rseq_area_field(unsigned offset);
/* The size of the area's valid fields; 1 when they include mm_cid. */
unsigned rseq_area_active_size(const rseq_info *info);
int rseq_area_has_mm_cid(const rseq_info *info);

static inline uint32_t rseq_read(unsigned offset)
{
    return *rseq_area_field(offset);
}

#endif
