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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report_filter.h"
#include "report_int.h"

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

/* ---- sample intervals: kept whole, for their exact median ------------ */

/* Append @v to a growing array of @size-byte elements; -1 when out of memory. */
static int grow(void **v, uint64_t *nr, uint64_t *cap, size_t size)
{
	void *n;

	if (*nr < *cap)
		return 0;
	n = reallocarray(*v, *cap ? *cap * 2 : 4096, size);
	if (!n)
		return -1;
	*v = n;
	*cap = *cap ? *cap * 2 : 4096;
	return 0;
}

static void interval_add(struct report *r, uint64_t dt)
{
	if (dt <= UINT32_MAX) {
		if (grow((void **)&r->intervals, &r->nr_intervals, &r->cap_intervals,
			 sizeof(*r->intervals)))
			r->error = ENOMEM;
		else
			r->intervals[r->nr_intervals++] = (uint32_t)dt;
	} else {
		if (grow((void **)&r->long_intervals, &r->nr_long_intervals,
			 &r->cap_long_intervals, sizeof(*r->long_intervals)))
			r->error = ENOMEM;
		else
			r->long_intervals[r->nr_long_intervals++] = dt;
	}
}

/*
 * The @k-th smallest (from 0) of @v[0..@n), by quickselect with a three-way
 * partition (runs of equal intervals are the rule: text timestamps have
 * microseconds): @v is reordered.  Linear on average; the middle of three
 * as pivot.
 */
#define DEFINE_SELECT(name, type)						\
static type name(type *v, uint64_t n, uint64_t k)				\
{										\
	int64_t lo = 0, hi = (int64_t)n - 1, lt, gt, i;				\
	type a, b, c, pivot, t;							\
										\
	while (lo < hi) {							\
		a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];		\
		pivot = a < b ? (b < c ? b : (a < c ? c : a)) :			\
				(a < c ? a : (b < c ? c : b));			\
		lt = lo, gt = hi, i = lo;					\
		while (i <= gt) {						\
			if (v[i] < pivot) {					\
				t = v[lt], v[lt] = v[i], v[i] = t;		\
				lt++, i++;					\
			} else if (v[i] > pivot) {				\
				t = v[gt], v[gt] = v[i], v[i] = t;		\
				gt--;						\
			} else {						\
				i++;						\
			}							\
		}								\
		/* [lo, lt) < pivot, [lt, gt] == pivot, (gt, hi] > pivot */	\
		if ((int64_t)k < lt)						\
			hi = lt - 1;						\
		else if ((int64_t)k > gt)					\
			lo = gt + 1;						\
		else								\
			return pivot;						\
	}									\
	return v[k];								\
}

DEFINE_SELECT(select_u32, uint32_t)
DEFINE_SELECT(select_u64, uint64_t)

/* The @k-th smallest interval (from 0): short ones all come before long ones. */
static uint64_t interval_rank(struct report *r, uint64_t k)
{
	if (k < r->nr_intervals)
		return select_u32(r->intervals, r->nr_intervals, k);
	return select_u64(r->long_intervals, r->nr_long_intervals, k - r->nr_intervals);
}

/* The exact median interval, and the gaps: intervals over twice it. */
static void intervals_finish(struct report *r)
{
	uint64_t n = r->nr_intervals + r->nr_long_intervals, i;
	double median_ns;

	r->median_interval_s = 0;
	r->gaps = 0;
	if (!n)
		return;
	median_ns = (double)interval_rank(r, (n - 1) / 2);
	if (!(n % 2))
		median_ns = (median_ns + (double)interval_rank(r, n / 2)) / 2;
	r->median_interval_s = median_ns / NS_PER_S;
	for (i = 0; i < r->nr_intervals; i++)
		r->gaps += r->intervals[i] > 2 * median_ns;
	for (i = 0; i < r->nr_long_intervals; i++)
		r->gaps += r->long_intervals[i] > 2 * median_ns;
}

