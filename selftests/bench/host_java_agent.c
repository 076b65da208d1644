// SPDX-License-Identifier: GPL-2.0
/*
 * bench java_agent: the Java workload's allocation throughput (objects per
 * second over the second half of its rounds) under libpowerpin_agent.so
 * sampling 1 in 1, 1 in 100 and 1 in 10,000 allocations into a log,
 * against the same workload without the agent, in the same run.  Each
 * configuration runs RUNS times, interleaved, and the median counts.
 * Throughput is measured per second of the allocating thread's CPU time
 * (the agent samples on that thread, so its cost is in it; a busy machine
 * is not), and per second of wall time beside it.
 * Target: under 5% overhead (ratio >= 0.95) at 1 in 10,000.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "java_helpers.h"

#define RUNS		5

static const struct {
	const char *name;
	unsigned long every;	/* 0: no agent */
	int rounds;		/* 1 in 1 is slow: fewer rounds */
} configs[] = {
	{ "no agent", 0, 300 },
	{ "1 in 10,000", 10000, 300 },
	{ "1 in 100", 100, 300 },
	{ "1 in 1", 1, 16 },
};

#define NCONFIG	(sizeof(configs) / sizeof(configs[0]))

/* Objects per CPU second into *cpu, per wall second returned; -1 on failure. */
static double run_once(const struct java_env *e, size_t c, const char *log, double *cpu)
{
	char cmd[4096], out[65536], *p, *q;

	if (configs[c].every)
		snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=alloc=%lu,log=%s' -cp %s Workload %d 20 cpu 2>&1 </dev/null",
			 e->java, e->agent, configs[c].every, log, e->classes, configs[c].rounds);
	else
		snprintf(cmd, sizeof(cmd), "%s -cp %s Workload %d 20 cpu 2>&1 </dev/null", e->java,
			 e->classes, configs[c].rounds);
	if (run_cmd(cmd, out, sizeof(out)) || !(p = strstr(out, "ops_per_s ")) ||
	    !(q = strstr(out, "ops_per_cpu_s "))) {
		fprintf(stderr, "bench java_agent: %s failed:\n%s\n", configs[c].name, out);
		return -1;
	}
	*cpu = strtod(q + 14, NULL);
	return strtod(p + 10, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	double ops[NCONFIG][RUNS], cpu[NCONFIG][RUNS], median[NCONFIG], cpu_median[NCONFIG];
	char log[] = "/tmp/powerpin-bench-alloc.log";
	struct java_env env;
	const char *why = java_env_find(&env);
	size_t c;
	int r;

	if (why) {
		printf("bench java_agent: skipped: %s\n", why);
		return 0;
	}
	for (r = 0; r < RUNS; r++)
		for (c = 0; c < NCONFIG; c++) {
			ops[c][r] = run_once(&env, c, log, &cpu[c][r]);
			if (ops[c][r] < 0)
				return 1;
		}
	unlink(log);
	for (c = 0; c < NCONFIG; c++) {
		qsort(ops[c], RUNS, sizeof(double), cmp_double);
		qsort(cpu[c], RUNS, sizeof(double), cmp_double);
		median[c] = ops[c][RUNS / 2];
		cpu_median[c] = cpu[c][RUNS / 2];
	}
	for (c = 0; c < NCONFIG; c++)
		printf("bench java_agent: %-12s %12.0f objects/CPU s (median of %d; %.0f..%.0f), ratio %.3f; wall %12.0f objects/s, ratio %.3f\n",
		       configs[c].name, cpu_median[c], RUNS, cpu[c][0], cpu[c][RUNS - 1],
		       cpu_median[c] / cpu_median[0], median[c], median[c] / median[0]);
	printf("bench java_agent: overhead at 1 in 10,000 %.1f%% of the allocating thread's CPU time (wall %.1f%%) (target < 5%%): %s\n",
	       100 * (1 - cpu_median[1] / cpu_median[0]), 100 * (1 - median[1] / median[0]),
	       cpu_median[1] / cpu_median[0] >= 0.95 ? "met" : "missed");
	return 0;
}
