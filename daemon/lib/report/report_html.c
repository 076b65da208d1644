// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: one page that opens offline.  Its plots are drawn by
 * report_html.js (built into the binary, allowed by the page's
 * Content-Security-Policy through its SHA-256 hash and nothing else may
 * run or be fetched) from data written into the page during the report's
 * second pass: every sample (base64 records), every slice and marker span
 * with its energy, and the cumulative energy of the top processes at 512
 * points in time.  The tables are written from the finished first pass.
 *
 * A dependency-free script rather than a plotting library: what the page
 * needs beyond a line chart (decimation to min/max per pixel column over
 * 360,000 samples, slice lanes, selections priced in joules, a stacked
 * energy chart on the same time axis) would be written as plugins for a
 * library anyway, and no third-party code has to be carried.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report.h"
#include "base/base.h"
#include "report_html_js.h"
#include "report_perf.h"

#define HTML_TOP_THREADS	50
#define HTML_TOP_PROCESSES	8	/* stacked separately; the rest as one */
#define HTML_ENERGY_POINTS	512
#define HTML_MARKER_ROW		0xffff
/* Threads with slices are named for their lanes up to this pid (the kernel's PID_MAX_LIMIT) */
#define HTML_TID_LIMIT		(1U << 22)

struct html_writer {
	const struct report *r;
	FILE *out;
	FILE *slices;			/* slice records until the samples are out */
	struct b64_stream samples;
	uint64_t last_us;
	int error;

	/* cumulative energy of each series at HTML_ENERGY_POINTS times */
	uint32_t nr_series;		/* top processes, rest, idle, other */
	double *energy;			/* [point][series] */
	double *proc;			/* scratch: per first-pass process */
	uint32_t next_point;
	struct report_process_map map;
	uint64_t *tid_seen;		/* bitmap: threads with slices (pp-threads) */
	/* thread names as their trace_marker writes carry them */
	struct html_name { int tid; char comm[16]; } *names;
	uint32_t nr_names, cap_names;
	struct hash_index name_index;
};

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

/* A JSON string inside a <script> block: no "</" may close it early. */
static void script_string(FILE *out, const char *s, size_t len)
{
	char *buf = NULL, *p;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return;
	json_string(m, s, len);
	fclose(m);
	for (p = buf; p && *p; p++) {
		if (*p == '<')
			fputs("\\u003c", out);
		else
			fputc(*p, out);
	}
	free(buf);
}

static void json_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v + 0.0);
	else
		fputs("null", out);
}

/* A figure the tables print with 4 decimals: -0 and rounding noise as 0. */
static double fig(double v)
{
	return fabs(v) < 5e-5 ? 0.0 : v;
}

static uint32_t top_processes(const struct report *r)
{
	return r->nr_processes < HTML_TOP_PROCESSES ? r->nr_processes : HTML_TOP_PROCESSES;
}

/* ---- head, summary, controls -------------------------------------------- */

static void html_head(const struct report *r, const char *title, FILE *out)
{
	uint32_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", out);
	/* only the page's own script, by its hash; nothing fetched, nothing sent */
	fprintf(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:; script-src 'sha256-%s'\">\n",
		REPORT_HTML_JS_SHA256);
	fputs("<title>powerpin report: ", out);
	html_esc(out, title);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:20px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	      "td:first-child,th:first-child{text-align:left}svg{display:block;user-select:none}"
	      "h3{margin:10px 0 2px}#pp-plots svg{cursor:crosshair}.pp-info{font-size:13px;margin:4px 0;min-height:1.2em}"
	      "button{margin-right:4px}.pp-slice{cursor:pointer}</style>\n", out);
	fputs("<script type=\"application/json\" id=\"pp-meta\">{\"title\": ", out);
	script_string(out, title, SIZE_MAX);
	fprintf(out, ", \"start_s\": %.9f, \"duration_s\": %.9f, \"samples\": %" PRIu64 ", \"energy_j\": ",
		r->first_ns / 1e9, r->duration_s, r->samples);
	json_number(out, r->energy_j);
	fputs(", \"slice_names\": [", out);
	for (i = 0; i < r->nr_slice_stats; i++) {
		if (i)
			fputs(", ", out);
		script_string(out, r->slice_stats[i].name, SIZE_MAX);
	}
	fputs("]}</script>\n</head><body>\n", out);
}

