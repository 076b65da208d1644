// SPDX-License-Identifier: GPL-2.0
/*
 * Report writers from the finished report: text summary, JSON and the
 * processes CSV.  The outputs that go sample by sample (samples CSV, HTML,
 * Chrome JSON, Perfetto) are in report_samples.c and its writers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_filter.h"
#include "report_perf.h"
#include "base/base.h"

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v + 0.0);	/* + 0.0: no "-0" */
	else
		fputs("null", out);
}

static void json_stat(FILE *out, const char *key, const struct report_stat *s)
{
	fprintf(out, "  \"%s\": {\"min\": ", key);
	json_num(out, s->min);
	fputs(", \"mean\": ", out);
	json_num(out, s->mean);
	fputs(", \"p50\": ", out);
	json_num(out, s->p50);
	fputs(", \"p95\": ", out);
	json_num(out, s->p95);
	fputs(", \"max\": ", out);
	json_num(out, s->max);
	fputs("},\n", out);
}

static double slice_above(const struct report *r, const struct report_slice_stat *s)
{
	return r->sign * s->energy - r->baseline_w * (double)s->duration_ns / 1e9;
}

static int finish_stream(FILE *out)
{
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* The capture's size and what it lost or left out. */
static void json_counts(const struct report *r, FILE *out)
{

	fprintf(out, "  \"duration_s\": %.9f,\n  \"samples\": %" PRIu64 ",\n", r->duration_s,
		r->samples);
	fprintf(out, "  \"repeated_samples\": %" PRIu64 ",\n  \"flagged_repeated\": %" PRIu64 ",\n",
		r->repeated, r->flagged_repeated);
	fprintf(out, "  \"median_interval_s\": %.9f,\n  \"max_interval_s\": %.9f,\n  \"gaps\": %" PRIu64 ",\n",
		r->median_interval_s, (double)r->max_interval_ns / 1e9, r->gaps);
	fprintf(out, "  \"lost_events\": %" PRIu64 ",\n  \"lost_events_in_stream\": %" PRIu64
		",\n  \"lost_events_unknown_count\": %" PRIu64 ",\n",
		r->lost_events, r->lost_in_stream, r->lost_unknown);
	if (r->have_lost_kernel)
		fprintf(out, "  \"lost_events_kernel\": %" PRIu64 ",\n", r->lost_kernel);
	fprintf(out, "  \"seq_gaps\": %" PRIu64 ",\n  \"seq_resets\": %" PRIu64
		",\n  \"late_samples\": %" PRIu64 ",\n  \"read_error_samples\": %" PRIu64
		",\n  \"missing_property_samples\": %" PRIu64 ",\n  \"zero_intervals\": %" PRIu64 ",\n",
		r->seq_gaps, r->seq_resets, r->late, r->read_errors, r->missing, r->zero_intervals);
	fprintf(out, "  \"slices_dropped\": %" PRIu64 ",\n  \"slice_ends_unmatched\": %" PRIu64
		",\n  \"marks_ignored\": %" PRIu64 ",\n",
		r->slices_dropped, r->slice_ends_unmatched, r->marks_ignored);
	fprintf(out, "  \"sign_convention\": \"%s\",\n  \"sign_method\": \"%s\",\n",
		r->sign_name, r->sign_method);
}

/* The energy, the charge counter's view of it and the baseline. */
static void json_energy(const struct report *r, FILE *out)
{
	char note[256];

	fputs("  \"energy_j\": ", out);
	json_num(out, r->energy_j);
	fputs(",\n  \"energy_from_charge_j\": ", out);
	json_num(out, r->energy_from_charge_j);
	fputs(",\n  \"energy_from_charge_uncertainty_j\": ", out);
	json_num(out, r->energy_from_charge_uncertainty_j);
	fputs(",\n  \"energy_discrepancy_pct\": ", out);
	json_num(out, r->discrepancy_pct);
	fputs(",\n  \"energy_discrepancy_note\": ", out);
	if (r->charge_note == REPORT_CHARGE_COMPARED)
		fputs("null", out);
	else
		json_string(out, report_charge_note_text(r, note, sizeof(note)), SIZE_MAX);
	fputs(",\n  \"charge_counter_resolution_uah\": ", out);
	json_num(out, r->charge_resolution_uah);
	fputs(",\n  \"charge_counter_steps\": ", out);
	json_num(out, r->charge_steps);
	fputs(",\n  \"charge_counter_delta_uah\": ", out);
	if (r->have_charge)
		fprintf(out, "%" PRId64, r->charge_delta_uah);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"charge_counter_jumps\": %" PRIu64 ",\n  \"charge_mean_voltage_v\": ",
		r->charge_jumps);
	json_num(out, r->have_charge ? r->mean_voltage_v : NAN);
	fputs(",\n", out);
	if (r->opt.baseline_s > 0) {
		fprintf(out, "  \"baseline_s\": %g,\n  \"baseline_w\": ", r->opt.baseline_s);
		json_num(out, r->baseline_w);
		fputs(",\n  \"energy_above_baseline_j\": ", out);
		json_num(out, r->energy_above_baseline_j);
		fputs(",\n", out);
	}
}

