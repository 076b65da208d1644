/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace clock of the guest tests: timestamps in the trace compared with
 * CLOCK_MONOTONIC read in the test.  The "mono" trace clock is that clock
 * itself (Linux 3.17 on).  Kernels without it (3.10: local, global,
 * counter, uptime, perf) use "global", sched_clock ordered across CPUs,
 * which ticks with CLOCK_MONOTONIC but from another origin: the offset is
 * measured from trace_marker writes between two clock_gettime() calls
 * (the shortest of several), and trace_ts_mono() adds it.  The
 * measurement's error is half that write's duration, a few microseconds;
 * sched_clock and CLOCK_MONOTONIC may drift apart by parts per million,
 * so a test that compares over minutes measures again
 * (trace_clock_calibrate()).
 */
#ifndef POWERPIN_TRACE_CLOCK_H
#define POWERPIN_TRACE_CLOCK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACE_CLOCK_TOP		"/sys/kernel/tracing"
#define TRACE_CLOCK_MARK	"powerpin-test-clock"

/* seconds to add to a "global" timestamp; 0 with "mono" */
static double trace_clock_offset_s;

static inline int trace_clock_write(const char *dir, const char *file,
				    const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static inline double trace_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Offset of the top level's "global" clock to CLOCK_MONOTONIC.  Leaves the
 * top level's tracing_on 0 and its buffer empty.  Several marks, each
 * between two clock_gettime() calls: the one written in the shortest
 * window gives the offset (a mark whose writer was preempted or whose vCPU
 * the host descheduled would be off by that delay).
 */
#define TRACE_CLOCK_TRIES	8
static inline int trace_clock_calibrate(void)
{
	double t0[TRACE_CLOCK_TRIES], t1[TRACE_CLOCK_TRIES], ts, best = -1;
	char line[512], mark[64];
	const char *at, *p;
	int i, found = 0;
	FILE *f;

	if (trace_clock_write(TRACE_CLOCK_TOP, "trace", "") ||
	    trace_clock_write(TRACE_CLOCK_TOP, "tracing_on", "1"))
		return -1;
	for (i = 0; i < TRACE_CLOCK_TRIES; i++) {
		snprintf(mark, sizeof(mark), "%s %d", TRACE_CLOCK_MARK, i);
		t0[i] = trace_clock_now();
		if (trace_clock_write(TRACE_CLOCK_TOP, "trace_marker", mark))
			return -1;
		t1[i] = trace_clock_now();
	}
	if (trace_clock_write(TRACE_CLOCK_TOP, "tracing_on", "0"))
		return -1;
	f = fopen(TRACE_CLOCK_TOP "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, ": tracing_mark_write: " TRACE_CLOCK_MARK " ");
		if (!at)
			continue;
		i = atoi(at + strlen(": tracing_mark_write: " TRACE_CLOCK_MARK " "));
		if (i < 0 || i >= TRACE_CLOCK_TRIES)
			continue;
		for (p = at; p > line && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')); p--)
			;
		ts = strtod(p, NULL);
		if (!found || t1[i] - t0[i] < best) {
			best = t1[i] - t0[i];
			trace_clock_offset_s = (t0[i] + t1[i]) / 2 - ts;
		}
		found = 1;
	}
	fclose(f);
	if (!found)
		return -1;
	return trace_clock_write(TRACE_CLOCK_TOP, "trace", "");
}

/*
 * Give trace directory @dir (the top level or an instance) a clock that
 * trace_ts_mono() turns into CLOCK_MONOTONIC.  An instance on a kernel
 * without "mono" uses the offset measured at the top level, which must be
 * set up first (one clock: the same offset).
 */
static inline int trace_clock_use_mono(const char *dir)
{
	if (!trace_clock_write(dir, "trace_clock", "mono")) {
		trace_clock_offset_s = 0;
		return 0;
	}
	if (errno != EINVAL || trace_clock_write(dir, "trace_clock", "global"))
		return -1;
	return strcmp(dir, TRACE_CLOCK_TOP) ? 0 : trace_clock_calibrate();
}

/* A trace timestamp (seconds) on CLOCK_MONOTONIC. */
static inline double trace_ts_mono(double ts)
{
	return ts + trace_clock_offset_s;
}

#endif /* POWERPIN_TRACE_CLOCK_H */
