// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution: every sample interval's energy split between the threads
 * that ran in it (CPU time from sched_switch), idle (pid 0) and "other"
 * (CPU time nobody can be named for), then threads grouped into processes.
 *
 * A thread running on a CPU through a whole interval gets energy / CPUs of
 * it.  Those shares add up in one running total (cpu_share), so a CPU that
 * did not switch costs nothing per sample: what ran on it is charged the
 * difference of the total when it stops (or at the end).  Only the pieces
 * of intervals around switches are charged one by one.  CPUs are kept for
 * the numbers that appear (up to 65535), so one event on CPU 65535 does
 * not make every sample walk 65536 CPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define CPU_MAX		65535

/* ---- tasks --------------------------------------------------------------- */

static bool task_match(const void *ctx, uint32_t pos, const void *key)
{
	const struct report *r = ctx;

	return r->tasks[pos].pid == *(const int *)key;
}

static uint32_t task_hash(const void *ctx, uint32_t pos)
{
	const struct report *r = ctx;

	return hash_u32((uint32_t)r->tasks[pos].pid);
}

const struct report_task *report_find_task(const struct report *r, int pid)
{
	long pos = hash_index_find(&r->task_index, hash_u32((uint32_t)pid), task_match, r, &pid);

	return pos < 0 ? NULL : &r->tasks[pos];
}

struct report_task *report_task_get(struct report *r, int pid)
{
	long pos = hash_index_find(&r->task_index, hash_u32((uint32_t)pid), task_match, r, &pid);
	struct report_task *t;

	if (pos >= 0)
		return &r->tasks[pos];
	t = report_grow(r->tasks, &r->cap_tasks, r->nr_tasks + 1, sizeof(*t));
	if (!t)
		goto oom;
	r->tasks = t;
	t = &r->tasks[r->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = -1;
	t->open_top = -1;
	if (hash_index_add(&r->task_index, hash_u32((uint32_t)pid), r->nr_tasks, task_hash, r))
		goto oom;
	r->nr_tasks++;
	return t;
oom:
	report_oom(r);
	return NULL;
}

static void task_touch(struct report *r, struct report_task *t, uint64_t ns)
{
	if (!t->touched) {
		uint32_t *n = report_grow(r->touched, &r->cap_touched, r->nr_touched + 1, sizeof(*n));

		if (!n) {
			report_oom(r);
			return;
		}
		r->touched = n;
		r->touched[r->nr_touched++] = (uint32_t)(t - r->tasks);
		t->touched = true;
	}
	t->interval_ns += ns;
}

void report_comm(int pid, const char *comm, void *arg)
{
	struct report *r = arg;
	struct report_task *t;

	if (pid <= 0 || !comm || !*comm)
		return;
	t = report_task_get(r, pid);
	if (t && strcmp(t->comm, comm))
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

void report_tgid(int pid, int tgid, void *arg)
{
	struct report_task *t;

	if (pid <= 0 || tgid <= 0)
		return;
	t = report_task_get(arg, pid);
	if (t)
		t->tgid = tgid;
}

/* ---- CPUs ---------------------------------------------------------------- */

static int cpus_counted(const struct report *r)
{
	return r->nr_cpus > r->nr_cpus_hint ? r->nr_cpus : r->nr_cpus_hint;
}

/*
 * The CPU count grows: CPUs below the new count exist from now on (from
 * the open interval's start), running something unknown until they switch.
 */
static void cpus_grow(struct report *r, int nr_cpus)
{
	struct report_cpu_growth *g;

	if (nr_cpus <= cpus_counted(r))
		return;
	g = report_grow(r->growth, &r->cap_growth, r->nr_growth + 1, sizeof(*g));
	if (!g) {
		report_oom(r);
		return;
	}
	r->growth = g;
	g[r->nr_growth].nr_cpus = nr_cpus;
	g[r->nr_growth].share = r->cpu_share;
	g[r->nr_growth].time_ns = r->cpu_time_ns;
	r->nr_growth++;
}

/* When CPU @cpu began to count: the first growth past it. */
static const struct report_cpu_growth *cpu_known_since(const struct report *r, int cpu)
{
	uint32_t a = 0, b = r->nr_growth;

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (r->growth[m].nr_cpus > cpu)
			b = m;
		else
			a = m + 1;
	}
	return a < r->nr_growth ? &r->growth[a] : NULL;
}

static struct report_cpu *cpu_get(struct report *r, int cpu)
{
	const struct report_cpu_growth *g;
	struct report_cpu *c;