static void html_summary(const struct report *r, const char *title, FILE *out)
{
	fputs("<h1>powerpin report</h1>\n<p>", out);
	html_esc(out, title);
	fprintf(out, ": %.3f s from trace time %" PRIu64 ".%09" PRIu64 " s, %" PRIu64
		" sample%s, energy <b>%.4f J</b>", r->duration_s, r->first_ns / 1000000000,
		r->first_ns % 1000000000, r->samples, r->samples == 1 ? "" : "s",
		fig(r->energy_j));
	if (r->charge_note == REPORT_CHARGE_COMPARED)
		fprintf(out, " (%.4f J &plusmn; %.4f J from the charge counter, %+.2f%%)",
			r->energy_from_charge_j + 0.0, r->energy_from_charge_uncertainty_j,
			r->discrepancy_pct);
	else if (isfinite(r->energy_from_charge_j))
		fprintf(out, " (%.4f J &plusmn; %.4f J from the charge counter: no discrepancy, too few counter steps)",
			r->energy_from_charge_j + 0.0, r->energy_from_charge_uncertainty_j);
	else if (r->have_charge)
		fputs(" (the charge counter did not move: too coarse for this capture)", out);
	fprintf(out, ".</p>\n<p>Sign: the input's current is %s (%s). <b>Everywhere on this page, "
		"current, power and energy count discharge as positive</b>; negative means the battery "
		"was charging. Times are seconds from the first sample.</p>\n",
		r->sign_name, r->sign_method);
	fputs("<div><button id=\"pp-zoom-in\">Zoom in</button><button id=\"pp-zoom-out\">Zoom out</button>"
	      "<button id=\"pp-zoom-sel\">Zoom to selection</button><button id=\"pp-reset\">Show all</button>"
	      " <span class=\"pp-info\" id=\"pp-range\"></span></div>\n"
	      "<div class=\"pp-info\" id=\"pp-help\">This page draws its plots with its own script; "
	      "the tables below hold the numbers.</div>\n"
	      "<div class=\"pp-info\" id=\"pp-readout\"></div>\n"
	      "<div class=\"pp-info\" id=\"pp-selection\"></div>\n"
	      "<div id=\"pp-plots\"></div>\n", out);
}

/* ---- tables -------------------------------------------------------------- */

static void stat_row(FILE *out, const char *name, const char *unit, const struct report_stat *s)
{
	fprintf(out, "<tr><td>%s (%s)</td><td>%.4f</td><td>%.4f</td><td>%.4f</td><td>%.4f</td><td>%.4f</td></tr>\n",
		name, unit, fig(s->min), fig(s->mean), fig(s->p50), fig(s->p95), fig(s->max));
}

static void process_tables(const struct report *r, FILE *out)
{
	uint32_t i, shown = 0;

	fputs("<h3>Processes</h3>\n<table><tr><th>process</th><th>tgid</th><th>threads</th><th>CPU s</th><th>energy J</th></tr>\n",
	      out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];

		fputs("<tr><td>", out);
		html_esc(out, p->comm);
		/* as the text says it: a lone thread whose group is unknown */
		if (p->tgid_known)
			fprintf(out, "</td><td>%d", p->tgid);
		else
			fprintf(out, "</td><td>unknown (pid %d)", p->tgid);
		fprintf(out, "</td><td>%d</td><td>%.3f</td><td>%.4f</td></tr>\n", p->threads,
			(double)p->cpu_ns / 1e9, fig(p->energy_j));
	}
	fprintf(out, "<tr><td>&lt;idle&gt;</td><td></td><td></td><td></td><td>%.4f</td></tr>\n",
		fig(r->sign * r->idle_energy));
	fprintf(out, "<tr><td>&lt;other&gt;</td><td></td><td></td><td></td><td>%.4f</td></tr>\n</table>\n",
		fig(r->sign * r->other_energy));

	fputs("<h3>Threads</h3>\n<table><tr><th>thread</th><th>pid</th><th>tgid</th><th>CPU s</th><th>energy J</th></tr>\n",
	      out);
	for (i = 0; i < r->nr_tasks && shown < HTML_TOP_THREADS; i++) {
		const struct report_task *t = &r->tasks[r->task_order[i]];

		if (!t->cpu_ns)
			continue;
		fputs("<tr><td>", out);
		html_esc(out, t->comm);
		fprintf(out, "</td><td>%d</td><td>", t->pid);
		if (t->tgid > 0)
			fprintf(out, "%d", t->tgid);
		else
			fputs("unknown", out);
		fprintf(out, "</td><td>%.3f</td><td>%.4f</td></tr>\n", (double)t->cpu_ns / 1e9,
			fig(r->sign * t->energy));
		shown++;
	}
	fputs("</table>\n", out);
}