int report_init(struct report *r, const struct report_options *opt)
{
	memset(r, 0, sizeof(*r));
	if (opt)
		r->opt = *opt;
	r->marker_open = -1;
	r->free_slot = -1;
	r->sign = 1;
	r->bucket_ns = 1000000;	/* 1 ms, doubled as the capture grows */
	r->plot_slice_diff = calloc(REPORT_PLOT_BUCKETS + 1, sizeof(*r->plot_slice_diff));
	if (!r->plot_slice_diff ||
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
	free(r->intervals);
	free(r->long_intervals);
	report_attr_free(r);
	report_slices_free(r);
	for (i = 0; i < r->nr_counters; i++)
		free(r->counters[i].name);
	free(r->counters);
	hash_index_free(&r->counter_index);
	report_model_free(r->model_run);
	memset(r, 0, sizeof(*r));
}

/* ---- counters ------------------------------------------------------------ */

struct counter_key {
	const char *name;
	size_t len;
	bool atrace;
};

static bool counter_match(const void *ctx, uint32_t pos, const void *key)
{
	const struct report_counter *c = &((const struct report *)ctx)->counters[pos];
	const struct counter_key *k = key;

	return c->atrace == k->atrace && !strncmp(c->name, k->name, k->len) && !c->name[k->len];
}

static uint32_t counter_hash(const void *ctx, uint32_t pos)
{
	const struct report_counter *c = &((const struct report *)ctx)->counters[pos];

	return hash_bytes(c->name, strlen(c->name), c->atrace);
}

static void on_counter(struct report *r, const char *name, size_t len, int64_t value, bool atrace)
{
	struct counter_key key = { name, strnlen(name, len), atrace };
	uint32_t hash = hash_bytes(name, key.len, atrace);
	struct report_counter *c;
	long pos;

	pos = hash_index_find(&r->counter_index, hash, counter_match, r, &key);
	if (pos >= 0) {
		c = &r->counters[pos];
		goto found;
	}
	c = report_grow(r->counters, &r->cap_counters, r->nr_counters + 1, sizeof(*c));
	if (!c)
		goto oom;
	r->counters = c;
	c = &r->counters[r->nr_counters];
	c->name = strndup(name, key.len);
	if (!c->name)
		goto oom;
	c->atrace = atrace;
	if (hash_index_add(&r->counter_index, hash, r->nr_counters, counter_hash, r)) {
		free(c->name);
		c->name = NULL;
		goto oom;
	}
	r->nr_counters++;
found:
	if (!c->count || value < c->min)
		c->min = value;
	if (!c->count || value > c->max)
		c->max = value;
	c->last = value;
	c->count++;
	return;
oom:
	report_oom(r);
}

/*
 * atrace's trace_marker protocol: "B|tgid|name", "E" or "E|tgid",
 * "C|tgid|name|value"; and powerpin markers "powerpin:<label>" that start a
 * span lasting until the next marker.
 */
static void on_mark(struct report *r, const struct trace_event *ev)
{
	const char *s = ev->mark.text, *end = s + ev->mark.len;
	const char *name;
	long long value;
	size_t len;

	if (ev->mark.len >= 2 && s[0] == 'B' && s[1] == '|') {
		name = memchr(s + 2, '|', end - s - 2);
		if (!name)
			goto ignored;
		if (ev->pid > 0) {
			struct report_task *t = report_task_get(r, ev->pid);

			if (t && t->tgid < 0)
				t->tgid = atoi(s + 2);
		}
		name++;
		report_slice_begin(r, ev->pid, name, end - name, false, ev->ts_ns);
		return;
	}
	if (ev->mark.len >= 1 && s[0] == 'E' && (ev->mark.len == 1 || s[1] == '|')) {
		report_slice_end(r, ev->pid, false, ev->ts_ns);
		return;
	}
	if (ev->mark.len >= 2 && s[0] == 'C' && s[1] == '|') {
		if (report_counter_mark(s, end, &name, &len, &value))
			goto ignored;
		on_counter(r, name, len, value, true);
		return;
	}
	len = strlen(MARKER_PREFIX);
	if (ev->mark.len >= len && !strncmp(s, MARKER_PREFIX, len)) {
		name = s + len;
		while (name < end && *name == ' ')
			name++;
		report_slice_end(r, 0, true, ev->ts_ns);
		if (name < end)
			report_slice_begin(r, 0, name, end - name, true, ev->ts_ns);
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
		report_plot_slices_settle(r);
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
	double window_ns = r->opt.baseline_s * NS_PER_S;
	uint64_t end;

	if (r->opt.baseline_s <= 0)
		return;
	/* a window past the end of time is the whole capture */
	end = window_ns >= (double)(UINT64_MAX - r->first_ns) ? UINT64_MAX :
	      r->first_ns + (uint64_t)window_ns;
	if (t0 >= end)
		return;
	if (t1 > end) {
		r->baseline_energy += report_lin_energy(t0, p0, t1, p1, t0, end);
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
	int64_t step, sum;
	uint64_t size;

	/*
	 * Checked: a step or a sum past int64 is no charge a battery holds;
	 * it is left out like any other discontinuity.
	 */
	if (__builtin_sub_overflow(q, r->last_charge, &step) ||
	    fabs((double)step) > 4 * r->charge_bound_uah + CHARGE_JUMP_SLACK_UAH ||
	    __builtin_add_overflow(r->charge_delta_uah, step, &sum)) {
		r->charge_jumps++;
	} else {
		r->charge_delta_uah = sum;
		size = step < 0 ? -(uint64_t)step : (uint64_t)step;
		if (size && (!r->charge_step_min_uah || size < r->charge_step_min_uah))
			r->charge_step_min_uah = size;
	}
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

/*
 * A point of the power curve at @ts, a sample or a window's edge: the
 * trapezoid from the previous point, and everything priced by interval.
 */
static void price_point(struct report *r, uint64_t ts, int64_t v, int64_t i, double p,
			int64_t q, bool has_charge)
{
	uint64_t dt;

	if (!r->have_prev)
		r->first_ns = ts;
	/* the plot's bucket first: slices ending now are shaded up to it */
	plot_add(r, ts, v, i, p);
	if (r->have_prev) {
		dt = ts - r->last_ns;
		if (!dt) {
			r->zero_intervals++;
		} else {
			double e = (r->prev_p + p) / 2 * 1e-6 * (double)dt / NS_PER_S;

			interval_add(r, dt);
			if (dt > r->max_interval_ns)
				r->max_interval_ns = dt;
			r->energy += e;
			r->charge_int_uah += ((double)r->prev_i + (double)i) / 2 *
					     (double)dt / NS_PER_S / 3600;
			r->voltage_int += ((double)r->prev_v + (double)v) / 2 * (double)dt;
			r->charge_bound_uah += fmax(fabs((double)r->prev_i), fabs((double)i)) *
					       (double)dt / NS_PER_S / 3600;
			baseline_interval(r, r->last_ns, r->prev_p, ts, p);
			report_attr_interval(r, r->last_ns, ts, e);
			report_slices_interval(r, r->last_ns, r->prev_p, ts, p);
		}
	} else {
		report_attr_first_sample(r);
		report_slices_first_sample(r);
		if (has_charge) {
			r->have_charge = true;
			r->first_charge = r->last_charge = q;
			r->last_charge_ns = ts;
		}
	}
	if (r->have_charge && r->have_prev && has_charge)
		charge_step(r, q, ts);
	r->have_prev = true;
	r->last_ns = ts;
	r->prev_v = v;
	r->prev_i = i;
	r->prev_q = q;
	r->prev_p = p;
}

/*
 * The point at @at on the line from (@t0: @v0, @i0) to (@t1: @v1, @i1):
 * voltage and current interpolated, and the power on the line between the
 * two powers (as slices are priced), not their product.
 */
static void edge_point(struct report *r, uint64_t at, uint64_t t0, int64_t v0, int64_t i0,
		       uint64_t t1, int64_t v1, int64_t i1, int64_t q, bool has_charge)
{
	double f = t1 > t0 ? (double)(at - t0) / (double)(t1 - t0) : 0;
	double p0 = (double)v0 * (double)i0 * 1e-6, p1 = (double)v1 * (double)i1 * 1e-6;

	r->window_edges++;
	price_point(r, at, llround(v0 + (v1 - v0) * f), llround(i0 + (i1 - i0) * f),
		    p0 + (p1 - p0) * f, q, has_charge);
}

/* The window's start, now that the sample after it (@t1) is known. */
static void edge_settle(struct report *r, uint64_t t1, int64_t v1, int64_t i1, int64_t q,
			bool has_charge)
{
	r->edge_pending = false;
	if (t1 > r->edge_at_ns)
		edge_point(r, r->edge_at_ns, r->edge_from_ns, r->edge_v, r->edge_i, t1, v1, i1,
			   q, has_charge);
}

/* A window's edge (TRACE_POWER_WINDOW_EDGE): its start waits for the next sample. */
static void on_window_edge(struct report *r, const struct trace_event *ev)
{
	int64_t v = ev->power.voltage_uv, i = ev->power.current_ua;
	bool has_charge = ev->power.has & TRACE_POWER_HAS_CHARGE;

	if (r->edge_pending)
		edge_settle(r, ev->power.edge_ns, v, i, ev->power.charge_uah, has_charge);
	if (!r->have_prev) {
		r->edge_pending = true;
		r->edge_at_ns = ev->ts_ns;
		r->edge_from_ns = ev->power.edge_ns;
		r->edge_v = v;
		r->edge_i = i;
		return;
	}
	if (ev->ts_ns > r->last_ns && ev->power.edge_ns > ev->ts_ns)
		edge_point(r, ev->ts_ns, r->last_ns, r->prev_v, r->prev_i, ev->power.edge_ns, v, i,
			   r->prev_q, r->have_charge);
}

static void on_power(struct report *r, const struct trace_event *ev)
{
	int64_t v = ev->power.voltage_uv, i = ev->power.current_ua;
	double p = (double)v * (double)i * 1e-6;	/* uW */
	bool repeated;

	if (ev->power.has & TRACE_POWER_WINDOW_EDGE) {
		on_window_edge(r, ev);
		return;
	}
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
	/* repeating the last sample, not a window's edge interpolated to it */
	repeated = (ev->power.flags & POWERPIN_SAMPLE_REPEATED) ||
		   (r->samples && v == r->prev_v && i == r->prev_i &&
		    ev->power.charge_uah == r->prev_q);
	r->repeated += repeated;
	if (r->edge_pending)
		edge_settle(r, ev->ts_ns, v, i, ev->power.charge_uah,
			    ev->power.has & TRACE_POWER_HAS_CHARGE);

	hist_add(&r->volt, v);
	hist_add(&r->cur, i);
	hist_add(&r->pow, llround(fmax(-HIST_LIMIT, fmin(HIST_LIMIT, p))));
	r->samples++;
	price_point(r, ev->ts_ns, v, i, p, ev->power.charge_uah,
		    ev->power.has & TRACE_POWER_HAS_CHARGE);
}

int report_event(const struct trace_event *ev, void *arg)
{
	struct report *r = arg;

	if (r->error)
		return -1;
	r->last_begun_id = 0;
	r->last_ended_id = 0;
	if (ev->pid > 0 && ev->tgid > 0) {
		struct report_task *t = report_task_get(r, ev->pid);

		if (t)
			t->tgid = ev->tgid;
	}
	switch (ev->kind) {
	case TRACE_EV_POWER:
		on_power(r, ev);
		break;
	case TRACE_EV_SWITCH:
		report_on_switch(r, ev);
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
	case TRACE_EV_NEWTASK:	/* (the readers keep these) */
	case TRACE_EV_CPU_FREQ:	/* report_model.c prices CPU time by it */
		break;		/* for the trace outputs; CPU time comes from switches */
	}
	/* an allocation failed: stop, rather than give a short report */
	return r->error ? -1 : 0;
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

static void report_cut_line(unsigned long lineno, void *arg)
{
	struct report *r = arg;

	r->cut_line = lineno;
}

const struct trace_input_ops report_input_ops = {
	.event = report_event,
	.cpus = report_cpus,
	.comm = report_comm,
	.tgid = report_tgid,
	.kernel_lost = report_kernel_lost,
	.cut_line = report_cut_line,
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
		if (r->have_charge && (dq >= 2 || dq <= -2) && fabs(r->charge_int_uah) > 0) {
			r->sign = (dq > 0) == (r->charge_int_uah > 0) ? -1 : 1;
			r->sign_method = "detected from the charge counter";
		} else {
			/* a window between two samples has only its edges' current */
			r->sign = (r->samples ? r->cur.sum > 0 : r->charge_int_uah > 0) ? 1 : -1;
			r->sign_method = "assumed from the mean current, device on battery";
		}
		break;
	}
	r->sign_name = r->sign < 0 ? "discharge-negative" : "discharge-positive";
}

/*
 * Energy from the charge counter, and how far to trust it: a counter read
 * at its two ends is off by less than one step each, so the change is good
 * to one step (its resolution, the smallest step seen).  Fewer than
 * REPORT_MIN_CHARGE_STEPS steps make any percentage against the trapezoid
 * mostly the counter's rounding: none is given, and the note says why.
 */
static void charge_finish(struct report *r)
{
	const double j_per_uah = 1e-6 * 3600 * r->mean_voltage_v;

	r->energy_from_charge_j = NAN;
	r->discrepancy_pct = NAN;
	r->charge_resolution_uah = NAN;
	r->charge_steps = NAN;
	r->energy_from_charge_uncertainty_j = NAN;
	if (!r->have_charge) {
		r->charge_note = REPORT_CHARGE_NO_COUNTER;
		return;
	}
	if (!r->charge_delta_uah || !r->charge_step_min_uah) {
		/* a counter that never moved says nothing about the energy */
		r->charge_note = REPORT_CHARGE_UNCHANGED;
		return;
	}
	r->charge_resolution_uah = (double)r->charge_step_min_uah;
	r->charge_steps = fabs((double)r->charge_delta_uah) / r->charge_resolution_uah;
	r->energy_from_charge_j = -(double)r->charge_delta_uah * j_per_uah;
	r->energy_from_charge_uncertainty_j = r->charge_resolution_uah * fabs(j_per_uah);
	if (r->charge_steps < REPORT_MIN_CHARGE_STEPS)
		r->charge_note = REPORT_CHARGE_TOO_FEW_STEPS;
	else if (r->energy_j == 0)
		r->charge_note = REPORT_CHARGE_NO_ENERGY;
	else
		r->charge_note = REPORT_CHARGE_COMPARED;
	if (r->charge_note == REPORT_CHARGE_COMPARED)
		r->discrepancy_pct = (r->energy_from_charge_j - r->energy_j) / fabs(r->energy_j) * 100;
}

const char *report_charge_note_text(const struct report *r, char *buf, size_t len)
{
	switch (r->charge_note) {
	case REPORT_CHARGE_NO_COUNTER:
		snprintf(buf, len, "no charge counter in the input");
		break;
	case REPORT_CHARGE_UNCHANGED:
		snprintf(buf, len, "the charge counter did not change (too coarse for this capture)");
		break;
	case REPORT_CHARGE_TOO_FEW_STEPS:
		snprintf(buf, len,
			 "the charge counter moved %.*f step%s of %.0f uAh (fewer than %d): too coarse to compare with the trapezoid",
			 r->charge_steps == floor(r->charge_steps) ? 0 : 1, r->charge_steps,
			 r->charge_steps == 1 ? "" : "s", r->charge_resolution_uah,
			 REPORT_MIN_CHARGE_STEPS);
		break;
	case REPORT_CHARGE_NO_ENERGY:
		snprintf(buf, len, "the trapezoid's energy is 0: no percentage of it");
		break;
	default:
		if (len)
			buf[0] = '\0';
		break;
	}
	return buf;
}

int report_finish(struct report *r, char *err, size_t errlen)
{
	if (!r->samples && !r->window_edges) {
		snprintf(err, errlen,
			 "no power samples (expected powerpin:powerpin_battery, powerpin:battery or write_power_ringbuffer events)");
		return -1;
	}
	if (r->error)
		goto oom;
	/* slices still open end with the capture */
	report_slices_finish(r);
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
	charge_finish(r);
	if (r->opt.baseline_s > 0 && r->baseline_time_s > 0) {
		r->baseline_w = r->sign * r->baseline_energy / r->baseline_time_s;
		r->energy_above_baseline_j = r->energy_j - r->baseline_w * r->duration_s;
	}

	intervals_finish(r);

	if (report_attr_finish(r) || r->error)
		goto oom;
	r->finished = true;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return -1;
}

int report_run(struct report *r, const char *path, char *err, size_t errlen)
{
	char why[256];

	if (report_filter_read(path, &report_input_ops, r, r->opt.filter, err, errlen)) {
		/* stopped by an allocation that failed: no short report */
		if (r->error)
			snprintf(err, errlen, "%s: out of memory while reading it", path);
		return -1;
	}
	if (report_finish(r, why, sizeof(why))) {
		/* like the readers' messages: the input first */
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
