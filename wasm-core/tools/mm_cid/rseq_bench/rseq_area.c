/* The thread's rseq area: glibc's registration, or one of our own (see rseq_area.h). */
#include "rseq_area.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif
#define RSEQ_AREA_SIZE 32          /* the original struct rseq: the smallest size to register */
#define RSEQ_SIG_X86 0x53053053u   /* the x86 abort signature rseq registrations use */
#define RSEQ_FLAG_UNREGISTER 1

/* glibc >= 2.35 (<sys/rseq.h>); weak so that an older glibc leaves them null. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static int use_glibc;
static __thread uint32_t own_area[RSEQ_AREA_SIZE / 4] __attribute__((aligned(RSEQ_AREA_SIZE)));
static __thread int own_registered;

static char *thread_pointer(void)
{
    return (char *)__builtin_thread_pointer();
}

int rseq_area_init(rseq_info *info)
{
    use_glibc = &__rseq_size != NULL && &__rseq_offset != NULL && __rseq_size > 0;  /* 0: glibc registered nothing */
    info->source = use_glibc ? "glibc" : "own";
    info->offset = use_glibc ? (long)__rseq_offset : 0;
    info->size = use_glibc ? __rseq_size : RSEQ_AREA_SIZE;
    info->feature_size = getauxval(AT_RSEQ_FEATURE_SIZE);
    return rseq_area_thread_start();
}

int rseq_area_thread_start(void)
{
    if (use_glibc || own_registered)
        return 0;
    memset(own_area, 0, sizeof own_area);
    own_area[RSEQ_OFF_CPU_ID / 4] = (uint32_t)-1;   /* RSEQ_CPU_ID_UNINITIALIZED */
    if (syscall(__NR_rseq, own_area, RSEQ_AREA_SIZE, 0, RSEQ_SIG_X86) != 0) {
        fprintf(stderr, "kscope-rseq-bench: rseq registration failed: %s\n", strerror(errno));
        return -1;
    }
    own_registered = 1;
    return 0;
}

void rseq_area_thread_end(void)
{
    /* The area is thread-local storage, freed when the thread exits: unregister first. */
    if (own_registered && syscall(__NR_rseq, own_area, RSEQ_AREA_SIZE, RSEQ_FLAG_UNREGISTER, RSEQ_SIG_X86) == 0)
        own_registered = 0;
}

volatile const uint32_t *rseq_area_field(unsigned offset)
{
    const char *area = use_glibc ? thread_pointer() + __rseq_offset : (const char *)own_area;
    return (volatile const uint32_t *)(area + offset);
}

/* The fields the area actually has, as librseq decides it (src/rseq.c): glibc before 2.41
 * exposes 32 (older) or 20 (2.40, Debian's 2.36 backport) while allocating 32 bytes, so
 * those two mean min(32, the kernel's feature size); another size is taken as it is. An
 * area registered here is 32 bytes: min(32, feature size) too. */
unsigned rseq_area_active_size(const rseq_info *info)
{
    unsigned feature = (unsigned)info->feature_size ? (unsigned)info->feature_size : 20;
    if (info->size == 20 || info->size == RSEQ_AREA_SIZE)
        return feature < RSEQ_AREA_SIZE ? feature : RSEQ_AREA_SIZE;
    return info->size;
}

int rseq_area_has_mm_cid(const rseq_info *info)
{
    return rseq_area_active_size(info) >= RSEQ_MM_CID_END;
}
