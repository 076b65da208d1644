// SPDX-License-Identifier: GPL-2.0
/*
 * Slices (atrace B/E per thread, nested) and powerpin marker spans get the
 * energy of their span, the power taken as linear between samples.
 *
 * Linear in the input: slice names are found through a hash index; a
 * thread's open slices are a stack (E closes the top one at once); an open
 * slice is touched when the interval it began in closes (its first piece)
 * and when it ends: the whole intervals in between are the difference of
 * the running energy total.  A slice that ends waits in `closing` only for
 * the sample that closes its last interval, and no longer counts against
 * REPORT_MAX_OPEN_SLICES.  Plot shading goes through a difference array,
 * so a slice costs the same however many buckets it spans.
 */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ---- slice names ---------------------------------------------------------- */

struct slice_key {
	const char *name;
	size_t len;
	bool marker;
};

static bool stat_match(const void *ctx, uint32_t pos, const void *key)
{
	const struct report_slice_stat *s = &((const struct report *)ctx)->slice_stats[pos];
	const struct slice_key *k = key;

	return s->marker == k->marker && !strncmp(s->name, k->name, k->len) && !s->name[k->len];
}

static uint32_t stat_hash(const void *ctx, uint32_t pos)
{
	const struct report_slice_stat *s = &((const struct report *)ctx)->slice_stats[pos];

	return hash_bytes(s->name, strlen(s->name), s->marker);
}

/*
 * The stat of @name (@len bytes, no NUL in them: a name with one is cut
 * there, as it always was by strndup).
 */
static int slice_stat_get(struct report *r, const char *name, size_t len, bool marker)
{
	struct slice_key key = { name, strnlen(name, len), marker };
	uint32_t hash = hash_bytes(name, key.len, marker);
	struct report_slice_stat *s;
	long pos;

	pos = hash_index_find(&r->slice_index, hash, stat_match, r, &key);
	if (pos >= 0)
		return (int)pos;
	s = report_grow(r->slice_stats, &r->cap_slice_stats, r->nr_slice_stats + 1, sizeof(*s));
	if (!s)
		goto oom;
	r->slice_stats = s;
	s = &r->slice_stats[r->nr_slice_stats];
	s->name = strndup(name, key.len);
	if (!s->name)
		goto oom;
	s->marker = marker;
	if (hash_index_add(&r->slice_index, hash, r->nr_slice_stats, stat_hash, r)) {
		free(s->name);
		s->name = NULL;
		goto oom;
	}
	return (int)r->nr_slice_stats++;
oom:
	report_oom(r);
	return -1;
}

/* ---- plot shading ---------------------------------------------------------- */

/*
 * Shade the plot buckets [begin, end] covers, clipped to the samples so far
 * (up to @upto): partial buckets at once, whole ones as +1/-1 in the
 * difference array that report_plot_slices_settle() adds up.
 */
static void plot_slice(struct report *r, uint64_t begin, uint64_t end, uint64_t upto)
{
	uint64_t k0, k1, bns = r->bucket_ns;

	if (!r->samples || !r->plot_slice_diff)
		return;
	begin = begin > r->first_ns ? begin : r->first_ns;
	end = end < upto ? end : upto;
	if (end <= begin)
		return;
	k0 = (begin - r->first_ns) / bns;
	k1 = (end - r->first_ns) / bns;
	if (k1 >= REPORT_PLOT_BUCKETS) {
		/* past the plot (cannot happen once the bucket of @upto exists) */
		k1 = REPORT_PLOT_BUCKETS - 1;
		end = r->first_ns + REPORT_PLOT_BUCKETS * bns;
	}
	if (k0 > k1)
		return;
	if (k0 == k1) {
		r->buckets[k0].slice_ns += end - begin;
		return;
	}
	r->buckets[k0].slice_ns += r->first_ns + (k0 + 1) * bns - begin;
	r->buckets[k1].slice_ns += end - (r->first_ns + k1 * bns);
	r->plot_slice_diff[k0 + 1]++;
	r->plot_slice_diff[k1]--;
}

