/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `perf script` text, as printed with
 *   perf script -F comm,pid,tid,time,period,event,ip,sym,dso --ns
 * for a `perf record -g` capture:
 *
 *   java 26904/26906  1690.880718963:     250000 cpu-clock:
 *   	    7f7fe941598d LWorkload;::jitHot(JI)J (/tmp/perf-26904.map)
 *   	    7f7ff0938cc9 call_stub (/tmp/perf-26904.map)
 *   <blank line>
 *
 * A header line (the task name may hold spaces, so it is read from the
 * right), then one line per frame from the sampled function outwards.
 * A capture recorded without -g has no call chains: perf script prints
 * the sampled ip, sym and dso at the end of the header line, which then
 * becomes a sample of that one frame (counted in `flat`).
 * The parser takes lines (no I/O) and hands each finished sample to a
 * callback; at most PERF_SCRIPT_MAX_FRAMES frames are kept of a stack.
 */
#ifndef POWERPIN_PERF_SCRIPT_H
#define POWERPIN_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_SCRIPT_MAX_FRAMES	512
#define PERF_SCRIPT_MAX_LINE	65536

struct perf_frame {
	uint64_t ip;
	const char *sym;	/* "[unknown]" when perf could not name it */
	const char *dso;
};

struct perf_sample {
	const char *comm;
	int pid, tid;
	uint64_t ts_ns;
	uint64_t period;
	const char *event;
	struct perf_frame frames[PERF_SCRIPT_MAX_FRAMES];	/* innermost first */
	uint32_t nr_frames;
	uint32_t frames_dropped;
};

typedef int (*perf_sample_fn)(const struct perf_sample *s, void *arg);

struct perf_script {
	struct perf_sample cur;
	bool open;
	char *strings;		/* the current sample's text */
	size_t len, cap;
	unsigned long lineno;
	uint64_t samples;
	uint64_t flat;		/* samples printed without a call chain (no -g) */
	perf_sample_fn fn;
	void *arg;
};

void perf_script_init(struct perf_script *p, perf_sample_fn fn, void *arg);
void perf_script_free(struct perf_script *p);

/*
 * One line (without its newline).  Returns 0, the callback's non-zero
 * value, or -1 with "line N: what" in @err for a line that is not perf
 * script text.
 */
int perf_script_line(struct perf_script *p, const char *line, size_t len, char *err,
		     size_t errlen);

/* The end of the input: the last sample goes to the callback. */
int perf_script_finish(struct perf_script *p);

#endif