/* Percentiles, CPUs, idle and not-attributed energy. */
static void json_stats(const struct report *r, FILE *out)
{

	json_stat(out, "voltage_v", &r->voltage_v);
	json_stat(out, "current_a", &r->current_a);
	json_stat(out, "power_w", &r->power_w);
	fprintf(out, "  \"percentile_resolution\": {\"voltage_v\": %g, \"current_a\": %g, \"power_w\": %g},\n",
		r->volt.res * 1e-6, r->cur.res * 1e-6, r->pow.res * 1e-6);
	fprintf(out, "  \"cpus\": %d,\n  \"sched_switches\": %" PRIu64 ",\n",
		r->nr_cpus > r->nr_cpus_hint ? r->nr_cpus : r->nr_cpus_hint, r->switches);
	fputs("  \"idle_j\": ", out);
	json_num(out, r->sign * r->idle_energy);
	fputs(",\n  \"other_j\": ", out);
	json_num(out, report_energy_rounded(r->sign * r->other_energy, r->energy));
}

/* Processes, then idle and other: the energy split. */
static void json_processes(const struct report *r, FILE *out)
{
	bool first = true;
	uint32_t i;

	fputs(",\n  \"processes\": [", out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];

		if (p->tgid_known)
			fprintf(out, "%s\n    {\"kind\": \"process\", \"tgid\": %d, \"comm\": ",
				first ? "" : ",", p->tgid);
		else	/* one thread whose group the input does not say */
			fprintf(out, "%s\n    {\"kind\": \"process\", \"tgid\": null, \"pid\": %d, \"comm\": ",
				first ? "" : ",", p->tgid);
		json_string(out, p->comm, sizeof(p->comm));
		fprintf(out, ", \"threads\": %d, \"cpu_s\": %.9f, \"energy_j\": ", p->threads,
			(double)p->cpu_ns / 1e9);
		json_num(out, p->energy_j);
		fputs("}", out);
		first = false;
	}
	fprintf(out, "%s\n    {\"kind\": \"idle\", \"comm\": \"<idle>\", \"energy_j\": ",
		first ? "" : ",");
	json_num(out, r->sign * r->idle_energy);
	fputs("},\n    {\"kind\": \"other\", \"comm\": \"<other>\", \"energy_j\": ", out);
	json_num(out, report_energy_rounded(r->sign * r->other_energy, r->energy));
}

/* Threads that ran or got energy, by energy. */
static void json_threads(const struct report *r, FILE *out)
{
	bool first = true;
	uint32_t i;

	fputs("}\n  ],\n  \"threads\": [", out);
	for (i = 0; i < r->nr_tasks; i++) {
		const struct report_task *t = &r->tasks[r->task_order[i]];

		if (!t->cpu_ns && !t->energy)
			continue;
		fprintf(out, "%s\n    {\"pid\": %d, \"tgid\": ", first ? "" : ",", t->pid);
		if (t->tgid > 0)
			fprintf(out, "%d, \"comm\": ", t->tgid);
		else
			fputs("null, \"comm\": ", out);
		json_string(out, t->comm, sizeof(t->comm));
		fprintf(out, ", \"cpu_s\": %.9f, \"energy_j\": ", (double)t->cpu_ns / 1e9);
		json_num(out, r->sign * t->energy);
		fputs("}", out);
		first = false;
	}
}

