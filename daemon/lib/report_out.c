// SPDX-License-Identifier: GPL-2.0
/*
 * Report writers from the finished report: text summary, JSON, processes
 * CSV and the self-contained HTML page.  The per-sample outputs are in
 * report_samples.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_perf.h"
#include "util.h"

#define TEXT_TOP		10
#define HTML_TOP_THREADS	50
#define HTML_BARS		12

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

int report_write_json(const struct report *r, FILE *out)
{
	uint32_t i;
	bool first = true;

	fputs("{\n", out);
	fprintf(out, "  \"duration_s\": %.9f,\n  \"samples\": %" PRIu64 ",\n", r->duration_s,
		r->samples);
	fprintf(out, "  \"repeated_samples\": %" PRIu64 ",\n  \"flagged_repeated\": %" PRIu64 ",\n",
		r->repeated, r->flagged_repeated);
	fprintf(out, "  \"median_interval_s\": %.4f,\n  \"max_interval_s\": %.9f,\n  \"gaps\": %" PRIu64 ",\n",
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
	fputs("  \"energy_j\": ", out);
	json_num(out, r->energy_j);
	fputs(",\n  \"energy_from_charge_j\": ", out);
	json_num(out, r->energy_from_charge_j);
	fputs(",\n  \"energy_discrepancy_pct\": ", out);
	json_num(out, r->discrepancy_pct);
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
	if (r->perf)
		report_perf_write_json(r->perf, out);
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
	json_num(out, r->sign * r->other_energy);

	fputs(",\n  \"processes\": [", out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];

		fprintf(out, "%s\n    {\"kind\": \"process\", \"tgid\": %d, \"comm\": ",
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
	json_num(out, r->sign * r->other_energy);
	fputs("}\n  ],\n  \"threads\": [", out);
	first = true;
	for (i = 0; i < r->nr_tasks; i++) {
		const struct report_task *t = &r->tasks[r->task_order[i]];

		if (!t->cpu_ns && !t->energy)
			continue;
		fprintf(out, "%s\n    {\"pid\": %d, \"tgid\": %d, \"comm\": ", first ? "" : ",",
			t->pid, t->tgid > 0 ? t->tgid : t->pid);
		json_string(out, t->comm, sizeof(t->comm));
		fprintf(out, ", \"cpu_s\": %.9f, \"energy_j\": ", (double)t->cpu_ns / 1e9);
		json_num(out, r->sign * t->energy);
		fputs("}", out);
		first = false;
	}
	fputs("\n  ],\n  \"slices\": [", out);
	first = true;
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
	fputs("\n  ],\n  \"counters\": [", out);
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_string(out, c->name, SIZE_MAX);
		fprintf(out, ", \"source\": \"%s\", \"count\": %" PRIu64 ", \"min\": %" PRId64
			", \"max\": %" PRId64 ", \"last\": %" PRId64 "}",
			c->atrace ? "atrace" : "powerpin", c->count, c->min, c->max, c->last);
	}
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
		s->min, s->mean, s->p50, s->p95, s->max, unit);
}

int report_write_text(const struct report *r, FILE *out)
{
	double total = r->energy_j;
	uint32_t i, shown = 0;

	fprintf(out, "duration       %.3f s, %" PRIu64 " samples (median interval %.1f ms, max %.1f ms)\n",
		r->duration_s, r->samples, r->median_interval_s * 1e3,
		(double)r->max_interval_ns / 1e6);
	fprintf(out, "repeated       %" PRIu64 " samples equal to the previous one (%" PRIu64 " flagged by the sampler)\n",
		r->repeated, r->flagged_repeated);
	fprintf(out, "gaps           %" PRIu64 " intervals over twice the median; %" PRIu64
		" samples missing by seq; %" PRIu64 " lost events%s\n",
		r->gaps, r->seq_gaps, r->lost_events, r->lost_unknown ? " (and drops of unknown size)" : "");
	if (r->read_errors)
		fprintf(out, "read errors    %" PRIu64 " samples the sampler could not read, left out\n",
			r->read_errors);
	if (r->seq_resets)
		fprintf(out, "seq resets     %" PRIu64 " times the sampler's seq went back (module reloaded); not counted as missing\n",
			r->seq_resets);
	if (r->missing)
		fprintf(out, "missing        %" PRIu64 " samples flagged with a property the supply does not provide (read as 0)\n",
			r->missing);
	if (r->zero_intervals)
		fprintf(out, "same time      %" PRIu64 " samples at the previous sample's timestamp (no interval)\n",
			r->zero_intervals);
	if (r->slices_dropped || r->slice_ends_unmatched || r->marks_ignored)
		fprintf(out, "slices         %" PRIu64 " not tracked (%d already open), %" PRIu64
			" ends without a begin, %" PRIu64 " trace_marker writes ignored\n",
			r->slices_dropped, REPORT_MAX_OPEN_SLICES, r->slice_ends_unmatched,
			r->marks_ignored);
	fprintf(out, "sign           %s (%s); figures below count discharge as positive\n",
		r->sign_name, r->sign_method);
	text_stat(out, "voltage", "V", &r->voltage_v);
	text_stat(out, "current", "A", &r->current_a);
	text_stat(out, "power", "W", &r->power_w);
	fprintf(out, "energy         %.4f J (trapezoid of V x I)\n", tidy(r->energy_j));
	if (!r->have_charge)
		fprintf(out, "from charge    n/a (no charge counter in the input)\n");
	else if (!isfinite(r->energy_from_charge_j))
		fprintf(out, "from charge    n/a: the charge counter did not change (too coarse for this capture)\n");
	else if (isfinite(r->discrepancy_pct))
		fprintf(out, "from charge    %.4f J (charge counter delta x time-weighted mean voltage), discrepancy %+.2f%%\n",
			r->energy_from_charge_j + 0.0, r->discrepancy_pct);
	else
		fprintf(out, "from charge    %.4f J (charge counter delta x time-weighted mean voltage)\n",
			r->energy_from_charge_j + 0.0);
	if (r->charge_jumps)
		fprintf(out, "               %" PRIu64 " charge counter jump%s the current cannot explain (reset, recalibration or wrap) left out\n",
			r->charge_jumps, r->charge_jumps == 1 ? "" : "s");
	if (total < 0)
		fprintf(out, "               (negative: the battery was charging)\n");
	if (r->opt.baseline_s > 0)
		fprintf(out, "baseline       %.4f W over the first %g s; energy above baseline %.4f J\n",
			tidy(r->baseline_w), r->opt.baseline_s, tidy(r->energy_above_baseline_j));
	if (r->switches) {
		fprintf(out, "\nenergy by process (CPU time share per sample interval):\n");
		for (i = 0; i < r->nr_processes && shown < TEXT_TOP; i++, shown++)
			fprintf(out, "  %10.4f J  %5.1f%%  %-16s tgid %d, %d thread%s, %.3f s CPU\n",
				r->processes[i].energy_j,
				total ? 100 * r->processes[i].energy_j / total : 0,
				r->processes[i].comm, r->processes[i].tgid, r->processes[i].threads,
				r->processes[i].threads == 1 ? "" : "s",
				(double)r->processes[i].cpu_ns / 1e9);
		if (r->nr_processes > shown)
			fprintf(out, "  (%u more processes in --json/--csv)\n",
				r->nr_processes - shown);
		fprintf(out, "  %10.4f J  %5.1f%%  <idle>\n", tidy(r->sign * r->idle_energy),
			total ? tidy(100 * r->sign * r->idle_energy / total) : 0);
		fprintf(out, "  %10.4f J  %5.1f%%  <other> (CPU time with no known task)\n",
			tidy(r->sign * r->other_energy),
			total ? tidy(100 * r->sign * r->other_energy / total) : 0);
	}
	if (r->nr_slice_stats) {
		fprintf(out, "\nenergy by slice and marker:\n");
		for (i = 0; i < r->nr_slice_stats; i++) {
			const struct report_slice_stat *s = &r->slice_stats[i];

			fprintf(out, "  %10.4f J  %-7s %-24s x%" PRIu64 ", %.3f s", tidy(r->sign * s->energy),
				s->marker ? "marker" : "slice", s->name, s->count,
				(double)s->duration_ns / 1e9);
			if (r->opt.baseline_s > 0)
				fprintf(out, ", %.4f J above baseline", tidy(slice_above(r, s)));
			fputc('\n', out);
		}
	}
	if (r->nr_counters) {
		fprintf(out, "\ncounters:\n");
		for (i = 0; i < r->nr_counters; i++)
			fprintf(out, "  %-24s %" PRIu64 " values, min %" PRId64 ", max %" PRId64 ", last %" PRId64 "\n",
				r->counters[i].name, r->counters[i].count, r->counters[i].min,
				r->counters[i].max, r->counters[i].last);
	}
	if (r->perf)
		report_perf_write_text(r->perf, out);
	return finish_stream(out);
}

int report_write_processes_csv(const struct report *r, FILE *out)
{
	uint32_t i;

	fputs("kind,tgid,comm,threads,cpu_s,energy_j\n", out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];
		const char *c;

		fprintf(out, "process,%d,\"", p->tgid);
		for (c = p->comm; *c; c++)
			fputs(*c == '"' ? "\"\"" : (char[]){ *c, 0 }, out);
		fprintf(out, "\",%d,%.9f,%.9g\n", p->threads, (double)p->cpu_ns / 1e9, p->energy_j);
	}
	fprintf(out, "idle,,<idle>,,,%.9g\n", r->sign * r->idle_energy + 0.0);
	fprintf(out, "other,,<other>,,,%.9g\n", r->sign * r->other_energy + 0.0);
	return finish_stream(out);
}

/* ---- HTML ---------------------------------------------------------------- */

