/*
 * mmap_loop: will-it-scale mmap2's shape, for the SLUB sheaves lesson (seed 002).
 *
 * P processes, each in a loop mapping and unmapping a 128 MiB anonymous
 * region. Every mmap allocates a vm_area_struct and maple-tree nodes from
 * their slab caches and every munmap frees them: the per-CPU sheaves'
 * fast path, and (when a sheaf runs empty or full) the barn's slow path.
 * The trace's kmem:kmem_cache_alloc / kmem_cache_free lines show them.
 *
 * usage: mmap_loop PROCESSES SECONDS
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGION (128UL << 20)

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void loop(double seconds, int fd)
{
	double end = now_s() + seconds;
	uint64_t iterations = 0;

	while (now_s() < end) {
		void *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		munmap(p, REGION);
		iterations++;
	}
	if (write(fd, &iterations, sizeof(iterations)) != sizeof(iterations))
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 4;
	double seconds = argc > 2 ? atof(argv[2]) : 2.0;
	int fds[2];
	uint64_t total = 0, one;

	if (procs < 1 || procs > 1024 || pipe(fds) != 0) {
		fprintf(stderr, "usage: mmap_loop PROCESSES(1..1024) SECONDS\n");
		return 2;
	}
	for (int i = 0; i < procs; i++)
		if (fork() == 0)
			loop(seconds, fds[1]);
	close(fds[1]);
	while (read(fds[0], &one, sizeof(one)) == sizeof(one))
		total += one;
	while (wait(NULL) > 0)
		;
	printf("mmap_loop: processes=%d iterations=%llu\n", procs, (unsigned long long)total);
	return 0;
}
