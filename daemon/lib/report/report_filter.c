// SPDX-License-Identifier: GPL-2.0
/*
 * The report's input filter (report_filter.h): a trace_input_ops that
 * passes on what the window, the CPUs and the threads keep.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report_filter.h"

#define MARKER_PREFIX	"powerpin:"

bool report_filter_active(const struct report_filter *f)
{
	return f && (f->have_from || f->have_to || f->cpus || f->select_threads);
}

static bool cpu_kept(const struct report_filter *f, int cpu)
{
	if (!f->cpus)
		return true;
	if (cpu < 0 || cpu >= REPORT_FILTER_CPUS)
		return false;
	return f->cpus[cpu / 64] & (1ULL << (cpu % 64));
}

/* One number of a CPU list at *@s; -1 when there is none or it is too big. */
static long cpu_number(const char **s)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	v = strtol(*s, &end, 10);
	if (errno || v >= REPORT_FILTER_CPUS)
		return -1;
	*s = end;
	return v;
}

int report_filter_parse_cpus(struct report_filter *f, const char *list, char *err,
			     size_t errlen)
{
	const char *s = list;
	long a, b;

	if (!f->cpus)
		f->cpus = calloc(REPORT_FILTER_CPUS / 64, sizeof(*f->cpus));
	if (!f->cpus) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	do {
		a = b = cpu_number(&s);
		if (a >= 0 && *s == '-') {
			s++;
			b = cpu_number(&s);
		}
		if (a < 0 || b < a || (*s && *s != ',')) {
			snprintf(err, errlen,
				 "--cpu wants CPU numbers below %d, as 0,2-3, not '%s'",
				 REPORT_FILTER_CPUS, list);
			return -1;
		}
		for (; a <= b; a++)
			f->cpus[a / 64] |= 1ULL << (a % 64);
	} while (*s++ == ',');
	return 0;
}

bool report_filter_parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1.8e10)
		return false;
	*ns = (uint64_t)llround(v * 1e9);
	return true;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

int report_filter_set_tids(struct report_filter *f, const int *tids, size_t n)
{
	int *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		return -1;
	memcpy(copy, tids, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), int_cmp);
	free(f->tids);
	f->tids = copy;
	f->nr_tids = n;
	f->select_threads = true;
	return 0;
}

bool report_filter_thread(const struct report_filter *f, int pid)
{
	if (!f || !f->select_threads || pid == 0)
		return true;
	if (pid < 0)
		return false;
	return bsearch(&pid, f->tids, f->nr_tids, sizeof(*f->tids), int_cmp) != NULL;
}

void report_filter_free(struct report_filter *f)
{
	free(f->cpus);
	free(f->tids);
	memset(f, 0, sizeof(*f));
}

/* ---- the read ------------------------------------------------------------ */

/* What a CPU ran when the window opened: its last switch before it. */
struct filter_cpu {
	bool known;
	int pid, prio;
	char comm[32];
};

struct filter_read {
	const struct report_filter *f;
	const struct trace_input_ops *ops;
	void *arg;
	bool have_base;
	uint64_t base_ns;		/* the first power sample's time */
	struct report_event_counts *counts;
	bool opened;			/* an event inside the window was passed on */
	bool closed;			/* the window's end edge was passed on */
	bool have_last;
	struct trace_event last;	/* the last sample, before or inside the window */
	uint64_t powered;		/* samples and edges passed on */
	int input_cpus;			/* CPUs the input has (said, or seen) */
	struct filter_cpu *cpus;	/* before it opened, by CPU number */
	int nr_cpus;
	int error;			/* ENOMEM */
};

/* Whether @ts is inside the window (relative bounds wait for the first sample). */
static bool in_window(const struct filter_read *fr, uint64_t ts)
{
	const struct report_filter *f = fr->f;

	if (f->have_from) {
		if (f->from_abs && ts < f->from_ns)
			return false;
		if (!f->from_abs && f->from_ns &&
		    (!fr->have_base || ts - fr->base_ns < f->from_ns))
			return false;
	}
	if (f->have_to) {
		if (f->to_abs && ts > f->to_ns)
			return false;
		if (!f->to_abs && fr->have_base && ts - fr->base_ns > f->to_ns)
			return false;
	}
	return true;
}

static bool is_marker(const struct trace_event *ev)
{
	size_t len = strlen(MARKER_PREFIX);

	return ev->mark.len >= len && !strncmp(ev->mark.text, MARKER_PREFIX, len);
}

/* A thread not selected becomes an unknown task in a switch. */
static void switch_threads(const struct report_filter *f, struct trace_event *ev)
{
	if (!report_filter_thread(f, ev->sw.prev_pid)) {
		ev->sw.prev_pid = -1;
		ev->sw.prev_comm = "<other>";
	}
	if (!report_filter_thread(f, ev->sw.next_pid)) {
		ev->sw.next_pid = -1;
		ev->sw.next_comm = "<other>";
	}
}