void report_plot_slices_settle(struct report *r)
{
	int64_t whole = 0;
	uint32_t k;

	if (!r->plot_slice_diff)
		return;
	for (k = 0; k < REPORT_PLOT_BUCKETS; k++) {
		whole += r->plot_slice_diff[k];
		r->plot_slice_diff[k] = 0;
		r->buckets[k].slice_ns += (uint64_t)whole * r->bucket_ns;
	}
}

/* ---- open slices ----------------------------------------------------------- */

static int32_t slot_alloc(struct report *r)
{
	struct report_open_slice *o;
	int32_t slot = r->free_slot;

	if (slot >= 0) {
		r->free_slot = r->open[slot].below;
		return slot;
	}
	o = report_grow(r->open, &r->cap_open, r->nr_slots + 1, sizeof(*o));
	if (!o) {
		report_oom(r);
		return -1;
	}
	r->open = o;
	return (int32_t)r->nr_slots++;
}

static void slot_free(struct report *r, int32_t slot)
{
	r->open[slot].in_use = false;
	r->open[slot].below = r->free_slot;
	r->free_slot = slot;
	r->nr_open--;
}

static void slice_done(struct report *r, const struct report_open_slice *o, bool unterminated,
		       uint64_t upto)
{
	struct report_slice_stat *s = &r->slice_stats[o->stat];

	s->count++;
	s->duration_ns += o->end_ns - o->begin_ns;
	s->energy += o->energy;
	s->unterminated += unterminated;
	r->slices_total++;
	if (!s->marker)
		plot_slice(r, o->begin_ns, o->end_ns, upto);
	if (r->slice_done)
		r->slice_done(r, o, unterminated, r->slice_done_arg);
}

void report_slice_begin(struct report *r, int pid, const char *name, size_t len, bool marker,
			uint64_t ts)
{
	struct report_slice_ref *b;
	struct report_open_slice *o;
	struct report_task *t = NULL;
	int32_t slot;
	int stat;

	if (r->nr_open >= REPORT_MAX_OPEN_SLICES) {
		r->slices_dropped++;
		return;
	}
	stat = slice_stat_get(r, name, len, marker);
	if (!marker)
		t = report_task_get(r, pid);
	b = report_grow(r->begun, &r->cap_begun, r->nr_begun + 1, sizeof(*b));
	if (!b)
		report_oom(r);
	if (stat < 0 || (!marker && !t) || !b)
		return;
	r->begun = b;
	slot = slot_alloc(r);
	if (slot < 0)
		return;
	o = &r->open[slot];
	memset(o, 0, sizeof(*o));
	o->id = ++r->next_slice_id;
	r->last_begun_id = o->id;
	o->pid = pid;
	o->stat = stat;
	o->begin_ns = ts;
	o->in_use = true;
	o->above = -1;
	if (marker) {
		o->below = -1;
		r->marker_open = slot;
	} else {
		o->below = t->open_top;
		if (o->below >= 0) {
			r->open[o->below].above = slot;
			o->depth = r->open[o->below].depth + 1;
		}
		t->open_top = slot;
	}
	r->nr_open++;
	/* its first piece comes when the interval it begins in closes */
	b[r->nr_begun].slot = slot;
	b[r->nr_begun].id = o->id;
	r->nr_begun++;
}

/* @slot ends at @ts: its energy so far, then the wait for its last piece. */
static void slice_close(struct report *r, int32_t slot, uint64_t ts)
{
	struct report_open_slice *o = &r->open[slot], *c;

	o->end_ns = ts > o->begin_ns ? ts : o->begin_ns + 1;
	r->last_ended_id = o->id;
	if (o->covered)
		o->energy += r->energy - o->mark;
	if (!r->have_prev) {
		/* before the first sample: no energy, done at once */
		slice_done(r, o, false, 0);
	} else {
		c = report_grow(r->closing, &r->cap_closing, r->nr_closing + 1, sizeof(*c));
		if (!c)
			report_oom(r);
		else {
			r->closing = c;
			r->closing[r->nr_closing++] = *o;
		}
	}
	slot_free(r, slot);
}