static void other_tables(const struct report *r, FILE *out)
{
	uint32_t i;

	if (r->nr_slice_stats) {
		fputs("<h3>Slices and markers</h3>\n<table><tr><th>name</th><th>kind</th><th>count</th><th>duration s</th><th>energy J</th></tr>\n",
		      out);
		for (i = 0; i < r->nr_slice_stats; i++) {
			const struct report_slice_stat *s = &r->slice_stats[i];

			fputs("<tr><td>", out);
			html_esc(out, s->name);
			fprintf(out, "</td><td>%s</td><td>%" PRIu64 "</td><td>%.4f</td><td>%.4f</td></tr>\n",
				s->marker ? "marker" : "slice", s->count,
				(double)s->duration_ns / 1e9, fig(r->sign * s->energy));
		}
		fputs("</table>\n", out);
	}
	if (!r->nr_counters)
		return;
	fputs("<h3>Counters</h3>\n<table><tr><th>track</th><th>source</th><th>values</th><th>min</th><th>max</th><th>last</th></tr>\n",
	      out);
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];
		int64_t lo, hi, last;
		bool is_signed = report_counter_values(r, c, &lo, &hi, &last);

		fputs("<tr><td>", out);
		html_esc(out, c->name);
		fprintf(out, "%s</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRId64 "</td><td>%" PRId64
			"</td><td>%" PRId64 "</td></tr>\n",
			is_signed ? " (discharge +)" : "", c->atrace ? "atrace" : "powerpin",
			c->count, lo, hi, last);
	}
	fputs("</table>\n", out);
}

/*
 * The charge counter's cross-check, one table: the same figures as the
 * JSON's energy_from_charge_*, charge_counter_* and energy_discrepancy_*.
 */
