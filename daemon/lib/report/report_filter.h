/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `powerpin report --from/--to/--cpu/--pid/--tid/--comm` keep of the
 * input: a filter between the trace reader and the report (and its second
 * pass), applied to the events once, before any attribution, so every
 * output (text, JSON, CSV, HTML, Perfetto, Chrome JSON) is made from the
 * same events.
 *
 * - A time window [from, to], both ends in: events outside it are left out, power
 *   samples included, so energy counts only inside it.  Bounds count from
 *   the capture's first power sample (the report's time axis) or are
 *   absolute trace times (a marker's or slice's, found by a first pass).
 * - CPUs: sched_switch on the other CPUs is left out; their CPU time is
 *   nobody's (the report's <other>), while their count still divides each
 *   interval's energy.  Power samples and trace_marker writes are kept.
 * - Threads: a thread not selected is written as an unknown task (pid -1,
 *   named "<other>") in sched_switch, so its CPU time's energy is <other>
 *   and the threads
 *   selected get exactly the energy of an unfiltered report; their atrace
 *   slices and counters, forks and exits are left out.  powerpin markers
 *   (global spans) and power samples are kept.
 */
#ifndef POWERPIN_REPORT_FILTER_H
#define POWERPIN_REPORT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define REPORT_FILTER_CPUS	4096

struct report_filter {
	bool have_from, have_to;
	bool from_abs, to_abs;		/* absolute trace ns, else from the first sample */
	uint64_t from_ns, to_ns;
	uint64_t *cpus;			/* bitmap of REPORT_FILTER_CPUS, NULL: all */
	bool select_threads;
	int *tids;			/* sorted, when select_threads */
	size_t nr_tids;
	const char *instance;		/* the trace.dat buffer to read (--instance), NULL top */
};

/* Event counts of one read (report --stat), by TRACE_EV_* kind. */
#define REPORT_EVENT_KINDS	(TRACE_EV_CPU_FREQ + 1)
struct report_event_counts {
	uint64_t n[REPORT_EVENT_KINDS];
};

/* Whether the filter keeps anything out at all. */
bool report_filter_active(const struct report_filter *f);

/*
 * "0,2-3" into f->cpus; 0, or -1 with a message in @err (bad syntax, a
 * CPU past REPORT_FILTER_CPUS - 1, out of memory).
 */
int report_filter_parse_cpus(struct report_filter *f, const char *list, char *err,
			     size_t errlen);

/* Seconds ("2.5") for --from/--to; true when @s is one, into @ns. */
bool report_filter_parse_seconds(const char *s, uint64_t *ns);

/* Select the threads @tids (any order; copied). 0, or -1 (ENOMEM). */
int report_filter_set_tids(struct report_filter *f, const int *tids, size_t n);

/* Whether thread @pid is kept (0, idle, always is). */
bool report_filter_thread(const struct report_filter *f, int pid);

void report_filter_free(struct report_filter *f);

/*
 * trace_input_read() through @f (NULL: straight through).  Returns as
 * trace_input_read() does.
 */
int report_filter_read(const char *path, const struct trace_input_ops *ops, void *arg,
		       const struct report_filter *f, char *err, size_t errlen);

/* Count the events @f keeps of @path into @c; as report_filter_read(). */
int report_count_events(const char *path, const struct report_filter *f,
			struct report_event_counts *c, char *err, size_t errlen);

/* "powerpin:powerpin_battery", "sched:sched_switch", ... for a TRACE_EV_* kind; NULL for one not counted. */
const char *report_event_kind_name(int kind);

/*
 * What the command line selects, before it is a filter: --from/--to as
 * seconds or as a slice's or marker's name, threads by process, thread and
 * name (a thread is selected when it matches every kind given, any value
 * of each).
 */
struct report_selection {
	const char *from, *to;
	const int *pids;
	size_t nr_pids;
	const int *tids;
	size_t nr_tids;
	const char *const *comms;
	size_t nr_comms;
};

/*
 * Make @f from @s (report_select.c).  Names and threads need a first pass
 * over @path (a whole report, unfiltered): a name is the first slice or
 * marker span of that name to begin, --from its start and --to its end;
 * the threads are those the report knows (their process from the input's
 * tgids, their name the last one seen).  Returns 0, or -1 with a message
 * in @err: a name nothing in the input has, no thread matching.
 */
int report_filter_resolve(struct report_filter *f, const char *path,
			  const struct report_selection *s, char *err, size_t errlen);

#endif