/* End the innermost open slice of @pid (or the open marker span). */
void report_slice_end(struct report *r, int pid, bool marker, uint64_t ts)
{
	struct report_task *t;
	int32_t slot;

	if (marker) {
		slot = r->marker_open;
		if (slot < 0)
			return;
		r->marker_open = -1;
		slice_close(r, slot, ts);
		return;
	}
	t = (struct report_task *)report_find_task(r, pid);
	slot = t ? t->open_top : -1;
	if (slot < 0) {
		r->slice_ends_unmatched++;	/* E without B */
		return;
	}
	t->open_top = r->open[slot].below;
	if (t->open_top >= 0)
		r->open[t->open_top].above = -1;
	slice_close(r, slot, ts);
}

/* ---- energy per interval ---------------------------------------------------- */

void report_slices_first_sample(struct report *r)
{
	uint32_t i;

	/* begun before it: covered from the first sample, with nothing yet */
	for (i = 0; i < r->nr_begun; i++) {
		struct report_open_slice *o = &r->open[r->begun[i].slot];

		if (o->in_use && o->id == r->begun[i].id && !o->covered) {
			o->covered = true;
			o->mark = r->energy;
		}
	}
	r->nr_begun = 0;
}

void report_slices_interval(struct report *r, uint64_t t0, double p0, uint64_t t1, double p1)
{
	uint32_t i;

	/* slices begun in [t0, t1]: their first piece; whole intervals from t1 */
	for (i = 0; i < r->nr_begun; i++) {
		struct report_open_slice *o = &r->open[r->begun[i].slot];

		if (!o->in_use || o->id != r->begun[i].id || o->covered)
			continue;
		o->energy += report_lin_energy(t0, p0, t1, p1, o->begin_ns > t0 ? o->begin_ns : t0,
					       t1);
		o->covered = true;
		o->mark = r->energy;
	}
	r->nr_begun = 0;
	/* slices ended in [t0, t1]: their last piece, and they are done */
	for (i = 0; i < r->nr_closing; i++) {
		struct report_open_slice *c = &r->closing[i];
		uint64_t a = c->covered ? t0 : c->begin_ns > t0 ? c->begin_ns : t0;
		uint64_t b = c->end_ns < t1 ? c->end_ns : t1;

		if (b > a)
			c->energy += report_lin_energy(t0, p0, t1, p1, a, b);
		slice_done(r, c, false, t1);
	}
	r->nr_closing = 0;
}

static int cmp_newest_first(const void *a, const void *b)
{
	const struct report_open_slice *x = *(const struct report_open_slice * const *)a;
	const struct report_open_slice *y = *(const struct report_open_slice * const *)b;

	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

void report_slices_finish(struct report *r)
{
	struct report_open_slice **left;
	uint32_t i, n = 0;

	/* ended after the last sample: nothing more to add */
	for (i = 0; i < r->nr_closing; i++)
		slice_done(r, &r->closing[i], false, r->last_ns);
	r->nr_closing = 0;
	/* still open: they end with the capture, innermost first */
	left = calloc(r->nr_open + 1, sizeof(*left));
	if (!left) {
		report_oom(r);
		return;
	}
	for (i = 0; i < r->nr_slots; i++)
		if (r->open[i].in_use)
			left[n++] = &r->open[i];
	qsort(left, n, sizeof(*left), cmp_newest_first);
	for (i = 0; i < n; i++) {
		struct report_open_slice *o = left[i];

		o->end_ns = r->last_ns > o->begin_ns ? r->last_ns : o->begin_ns;
		if (o->covered)
			o->energy += r->energy - o->mark;
		slice_done(r, o, !r->slice_stats[o->stat].marker, r->last_ns);
		o->in_use = false;
	}
	free(left);
	r->nr_open = 0;
	r->marker_open = -1;
	report_plot_slices_settle(r);
}

void report_slices_free(struct report *r)
{
	uint32_t i;

	for (i = 0; i < r->nr_slice_stats; i++)
		free(r->slice_stats[i].name);
	free(r->slice_stats);
	hash_index_free(&r->slice_index);
	free(r->open);
	free(r->begun);
	free(r->closing);
	free(r->plot_slice_diff);
}