static void html_charge(FILE *out, const struct report *r)
{
	char note[256];

	fputs("<table class=\"charge\"><tr><th>charge counter</th><th></th></tr>\n", out);
	if (isfinite(r->energy_from_charge_j)) {
		fprintf(out, "<tr><td>energy from charge</td><td>%.4f J &plusmn; %.4f J</td></tr>\n",
			r->energy_from_charge_j + 0.0, r->energy_from_charge_uncertainty_j);
		fprintf(out, "<tr><td>resolution (smallest step seen)</td><td>%.0f uAh</td></tr>\n",
			r->charge_resolution_uah);
		fprintf(out, "<tr><td>change</td><td>%.*f step%s</td></tr>\n",
			r->charge_steps == floor(r->charge_steps) ? 0 : 1, r->charge_steps,
			r->charge_steps == 1 ? "" : "s");
	}
	if (r->charge_note == REPORT_CHARGE_COMPARED) {
		fprintf(out, "<tr><td>discrepancy</td><td>%+.2f%%</td></tr>\n", r->discrepancy_pct);
	} else {
		fputs("<tr><td>discrepancy</td><td>none: ", out);
		html_esc(out, report_charge_note_text(r, note, sizeof(note)));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_tables(const struct report *r, FILE *out)
{
	fputs("<h3>Summary</h3>\n<table><tr><th></th><th>min</th><th>mean</th><th>p50</th><th>p95</th><th>max</th></tr>\n",
	      out);
	stat_row(out, "voltage", "V", &r->voltage_v);
	stat_row(out, "current, discharge +", "A", &r->current_a);
	stat_row(out, "power, discharge +", "W", &r->power_w);
	fprintf(out, "</table>\n<table><tr><td>energy, discharge +</td><td>%.4f J</td></tr>"
		"<tr><td>repeated samples</td><td>%" PRIu64 "</td></tr><tr><td>gaps</td><td>%" PRIu64
		"</td></tr><tr><td>lost events</td><td>%" PRIu64 "</td></tr><tr><td>samples missing by seq</td><td>%" PRIu64 "</td></tr></table>\n",
		fig(r->energy_j), r->repeated, r->gaps, r->lost_events, r->seq_gaps);
	html_charge(out, r);
	process_tables(r, out);
	report_model_write_html(r, out);
	other_tables(r, out);
	if (r->perf)
		report_perf_write_html(r->perf, out);
}

/* ---- data ---------------------------------------------------------------- */

static void energy_point(struct html_writer *w, struct report *live)
{
	const struct report *r = w->r;
	double *row = &w->energy[(size_t)w->next_point * w->nr_series];
	uint32_t top = top_processes(r), j;

	/* the energy of what ran through whole intervals is charged on demand */
	report_settle(live);
	if (report_energy_by_process(r, live, &w->map, w->proc)) {
		w->error = ENOMEM;
		return;
	}
	memset(row, 0, w->nr_series * sizeof(*row));
	for (j = 0; j < r->nr_processes; j++)
		row[j < top ? j : top] += w->proc[j];
	row[top + 1] = r->sign * live->idle_energy;
	row[top + 2] = r->sign * live->other_energy;
	w->next_point++;
}

/* the time of energy point @k, ns from the first sample */
static uint64_t point_ns(const struct report *r, uint32_t k)
{
	return (uint64_t)((double)(r->last_ns - r->first_ns) * k / (HTML_ENERGY_POINTS - 1));
}

/*
 * One little-endian record of the samples (the page reads them with a
 * DataView): microseconds since the previous record, volts, amperes.
 * NaN volts: no sample, the time only.
 */
static void sample_record(struct html_writer *w, uint32_t dt_us, double v, double a)
{
	uint8_t rec[12];
	float f;

	rec[0] = dt_us;
	rec[1] = dt_us >> 8;
	rec[2] = dt_us >> 16;
	rec[3] = dt_us >> 24;
	f = (float)v;
	memcpy(rec + 4, &f, 4);
	f = (float)a;
	memcpy(rec + 8, &f, 4);
	b64_put(&w->samples, rec, sizeof(rec));
}

static bool name_match(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct html_writer *)ctx)->names[pos].tid == *(const int *)key;
}

static uint32_t name_hash(const void *ctx, uint32_t pos)
{
	return hash_u32((uint32_t)((const struct html_writer *)ctx)->names[pos].tid);
}

/* The name a thread's trace_marker writes carry (a lane's, when the report has none). */
static const char *noted_name(const struct html_writer *w, int tid)
{
	long pos = hash_index_find(&w->name_index, hash_u32((uint32_t)tid), name_match, w, &tid);

	return pos >= 0 ? w->names[pos].comm : "";
}

static void note_name(struct html_writer *w, const struct trace_event *ev)
{
	struct html_name *n;

	if (ev->kind != TRACE_EV_MARK || ev->pid <= 0 || !ev->comm || !ev->comm[0] ||
	    noted_name(w, ev->pid)[0])
		return;
	if (w->nr_names == w->cap_names) {
		n = reallocarray(w->names, w->cap_names ? 2 * w->cap_names : 64, sizeof(*n));
		if (!n)
			return;		/* the lane goes without a name */
		w->names = n;
		w->cap_names = w->cap_names ? 2 * w->cap_names : 64;
	}
	n = &w->names[w->nr_names];
	n->tid = ev->pid;
	snprintf(n->comm, sizeof(n->comm), "%s", ev->comm);
	if (!hash_index_add(&w->name_index, hash_u32((uint32_t)ev->pid), w->nr_names, name_hash, w))
		w->nr_names++;
}