	if (cpu < 0 || cpu > CPU_MAX)
		return NULL;
	if (!r->cpu_index) {
		r->cpu_index = calloc(CPU_MAX + 1, sizeof(*r->cpu_index));
		if (!r->cpu_index)
			goto oom;
	}
	if (r->cpu_index[cpu])
		return &r->cpus[r->cpu_index[cpu] - 1];
	if (cpu >= r->nr_cpus) {
		cpus_grow(r, cpu + 1);
		r->nr_cpus = cpu + 1;
	}
	c = report_grow(r->cpus, &r->cap_cpu_seen, r->nr_cpu_seen + 1, sizeof(*c));
	if (!c)
		goto oom;
	r->cpus = c;
	c = &r->cpus[r->nr_cpu_seen];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->pid = -1;
	/* unknown since it began to count: that much is its pending share */
	g = cpu_known_since(r, cpu);
	c->mark_share = g ? g->share : r->cpu_share;
	c->mark_ns = g ? g->time_ns : r->cpu_time_ns;
	r->cpu_index[cpu] = ++r->nr_cpu_seen;
	return c;
oom:
	report_oom(r);
	return NULL;
}

void report_cpus(int nr_cpus, void *arg)
{
	struct report *r = arg;

	if (nr_cpus > 0 && nr_cpus <= CPU_MAX + 1) {
		/* every CPU's time counts, even before its first switch */
		cpus_grow(r, nr_cpus);
		r->nr_cpus_hint = nr_cpus > r->nr_cpus_hint ? nr_cpus : r->nr_cpus_hint;
	}
}

/*
 * Charge what ran on @c through the whole intervals since it was last
 * charged: the difference of the running totals.
 */
static void cpu_settle(struct report *r, struct report_cpu *c)
{
	double share = r->cpu_share - c->mark_share;
	uint64_t ns = r->cpu_time_ns - c->mark_ns;
	struct report_task *t;

	c->mark_share = r->cpu_share;
	c->mark_ns = r->cpu_time_ns;
	if (!ns && !share)
		return;
	if (c->pid < 0) {
		c->pending_energy += share;
		c->pending_ns += ns;
	} else if (c->pid == 0) {
		r->idle_energy += share;
	} else {
		t = report_task_get(r, c->pid);
		if (t) {
			t->energy += share;
			t->cpu_ns += ns;
		}
	}
}

/* Charge @c's running task with its time in the open interval up to @ts_ns. */
static void cpu_piece(struct report *r, struct report_cpu *c, uint64_t ts_ns)
{
	struct report_task *t;
	uint64_t ns;

	if (!r->have_prev || ts_ns <= c->since_ns)
		return;		/* before the first sample: nothing to charge */
	ns = ts_ns - c->since_ns;
	if (c->pid < 0) {
		c->unknown_ns += ns;
	} else if (c->pid == 0) {
		r->interval_idle_ns += ns;
	} else {
		t = report_task_get(r, c->pid);
		if (t)
			task_touch(r, t, ns);
	}
}

/*
 * A CPU's first sched_switch names the task that ran there until then
 * (prev_pid, 0 for idle): it gets the CPU's time so far, moved out of other.
 */
static void cpu_first_switch(struct report *r, struct report_cpu *c, int prev_pid)
{
	struct report_task *t = NULL;

	if (prev_pid < 0)
		return;
	if (prev_pid > 0) {
		t = report_task_get(r, prev_pid);
		if (!t)
			return;
	}
	c->pid = prev_pid;
	if (t) {
		t->energy += c->pending_energy;
		t->cpu_ns += c->pending_ns;
		if (c->unknown_ns)
			task_touch(r, t, c->unknown_ns);
	} else {
		r->idle_energy += c->pending_energy;
		r->interval_idle_ns += c->unknown_ns;
	}
	c->pending_energy = 0;
	c->pending_ns = 0;
	c->unknown_ns = 0;
}

void report_on_switch(struct report *r, const struct trace_event *ev)
{
	struct report_cpu *c = cpu_get(r, ev->cpu);
	uint32_t *d;

	if (!c)
		return;
	r->switches++;
	if (!c->dirty) {
		/* the whole intervals before this one, then this one's start */
		cpu_settle(r, c);
		c->since_ns = r->have_prev ? r->last_ns : ev->ts_ns;
		d = report_grow(r->dirty_cpus, &r->cap_dirty, r->nr_dirty + 1, sizeof(*d));
		if (!d) {
			report_oom(r);
			return;
		}
		r->dirty_cpus = d;
		d[r->nr_dirty++] = (uint32_t)(c - r->cpus);
		c->dirty = true;
	}
	cpu_piece(r, c, ev->ts_ns);
	if (c->pid < 0)
		cpu_first_switch(r, c, ev->sw.prev_pid);
	c->pid = ev->sw.next_pid;
	c->since_ns = ev->ts_ns;
}

void report_attr_first_sample(struct report *r)
{
	uint32_t i;

	/* CPU time before the first sample is not charged to anyone */
	for (i = 0; i < r->nr_dirty; i++)
		r->cpus[r->dirty_cpus[i]].dirty = false;
	r->nr_dirty = 0;
	r->interval_idle_ns = 0;
}

void report_attr_interval(struct report *r, uint64_t t0, uint64_t t1, double energy)
{
	int ncpus = cpus_counted(r);
	double total, e;
	uint32_t i;

	if (ncpus < 1)
		ncpus = 1;
	total = (double)ncpus * (double)(t1 - t0);
	/* the CPUs that switched: their pieces up to t1 */
	for (i = 0; i < r->nr_dirty; i++) {
		struct report_cpu *c = &r->cpus[r->dirty_cpus[i]];

		cpu_piece(r, c, t1);
		if (c->unknown_ns) {
			/* other until the CPU's first switch says whose it was */
			c->pending_energy += energy * (double)c->unknown_ns / total;
			c->pending_ns += c->unknown_ns;
			c->unknown_ns = 0;
		}
	}
	for (i = 0; i < r->nr_touched; i++) {
		struct report_task *t = &r->tasks[r->touched[i]];

		t->energy += energy * (double)t->interval_ns / total;
		t->cpu_ns += t->interval_ns;
		t->interval_ns = 0;
		t->touched = false;
	}
	r->nr_touched = 0;
	r->idle_energy += energy * r->interval_idle_ns / total;
	r->interval_idle_ns = 0;
	/* every CPU that did not switch ran one thing throughout */
	e = energy / ncpus;
	r->cpu_share += e;
	r->cpu_time_ns += t1 - t0;
	for (i = 0; i < r->nr_dirty; i++) {
		struct report_cpu *c = &r->cpus[r->dirty_cpus[i]];

		c->dirty = false;
		c->mark_share = r->cpu_share;
		c->mark_ns = r->cpu_time_ns;
	}
	r->nr_dirty = 0;
}

/* ---- processes ------------------------------------------------------------ */

static int cmp_process(const void *a, const void *b)
{
	const struct report_process *x = a, *y = b;

	return x->energy_j < y->energy_j ? 1 : x->energy_j > y->energy_j ? -1 :
	       x->tgid - y->tgid;
}

static int cmp_task(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	const struct report_task *x = &r->tasks[*(const uint32_t *)a];
	const struct report_task *y = &r->tasks[*(const uint32_t *)b];
	double ex = r->sign * x->energy, ey = r->sign * y->energy;

	return ex < ey ? 1 : ex > ey ? -1 : x->pid - y->pid;
}

static bool process_match(const void *ctx, uint32_t pos, const void *key)
{
	const struct report *r = ctx;

	return r->processes[pos].tgid == *(const int *)key;
}

static uint32_t process_hash(const void *ctx, uint32_t pos)
{
	const struct report *r = ctx;

	return hash_u32((uint32_t)r->processes[pos].tgid);
}

static int build_processes(struct report *r)
{
	struct hash_index by_tgid = { 0 };
	uint32_t i;
	long pos;

	r->task_order = calloc(r->nr_tasks + 1, sizeof(*r->task_order));
	r->processes = calloc(r->nr_tasks + 1, sizeof(*r->processes));
	if (!r->task_order || !r->processes)
		return -1;
	for (i = 0; i < r->nr_tasks; i++)
		r->task_order[i] = i;
	qsort_r(r->task_order, r->nr_tasks, sizeof(*r->task_order), cmp_task, r);

	for (i = 0; i < r->nr_tasks; i++) {
		const struct report_task *t = &r->tasks[i];
		int tgid = t->tgid > 0 ? t->tgid : t->pid;
		struct report_process *p;

		if (!t->cpu_ns && !t->energy)
			continue;
		pos = hash_index_find(&by_tgid, hash_u32((uint32_t)tgid), process_match, r, &tgid);
		if (pos < 0) {
			pos = r->nr_processes;
			r->processes[pos].tgid = tgid;
			r->processes[pos].tgid_known = false;
			if (hash_index_add(&by_tgid, hash_u32((uint32_t)tgid), pos, process_hash, r)) {
				hash_index_free(&by_tgid);
				return -1;
			}
			r->nr_processes++;
		}
		p = &r->processes[pos];
		/* a thread whose pid leads a known group is its leader */
		if (t->tgid > 0)
			p->tgid_known = true;
		if (t->pid == tgid || !p->comm[0])
			snprintf(p->comm, sizeof(p->comm), "%s", t->comm);
		p->threads++;
		p->cpu_ns += t->cpu_ns;
		p->energy_j += r->sign * t->energy;
	}
	hash_index_free(&by_tgid);
	qsort(r->processes, r->nr_processes, sizeof(*r->processes), cmp_process);
	return 0;
}

void report_settle(struct report *r)
{
	double named = 0;
	uint32_t i;

	/* what ran through the whole intervals since each CPU last switched */
	for (i = 0; i < r->nr_cpu_seen; i++)
		if (!r->cpus[i].dirty)
			cpu_settle(r, &r->cpus[i]);
	/* other: whatever no thread and no idle CPU can be named for */
	for (i = 0; i < r->nr_tasks; i++)
		named += r->tasks[i].energy;
	r->other_energy = r->energy - named - r->idle_energy;
}

int report_attr_finish(struct report *r)
{
	report_settle(r);
	if (r->error)
		return -1;
	return build_processes(r);
}

void report_attr_free(struct report *r)
{
	free(r->cpus);
	free(r->cpu_index);
	free(r->dirty_cpus);
	free(r->growth);
	free(r->tasks);
	hash_index_free(&r->task_index);
	free(r->touched);
	free(r->processes);
	free(r->task_order);
}
