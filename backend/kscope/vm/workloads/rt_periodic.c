/*
 * rt_periodic: cyclictest's shape, for the cpupri lessons (seed 001).
 *
 * T SCHED_FIFO threads at priority PRIO, each waking every INTERVAL us on an
 * absolute CLOCK_MONOTONIC timer and measuring how late it woke. Every RT
 * wakeup makes the scheduler look for a CPU through cpupri_find(), and every
 * RT enqueue/dequeue changes the CPU's priority with cpupri_set(): the two
 * sides of the cpumask cache line the per-node split relieves. The trace's
 * sched_wakeup/sched_switch lines carry prio=0 (kernel prio 99 - 99).
 *
 * usage: rt_periodic THREADS INTERVAL_US SECONDS [PRIO]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 512

static long interval_ns;
static uint64_t end_ns;
static uint64_t max_lat[MAX_THREADS], cycles[MAX_THREADS];

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + t->tv_nsec;
}

static void *cyclic(void *arg)
{
	int self = (int)(intptr_t)arg;
	struct timespec next, now;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (ts_ns(&next) < end_ns) {
		next.tv_nsec += interval_ns;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_ns(&now) - ts_ns(&next) > max_lat[self])
			max_lat[self] = ts_ns(&now) - ts_ns(&next);
		cycles[self]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	long interval_us = argc > 2 ? atol(argv[2]) : 1000;
	double seconds = argc > 3 ? atof(argv[3]) : 2.0;
	int prio = argc > 4 ? atoi(argv[4]) : 99;
	pthread_t tid[MAX_THREADS];
	pthread_attr_t attr;
	struct sched_param sp = { .sched_priority = prio };
	struct timespec start;
	uint64_t worst = 0, total = 0;
	int fifo = 1;

	if (threads < 1 || threads > MAX_THREADS || interval_us < 1) {
		fprintf(stderr, "usage: rt_periodic THREADS(1..%d) INTERVAL_US SECONDS [PRIO]\n", MAX_THREADS);
		return 2;
	}
	interval_ns = interval_us * 1000;
	clock_gettime(CLOCK_MONOTONIC, &start);
	end_ns = ts_ns(&start) + (uint64_t)(seconds * 1e9);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&tid[i], fifo ? &attr : NULL, cyclic, (void *)(intptr_t)i) != 0) {
			fifo = 0; /* not permitted: fall back to SCHED_OTHER, and say so */
			pthread_create(&tid[i], NULL, cyclic, (void *)(intptr_t)i);
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += cycles[i];
		worst = max_lat[i] > worst ? max_lat[i] : worst;
	}
	printf("rt_periodic: threads=%d policy=%s prio=%d interval_us=%ld cycles=%llu max_latency_us=%llu\n",
	       threads, fifo ? "fifo" : "other", fifo ? prio : 0, interval_us,
	       (unsigned long long)total, (unsigned long long)(worst / 1000));
	return 0;
}