void html_event(struct html_writer *w, struct report *live, const struct trace_event *ev)
{
	const struct report *r = w->r;
	uint64_t us, gap;

	note_name(w, ev);
	if (ev->kind != TRACE_EV_POWER ||
	    (ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)))
		return;
	us = ev->ts_ns > r->first_ns ? (ev->ts_ns - r->first_ns + 500) / 1000 : 0;
	gap = us - w->last_us;
	w->last_us = us;
	/* a gap past 32 bits of microseconds (71 min) goes in time-only steps */
	for (; gap > UINT32_MAX; gap -= UINT32_MAX)
		sample_record(w, UINT32_MAX, NAN, NAN);
	sample_record(w, (uint32_t)gap, ev->power.voltage_uv * 1e-6,
		      report_current_a(r, ev->power.current_ua));
	while (w->next_point < HTML_ENERGY_POINTS &&
	       ev->ts_ns >= r->first_ns + point_ns(r, w->next_point))
		energy_point(w, live);
}

void html_slice_done(struct html_writer *w, const struct report *live,
		     const struct report_open_slice *o, bool marker)
{
	const struct report *r = w->r;
	uint8_t rec[24];
	uint16_t row, name = (uint16_t)(o->stat < 0xfffe ? o->stat : 0xfffe);
	int32_t tid = marker ? 0 : o->pid;
	double begin = (double)((int64_t)(o->begin_ns - r->first_ns)) / 1e9;
	float dur = (float)((o->end_ns - o->begin_ns) / 1e9), j = (float)(r->sign * o->energy);

	/* the lane row: how many of the thread's slices it is nested in */
	if (marker)
		row = HTML_MARKER_ROW;
	else
		row = (uint16_t)(o->depth < 0xfffe ? o->depth : 0xfffe);
	memcpy(rec, &begin, 8);
	memcpy(rec + 8, &dur, 4);
	memcpy(rec + 12, &j, 4);
	memcpy(rec + 16, &name, 2);
	memcpy(rec + 18, &row, 2);
	memcpy(rec + 20, &tid, 4);
	if (tid > 0 && (uint32_t)tid < HTML_TID_LIMIT)
		w->tid_seen[tid / 64] |= 1ULL << (tid % 64);
	if (fwrite(rec, 1, sizeof(rec), w->slices) != sizeof(rec))
		w->error = errno ? errno : EIO;
}

struct html_writer *html_open(const struct report *r, const char *title, FILE *out)
{
	struct html_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->r = r;
	w->out = out;
	w->nr_series = top_processes(r) + 3;
	w->energy = calloc((size_t)HTML_ENERGY_POINTS * w->nr_series, sizeof(double));
	w->proc = calloc(r->nr_processes + 1, sizeof(double));
	w->slices = pp_tmpfile();
	w->tid_seen = calloc(HTML_TID_LIMIT / 64, sizeof(*w->tid_seen));
	if (!w->energy || !w->proc || !w->slices || !w->tid_seen) {
		html_free(w);
		return NULL;
	}
	w->samples.out = out;
	html_head(r, title, out);
	html_summary(r, title, out);
	fputs("<script type=\"application/octet-stream\" id=\"pp-samples\">\n", out);
	return w;
}

/* Thread @tid's name: the report's, else its trace_marker writes'. */
static const char *thread_name(const struct html_writer *w, int tid)
{
	const struct report_task *t = report_find_task(w->r, tid);

	return t && t->comm[0] ? t->comm : noted_name(w, tid);
}

/* The name of process @tgid: its main thread's, else the first pass's. */
static const char *process_name(const struct html_writer *w, int tgid)
{
	const struct report *r = w->r;
	const char *name = thread_name(w, tgid);
	uint32_t i;

	for (i = 0; !name[0] && i < r->nr_processes; i++)
		if (r->processes[i].tgid == tgid)
			name = r->processes[i].comm;
	return name;
}

