/*
 * mmap2_loop: will-it-scale's mmap2 test body (antonblanchard/will-it-scale tests/mmap2.c:
 * a private 128 MiB tmpfile, then mmap(MAP_PRIVATE, PROT_READ|PROT_WRITE) + munmap in a
 * loop, the mapping never touched), one process, for a given number of iterations.
 * Written for kscope (not copied); used by measure_host.py to measure on this host
 *   - the kmem_cache_alloc / kmem_cache_free events per mmap of the two caches the
 *     sheaves model needs (kmem tracepoints, counted by the caller), and
 *   - the time of one mmap + munmap at nr_tasks = 1 (printed: ns per iteration).
 *   The median is printed beside the mean: on a shared host the mean carries the time
 *   the task was preempted, the median is the iteration's own CPU time.
 * usage: mmap2_loop ITERATIONS
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MEMSIZE (128UL * 1024 * 1024)

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 0;
    if (iterations <= 0) {
        fprintf(stderr, "usage: mmap2_loop ITERATIONS (> 0)\n");
        return 2;
    }
    char path[] = "/tmp/kscope-mmap2.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || unlink(path) != 0 || ftruncate(fd, MEMSIZE) != 0) {
        perror("mmap2_loop: tmpfile");
        return 1;
    }
    double *each = malloc((size_t)iterations * sizeof *each);
    if (!each) {
        perror("mmap2_loop: malloc");
        return 1;
    }
    struct timespec t0, t1, a, b;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < iterations; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        void *p = mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            perror("mmap2_loop: mmap");
            return 1;
        }
        if (munmap(p, MEMSIZE) != 0) {
            perror("mmap2_loop: munmap");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        each[i] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    qsort(each, (size_t)iterations, sizeof *each, cmp_double);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("iterations=%ld ns_per_iteration=%.1f median_ns=%.1f p10_ns=%.1f\n", iterations,
           ns / (double)iterations, each[iterations / 2], each[iterations / 10]);
    free(each);
    return 0;
}