static void html_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

enum plot_kind { PLOT_VOLTAGE, PLOT_CURRENT, PLOT_POWER };

/* One bucket's normalised min/mean/max for @kind. */
static void bucket_vals(const struct report *r, const struct report_bucket *b, enum plot_kind kind,
			double *lo, double *mean, double *hi)
{
	double a, z;

	switch (kind) {
	case PLOT_VOLTAGE:
		*lo = b->v_min * 1e-6;
		*hi = b->v_max * 1e-6;
		*mean = b->v_sum / b->n * 1e-6;
		return;
	case PLOT_CURRENT:
		a = r->sign * b->i_min * 1e-6;
		z = r->sign * b->i_max * 1e-6;
		*mean = r->sign * b->i_sum / b->n * 1e-6;
		break;
	default:
		a = r->sign * b->p_min * 1e-6;
		z = r->sign * b->p_max * 1e-6;
		*mean = r->sign * b->p_sum / b->n * 1e-6;
		break;
	}
	*lo = a < z ? a : z;
	*hi = a < z ? z : a;
}

#define PW	800
#define PH	170
#define PL	70	/* left margin for labels */
#define PT	10

static void html_plot(FILE *out, const struct report *r, enum plot_kind kind, const char *title,
		      const char *unit, const char *colour)
{
	double span = (double)(r->last_ns - r->first_ns);
	double ymin = INFINITY, ymax = -INFINITY, lo, mean, hi, x, y;
	uint32_t k, last = 0;
	bool started;

	for (k = 0; k < REPORT_PLOT_BUCKETS; k++) {
		if (!r->buckets[k].n)
			continue;
		bucket_vals(r, &r->buckets[k], kind, &lo, &mean, &hi);
		ymin = lo < ymin ? lo : ymin;
		ymax = hi > ymax ? hi : ymax;
		last = k;
	}
	if (ymax - ymin < 1e-9) {
		ymin -= 0.05 * (fabs(ymin) + 1e-3);
		ymax += 0.05 * (fabs(ymax) + 1e-3);
	}
	if (span <= 0)
		span = 1;
#define X(t)	(PL + (double)(t) / span * PW)
#define Y(v)	(PT + (ymax - (v)) / (ymax - ymin) * PH)
	fprintf(out, "<h3>%s</h3>\n<svg class=\"plot\" id=\"plot-%d\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		title, kind, PL + PW + 10, PT + PH + 30, PL + PW + 10, PT + PH + 30);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" stroke=\"#999\"/>\n",
		PL, PT, PW, PH);
	/* slices: each bucket shaded by the share of its time inside slices */
	for (k = 0; k < REPORT_PLOT_BUCKETS; k++) {
		double share = (double)r->buckets[k].slice_ns / r->bucket_ns;
		double x1 = X((double)k * r->bucket_ns), x2 = X((double)(k + 1) * r->bucket_ns);

		if (!r->buckets[k].slice_ns || x1 >= PL + PW)
			continue;
		if (x2 > PL + PW)
			x2 = PL + PW;
		fprintf(out, "<rect class=\"slice\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#f2c14e\" fill-opacity=\"%.2f\"><title>%.0f%% in slices</title></rect>\n",
			x1, PT, x2 - x1, PH, 0.25 * (share < 1 ? share : 1), 100 * share);
	}
	/* min/max envelope: along the maxima, back along the minima */
	fprintf(out, "<polygon class=\"envelope\" fill=\"%s\" fill-opacity=\"0.3\" stroke=\"none\" points=\"",
		colour);
	for (k = 0; k <= last; k++) {
		if (!r->buckets[k].n)
			continue;
		bucket_vals(r, &r->buckets[k], kind, &lo, &mean, &hi);
		x = X((k + 0.5) * r->bucket_ns);
		fprintf(out, "%.1f,%.1f ", x, Y(hi));
	}
	for (k = last + 1; k-- > 0;) {
		if (!r->buckets[k].n)
			continue;
		bucket_vals(r, &r->buckets[k], kind, &lo, &mean, &hi);
		x = X((k + 0.5) * r->bucket_ns);
		fprintf(out, "%.1f,%.1f ", x, Y(lo));
	}
	fprintf(out, "\"/>\n<polyline class=\"mean\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		colour);
	started = false;
	for (k = 0; k <= last; k++) {
		if (!r->buckets[k].n)
			continue;
		bucket_vals(r, &r->buckets[k], kind, &lo, &mean, &hi);
		x = X((k + 0.5) * r->bucket_ns);
		y = Y(mean);
		fprintf(out, "%s%.1f,%.1f", started ? " " : "", x, y);
		started = true;
	}
	fputs("\"/>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%.4g %s</text>\n",
		PL - 4, PT + 10, ymax, unit);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%.4g %s</text>\n",
		PL - 4, PT + PH, ymin, unit);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">0 s</text>\n", PL, PT + PH + 16);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%.3f s</text>\n",
		PL + PW, PT + PH + 16, r->duration_s);
	fputs("</svg>\n", out);