/* Whether @ev is kept, rewritten in place for the threads not selected. */
static bool event_kept(const struct report_filter *f, struct trace_event *ev)
{
	bool writer = report_filter_thread(f, ev->pid);

	switch (ev->kind) {
	case TRACE_EV_SWITCH:
		if (!cpu_kept(f, ev->cpu))
			return false;
		switch_threads(f, ev);
		break;
	case TRACE_EV_MARK:
		if (!writer && !is_marker(ev))
			return false;
		break;
	case TRACE_EV_FORK:
		return report_filter_thread(f, ev->fork.child_pid);
	case TRACE_EV_EXIT:
		return report_filter_thread(f, ev->exit.pid);
	default:
		break;
	}
	if (!writer) {
		ev->pid = -1;
		ev->tgid = -1;
		ev->comm = NULL;
	}
	return true;
}

/* A switch before the window: what its CPU runs when the window opens. */
static void note_before(struct filter_read *fr, const struct trace_event *ev)
{
	struct filter_cpu *c;

	if (ev->kind != TRACE_EV_SWITCH || ev->cpu < 0 || ev->cpu >= REPORT_FILTER_CPUS)
		return;
	if (ev->cpu >= fr->nr_cpus) {
		c = realloc(fr->cpus, (ev->cpu + 1) * sizeof(*c));
		if (!c) {
			fr->error = ENOMEM;
			return;
		}
		memset(c + fr->nr_cpus, 0, (ev->cpu + 1 - fr->nr_cpus) * sizeof(*c));
		fr->cpus = c;
		fr->nr_cpus = ev->cpu + 1;
	}
	c = &fr->cpus[ev->cpu];
	c->known = true;
	c->pid = ev->sw.next_pid;
	c->prio = ev->sw.next_prio;
	snprintf(c->comm, sizeof(c->comm), "%s", ev->sw.next_comm ? ev->sw.next_comm : "");
}

static int pass_on(struct filter_read *fr, const struct trace_event *ev);

/*
 * The window opens at @ts: each CPU's task is said by a switch from it to
 * itself, so that what ran on from before the window is charged inside it.
 */
static int window_open(struct filter_read *fr, uint64_t ts)
{
	struct trace_event sw = { .kind = TRACE_EV_SWITCH, .ts_ns = ts, .tgid = -1 };
	int cpu, ret = 0;

	fr->opened = true;
	for (cpu = 0; cpu < fr->nr_cpus && !ret; cpu++) {
		const struct filter_cpu *c = &fr->cpus[cpu];

		if (!c->known)
			continue;
		sw.cpu = cpu;
		sw.pid = sw.sw.prev_pid = sw.sw.next_pid = c->pid;
		sw.comm = sw.sw.prev_comm = sw.sw.next_comm = c->comm;
		sw.sw.prev_prio = sw.sw.next_prio = c->prio;
		sw.sw.prev_state = 0;	/* runnable: it goes on running */
		ret = pass_on(fr, &sw);
	}
	free(fr->cpus);
	fr->cpus = NULL;
	fr->nr_cpus = 0;
	return ret;
}

/* The start of the window @ts is in. */
static uint64_t window_start(const struct filter_read *fr, uint64_t ts)
{
	const struct report_filter *f = fr->f;

	if (!f->have_from)
		return ts;
	return f->from_abs ? f->from_ns : fr->base_ns + f->from_ns;
}

/* Whether @ts is past the window's end (relative bounds wait for the first sample). */
static bool past_end(const struct filter_read *fr, uint64_t ts)
{
	const struct report_filter *f = fr->f;

	if (!f->have_to)
		return false;
	return f->to_abs ? ts > f->to_ns : fr->have_base && ts - fr->base_ns > f->to_ns;
}

static bool is_sample(const struct trace_event *ev)
{
	return ev->kind == TRACE_EV_POWER &&
	       !(ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)) &&
	       !(ev->power.has & TRACE_POWER_WINDOW_EDGE);
}

/*
 * A window's edge at @at between two samples, @other the one on its far
 * side (report.c prices the partial interval).  Not an event of the input:
 * straight to the report, not counted.
 */
static int pass_edge(struct filter_read *fr, uint64_t at, const struct trace_event *other)
{
	struct trace_event edge = *other;

	edge.ts_ns = at;
	edge.comm = NULL;	/* the reader's, gone since */
	edge.power.has |= TRACE_POWER_WINDOW_EDGE;
	edge.power.edge_ns = other->ts_ns;
	return fr->ops->event ? fr->ops->event(&edge, fr->arg) : 0;
}

/*
 * The window opens at its start @at: the edge there when the last sample
 * is before it, then what each CPU runs.
 */
