/*
 * hackbench: hackbench -T --pipe's shape, for the cache-aware scheduling
 * lessons (seed 004, whose headline gains are hackbench with few groups).
 *
 * G groups; in each, F sender threads write MSG-byte messages to each of F
 * receiver threads through pipes, as fast as the receivers drain them. All
 * threads of the process share data (the pipes), which is what the series'
 * LLC preference tries to keep inside one LLC; the trace's
 * sched_migrate_task lines show where the load balancer moved them.
 *
 * usage: hackbench GROUPS FDS SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MSG 100
#define MAX_FDS 64

struct group {
	int fds;
	int pipes[MAX_FDS][2]; /* one pipe per receiver */
	uint64_t sent;
};

static volatile int stop;

static void *sender(void *arg)
{
	struct group *g = arg;
	char msg[MSG] = { 0 };

	while (!stop) {
		for (int r = 0; r < g->fds; r++)
			if (write(g->pipes[r][1], msg, MSG) != MSG)
				return NULL;
		__atomic_add_fetch(&g->sent, (uint64_t)g->fds, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *receiver(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[MSG * 16];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int groups = argc > 1 ? atoi(argv[1]) : 1;
	int fds = argc > 2 ? atoi(argv[2]) : 4;
	double seconds = argc > 3 ? atof(argv[3]) : 2.0;
	struct group *g;
	pthread_t *tids;
	int n = 0;
	uint64_t sent = 0;

	if (groups < 1 || groups > 64 || fds < 1 || fds > MAX_FDS) {
		fprintf(stderr, "usage: hackbench GROUPS(1..64) FDS(1..%d) SECONDS\n", MAX_FDS);
		return 2;
	}
	g = calloc((size_t)groups, sizeof(*g));
	tids = calloc((size_t)groups * fds * 2, sizeof(*tids));
	for (int i = 0; i < groups; i++) {
		g[i].fds = fds;
		for (int r = 0; r < fds; r++) {
			if (pipe(g[i].pipes[r]) != 0) {
				perror("pipe");
				return 1;
			}
			pthread_create(&tids[n++], NULL, receiver, (void *)(intptr_t)g[i].pipes[r][0]);
		}
		for (int s = 0; s < fds; s++)
			pthread_create(&tids[n++], NULL, sender, &g[i]);
	}
	usleep((useconds_t)(seconds * 1e6));
	stop = 1;
	for (int i = 0; i < groups; i++)
		for (int r = 0; r < fds; r++)
			close(g[i].pipes[r][1]); /* receivers see EOF, blocked senders EPIPE */
	for (int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < groups; i++)
		sent += g[i].sent;
	printf("hackbench: groups=%d fds=%d threads=%d messages=%llu\n", groups, fds, n, (unsigned long long)sent);
	return 0;
}