#undef X
#undef Y
}

static void html_bars(FILE *out, const struct report *r)
{
	double vmax = 0, v, idle = r->sign * r->idle_energy, other = r->sign * r->other_energy;
	uint32_t n = r->nr_processes < HTML_BARS ? r->nr_processes : HTML_BARS, k;
	int rows = n + 2, row;

	for (k = 0; k < n; k++)
		vmax = fabs(r->processes[k].energy_j) > vmax ? fabs(r->processes[k].energy_j) : vmax;
	vmax = fabs(idle) > vmax ? fabs(idle) : vmax;
	vmax = fabs(other) > vmax ? fabs(other) : vmax;
	if (vmax <= 0)
		vmax = 1;
	fprintf(out, "<h3>Energy by process</h3>\n<svg class=\"bars\" width=\"%d\" height=\"%d\">\n",
		PL + PW + 10, rows * 22 + 10);
	for (row = 0; row < rows; row++) {
		const char *name;
		char buf[64];

		if ((uint32_t)row < n) {
			snprintf(buf, sizeof(buf), "%s (%d)", r->processes[row].comm,
				 r->processes[row].tgid);
			name = buf;
			v = r->processes[row].energy_j;
		} else if ((uint32_t)row == n) {
			name = "<idle>";
			v = idle;
		} else {
			name = "<other>";
			v = other;
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", 0, row * 22 + 20);
		html_esc(out, name);
		fprintf(out, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#4e79a7\"/>",
			200, row * 22 + 8, fabs(v) / vmax * (PW - 250));
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%.4f J</text>\n",
			205 + fabs(v) / vmax * (PW - 250), row * 22 + 20, v);
	}
	fputs("</svg>\n", out);
}

