/* librseq-style per-index pool with lazily populated copy-on-write pages (see cpu_pool.h). */
#include "cpu_pool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER_PAGES 2   /* librseq keeps 2 header pages before the range */

int possible_cpus(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
    int highest = -1, a, b;
    if (f) {
        char c;
        /* "0-383" or "0,2-5": the highest number is the last one */
        while (fscanf(f, "%d", &a) == 1) {
            highest = a > highest ? a : highest;
            if (fscanf(f, "%c", &c) != 1 || c == '\n')
                break;
            if (c == '-' && fscanf(f, "%d", &b) == 1) {
                highest = b > highest ? b : highest;
                if (fscanf(f, "%c", &c) != 1 || c == '\n')
                    break;
            }
        }
        fclose(f);
    }
    if (highest < 0)
        highest = (int)sysconf(_SC_NPROCESSORS_CONF) - 1;
    return highest + 1;
}

static size_t round_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static int fail(const char *what)
{
    fprintf(stderr, "kscope-rseq-bench: pool: %s: %s\n", what, strerror(errno));
    return -1;
}

static int item_is_zero(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i += sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, p + i, sizeof v);
        if (v != 0)
            return 0;
    }
    return 1;
}

int cpu_pool_create(cpu_pool *pool, size_t item_len, cpu_pool_policy policy)
{
    memset(pool, 0, sizeof *pool);
    pool->item_len = round_pow2(item_len < sizeof(void *) ? sizeof(void *) : item_len);
    if (pool->item_len > CPU_POOL_STRIDE) {
        errno = EINVAL;
        return fail("item larger than the stride");
    }
    pool->max_index = possible_cpus();
    pool->policy = policy;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), header = HEADER_PAGES * page;
    size_t range = CPU_POOL_STRIDE * ((size_t)pool->max_index + 1);   /* + init values */

    /* Reserve header + range + one stride of slack, then place base on a stride boundary. */
    size_t reserve = header + range + CPU_POOL_STRIDE;
    char *raw = mmap(NULL, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return fail("mmap");
    uintptr_t base = ((uintptr_t)raw + header + CPU_POOL_STRIDE - 1) & ~(uintptr_t)(CPU_POOL_STRIDE - 1);
    pool->mapping = raw;
    pool->mapping_len = reserve;
    pool->base = (char *)base;
    pool->init = pool->base + CPU_POOL_STRIDE * (size_t)pool->max_index;

    int fd = memfd_create("kscope-rseq-pool", MFD_CLOEXEC);
    if (fd < 0)
        return fail("memfd_create");
    if (ftruncate(fd, (off_t)CPU_POOL_STRIDE) != 0) {
        close(fd);
        return fail("ftruncate");
    }
    if (mmap(pool->init, CPU_POOL_STRIDE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != pool->init) {
        close(fd);
        return fail("mmap init values");
    }
    for (int i = 0; i < pool->max_index; i++) {
        char *p = cpu_pool_item(pool, i);
        if (mmap(p, CPU_POOL_STRIDE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) != p) {
            close(fd);
            return fail("mmap index stride");
        }
    }
    close(fd);

    /* zmalloc of the first item (offset 0): zero the init values, then each index only
     * where it is not already zero (it is: it still reads the memfd's zero page). */
    memset(pool->init, 0, pool->item_len);
    for (int i = 0; i < pool->max_index; i++) {
        char *p = cpu_pool_item(pool, i);
        if (!item_is_zero(p, pool->item_len))
            memset(p, 0, pool->item_len);
    }
    if (policy == POOL_PREFAULT)
        for (int i = 0; i < pool->max_index; i++)
            for (size_t off = 0; off < pool->item_len; off += page)
                ((volatile char *)cpu_pool_item(pool, i))[off] = 0;
    return 0;
}

void cpu_pool_destroy(cpu_pool *pool)
{
    if (pool->mapping)
        munmap(pool->mapping, pool->mapping_len);
    memset(pool, 0, sizeof *pool);
}
