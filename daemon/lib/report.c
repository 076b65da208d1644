// SPDX-License-Identifier: GPL-2.0
/*
 * The report's single pass: every power sample closes an interval whose
 * energy (trapezoid of V x I over the real timestamps) is split between the
 * threads that ran in it (by CPU time from sched_switch), idle (pid 0) and
 * "other" (CPU time nobody can be named for), and between the atrace slices
 * and powerpin marker spans that overlap it.
 *
 * Percentiles come from histograms of a fixed number of bins that start at
 * REPORT_*_RES_* and widen when the values spread further, so memory is
 * constant and any range of values fits; min, max and mean are exact.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report.h"

#define NS_PER_S		1e9
#define INTERVAL_BINS		60000	/* 1 ms bins up to a minute */
#define MARKER_PREFIX		"powerpin:"
#define CHARGE_JUMP_SLACK_UAH	10000.0
#define SEQ_WRAP_SLACK		(1U << 20)

/*
 * Values beyond this count as this in the histograms (the mean stays exact):
 * it keeps the bin arithmetic inside int64_t, and no battery reads 4.5e9 V.
 */
#define HIST_LIMIT		(1LL << 52)

static int hist_init(struct report_hist *h, int64_t res)
{
	memset(h, 0, sizeof(*h));
	h->res = res;
	h->bins = calloc(REPORT_HIST_BINS, sizeof(*h->bins));
	return h->bins ? 0 : -1;
}

/* Largest multiple of @res not above @v (@res > 0). */
static int64_t floor_to(int64_t v, int64_t res)
{
	int64_t q = v / res;

	if (q * res > v)
		q--;
	return q * res;
}

/*
 * Make room for @v: double the bin width until the values seen so far and
 * @v fit in one window, then merge the old bins into the new ones.  Bin
 * edges stay multiples of the width, so every old bin falls inside one new
 * bin.  Returns -1 (histogram unchanged) when out of memory.
 */
static int hist_widen(struct report_hist *h, int64_t v)
{
	int64_t lo_need = v < h->min ? v : h->min;
	int64_t hi_need = (v > h->max ? v : h->max) + 1;
	int64_t res = h->res, lo;
	uint32_t *bins, i;

	do
		res *= 2;
	while (hi_need - lo_need > (int64_t)REPORT_HIST_BINS * res - res);
	lo = floor_to(lo_need, res);
	bins = calloc(REPORT_HIST_BINS, sizeof(*bins));
	if (!bins)
		return -1;
	for (i = 0; i < REPORT_HIST_BINS; i++)
		if (h->bins[i])
			bins[(h->lo + (int64_t)i * h->res - lo) / res] += h->bins[i];
	free(h->bins);
	h->bins = bins;
	h->lo = lo;
	h->res = res;
	return 0;
}

static void hist_add(struct report_hist *h, int64_t v)
{
	int64_t b = v < -HIST_LIMIT ? -HIST_LIMIT : v > HIST_LIMIT ? HIST_LIMIT : v;

	if (!h->n) {
		/* the first value in the middle of the window */
		h->lo = floor_to(b - (int64_t)(REPORT_HIST_BINS / 2) * h->res, h->res);
	} else if ((b < h->lo || b - h->lo >= (int64_t)REPORT_HIST_BINS * h->res) &&
		   hist_widen(h, b)) {
		b = b < h->lo ? h->lo : h->lo + (int64_t)(REPORT_HIST_BINS - 1) * h->res;
	}
	h->bins[(b - h->lo) / h->res]++;
	if (!h->n || b < h->min)
		h->min = b;
	if (!h->n || b > h->max)
		h->max = b;
	h->n++;
	h->sum += v;
}

