/*
 * intermittent: seed 000's benchmark shape (mm_cid cache locality, 7e019dc).
 *
 * T threads, thread i pinned to CPU i % ncpu (PIN=0: not pinned, the
 * scheduler places them). They run one at a time, in a
 * fresh random order each round, with DELAY ms of idle time between turns:
 * exactly the "intermittent" pattern where per-CPU mm_cid references expire
 * (the 100 ms window) before the thread comes back. On its turn a thread
 * reads its mm_cid from the rseq area glibc registered, then increments a
 * 16 KiB block of bytes indexed by that mm_cid, and times the burst.
 *
 * The kernel's rseq:rseq_update tracepoint records the same mm_cid, so the
 * trace shows which concurrency id each thread got on each CPU.
 *
 * usage: intermittent THREADS DELAY_MS SECONDS [PIN=1]   (prints one summary line)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <time.h>
#include <unistd.h>

#define AREA_BYTES 16384
#define MAX_THREADS 512

struct turnstile {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int turn;        /* whose turn it is; -1: nobody, -2: stop */
	int done;        /* the current thread finished its burst */
};

static struct turnstile ts = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0 };
static uint8_t *areas;
static int ncpu;
static int pin = 1;
static uint64_t burst_ns[MAX_THREADS], bursts[MAX_THREADS];
static int last_cid[MAX_THREADS];

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

/* mm_cid as the kernel last wrote it in this thread's rseq area (-1: none). */
static int read_mm_cid(void)
{
	struct rseq *rs;

	if (__rseq_size == 0)
		return -1; /* glibc did not register rseq (glibc.pthread.rseq=0) */
	/* glibc 2.36 reports the 20-byte original feature size but registers the
	 * 32-byte area; the kernel (6.3+) writes mm_cid at byte 24 of it. */
	rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	return (int)((volatile uint32_t *)rs)[6]; /* struct rseq: mm_cid at byte 24 */
}

static void burst(int self)
{
	int cid = read_mm_cid();
	uint8_t *area = areas + (size_t)(cid < 0 ? self : cid) * AREA_BYTES;
	uint64_t t0 = now_ns();

	for (int i = 0; i < AREA_BYTES; i++)
		area[i]++;
	burst_ns[self] += now_ns() - t0;
	bursts[self]++;
	last_cid[self] = cid;
}

static void *worker(void *arg)
{
	int self = (int)(intptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(self % ncpu, &set);
	if (pin)
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_mutex_lock(&ts.lock);
	for (;;) {
		while (ts.turn != self && ts.turn != -2)
			pthread_cond_wait(&ts.cond, &ts.lock);
		if (ts.turn == -2)
			break;
		pthread_mutex_unlock(&ts.lock);
		burst(self);
		pthread_mutex_lock(&ts.lock);
		ts.turn = -1;
		ts.done = 1;
		pthread_cond_broadcast(&ts.cond);
	}
	pthread_mutex_unlock(&ts.lock);
	return NULL;
}

static void run_turn(int who)
{
	pthread_mutex_lock(&ts.lock);
	ts.turn = who;
	ts.done = 0;
	pthread_cond_broadcast(&ts.cond);
	while (!ts.done)
		pthread_cond_wait(&ts.cond, &ts.lock);
	pthread_mutex_unlock(&ts.lock);
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	int delay_ms = argc > 2 ? atoi(argv[2]) : 200;
	double seconds = argc > 3 ? atof(argv[3]) : 2.0;
	pthread_t tid[MAX_THREADS];
	int order[MAX_THREADS];
	uint64_t end, total_ns = 0, total = 0;
	unsigned int seed = 1;

	if (argc > 4)
		pin = atoi(argv[4]) != 0;

	if (threads < 1 || threads > MAX_THREADS || delay_ms < 0) {
		fprintf(stderr, "usage: intermittent THREADS(1..%d) DELAY_MS SECONDS [PIN=1]\n", MAX_THREADS);
		return 2;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	areas = calloc((size_t)MAX_THREADS, AREA_BYTES);
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i);
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		for (int i = 0; i < threads; i++)
			order[i] = i;
		for (int i = threads - 1; i > 0; i--) { /* Fisher-Yates, fixed seed */
			int j = rand_r(&seed) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (int i = 0; i < threads && now_ns() < end; i++) {
			run_turn(order[i]);
			usleep((useconds_t)delay_ms * 1000);
		}
	}
	pthread_mutex_lock(&ts.lock);
	ts.turn = -2;
	pthread_cond_broadcast(&ts.cond);
	pthread_mutex_unlock(&ts.lock);
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total_ns += burst_ns[i];
		total += bursts[i];
	}
	printf("intermittent: threads=%d pinned=%d delay_ms=%d bursts=%llu mean_burst_ns=%llu rseq=%s cids=",
	       threads, pin, delay_ms, (unsigned long long)total,
	       (unsigned long long)(total ? total_ns / total : 0), __rseq_size ? "yes" : "no");
	for (int i = 0; i < threads; i++)
		printf("%s%d", i ? "," : "", last_cid[i]);
	printf("\n");
	return 0;
}