/* Slices and marker spans. */
static void json_slices(const struct report *r, FILE *out)
{
	bool first = true;
	uint32_t i;

	fputs("\n  ],\n  \"slices\": [", out);
	for (i = 0; i < r->nr_slice_stats; i++) {
		const struct report_slice_stat *s = &r->slice_stats[i];

		fprintf(out, "%s\n    {\"kind\": \"%s\", \"name\": ", first ? "" : ",",
			s->marker ? "marker" : "slice");
		json_string(out, s->name, SIZE_MAX);
		fprintf(out, ", \"count\": %" PRIu64 ", \"duration_s\": %.9f, \"energy_j\": ",
			s->count, (double)s->duration_ns / 1e9);
		json_num(out, r->sign * s->energy);
		if (r->opt.baseline_s > 0) {
			fputs(", \"energy_above_baseline_j\": ", out);
			json_num(out, slice_above(r, s));
		}
		fprintf(out, ", \"unterminated\": %" PRIu64 "}", s->unterminated);
		first = false;
	}
}

/* atrace and powerpin counters. */
static void json_counters(const struct report *r, FILE *out)
{
	uint32_t i;

	fputs("\n  ],\n  \"counters\": [", out);
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_string(out, c->name, SIZE_MAX);
		fprintf(out, ", \"source\": \"%s\", \"count\": %" PRIu64 ", \"min\": %" PRId64
			", \"max\": %" PRId64 ", \"last\": %" PRId64 "}",
			c->atrace ? "atrace" : "powerpin", c->count, c->min, c->max, c->last);
	}
}

int report_write_json(const struct report *r, FILE *out)
{
	fputs("{\n", out);
	json_counts(r, out);
	json_energy(r, out);
	if (r->perf)
		report_perf_write_json(r->perf, out);
	if (r->model)
		report_model_write_json(r, out);
	json_stats(r, out);
	json_processes(r, out);
	json_threads(r, out);
	json_slices(r, out);
	json_counters(r, out);
	fputs("\n  ]\n}\n", out);
	return finish_stream(out);
}

/* Rounding leaves -1e-15 where 0 is meant; print that as 0. */
static double tidy(double v)
{
	return fabs(v) < 1e-9 ? 0.0 : v;
}


static void text_stat(FILE *out, const char *what, const char *unit, const struct report_stat *s)
{
	fprintf(out, "%-8s min %9.4f  mean %9.4f  p50 %9.4f  p95 %9.4f  max %9.4f %s\n", what,
		tidy(s->min), tidy(s->mean), tidy(s->p50), tidy(s->p95), tidy(s->max), unit);
}

/* Energy from the charge counter, its resolution and what it allows. */
static void text_charge(FILE *out, const struct report *r)
{
	char note[256];

	report_charge_note_text(r, note, sizeof(note));
	if (!isfinite(r->energy_from_charge_j)) {
		fprintf(out, "from charge    n/a: %s\n", note);
		return;
	}
	fprintf(out, "from charge    %.4f J +- %.4f J (charge counter delta x time-weighted mean voltage)\n",
		r->energy_from_charge_j + 0.0, r->energy_from_charge_uncertainty_j);
	fprintf(out, "               counter resolution %.0f uAh (smallest step seen), moved %.*f step%s\n",
		r->charge_resolution_uah, r->charge_steps == floor(r->charge_steps) ? 0 : 1,
		r->charge_steps, r->charge_steps == 1 ? "" : "s");
	if (r->charge_note == REPORT_CHARGE_COMPARED)
		fprintf(out, "               discrepancy %+.2f%% against the trapezoid\n",
			r->discrepancy_pct);
	else
		fprintf(out, "               no discrepancy: %s\n", note);
}

/* ---- the text summary's views (--top, --sort, --units) ---------------- */

/* A joule figure in the summary's unit; mAh at the capture's mean voltage. */
static double in_units(const struct report *r, double j)
{
	switch (r->opt.units) {
	case REPORT_UNITS_MWH:
		return j / 3.6;
	case REPORT_UNITS_MAH:
		return r->mean_voltage_v > 0 ? j / 3.6 / r->mean_voltage_v : NAN;
	default:
		return j;
	}
}