/* Value of the @rank-th smallest sample (1-based), within one bin width. */
static int64_t hist_rank(const struct report_hist *h, uint64_t rank)
{
	uint64_t seen = 0;
	int64_t v;
	uint32_t i;

	for (i = 0; i < REPORT_HIST_BINS; i++) {
		seen += h->bins[i];
		if (seen >= rank)
			break;
	}
	if (i == REPORT_HIST_BINS)
		i = REPORT_HIST_BINS - 1;
	v = h->lo + (int64_t)i * h->res;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

/* Nearest-rank percentile of sign * x, scaled to SI units. */
static double hist_pct(const struct report_hist *h, double q, int sign, double scale)
{
	uint64_t rank = (uint64_t)ceil(q * h->n);

	if (!h->n)
		return 0;
	if (rank < 1)
		rank = 1;
	if (sign > 0)
		return hist_rank(h, rank) * scale;
	return -(double)hist_rank(h, h->n + 1 - rank) * scale;
}

static void hist_stat(const struct report_hist *h, int sign, double scale, struct report_stat *s)
{
	if (!h->n) {
		memset(s, 0, sizeof(*s));
		return;
	}
	s->mean = sign * h->sum / h->n * scale;
	s->min = (sign > 0 ? h->min : -h->max) * scale;
	s->max = (sign > 0 ? h->max : -h->min) * scale;
	s->p50 = hist_pct(h, 0.50, sign, scale);
	s->p95 = hist_pct(h, 0.95, sign, scale);
}

int report_init(struct report *r, const struct report_options *opt)
{
	memset(r, 0, sizeof(*r));
	if (opt)
		r->opt = *opt;
	r->marker_open = -1;
	r->sign = 1;
	r->bucket_ns = 1000000;	/* 1 ms, doubled as the capture grows */
	r->interval_bins = INTERVAL_BINS;
	r->interval_ms = calloc(INTERVAL_BINS + 1, sizeof(*r->interval_ms));
	if (!r->interval_ms ||
	    hist_init(&r->volt, REPORT_VOLTAGE_RES_UV) ||
	    hist_init(&r->cur, REPORT_CURRENT_RES_UA) ||
	    hist_init(&r->pow, REPORT_POWER_RES_UW)) {
		report_free(r);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void report_free(struct report *r)
{
	uint32_t i;

	free(r->volt.bins);
	free(r->cur.bins);
	free(r->pow.bins);
	free(r->interval_ms);
	free(r->cpus);
	free(r->tasks);
	free(r->task_hash);
	free(r->touched);
	for (i = 0; i < r->nr_slice_stats; i++)
		free(r->slice_stats[i].name);
	free(r->slice_stats);
	free(r->open);
	for (i = 0; i < r->nr_counters; i++)
		free(r->counters[i].name);
	free(r->counters);
	free(r->processes);
	free(r->task_order);
	memset(r, 0, sizeof(*r));
}

static void *grow(void *arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need)
		n *= 2;
	p = realloc(arr, (size_t)n * size);
	if (!p)
		return NULL;
	memset((char *)p + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
	*cap = n;
	return p;
}

/* ---- tasks --------------------------------------------------------------- */

static uint32_t pid_hash(int pid, uint32_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

const struct report_task *report_find_task(const struct report *r, int pid)
{
	uint32_t j;

	if (!r->hash_cap)
		return NULL;
	j = pid_hash(pid, r->hash_cap);
	while (r->task_hash[j]) {
		if (r->tasks[r->task_hash[j] - 1].pid == pid)
			return &r->tasks[r->task_hash[j] - 1];
		j = (j + 1) & (r->hash_cap - 1);
	}
	return NULL;
}

static int task_rehash(struct report *r, uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h));
	uint32_t i, j;

	if (!h)
		return -1;
	for (i = 0; i < r->nr_tasks; i++) {
		j = pid_hash(r->tasks[i].pid, cap);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(r->task_hash);
	r->task_hash = h;
	r->hash_cap = cap;
	return 0;
}

static struct report_task *task_get(struct report *r, int pid)
{
	struct report_task *t;
	uint32_t j;

	if (r->hash_cap) {
		j = pid_hash(pid, r->hash_cap);
		while (r->task_hash[j]) {
			t = &r->tasks[r->task_hash[j] - 1];
			if (t->pid == pid)
				return t;
			j = (j + 1) & (r->hash_cap - 1);
		}
	}
	if ((r->nr_tasks + 1) * 2 > r->hash_cap &&
	    task_rehash(r, r->hash_cap ? r->hash_cap * 2 : 256))
		return NULL;
	{
		uint32_t cap = r->cap_tasks;
		struct report_task *n = grow(r->tasks, &cap, r->nr_tasks + 1, sizeof(*n));

		if (!n)
			return NULL;
		r->tasks = n;
		r->cap_tasks = cap;
	}
	t = &r->tasks[r->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = -1;
	j = pid_hash(pid, r->hash_cap);
	while (r->task_hash[j])
		j = (j + 1) & (r->hash_cap - 1);
	r->task_hash[j] = ++r->nr_tasks;
	return t;
}

static void task_touch(struct report *r, struct report_task *t, uint64_t ns)
{
	if (!t->touched) {
		uint32_t *n = grow(r->touched, &r->cap_touched, r->nr_touched + 1, sizeof(*n));

		if (!n)
			return;
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
	t = task_get(r, pid);
	if (t && strcmp(t->comm, comm))
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static struct report_cpu *cpu_get(struct report *r, int cpu)
{
	struct report_cpu *c;
	int i;

	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= r->nr_cpus) {
		c = realloc(r->cpus, (size_t)(cpu + 1) * sizeof(*c));
		if (!c)
			return NULL;
		for (i = r->nr_cpus; i <= cpu; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].pid = -1;
			/* counted from the open interval on */
			c[i].since_ns = r->have_prev ? r->last_ns : 0;
		}
		r->cpus = c;
		r->nr_cpus = cpu + 1;
	}
	return &r->cpus[cpu];
}

void report_cpus(int nr_cpus, void *arg)
{
	struct report *r = arg;

	if (nr_cpus > 0 && nr_cpus <= 65536) {
		r->nr_cpus_hint = nr_cpus;
		/* every CPU's time counts, even before its first switch */
		cpu_get(r, nr_cpus - 1);
	}
}

/* Charge a CPU's running task up to @ts_ns (inside the open interval). */
static void cpu_account(struct report *r, struct report_cpu *c, uint64_t ts_ns, double *idle_ns)
{
	struct report_task *t;
	uint64_t ns;

	if (ts_ns <= c->since_ns)
		return;
	ns = ts_ns - c->since_ns;
	c->since_ns = ts_ns;
	if (!r->have_prev)
		return;		/* before the first sample: nothing to charge */
	if (c->pid < 0) {
		c->unknown_ns += ns;
		return;
	}
	if (c->pid == 0) {
		*idle_ns += ns;
		return;
	}
	t = task_get(r, c->pid);
	if (t)
		task_touch(r, t, ns);
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
		t = task_get(r, prev_pid);
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
	r->other_energy -= c->pending_energy;
	c->pending_energy = 0;
	c->pending_ns = 0;
	c->unknown_ns = 0;
}

static void on_switch(struct report *r, const struct trace_event *ev)
{
	struct report_cpu *c = cpu_get(r, ev->cpu);

	if (!c)
		return;
	r->switches++;
	cpu_account(r, c, ev->ts_ns, &r->interval_idle_ns);
	if (c->pid < 0)
		cpu_first_switch(r, c, ev->sw.prev_pid);
	c->pid = ev->sw.next_pid;
	c->since_ns = ev->ts_ns;
}

/* Split @energy of [t0, t1] between tasks, idle and other. */
static void attribute_interval(struct report *r, uint64_t t0, uint64_t t1, double energy)
{
	int ncpus = r->nr_cpus > r->nr_cpus_hint ? r->nr_cpus : r->nr_cpus_hint;
	double total, used = 0, e;
	uint32_t i;
	int cpu;

	if (ncpus < 1)
		ncpus = 1;
	total = (double)ncpus * (double)(t1 - t0);
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct report_cpu *c = &r->cpus[cpu];

		cpu_account(r, c, t1, &r->interval_idle_ns);
		if (c->unknown_ns) {
			/* other until the CPU's first switch says whose it was */
			c->pending_energy += energy * (double)c->unknown_ns / total;
			c->pending_ns += c->unknown_ns;
			c->unknown_ns = 0;
		}
	}
	for (i = 0; i < r->nr_touched; i++) {
		struct report_task *t = &r->tasks[r->touched[i]];

		e = energy * (double)t->interval_ns / total;
		t->energy += e;
		used += e;
		t->cpu_ns += t->interval_ns;
		t->interval_ns = 0;
		t->touched = false;
	}
	r->nr_touched = 0;
	e = energy * r->interval_idle_ns / total;
	r->idle_energy += e;
	used += e;
	r->other_energy += energy - used;
	r->interval_idle_ns = 0;
}

/* ---- slices ------------------------------------------------------------- */

static int slice_stat_get(struct report *r, const char *name, size_t len, bool marker)
{
	struct report_slice_stat *s;
	uint32_t i;

	for (i = 0; i < r->nr_slice_stats; i++) {
		s = &r->slice_stats[i];
		if (s->marker == marker && !strncmp(s->name, name, len) && !s->name[len])
			return (int)i;
	}
	s = grow(r->slice_stats, &r->cap_slice_stats, r->nr_slice_stats + 1, sizeof(*s));
	if (!s)
		return -1;
	r->slice_stats = s;
	s = &r->slice_stats[r->nr_slice_stats];
	s->name = strndup(name, len);
	if (!s->name)
		return -1;
	s->marker = marker;
	return (int)r->nr_slice_stats++;
}

static void slice_begin(struct report *r, int pid, const char *name, size_t len, bool marker,
			uint64_t ts)
{
	struct report_open_slice *o;
	int stat;

	if (r->nr_open >= REPORT_MAX_OPEN_SLICES) {
		r->slices_dropped++;
		return;
	}
	stat = slice_stat_get(r, name, len, marker);
	if (stat < 0)
		return;
	o = grow(r->open, &r->cap_open, r->nr_open + 1, sizeof(*o));
	if (!o)
		return;
	r->open = o;
	o = &r->open[r->nr_open++];
	o->id = ++r->next_slice_id;
	r->last_begun_id = o->id;
	o->pid = pid;
	o->stat = stat;
	o->begin_ns = ts;
	o->end_ns = 0;
	o->energy = 0;
}

/* End the innermost open slice of @pid (or the open marker span). */
static void slice_end(struct report *r, int pid, bool marker, uint64_t ts)
{
	uint32_t i = r->nr_open;

	while (i-- > 0) {
		struct report_open_slice *o = &r->open[i];

		if (o->end_ns || r->slice_stats[o->stat].marker != marker)
			continue;
		if (!marker && o->pid != pid)
			continue;
		o->end_ns = ts > o->begin_ns ? ts : o->begin_ns + 1;
		r->last_ended_id = o->id;
		return;
	}
	if (!marker)
		r->slice_ends_unmatched++;	/* E without B */
}

/* Shade the plot buckets a slice covers (kept per bucket: constant memory). */
static void plot_slice(struct report *r, uint64_t begin, uint64_t end)
{
	uint64_t k, b0, b1;

	if (!r->samples)
		return;
	begin = begin > r->first_ns ? begin : r->first_ns;
	end = end < r->last_ns ? end : r->last_ns;
	if (end <= begin)
		return;
	for (k = (begin - r->first_ns) / r->bucket_ns;
	     k < REPORT_PLOT_BUCKETS && k * r->bucket_ns + r->first_ns < end; k++) {
		b0 = r->first_ns + k * r->bucket_ns;
		b1 = b0 + r->bucket_ns;
		r->buckets[k].slice_ns += (end < b1 ? end : b1) - (begin > b0 ? begin : b0);
	}
}

static void slice_done(struct report *r, uint32_t i, bool unterminated)
{
	struct report_open_slice *o = &r->open[i];
	struct report_slice_stat *s = &r->slice_stats[o->stat];

	s->count++;
	s->duration_ns += o->end_ns - o->begin_ns;
	s->energy += o->energy;
	s->unterminated += unterminated;
	r->slices_total++;
	if (!s->marker)
		plot_slice(r, o->begin_ns, o->end_ns);
	if (r->slice_done)
		r->slice_done(r, o, unterminated, r->slice_done_arg);
	memmove(&r->open[i], &r->open[i + 1], (r->nr_open - i - 1) * sizeof(*o));
	r->nr_open--;
}

/* Integral over [a, b] of power linear between (t0, p0) and (t1, p1), J. */
static double lin_energy(uint64_t t0, double p0, uint64_t t1, double p1, uint64_t a, uint64_t b)
{
	double dt = (double)(t1 - t0);
	double pa = p0 + (p1 - p0) * (double)(a - t0) / dt;
	double pb = p0 + (p1 - p0) * (double)(b - t0) / dt;

	return (pa + pb) / 2 * 1e-6 * (double)(b - a) / NS_PER_S;
}

static void slices_interval(struct report *r, uint64_t t0, double p0, uint64_t t1, double p1,
			    bool have_interval)
{
	uint32_t i = 0;

	while (i < r->nr_open) {
		struct report_open_slice *o = &r->open[i];
		uint64_t a = o->begin_ns > t0 ? o->begin_ns : t0;
		uint64_t b = o->end_ns && o->end_ns < t1 ? o->end_ns : t1;

		if (have_interval && o->begin_ns < t1 && b > a)
			o->energy += lin_energy(t0, p0, t1, p1, a, b);
		if (o->end_ns && o->end_ns <= t1)
			slice_done(r, i, false);
		else
			i++;
	}
}

static void on_counter(struct report *r, const char *name, size_t len, int64_t value, bool atrace)
{
	struct report_counter *c;
	uint32_t i;

	for (i = 0; i < r->nr_counters; i++) {
		c = &r->counters[i];
		if (c->atrace == atrace && !strncmp(c->name, name, len) && !c->name[len])
			goto found;
	}
	c = grow(r->counters, &r->cap_counters, r->nr_counters + 1, sizeof(*c));
	if (!c)
		return;
	r->counters = c;
	c = &r->counters[r->nr_counters];
	c->name = strndup(name, len);
	if (!c->name)
		return;
	c->atrace = atrace;
	r->nr_counters++;
found:
	if (!c->count || value < c->min)
		c->min = value;
	if (!c->count || value > c->max)
		c->max = value;
	c->last = value;
	c->count++;
}

/*
 * atrace's trace_marker protocol: "B|tgid|name", "E" or "E|tgid",
 * "C|tgid|name|value"; and powerpin markers "powerpin:<label>" that start a
 * span lasting until the next marker.
 */
static void on_mark(struct report *r, const struct trace_event *ev)
{
	const char *s = ev->mark.text, *end = s + ev->mark.len;
	const char *name, *bar;
	char num[32];
	size_t len;

	if (ev->mark.len >= 2 && s[0] == 'B' && s[1] == '|') {
		name = memchr(s + 2, '|', end - s - 2);
		if (!name)
			goto ignored;
		if (ev->pid > 0) {
			struct report_task *t = task_get(r, ev->pid);

			if (t && t->tgid < 0)
				t->tgid = atoi(s + 2);
		}
		name++;
		slice_begin(r, ev->pid, name, end - name, false, ev->ts_ns);
		return;
	}
	if (ev->mark.len >= 1 && s[0] == 'E' && (ev->mark.len == 1 || s[1] == '|')) {
		slice_end(r, ev->pid, false, ev->ts_ns);
		return;
	}
	if (ev->mark.len >= 2 && s[0] == 'C' && s[1] == '|') {
		name = memchr(s + 2, '|', end - s - 2);
		if (!name)
			goto ignored;
		name++;
		bar = memchr(name, '|', end - name);
		if (!bar || (size_t)(end - bar - 1) >= sizeof(num))
			goto ignored;
		len = end - bar - 1;
		memcpy(num, bar + 1, len);
		num[len] = '\0';
		on_counter(r, name, bar - name, strtoll(num, NULL, 10), true);
		return;
	}
	len = strlen(MARKER_PREFIX);
	if (ev->mark.len >= len && !strncmp(s, MARKER_PREFIX, len)) {
		name = s + len;
		while (name < end && *name == ' ')
			name++;
		slice_end(r, 0, true, ev->ts_ns);
		if (name < end)
			slice_begin(r, 0, name, end - name, true, ev->ts_ns);
		return;
	}
ignored:
	r->marks_ignored++;
}

/* ---- power samples ------------------------------------------------------ */

static void bucket_merge(struct report_bucket *a, const struct report_bucket *b)
{
	if (!b->n) {
		a->slice_ns += b->slice_ns;
		return;
	}
	if (!a->n) {
		uint64_t covered = a->slice_ns;

		*a = *b;
		a->slice_ns += covered;
		return;
	}
	a->v_min = b->v_min < a->v_min ? b->v_min : a->v_min;
	a->v_max = b->v_max > a->v_max ? b->v_max : a->v_max;
	a->i_min = b->i_min < a->i_min ? b->i_min : a->i_min;
	a->i_max = b->i_max > a->i_max ? b->i_max : a->i_max;
	a->p_min = b->p_min < a->p_min ? b->p_min : a->p_min;
	a->p_max = b->p_max > a->p_max ? b->p_max : a->p_max;
	a->v_sum += b->v_sum;
	a->i_sum += b->i_sum;
	a->p_sum += b->p_sum;
	a->n += b->n;
	a->slice_ns += b->slice_ns;
}

static void plot_add(struct report *r, uint64_t ts, int64_t v, int64_t i, double p)
{
	uint64_t idx = (ts - r->first_ns) / r->bucket_ns;
	struct report_bucket one = {
		.n = 1, .v_min = v, .v_max = v, .i_min = i, .i_max = i,
		.p_min = p, .p_max = p, .v_sum = v, .i_sum = i, .p_sum = p,
	};
	uint32_t k;

	while (idx >= REPORT_PLOT_BUCKETS) {
		/* halve the resolution: merge bucket pairs, min/max preserved */
		for (k = 0; k < REPORT_PLOT_BUCKETS / 2; k++) {
			struct report_bucket m = r->buckets[2 * k];

			bucket_merge(&m, &r->buckets[2 * k + 1]);
			r->buckets[k] = m;
		}
		memset(&r->buckets[REPORT_PLOT_BUCKETS / 2], 0,
		       sizeof(r->buckets) / 2);
		r->bucket_ns *= 2;
		idx = (ts - r->first_ns) / r->bucket_ns;
	}
	bucket_merge(&r->buckets[idx], &one);
}

static void baseline_interval(struct report *r, uint64_t t0, double p0, uint64_t t1, double p1)
{
	uint64_t end;

	if (r->opt.baseline_s <= 0)
		return;
	end = r->first_ns + (uint64_t)(r->opt.baseline_s * NS_PER_S);
	if (t0 >= end)
		return;
	if (t1 > end) {
		r->baseline_energy += lin_energy(t0, p0, t1, p1, t0, end);
		r->baseline_time_s += (double)(end - t0) / NS_PER_S;
	} else {
		r->baseline_energy += (p0 + p1) / 2 * 1e-6 * (double)(t1 - t0) / NS_PER_S;
		r->baseline_time_s += (double)(t1 - t0) / NS_PER_S;
	}
}

/*
 * One step of the charge counter.  A step larger than the current could
 * have moved it since the counter's last reading (four times the integral
 * of |I|, plus CHARGE_JUMP_SLACK_UAH for coarse counters and late updates)
 * is a discontinuity: a gauge reset or recalibration, or a wrap of its
 * register (the MAX17042's QH is 16 bits of 0.5 mAh).  It is counted and
 * left out of the counter's delta, which loses at most that one step's
 * real change.
 */
static void charge_step(struct report *r, int64_t q, uint64_t ts)
{
	int64_t step = q - r->last_charge;

	if (fabs((double)step) > 4 * r->charge_bound_uah + CHARGE_JUMP_SLACK_UAH)
		r->charge_jumps++;
	else
		r->charge_delta_uah += step;
	r->charge_bound_uah = 0;
	r->last_charge = q;
	r->last_charge_ns = ts;
	r->voltage_int_charge = r->voltage_int;
}

/*
 * The sampler numbers its samples from 1 after the module loads.  A seq
 * that goes forward by more than one is that many samples missing; one
 * that goes back (or repeats) is the module starting again, not 4e9
 * missing samples, unless it is the u32 wrapping round.
 */
static void seq_check(struct report *r, uint32_t seq)
{
	bool wrapped = seq < r->last_seq && r->last_seq > UINT32_MAX - SEQ_WRAP_SLACK &&
		       seq < SEQ_WRAP_SLACK;

	if (seq > r->last_seq || wrapped)
		r->seq_gaps += (uint32_t)(seq - r->last_seq - 1);
	else
		r->seq_resets++;
}

static void on_power(struct report *r, const struct trace_event *ev)
{
	int64_t v = ev->power.voltage_uv, i = ev->power.current_ua;
	double p = (double)v * (double)i * 1e-6;	/* uW */
	uint64_t ts = ev->ts_ns, dt;
	bool repeated;

	if (r->have_seq && (ev->power.has & TRACE_POWER_HAS_SEQ))
		seq_check(r, ev->power.seq);
	r->have_seq = ev->power.has & TRACE_POWER_HAS_SEQ;
	r->last_seq = ev->power.seq;
	/*
	 * A failed read is reported as 0: such a sample is counted and left
	 * out, and its neighbours' trapezoid bridges the interval.
	 */
	if (ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)) {
		r->read_errors++;
		return;
	}
	if (ev->power.flags & POWERPIN_SAMPLE_REPEATED)
		r->flagged_repeated++;
	if (ev->power.flags & POWERPIN_SAMPLE_LATE)
		r->late++;
	if (ev->power.flags & POWERPIN_SAMPLE_MISSING)
		r->missing++;

	if (!r->samples)
		r->first_ns = ts;

	repeated = (ev->power.flags & POWERPIN_SAMPLE_REPEATED) ||
		   (r->have_prev && v == r->prev_v && i == r->prev_i &&
		    ev->power.charge_uah == r->prev_q);
	r->repeated += repeated;

	hist_add(&r->volt, v);
	hist_add(&r->cur, i);
	hist_add(&r->pow, llround(fmax(-HIST_LIMIT, fmin(HIST_LIMIT, p))));
	r->samples++;

	if (r->have_prev) {
		dt = ts - r->last_ns;
		if (!dt) {
			r->zero_intervals++;
		} else {
			double e = (r->prev_p + p) / 2 * 1e-6 * (double)dt / NS_PER_S;
			uint64_t ms = dt / 1000000;

			r->interval_ms[ms < r->interval_bins ? ms : r->interval_bins]++;
			if (dt > r->max_interval_ns)
				r->max_interval_ns = dt;
			r->energy += e;
			r->charge_int_uah += ((double)r->prev_i + (double)i) / 2 *
					     (double)dt / NS_PER_S / 3600;
			r->voltage_int += ((double)r->prev_v + (double)v) / 2 * (double)dt;
			r->charge_bound_uah += fmax(fabs((double)r->prev_i), fabs((double)i)) *
					       (double)dt / NS_PER_S / 3600;
			baseline_interval(r, r->last_ns, r->prev_p, ts, p);
			attribute_interval(r, r->last_ns, ts, e);
			slices_interval(r, r->last_ns, r->prev_p, ts, p, true);
		}
	} else {
		int cpu;

		/* CPU time before the first sample is not charged to anyone */
		for (cpu = 0; cpu < r->nr_cpus; cpu++)
			if (r->cpus[cpu].since_ns < ts)
				r->cpus[cpu].since_ns = ts;
		r->interval_idle_ns = 0;
		slices_interval(r, ts, p, ts, p, false);
		if (ev->power.has & TRACE_POWER_HAS_CHARGE) {
			r->have_charge = true;
			r->first_charge = r->last_charge = ev->power.charge_uah;
			r->last_charge_ns = ts;
		}
	}
	if (r->have_charge && r->have_prev && (ev->power.has & TRACE_POWER_HAS_CHARGE))
		charge_step(r, ev->power.charge_uah, ts);
	plot_add(r, ts, v, i, p);
	r->have_prev = true;
	r->last_ns = ts;
	r->prev_v = v;
	r->prev_i = i;
	r->prev_q = ev->power.charge_uah;
	r->prev_p = p;
}

int report_event(const struct trace_event *ev, void *arg)
{
	struct report *r = arg;

	r->last_begun_id = 0;
	r->last_ended_id = 0;
	if (ev->pid > 0 && ev->tgid > 0) {
		struct report_task *t = task_get(r, ev->pid);

		if (t)
			t->tgid = ev->tgid;
	}
	switch (ev->kind) {
	case TRACE_EV_POWER:
		on_power(r, ev);
		break;
	case TRACE_EV_SWITCH:
		on_switch(r, ev);
		break;
	case TRACE_EV_MARK:
		on_mark(r, ev);
		break;
	case TRACE_EV_COUNTER:
		on_counter(r, ev->counter.track, strlen(ev->counter.track),
			   ev->counter.value, false);
		break;
	case TRACE_EV_LOST:
		if (ev->lost.count)
			r->lost_in_stream += ev->lost.count;
		else
			r->lost_unknown++;
		break;
	case TRACE_EV_FORK:
	case TRACE_EV_EXIT:
		break;		/* for the trace outputs; CPU time comes from switches */
	}
	return 0;
}

void report_kernel_lost(uint64_t lost, void *arg)
{
	struct report *r = arg;

	r->lost_kernel = lost;
	r->have_lost_kernel = true;
}

int report_energy_by_process(const struct report *r, const struct report *live,
			     struct report_process_map *map, double *out)
{
	uint32_t i, j;

	if (live->nr_tasks > map->n) {
		int *idx = realloc(map->idx, live->nr_tasks * sizeof(*idx));

		if (!idx)
			return -1;
		map->idx = idx;
		/* tasks are only ever appended: place the new ones once */
		for (i = map->n; i < live->nr_tasks; i++) {
			const struct report_task *t = report_find_task(r, live->tasks[i].pid);
			int tgid = t && t->tgid > 0 ? t->tgid : live->tasks[i].pid;

			idx[i] = -1;
			for (j = 0; j < r->nr_processes; j++)
				if (r->processes[j].tgid == tgid)
					idx[i] = (int)j;
		}
		map->n = live->nr_tasks;
	}
	for (j = 0; j < r->nr_processes; j++)
		out[j] = 0;
	for (i = 0; i < live->nr_tasks; i++)
		if (map->idx[i] >= 0)
			out[map->idx[i]] += r->sign * live->tasks[i].energy;
	return 0;
}

bool report_battery_counter(const char *track)
{
	static const char *const names[] = {
		"voltage_uv", "current_ua", "charge_uah", "current_avg_ua", "capacity", "temp_dc",
		"power_uw",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(track, names[i]))
			return true;
	return false;
}

bool report_counter_values(const struct report *r, const struct report_counter *c,
			   int64_t *min, int64_t *max, int64_t *last)
{
	bool is_signed = !c->atrace && (!strcmp(c->name, "current_ua") ||
					!strcmp(c->name, "current_avg_ua") ||
					!strcmp(c->name, "power_uw"));

	*min = c->min;
	*max = c->max;
	*last = c->last;
	if (is_signed && r->sign < 0) {
		*min = -c->max;
		*max = -c->min;
		*last = -c->last;
	}
	return is_signed;
}

const struct trace_input_ops report_input_ops = {
	.event = report_event,
	.cpus = report_cpus,
	.comm = report_comm,
	.kernel_lost = report_kernel_lost,
};

/* ---- finishing -------------------------------------------------------- */

static void pick_sign(struct report *r)
{
	int64_t dq = r->charge_delta_uah;

	switch (r->opt.sign) {
	case REPORT_SIGN_DISCHARGE_NEGATIVE:
		r->sign = -1;
		r->sign_method = "given (--sign)";
		break;
	case REPORT_SIGN_DISCHARGE_POSITIVE:
		r->sign = 1;
		r->sign_method = "given (--sign)";
		break;
	default:
		/*
		 * The charge counter falls while the battery discharges, so the
		 * sign of current that moves it down is discharge.  Without a
		 * moving counter, assume the device ran on battery: the mean
		 * current's sign is discharge.
		 */
		if (r->have_charge && llabs(dq) >= 2 && fabs(r->charge_int_uah) > 0) {
			r->sign = (dq > 0) == (r->charge_int_uah > 0) ? -1 : 1;
			r->sign_method = "detected from the charge counter";
		} else {
			r->sign = r->cur.sum > 0 ? 1 : -1;
			r->sign_method = "assumed from the mean current, device on battery";
		}
		break;
	}
	r->sign_name = r->sign < 0 ? "discharge-negative" : "discharge-positive";
}

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

static int build_processes(struct report *r)
{
	uint32_t i, j;

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
		struct report_process *p = NULL;

		if (!t->cpu_ns && !t->energy)
			continue;
		for (j = 0; j < r->nr_processes; j++)
			if (r->processes[j].tgid == tgid)
				p = &r->processes[j];
		if (!p) {
			p = &r->processes[r->nr_processes++];
			p->tgid = tgid;
		}
		if (t->pid == tgid || !p->comm[0])
			snprintf(p->comm, sizeof(p->comm), "%s", t->comm);
		p->threads++;
		p->cpu_ns += t->cpu_ns;
		p->energy_j += r->sign * t->energy;
	}
	qsort(r->processes, r->nr_processes, sizeof(*r->processes), cmp_process);
	return 0;
}

int report_finish(struct report *r, char *err, size_t errlen)
{
	uint64_t n = 0, seen = 0, half, median_ms = 0;
	uint32_t k;

	if (!r->samples) {
		snprintf(err, errlen,
			 "no power samples (expected powerpin:battery or write_power_ringbuffer events)");
		return -1;
	}
	/*
	 * Slices still open end with the capture, innermost first; one whose
	 * end came after the last sample did end (its energy stops at that
	 * sample, as the power after it is not known).
	 */
	while (r->nr_open) {
		struct report_open_slice *o = &r->open[r->nr_open - 1];
		bool ended = o->end_ns;

		if (!ended)
			o->end_ns = r->last_ns > o->begin_ns ? r->last_ns : o->begin_ns;
		slice_done(r, r->nr_open - 1, !ended && !r->slice_stats[o->stat].marker);
	}
	/* the same drops seen two ways: flagged pages and the kernel's counters */
	r->lost_events = r->lost_in_stream > r->lost_kernel ? r->lost_in_stream : r->lost_kernel;
	pick_sign(r);
	r->duration_s = (double)(r->last_ns - r->first_ns) / NS_PER_S;
	hist_stat(&r->volt, 1, 1e-6, &r->voltage_v);
	hist_stat(&r->cur, r->sign, 1e-6, &r->current_a);
	hist_stat(&r->pow, r->sign, 1e-6, &r->power_w);
	/* time-weighted over the counter's span: uneven sampling does not skew it */
	r->mean_voltage_v = r->last_charge_ns > r->first_ns ?
		r->voltage_int_charge / (double)(r->last_charge_ns - r->first_ns) * 1e-6 :
		r->voltage_v.mean;
	r->energy_j = r->sign * r->energy;
	/* a counter that is missing or never moved says nothing about the energy */
	r->energy_from_charge_j = r->have_charge && r->charge_delta_uah ?
		-(double)r->charge_delta_uah * 1e-6 * 3600 * r->mean_voltage_v : NAN;
	r->discrepancy_pct = isfinite(r->energy_from_charge_j) && r->energy_j != 0 ?
		(r->energy_from_charge_j - r->energy_j) / fabs(r->energy_j) * 100 : NAN;
	if (r->opt.baseline_s > 0 && r->baseline_time_s > 0) {
		r->baseline_w = r->sign * r->baseline_energy / r->baseline_time_s;
		r->energy_above_baseline_j = r->energy_j - r->baseline_w * r->duration_s;
	}

	for (k = 0; k <= r->interval_bins; k++)
		n += r->interval_ms[k];
	half = (n + 1) / 2;
	for (k = 0; n && k <= r->interval_bins; k++) {
		seen += r->interval_ms[k];
		if (seen >= half) {
			median_ms = k;
			break;
		}
	}
	/* 1 ms bins: the median is reported as its bin's centre */
	r->median_interval_s = n ? (median_ms + 0.5) / 1e3 : 0;
	if (r->median_interval_s > r->max_interval_ns / NS_PER_S)
		r->median_interval_s = r->max_interval_ns / NS_PER_S;
	for (k = 2 * median_ms + 2; n && k <= r->interval_bins; k++)
		r->gaps += r->interval_ms[k];

	if (build_processes(r)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->finished = true;
	return 0;
}

int report_run(struct report *r, const char *path, char *err, size_t errlen)
{
	char why[256];

	if (trace_input_read(path, &report_input_ops, r, err, errlen))
		return -1;
	if (report_finish(r, why, sizeof(why))) {
		/* like the readers' messages: the input first */
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
