/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test inputs for `powerpin report`: ftrace text lines collected out of
 * order, sorted by timestamp and written out, as the kernel's `trace` file
 * would show them.  Header-only; used by selftests/host/report_*.c.
 */
#ifndef POWERPIN_REPORT_GEN_H
#define POWERPIN_REPORT_GEN_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seed.h"

struct gen_line {
	uint64_t ts_ns;
	uint64_t order;
	char *text;
};

struct gen {
	struct gen_line *lines;
	size_t nr, cap;
	int nr_cpus;
};

static inline void gen_add(struct gen *g, uint64_t ts_ns, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (g->nr == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->lines = realloc(g->lines, g->cap * sizeof(*g->lines));
		if (!g->lines)
			abort();
	}
	g->lines[g->nr].ts_ns = ts_ns;
	g->lines[g->nr].order = g->nr;
	g->lines[g->nr].text = s;
	g->nr++;
}

#define GEN_TS(ts) (unsigned long long)((ts) / 1000000000ULL), \
		   (unsigned long long)((ts) % 1000000000ULL)

/* powerpin:battery as the `trace` file prints it */
static inline void gen_battery(struct gen *g, uint64_t ts, uint32_t seq, long long uv,
			       long long ua, long long uah, unsigned int flags)
{
	gen_add(g, ts, "        powerpin-77      (     77) [000] ..... %llu.%09llu: battery: seq=%u voltage_uv=%lld current_ua=%lld charge_uah=%lld power_uw=%lld current_avg_ua=%lld capacity=80 temp_dc=250 read_ns=21000 flags=0x%x\n",
		GEN_TS(ts), seq, uv, ua, uah, uv * ua / 1000000, ua, flags);
}

/* the seed's line */
static inline void gen_seed(struct gen *g, uint64_t ts, long long uv, long long ua, long long uah)
{
	gen_add(g, ts, "periodic_power-3003    ( 3003)    [000]    .... %llu.%06llu: write_power_ringbuffer: v:%lld c:%lld e:%lld\n",
		(unsigned long long)(ts / 1000000000ULL),
		(unsigned long long)(ts % 1000000000ULL / 1000), uv, ua, uah);
}

static inline void gen_switch(struct gen *g, uint64_t ts, int cpu, const char *prev_comm,
			      int prev_pid, int prev_tgid, const char *next_comm, int next_pid)
{
	gen_add(g, ts, "%16s-%-7d (%7d) [%03d] d..2. %llu.%09llu: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=R ==> next_comm=%s next_pid=%d next_prio=120\n",
		prev_comm, prev_pid, prev_tgid, cpu, GEN_TS(ts), prev_comm, prev_pid,
		next_comm, next_pid);
}

/* trace_marker write by thread @pid of process @tgid */
static inline void gen_mark(struct gen *g, uint64_t ts, int cpu, const char *comm, int pid,
			    int tgid, const char *text)
{
	gen_add(g, ts, "%16s-%-7d (%7d) [%03d] ...1. %llu.%09llu: tracing_mark_write: %s\n",
		comm, pid, tgid, cpu, GEN_TS(ts), text);
}

/* power:cpu_frequency: CPU @cpu runs at @khz from @ts on */
static inline void gen_cpu_freq(struct gen *g, uint64_t ts, int cpu, unsigned int khz)
{
	gen_add(g, ts, "          <idle>-0       (      0) [%03d] d..2. %llu.%09llu: cpu_frequency: state=%u cpu_id=%d\n",
		cpu, GEN_TS(ts), khz, cpu);
}

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_line *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->order < y->order ? -1 : 1;
}

/* Sort, write to @path with a `trace`-style header, free the lines. */
static inline int gen_write(struct gen *g, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	qsort(g->lines, g->nr, sizeof(*g->lines), gen_cmp);
	fprintf(f, "# tracer: nop\n#\n# entries-in-buffer/entries-written: %zu/%zu   #P:%d\n#\n",
		g->nr, g->nr, g->nr_cpus ? g->nr_cpus : 1);
	for (i = 0; i < g->nr; i++) {
		fputs(g->lines[i].text, f);
		free(g->lines[i].text);
	}
	free(g->lines);
	memset(g, 0, sizeof(*g));
	if (fclose(f))
		return -1;
	fuzz_seed_file("ftrace_text", path);
	fuzz_seed_file("report", path);
	return 0;
}

/* Floating-point expectation for the kselftest harness (which has none). */
#ifdef EXPECT_TRUE
#define EXPECT_NEAR(want, got, tol) do {					\
	double __want = (want), __got = (got), __tol = (tol);		\
	if (!(fabs(__got - __want) <= __tol))				\
		TH_LOG("%s: expected %.12g, got %.12g (tolerance %g)",	\
		       #got, __want, __got, __tol);			\
	EXPECT_TRUE(fabs(__got - __want) <= __tol);			\
} while (0)
#endif

#endif