static const char *unit_name(const struct report *r)
{
	static const char *const names[] = { "J", "mWh", "mAh" };

	return names[r->opt.units];
}

static uint32_t text_top(const struct report *r)
{
	return r->opt.top ? r->opt.top : REPORT_TOP_DEFAULT;
}

static int by_name(const char *a, const char *b, double ea, double eb)
{
	int c = strcmp(a, b);

	return c ? c : ea < eb ? 1 : ea > eb ? -1 : 0;
}

static int cmp_proc_view(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	const struct report_process *x = &r->processes[*(const uint32_t *)a];
	const struct report_process *y = &r->processes[*(const uint32_t *)b];

	if (r->opt.sort == REPORT_SORT_NAME)
		return by_name(x->comm, y->comm, x->energy_j, y->energy_j);
	if (r->opt.sort == REPORT_SORT_CPU && x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	/* processes come sorted by energy: keep that order for ties */
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_slice_view(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	const struct report_slice_stat *x = &r->slice_stats[*(const uint32_t *)a];
	const struct report_slice_stat *y = &r->slice_stats[*(const uint32_t *)b];
	double ex = r->sign * x->energy, ey = r->sign * y->energy;

	if (r->opt.sort == REPORT_SORT_NAME)
		return by_name(x->name, y->name, ex, ey);
	if (r->opt.sort == REPORT_SORT_CPU && x->duration_ns != y->duration_ns)
		return x->duration_ns < y->duration_ns ? 1 : -1;
	if (ex != ey)
		return ex < ey ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* 0..n-1 in the order --sort asks for; NULL when out of memory. */
static uint32_t *view_order(const struct report *r, uint32_t n,
			    int (*cmp)(const void *, const void *, void *))
{
	uint32_t *order = malloc((n + 1) * sizeof(*order)), i;

	if (!order)
		return NULL;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp, (void *)r);
	return order;
}

static void text_row_tail(FILE *out, uint32_t more, const char *what)
{
	if (more)
		fprintf(out, "  (%u more %s: --top all, or --json/--csv)\n", more, what);
}

/* "  1.2000 J  40.0%  app  tgid 1215, 2 threads, 0.500 s CPU" */
static void text_process(const struct report *r, FILE *out, const struct report_process *p,
			 double total)
{
	char group[48];

	if (p->tgid_known)
		snprintf(group, sizeof(group), "tgid %d", p->tgid);
	else
		snprintf(group, sizeof(group), "tgid unknown (pid %d)", p->tgid);
	fprintf(out, "  %10.4f %s  %5.1f%%  %-16s %s, %d thread%s, %.3f s CPU\n",
		in_units(r, p->energy_j), unit_name(r), total ? 100 * p->energy_j / total : 0,
		p->comm, group, p->threads, p->threads == 1 ? "" : "s", (double)p->cpu_ns / 1e9);
}

static int text_processes(const struct report *r, FILE *out)
{
	uint32_t *order = view_order(r, r->nr_processes, cmp_proc_view);
	double total = r->energy_j;
	uint32_t k, shown = 0;

	if (!order)
		return -1;
	fprintf(out, "\nenergy by process (CPU time share per sample interval):\n");
	for (k = 0; k < r->nr_processes && shown < text_top(r); k++, shown++) {
		const struct report_process *p = &r->processes[order[k]];

		text_process(r, out, p, total);
	}
	text_row_tail(out, r->nr_processes - shown, "processes");
	fprintf(out, "  %10.4f %s  %5.1f%%  <idle>\n", tidy(in_units(r, r->sign * r->idle_energy)),
		unit_name(r), total ? tidy(100 * r->sign * r->idle_energy / total) : 0);
	fprintf(out, "  %10.4f %s  %5.1f%%  <other> (CPU time with no known task%s)\n",
		tidy(in_units(r, r->sign * r->other_energy)), unit_name(r),
		total ? tidy(100 * r->sign * r->other_energy / total) : 0,
		report_filter_active(r->opt.filter) ? ", or filtered out" : "");
	free(order);
	return 0;
}

static int text_slices(const struct report *r, FILE *out)
{
	uint32_t *order = view_order(r, r->nr_slice_stats, cmp_slice_view);
	uint32_t k, shown = 0;

	if (!order)
		return -1;
	fprintf(out, "\nenergy by slice and marker:\n");
	for (k = 0; k < r->nr_slice_stats && shown < text_top(r); k++, shown++) {
		const struct report_slice_stat *s = &r->slice_stats[order[k]];

		fprintf(out, "  %10.4f %s  %-7s %-24s x%" PRIu64 ", %.3f s",
			tidy(in_units(r, r->sign * s->energy)), unit_name(r),
			s->marker ? "marker" : "slice", s->name, s->count,
			(double)s->duration_ns / 1e9);
		if (r->opt.baseline_s > 0)
			fprintf(out, ", %.4f %s above baseline", tidy(in_units(r, slice_above(r, s))),
				unit_name(r));
		fputc('\n', out);
	}
	text_row_tail(out, r->nr_slice_stats - shown, "slices and markers");
	free(order);
	return 0;
}

static void text_counters(const struct report *r, FILE *out)
{
	uint32_t i;

	fprintf(out, "\ncounters:\n");
	for (i = 0; i < r->nr_counters; i++) {
		int64_t lo, hi, last;
		bool is_signed = report_counter_values(r, &r->counters[i], &lo, &hi, &last);

		fprintf(out, "  %-24s %" PRIu64 " values, min %" PRId64 ", max %" PRId64
			", last %" PRId64 "%s\n", r->counters[i].name, r->counters[i].count,
			lo, hi, last, is_signed ? " (discharge +)" : "");
	}
}

/* Samples, gaps, drops: how far the capture itself can be trusted. */
static void text_quality(const struct report *r, FILE *out)
{
	fprintf(out, "duration       %.3f s, %" PRIu64 " sample%s (median interval %.1f ms, max %.1f ms)\n",
		r->duration_s, r->samples, r->samples == 1 ? "" : "s", r->median_interval_s * 1e3,
		(double)r->max_interval_ns / 1e6);
	if (r->window_edges)
		fprintf(out, "window edges   %u between two samples, priced with the power interpolated between them\n",
			r->window_edges);
	fprintf(out, "repeated       %" PRIu64 " samples equal to the previous one (%" PRIu64 " flagged by the sampler)\n",
		r->repeated, r->flagged_repeated);
	fprintf(out, "gaps           %" PRIu64 " intervals over twice the median; %" PRIu64
		" samples missing by seq; %" PRIu64 " lost events%s\n",
		r->gaps, r->seq_gaps, r->lost_events, r->lost_unknown ? " (and drops of unknown size)" : "");
	if (r->read_errors)
		fprintf(out, "read errors    %" PRIu64 " sample%s the sampler could not read, left out\n",
			r->read_errors, r->read_errors == 1 ? "" : "s");
	if (r->seq_resets)
		fprintf(out, "seq resets     %" PRIu64 " times the sampler's seq went back (module reloaded); not counted as missing\n",
			r->seq_resets);
	if (r->missing)
		fprintf(out, "missing        %" PRIu64 " sample%s flagged with a property the supply does not provide (read as 0)\n",
			r->missing, r->missing == 1 ? "" : "s");
	if (r->zero_intervals)
		fprintf(out, "same time      %" PRIu64 " sample%s at the previous sample's timestamp (no interval)\n",
			r->zero_intervals, r->zero_intervals == 1 ? "" : "s");
	if (r->slices_dropped || r->slice_ends_unmatched || r->marks_ignored)
		fprintf(out, "slices         %" PRIu64 " not tracked (%d already open), %" PRIu64
			" ends without a begin, %" PRIu64 " trace_marker writes ignored\n",
			r->slices_dropped, REPORT_MAX_OPEN_SLICES, r->slice_ends_unmatched,
			r->marks_ignored);
}

int report_write_text(const struct report *r, FILE *out)
{
	text_quality(r, out);
	fprintf(out, "sign           %s (%s); figures below count discharge as positive\n",
		r->sign_name, r->sign_method);
	text_stat(out, "voltage", "V", &r->voltage_v);
	text_stat(out, "current", "A", &r->current_a);
	text_stat(out, "power", "W", &r->power_w);
	fprintf(out, "energy         %.4f J (trapezoid of V x I)", tidy(r->energy_j));
	if (r->opt.units != REPORT_UNITS_J)
		fprintf(out, " = %.4f %s%s", tidy(in_units(r, r->energy_j)), unit_name(r),
			r->opt.units == REPORT_UNITS_MAH ? " at the mean voltage" : "");
	fputc('\n', out);
	text_charge(out, r);
	if (r->charge_jumps)
		fprintf(out, "               %" PRIu64 " charge counter jump%s the current cannot explain (reset, recalibration or wrap) left out\n",
			r->charge_jumps, r->charge_jumps == 1 ? "" : "s");
	if (r->energy_j < 0)
		fprintf(out, "               (negative: the battery was charging)\n");
	if (r->opt.baseline_s > 0)
		fprintf(out, "baseline       %.4f W over the first %g s; energy above baseline %.4f %s\n",
			tidy(r->baseline_w), r->opt.baseline_s,
			tidy(in_units(r, r->energy_above_baseline_j)), unit_name(r));
	if (r->switches && text_processes(r, out))
		return -1;
	if (r->nr_slice_stats && text_slices(r, out))
		return -1;
	if (r->nr_counters)
		text_counters(r, out);
	if (r->perf)
		report_perf_write_text(r->perf, out);
	if (r->model)
		report_model_write_text(r, out);
	return finish_stream(out);
}

int report_write_processes_csv(const struct report *r, FILE *out)
{
	uint32_t i;

	/* as the JSON: an unknown group has no tgid and its one thread's pid */
	fputs("kind,tgid,pid,comm,threads,cpu_s,energy_j\n", out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];
		const char *c;

		if (p->tgid_known)
			fprintf(out, "process,%d,,\"", p->tgid);
		else
			fprintf(out, "process,,%d,\"", p->tgid);
		for (c = p->comm; *c; c++)
			fputs(*c == '"' ? "\"\"" : (char[]){ *c, 0 }, out);
		fprintf(out, "\",%d,%.9f,%.9g\n", p->threads, (double)p->cpu_ns / 1e9, p->energy_j);
	}
	fprintf(out, "idle,,,<idle>,,,%.9g\n", r->sign * r->idle_energy + 0.0);
	fprintf(out, "other,,,<other>,,,%.9g\n", r->sign * r->other_energy + 0.0);
	return finish_stream(out);
}

/* A CSV field: quoted, quotes doubled (names may hold commas). */
static void csv_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int report_write_threads_csv(const struct report *r, FILE *out)
{
	uint32_t i;

	/* "pid", the kernel's name for a thread's id, as in the JSON's threads */
	fputs("pid,tgid,comm,cpu_s,energy_j\n", out);
	for (i = 0; i < r->nr_tasks; i++) {
		const struct report_task *t = &r->tasks[r->task_order[i]];
		char comm[sizeof(t->comm) + 1];

		if (!t->cpu_ns && !t->energy)
			continue;
		if (t->tgid > 0)
			fprintf(out, "%d,%d,", t->pid, t->tgid);
		else	/* the group is not in the input */
			fprintf(out, "%d,,", t->pid);
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(t->comm), t->comm);
		csv_quoted(out, comm);
		fprintf(out, ",%.9f,%.9g\n", (double)t->cpu_ns / 1e9, r->sign * t->energy + 0.0);
	}
	return finish_stream(out);
}

int report_write_slices_csv(const struct report *r, FILE *out)
{
	uint32_t i;

	fputs("kind,name,count,duration_s,energy_j,energy_above_baseline_j,unterminated\n", out);
	for (i = 0; i < r->nr_slice_stats; i++) {
		const struct report_slice_stat *s = &r->slice_stats[i];

		fprintf(out, "%s,", s->marker ? "marker" : "slice");
		csv_quoted(out, s->name);
		fprintf(out, ",%" PRIu64 ",%.9f,%.9g,", s->count, (double)s->duration_ns / 1e9,
			r->sign * s->energy + 0.0);
		if (r->opt.baseline_s > 0)
			fprintf(out, "%.9g", slice_above(r, s) + 0.0);
		fprintf(out, ",%" PRIu64 "\n", s->unterminated);
	}
	return finish_stream(out);
}