static int open_at(struct filter_read *fr, uint64_t at)
{
	int ret = 0;

	fr->opened = true;
	if (fr->have_last && fr->last.ts_ns < at && fr->f->have_from)
		ret = pass_edge(fr, at, &fr->last);
	if (!ret && fr->nr_cpus)
		ret = window_open(fr, at);
	return ret;
}

/* An event past the window's end: the end's edge, at the first sample after it. */
static int after_window(struct filter_read *fr, const struct trace_event *ev)
{
	const struct report_filter *f = fr->f;
	uint64_t end = f->to_abs ? f->to_ns : fr->base_ns + f->to_ns;
	uint64_t start = window_start(fr, end);
	int ret = 0;

	if (fr->closed || !is_sample(ev) || !fr->have_last || start > end)
		return 0;
	fr->closed = true;
	/* nothing inside: the window lies between this sample and the last */
	if (!fr->opened && (ret = open_at(fr, start)))
		return ret;
	if (fr->last.ts_ns >= end)
		return 0;
	fr->powered++;	/* the start's edge is priced by it, or by a sample inside */
	return pass_edge(fr, end, ev);
}

static int filter_event(const struct trace_event *ev, void *arg)
{
	struct filter_read *fr = arg;
	int ret = 0;

	if (ev->cpu >= fr->input_cpus && ev->cpu < REPORT_FILTER_CPUS)
		fr->input_cpus = ev->cpu + 1;
	if (ev->kind == TRACE_EV_POWER && !fr->have_base && is_sample(ev)) {
		fr->have_base = true;
		fr->base_ns = ev->ts_ns;
	}
	if (!in_window(fr, ev->ts_ns)) {
		if (past_end(fr, ev->ts_ns))
			ret = after_window(fr, ev);
		else if (!fr->opened)
			note_before(fr, ev);
	} else {
		if (!fr->opened)
			ret = open_at(fr, window_start(fr, ev->ts_ns));
		if (!ret)
			ret = pass_on(fr, ev);
	}
	if (is_sample(ev)) {
		fr->have_last = true;
		fr->last = *ev;
	}
	return ret ? ret : fr->error ? -1 : 0;
}

/* An event inside the window, through the CPU and thread filters. */
static int pass_on(struct filter_read *fr, const struct trace_event *ev)
{
	struct trace_event copy = *ev;

	if (!event_kept(fr->f, &copy)) {
		/* a CPU left out still counts in the division of energy */
		if (ev->kind == TRACE_EV_SWITCH && fr->ops->cpus && ev->cpu >= 0)
			fr->ops->cpus(ev->cpu + 1, fr->arg);
		return 0;
	}
	if (fr->counts && copy.kind < REPORT_EVENT_KINDS)
		fr->counts->n[copy.kind]++;
	fr->powered += is_sample(&copy);
	return fr->ops->event ? fr->ops->event(&copy, fr->arg) : 0;
}

static void filter_cpus(int nr_cpus, void *arg)
{
	struct filter_read *fr = arg;

	if (nr_cpus > fr->input_cpus)
		fr->input_cpus = nr_cpus;
	if (fr->ops->cpus)
		fr->ops->cpus(nr_cpus, fr->arg);
}

static void filter_comm(int pid, const char *comm, void *arg)
{
	struct filter_read *fr = arg;

	if (fr->ops->comm && report_filter_thread(fr->f, pid))
		fr->ops->comm(pid, comm, fr->arg);
}

static void filter_kernel_lost(uint64_t lost, void *arg)
{
	struct filter_read *fr = arg;

	if (fr->ops->kernel_lost)
		fr->ops->kernel_lost(lost, fr->arg);
}

static void filter_clock(const struct trace_clock_info *clock, void *arg)
{
	struct filter_read *fr = arg;

	if (fr->ops->clock)
		fr->ops->clock(clock, fr->arg);
}

static void filter_kernel(const struct trace_kernel_info *kernel, void *arg)
{
	struct filter_read *fr = arg;

	if (fr->ops->kernel)
		fr->ops->kernel(kernel, fr->arg);
}

static void filter_cut_line(unsigned long lineno, void *arg)
{
	struct filter_read *fr = arg;

	if (fr->ops->cut_line)
		fr->ops->cut_line(lineno, fr->arg);
}

/* Whether a CPU --cpu selects is one the input has. */
static bool cpus_in_input(const struct filter_read *fr)
{
	int cpu;

	for (cpu = 0; cpu < fr->input_cpus; cpu++)
		if (cpu_kept(fr->f, cpu))
			return true;
	return false;
}

