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
#include "report_perf.h"
#include "util.h"

#define TEXT_TOP		10

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
	char note[256];

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
	if (r->perf)
		report_perf_write_json(r->perf, out);
	if (r->model)
		report_model_write_json(r, out);
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
	fprintf(out, "               counter resolution %.0f uAh (smallest step seen), moved %.*f steps\n",
		r->charge_resolution_uah, r->charge_steps == floor(r->charge_steps) ? 0 : 1,
		r->charge_steps);
	if (r->charge_note == REPORT_CHARGE_COMPARED)
		fprintf(out, "               discrepancy %+.2f%% against the trapezoid\n",
			r->discrepancy_pct);
	else
		fprintf(out, "               no discrepancy: %s\n", note);
}

/* How the capture went: its length, and every sample left out or missing. */
static void text_samples(FILE *out, const struct report *r)
{
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
}

/* The statistics, the energy both ways and the baseline. */
static void text_energy(FILE *out, const struct report *r)
{
	double total = r->energy_j;

	fprintf(out, "sign           %s (%s); figures below count discharge as positive\n",
		r->sign_name, r->sign_method);
	text_stat(out, "voltage", "V", &r->voltage_v);
	text_stat(out, "current", "A", &r->current_a);
	text_stat(out, "power", "W", &r->power_w);
	fprintf(out, "energy         %.4f J (trapezoid of V x I)\n", tidy(r->energy_j));
	text_charge(out, r);
	if (r->charge_jumps)
		fprintf(out, "               %" PRIu64 " charge counter jump%s the current cannot explain (reset, recalibration or wrap) left out\n",
			r->charge_jumps, r->charge_jumps == 1 ? "" : "s");
	if (total < 0)
		fprintf(out, "               (negative: the battery was charging)\n");
	if (r->opt.baseline_s > 0)
		fprintf(out, "baseline       %.4f W over the first %g s; energy above baseline %.4f J\n",
			tidy(r->baseline_w), r->opt.baseline_s, tidy(r->energy_above_baseline_j));
}

/* The processes with the most energy, then idle and "other". */
static void text_processes(FILE *out, const struct report *r)
{
	double total = r->energy_j;
	uint32_t i, shown = 0;

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

/* Energy per atrace slice and powerpin marker name. */
static void text_slices(FILE *out, const struct report *r)
{
	uint32_t i;

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
}

/* Each counter's range and last value. */
static void text_counters(FILE *out, const struct report *r)
{
	uint32_t i;

	if (r->nr_counters) {
		fprintf(out, "\ncounters:\n");
		for (i = 0; i < r->nr_counters; i++) {
			int64_t lo, hi, last;
			bool is_signed = report_counter_values(r, &r->counters[i], &lo, &hi, &last);

			fprintf(out, "  %-24s %" PRIu64 " values, min %" PRId64 ", max %" PRId64
				", last %" PRId64 "%s\n", r->counters[i].name, r->counters[i].count,
				lo, hi, last, is_signed ? " (discharge +)" : "");
		}
	}
}

int report_write_text(const struct report *r, FILE *out)
{
	text_samples(out, r);
	text_energy(out, r);
	if (r->switches)
		text_processes(out, r);
	text_slices(out, r);
	text_counters(out, r);
	if (r->perf)
		report_perf_write_text(r->perf, out);
	if (r->model)
		report_model_write_text(r, out);
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