static void html_stat_row(FILE *out, const char *name, const char *unit, const struct report_stat *s)
{
	fprintf(out, "<tr><td>%s (%s)</td><td>%.4f</td><td>%.4f</td><td>%.4f</td><td>%.4f</td><td>%.4f</td></tr>\n",
		name, unit, s->min, s->mean, s->p50, s->p95, s->max);
}

int report_write_html(const struct report *r, const char *title, FILE *out)
{
	uint32_t i, shown = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", out);
	/* no script and no external resources: the file opens offline */
	fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n",
	      out);
	fputs("<title>powerpin report: ", out);
	html_esc(out, title);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:20px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	      "td:first-child,th:first-child{text-align:left}svg{display:block}</style>\n</head><body>\n", out);
	fputs("<h1>powerpin report</h1>\n<p>", out);
	html_esc(out, title);
	fprintf(out, ": %.3f s, %" PRIu64 " samples, energy <b>%.4f J</b>", r->duration_s, r->samples,
		r->energy_j);
	if (isfinite(r->discrepancy_pct))
		fprintf(out, " (%.4f J from the charge counter, %+.2f%%)",
			r->energy_from_charge_j + 0.0, r->discrepancy_pct);
	fprintf(out, ". Sign convention %s, %s; discharge is shown positive.</p>\n", r->sign_name,
		r->sign_method);
	html_plot(out, r, PLOT_VOLTAGE, "Voltage", "V", "#59a14f");
	html_plot(out, r, PLOT_CURRENT, "Current", "A", "#e15759");
	/* each plot and the bar chart in a colour of its own */
	html_plot(out, r, PLOT_POWER, "Power", "W", "#b07aa1");
	html_bars(out, r);

	fputs("<h3>Summary</h3>\n<table><tr><th></th><th>min</th><th>mean</th><th>p50</th><th>p95</th><th>max</th></tr>\n",
	      out);
	html_stat_row(out, "voltage", "V", &r->voltage_v);
	html_stat_row(out, "current", "A", &r->current_a);
	html_stat_row(out, "power", "W", &r->power_w);
	fprintf(out, "</table>\n<table><tr><td>repeated samples</td><td>%" PRIu64 "</td></tr><tr><td>gaps</td><td>%" PRIu64
		"</td></tr><tr><td>lost events</td><td>%" PRIu64 "</td></tr><tr><td>samples missing by seq</td><td>%" PRIu64 "</td></tr></table>\n",
		r->repeated, r->gaps, r->lost_events, r->seq_gaps);

	fputs("<h3>Processes</h3>\n<table><tr><th>process</th><th>tgid</th><th>threads</th><th>CPU s</th><th>energy J</th></tr>\n",
	      out);
	for (i = 0; i < r->nr_processes; i++) {
		fputs("<tr><td>", out);
		html_esc(out, r->processes[i].comm);
		fprintf(out, "</td><td>%d</td><td>%d</td><td>%.3f</td><td>%.4f</td></tr>\n",
			r->processes[i].tgid, r->processes[i].threads,
			(double)r->processes[i].cpu_ns / 1e9, r->processes[i].energy_j);
	}
	fprintf(out, "<tr><td>&lt;idle&gt;</td><td></td><td></td><td></td><td>%.4f</td></tr>\n",
		r->sign * r->idle_energy);
	fprintf(out, "<tr><td>&lt;other&gt;</td><td></td><td></td><td></td><td>%.4f</td></tr>\n</table>\n",
		r->sign * r->other_energy);

	fputs("<h3>Threads</h3>\n<table><tr><th>thread</th><th>pid</th><th>tgid</th><th>CPU s</th><th>energy J</th></tr>\n",
	      out);
	for (i = 0; i < r->nr_tasks && shown < HTML_TOP_THREADS; i++) {
		const struct report_task *t = &r->tasks[r->task_order[i]];

		if (!t->cpu_ns)
			continue;
		fputs("<tr><td>", out);
		html_esc(out, t->comm);
		fprintf(out, "</td><td>%d</td><td>%d</td><td>%.3f</td><td>%.4f</td></tr>\n", t->pid,
			t->tgid > 0 ? t->tgid : t->pid, (double)t->cpu_ns / 1e9, r->sign * t->energy);
		shown++;
	}
	fputs("</table>\n", out);

	if (r->nr_slice_stats) {
		fputs("<h3>Slices and markers</h3>\n<table><tr><th>name</th><th>kind</th><th>count</th><th>duration s</th><th>energy J</th></tr>\n",
		      out);
		for (i = 0; i < r->nr_slice_stats; i++) {
			const struct report_slice_stat *s = &r->slice_stats[i];

			fputs("<tr><td>", out);
			html_esc(out, s->name);
			fprintf(out, "</td><td>%s</td><td>%" PRIu64 "</td><td>%.4f</td><td>%.4f</td></tr>\n",
				s->marker ? "marker" : "slice", s->count,
				(double)s->duration_ns / 1e9, r->sign * s->energy);
		}
		fputs("</table>\n", out);
	}
	if (r->nr_counters) {
		fputs("<h3>Counters</h3>\n<table><tr><th>track</th><th>values</th><th>min</th><th>max</th><th>last</th></tr>\n",
		      out);
		for (i = 0; i < r->nr_counters; i++) {
			fputs("<tr><td>", out);
			html_esc(out, r->counters[i].name);
			fprintf(out, "</td><td>%" PRIu64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td></tr>\n",
				r->counters[i].count, r->counters[i].min, r->counters[i].max,
				r->counters[i].last);
		}
		fputs("</table>\n", out);
	}
	if (r->perf)
		report_perf_write_html(r->perf, out);
	fputs("</body></html>\n", out);
	return finish_stream(out);
}