/* --cpu selects none of the input's CPUs: say which it has; -1. */
static int cpus_not_in_input(const struct filter_read *fr, const char *path, char *err,
			     size_t errlen)
{
	if (!fr->input_cpus)
		snprintf(err, errlen, "%s: --cpu: the capture names no CPU at all", path);
	else
		snprintf(err, errlen,
			 "%s: --cpu selects none of the capture's CPUs (it has %d: 0 to %d)",
			 path, fr->input_cpus, fr->input_cpus - 1);
	return -1;
}

/* Seconds on the report's axis (from the first sample) of trace time @ns. */
static double axis_s(const struct filter_read *fr, uint64_t ns)
{
	return ((double)ns - (double)fr->base_ns) / 1e9;
}

/*
 * The window held no sample and no edge: say why, on the report's axis
 * (seconds from the capture's first sample); -1.
 */
static int window_empty(const struct filter_read *fr, const char *path, char *err,
			size_t errlen)
{
	const struct report_filter *f = fr->f;
	uint64_t last = fr->last.ts_ns;
	uint64_t from = window_start(fr, fr->base_ns);
	uint64_t to = !f->have_to ? last : f->to_abs ? f->to_ns : fr->base_ns + f->to_ns;

	if (!f->have_from && !f->have_to) {
		snprintf(err, errlen, "%s: no power samples (the filters kept none)", path);
		return -1;
	}
	if (f->have_from && f->have_to && from > to)
		snprintf(err, errlen,
			 "%s: the window is inverted: --from is at %.3f s, after --to at %.3f s",
			 path, axis_s(fr, from), axis_s(fr, to));
	else if (from > last)
		snprintf(err, errlen,
			 "%s: the window starts at %.3f s, past the capture's last power sample (%.3f s)",
			 path, axis_s(fr, from), axis_s(fr, last));
	else if (to < fr->base_ns)
		snprintf(err, errlen,
			 "%s: the window ends at %.3f s, before the capture's first power sample (0 s)",
			 path, axis_s(fr, to));
	else
		snprintf(err, errlen,
			 "%s: the window from %.3f s to %.3f s holds no power sample and has none on both sides to price it",
			 path, axis_s(fr, from), axis_s(fr, to));
	return -1;
}

static int read_counted(const char *path, const struct trace_input_ops *ops, void *arg,
			const struct report_filter *f, struct report_event_counts *c,
			char *err, size_t errlen)
{
	static const struct report_filter none;
	static const struct trace_input_ops filter_ops = {
		.event = filter_event,
		.cpus = filter_cpus,
		.comm = filter_comm,
		.kernel_lost = filter_kernel_lost,
		.clock = filter_clock,
		.kernel = filter_kernel,
		.cut_line = filter_cut_line,
	};
	struct filter_read fr = { .f = f ? f : &none, .ops = ops, .arg = arg, .counts = c };
	struct trace_input_ops fops = filter_ops;
	int ret;

	fops.instance = f && f->instance ? f->instance : ops->instance;
	if (!c && !report_filter_active(f) && fops.instance == ops->instance)
		return trace_input_read(path, ops, arg, err, errlen);
	ret = trace_input_read(path, &fops, &fr, err, errlen);
	if (fr.error && ret == -1)
		snprintf(err, errlen, "%s: out of memory", path);
	if (!ret && f && f->cpus && !cpus_in_input(&fr))
		ret = cpus_not_in_input(&fr, path, err, errlen);
	/* --stat counts what a window holds, even nothing */
	if (!ret && !c && !fr.powered && fr.have_base)
		ret = window_empty(&fr, path, err, errlen);
	free(fr.cpus);
	return ret;
}

int report_filter_read(const char *path, const struct trace_input_ops *ops, void *arg,
		       const struct report_filter *f, char *err, size_t errlen)
{
	return read_counted(path, ops, arg, f, NULL, err, errlen);
}

int report_count_events(const char *path, const struct report_filter *f,
			struct report_event_counts *c, char *err, size_t errlen)
{
	static const struct trace_input_ops nothing;

	memset(c, 0, sizeof(*c));
	return read_counted(path, &nothing, NULL, f, c, err, errlen);
}

const char *report_event_kind_name(int kind)
{
	static const char *const names[REPORT_EVENT_KINDS] = {
		[TRACE_EV_POWER] = "powerpin:powerpin_battery",
		[TRACE_EV_SWITCH] = "sched:sched_switch",
		[TRACE_EV_MARK] = "ftrace:print (trace_marker)",
		[TRACE_EV_COUNTER] = "powerpin:powerpin_counter",
		[TRACE_EV_LOST] = "lost-event records",
		[TRACE_EV_FORK] = "sched:sched_process_fork",
		[TRACE_EV_EXIT] = "sched:sched_process_exit",
		[TRACE_EV_CPU_FREQ] = "power:cpu_frequency",
		/* task:task_newtask stays in the readers (thread groups): not counted */
	};

	return kind >= 0 && kind < REPORT_EVENT_KINDS ? names[kind] : NULL;
}