/* pp-threads: each thread with slices, its name and its process's. */
static void threads_json(struct html_writer *w, FILE *out)
{
	const struct report *r = w->r;
	bool first = true;
	uint32_t tid;

	fputs("<script type=\"application/json\" id=\"pp-threads\">{", out);
	for (tid = 1; tid < HTML_TID_LIMIT; tid++) {
		const struct report_task *t;
		int tgid;

		if (!w->tid_seen[tid / 64]) {
			tid |= 63;	/* a word of none */
			continue;
		}
		if (!(w->tid_seen[tid / 64] & (1ULL << (tid % 64))))
			continue;
		t = report_find_task(r, (int)tid);
		tgid = t && t->tgid > 0 ? t->tgid : -1;
		fprintf(out, "%s\"%u\": {\"name\": ", first ? "" : ", ", tid);
		script_string(out, thread_name(w, (int)tid), SIZE_MAX);
		/* a group the input does not say: null, all such threads in one lane group */
		if (tgid < 0) {
			fputs(", \"tgid\": null, \"process\": \"tgid unknown\"}", out);
			first = false;
			continue;
		}
		fprintf(out, ", \"tgid\": %d, \"process\": ", tgid);
		script_string(out, process_name(w, tgid), SIZE_MAX);
		fputs("}", out);
		first = false;
	}
	fputs("}</script>\n", out);
}

static void energy_json(struct html_writer *w, FILE *out)
{
	const struct report *r = w->r;
	uint32_t top = top_processes(r), s, k;
	double rest = 0;

	for (k = top; k < r->nr_processes; k++)
		rest += r->processes[k].energy_j;
	fputs("<script type=\"application/json\" id=\"pp-energy\">{\"t\": [", out);
	for (k = 0; k < w->next_point; k++)
		fprintf(out, "%s%.6f", k ? ", " : "", point_ns(r, k) / 1e9);
	fputs("], \"series\": [", out);
	for (s = 0; s < w->nr_series; s++) {
		char name[64];
		double total;

		if (s < top) {
			snprintf(name, sizeof(name), "%s (%d)", r->processes[s].comm,
				 r->processes[s].tgid);
			total = r->processes[s].energy_j;
		} else if (s == top) {
			snprintf(name, sizeof(name), "%u other processes", r->nr_processes - top);
			total = rest;
		} else if (s == top + 1) {
			snprintf(name, sizeof(name), "<idle>");
			total = r->sign * r->idle_energy;
		} else {
			snprintf(name, sizeof(name), "<not attributed>");
			total = r->sign * r->other_energy;
		}
		fputs(s ? ", {\"name\": " : "{\"name\": ", out);
		script_string(out, name, SIZE_MAX);
		fputs(", \"total\": ", out);
		json_number(out, total);
		fputs(", \"j\": [", out);
		for (k = 0; k < w->next_point; k++) {
			if (k)
				fputs(", ", out);
			json_number(out, w->energy[(size_t)k * w->nr_series + s]);
		}
		fputs("]}", out);
	}
	fputs("]}</script>\n", out);
}

int html_close(struct html_writer *w, struct report *live)
{
	struct b64_stream b = { .out = w->out };
	uint8_t buf[4080];
	size_t n;

	b64_end(&w->samples);
	/* the last point is the end of the capture, whatever rounding did */
	if (w->next_point < HTML_ENERGY_POINTS)
		energy_point(w, live);
	fputs("\n</script>\n", w->out);
	html_tables(w->r, w->out);
	fputs("<script type=\"application/octet-stream\" id=\"pp-slices\">\n", w->out);
	rewind(w->slices);
	while ((n = fread(buf, 1, sizeof(buf), w->slices)) > 0)
		b64_put(&b, buf, n);
	b64_end(&b);
	if (ferror(w->slices))
		w->error = EIO;
	fputs("\n</script>\n", w->out);
	threads_json(w, w->out);
	energy_json(w, w->out);
	report_model_write_html_series(live, w->out);
	fputs("<script>" REPORT_HTML_JS "</script>\n</body></html>\n", w->out);
	if (w->error) {
		errno = w->error;
		return -1;
	}
	return 0;
}

void html_free(struct html_writer *w)
{
	if (!w)
		return;
	if (w->slices)
		fclose(w->slices);
	free(w->energy);
	free(w->proc);
	free(w->map.idx);
	free(w->tid_seen);
	free(w->names);
	hash_index_free(&w->name_index);
	free(w);
}
