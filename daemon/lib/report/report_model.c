// SPDX-License-Identifier: GPL-2.0
/*
 * report --model: what a power_profile.xml predicts beside what the capture
 * measured (docs/profile.md).
 *
 * As BatteryStats charges an app, a process's modelled charge is its CPU
 * time on each cluster x the cluster's cpu.core_power at the frequency the
 * CPU ran at, plus a share of the cluster's cpu.cluster_power, drawn once
 * while any of its cores runs and split between the CPUs running then, and
 * likewise a share of cpu.active, drawn once while any CPU runs; its
 * energy is that charge x the capture's mean voltage.  The device's is
 * cpu.suspend + cpu.idle (the awake baseline) over the whole capture plus
 * every process's.  Files of Android 5 to 8.1 have per-speed currents only
 * (profile_model.c).  CPUs belong to clusters in order
 * (cpu.clusters.cores 4, 4: CPUs 0-3, then 4-7), as AOSP numbers them.
 *
 * The frequency comes from power:cpu_frequency events; a CPU with none yet
 * (the event fires on a change, and a capture that saw none does not say)
 * is priced at its cluster's highest speed, an upper bound.  A frequency
 * not in the profile's list takes the nearest listed speed.
 *
 * A run follows the input event by event (report_model_event): the first
 * pass's totals come from a run over the whole capture (report_model_run),
 * the HTML page and the Perfetto trace follow one as they are written,
 * for a modelled power series and modelled energy as it accumulates.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "profile/profile.h"
#include "report.h"
#include "report_filter.h"
#include "base/base.h"

#define MODEL_TEXT_TOP	20
#define MODEL_UNUSABLE	(POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)

struct model_cpu {
	int pid;			/* running: 0 idle, -1 unknown (no switch yet) */
	unsigned int khz;		/* 0: no cpu_frequency event yet */
	uint64_t since_ns;		/* charged up to here */
};

struct model_proc_key {
	int tgid;
	uint32_t idx;			/* into the first pass's processes */
};

struct report_model_run {
	const struct report *r;		/* the finished first pass */
	const struct profile_model *m;
	struct model_cpu *cpu;
	int nr_cpus;
	struct model_proc_key *keys;	/* processes by tgid, for bsearch */
	double *proc_mans;		/* per process: mA x ns charged so far */
	double all_mans;		/* every process's */
	double busy_mans;		/* since the last sample (the series) */
	uint64_t share_ns;		/* cluster and active shares charged up to here */
	int share_cpus;			/* CPUs the clusters cover; 0: no shared terms */
	/* CPU time by cluster and speed index; [c][PROFILE_MAX_FREQS]: unknown speed */
	double cpu_ns[PROFILE_MAX_CLUSTERS + 1][PROFILE_MAX_FREQS + 1];
	uint64_t freq_events;
	bool have_sample;
	uint64_t sample_ns;
	double sample_v;
	double power_w;			/* over the interval before the last sample */
	bool keep_series;
	float *series_w;		/* power_w at every usable sample */
	size_t nr_series, cap_series;
	int error;
};

/* ---- pricing ------------------------------------------------------------- */

/* Cluster of CPU @cpu by cpu.clusters.cores; -1 past the profile's CPUs. */
static int cpu_cluster(const struct profile_model *m, int cpu)
{
	int c, first = 0;

	for (c = 0; c < m->nclusters; c++) {
		if (cpu < first + m->cores[c])
			return c;
		first += m->cores[c];
	}
	return -1;
}

/* The speed index nearest @khz; nspeeds - 1 (the highest) when @khz is 0. */
static int speed_index(const struct profile_model *m, int c, unsigned int khz)
{
	int f, best = m->nspeeds[c] - 1;
	double d, best_d = INFINITY;

	/* a speed table the file does not give (Android 14's policies): the top step */
	if (!khz || !m->speeds_khz[c][best])
		return best;
	for (f = 0; f < m->nspeeds[c]; f++) {
		d = fabs((double)m->speeds_khz[c][f] - khz);
		if (d < best_d) {
			best_d = d;
			best = f;
		}
	}
	return best;
}

/* mA one busy CPU @cpu draws at @khz (0 unknown); time noted in cpu_ns. */
static double cpu_price_ma(struct report_model_run *run, int cpu, unsigned int khz,
			   uint64_t ns)
{
	const struct profile_model *m = run->m;
	int c = cpu_cluster(m, cpu), f;

	if (c < 0) {
		run->cpu_ns[PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS] += ns;
		return profile_model_core_ma(m);
	}
	f = speed_index(m, c, khz);
	run->cpu_ns[c][khz ? f : PROFILE_MAX_FREQS] += ns;
	return m->core_ma[c][f];
}

/* ---- following the capture ----------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
	const struct model_proc_key *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* The first pass's process of thread @pid, or -1. */
static long process_of(const struct report_model_run *run, int pid)
{
	const struct report_task *t = report_find_task(run->r, pid);
	struct model_proc_key key, *k;

	if (!t)
		return -1;
	key.tgid = t->tgid > 0 ? t->tgid : t->pid;
	k = bsearch(&key, run->keys, run->r->nr_processes, sizeof(key), key_cmp);
	return k ? (long)k->idx : -1;
}

/* Charge @mans (mA x ns) to thread @pid's process; @series: to the interval too. */
static void charge_mans(struct report_model_run *run, int pid, double mans, bool series)
{
	long j = process_of(run, pid);

	if (j >= 0)
		run->proc_mans[j] += mans;
	run->all_mans += mans;
	if (series)
		run->busy_mans += mans;
}

/* [a, b] inside the first pass's samples, as its CPU time is; false if empty. */
static bool clip(const struct report *r, uint64_t *a, uint64_t *b)
{
	*a = *a > r->first_ns ? *a : r->first_ns;
	*b = *b < r->last_ns ? *b : r->last_ns;
	return *b > *a;
}

/*
 * Charge what CPU @c ran over [a, b]; @series: also to the interval being
 * followed.  @alone: with its cluster's and cpu.active's whole current (the
 * time before a CPU's first switch, when the others' are unknown).
 */
static void charge(struct report_model_run *run, int cpu, int pid, uint64_t a, uint64_t b,
		   bool series, bool alone)
{
	double ma;
	int c;

	if (pid <= 0 || !clip(run->r, &a, &b))
		return;
	ma = cpu_price_ma(run, cpu, run->cpu[cpu].khz, b - a);
	c = cpu_cluster(run->m, cpu);
	if (alone && c >= 0)
		ma += run->m->cluster_ma[c] + run->m->active_ma;
	charge_mans(run, pid, ma * (double)(b - a), series);
}

/*
 * Charge the shared currents up to @ts: each cluster's cpu.cluster_power
 * split between its running CPUs, cpu.active between all running CPUs.
 * Called before any CPU starts or stops running.
 */
static void settle_shares(struct report_model_run *run, uint64_t ts)
{
	const struct profile_model *m = run->m;
	int nbusy[PROFILE_MAX_CLUSTERS] = { 0 }, all = 0, n, cpu, c;
	uint64_t a = run->share_ns, b = ts;
	double ma;

	if (ts > run->share_ns)
		run->share_ns = ts;
	if (!run->share_cpus || !clip(run->r, &a, &b))
		return;
	n = run->nr_cpus < run->share_cpus ? run->nr_cpus : run->share_cpus;
	for (cpu = 0; cpu < n; cpu++)
		if (run->cpu[cpu].pid > 0) {
			nbusy[cpu_cluster(m, cpu)]++;
			all++;
		}
	for (cpu = 0; all && cpu < n; cpu++) {
		if (run->cpu[cpu].pid <= 0)
			continue;
		c = cpu_cluster(m, cpu);
		ma = m->cluster_ma[c] / nbusy[c] + m->active_ma / all;
		charge_mans(run, run->cpu[cpu].pid, ma * (double)(b - a), true);
	}
}

static struct model_cpu *cpu_at(struct report_model_run *run, int cpu)
{
	struct model_cpu *c;
	int i;

	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if (cpu >= run->nr_cpus) {
		c = realloc(run->cpu, (cpu + 1) * sizeof(*c));
		if (!c) {
			run->error = ENOMEM;
			return NULL;
		}
		for (i = run->nr_cpus; i <= cpu; i++)
			c[i] = (struct model_cpu){ .pid = -1 };
		run->cpu = c;
		run->nr_cpus = cpu + 1;
	}
	return &run->cpu[cpu];
}

/* Bring CPU @cpu's running task up to @ts. */
static void settle(struct report_model_run *run, int cpu, uint64_t ts)
{
	struct model_cpu *c = &run->cpu[cpu];

	if (c->pid > 0 && ts > c->since_ns)
		charge(run, cpu, c->pid, c->since_ns, ts, true, false);
	if (c->pid >= 0 && ts > c->since_ns)
		c->since_ns = ts;
}

static void on_switch(struct report_model_run *run, const struct trace_event *ev)
{
	struct model_cpu *c = cpu_at(run, ev->cpu);

	if (!c)
		return;
	/* the first switch names what ran before it: its CPU time, not the series' */
	settle_shares(run, ev->ts_ns);
	if (c->pid < 0)
		charge(run, ev->cpu, ev->sw.prev_pid, run->r->first_ns, ev->ts_ns, false, true);
	else
		settle(run, ev->cpu, ev->ts_ns);
	c = &run->cpu[ev->cpu];
	c->pid = ev->sw.next_pid;
	c->since_ns = ev->ts_ns;
}

static void on_freq(struct report_model_run *run, const struct trace_event *ev)
{
	struct model_cpu *c = cpu_at(run, ev->freq.cpu);

	if (!c)
		return;
	settle(run, ev->freq.cpu, ev->ts_ns);
	run->cpu[ev->freq.cpu].khz = ev->freq.khz;
	run->freq_events++;
}

static void series_add(struct report_model_run *run, double w)
{
	float *s;

	if (!run->keep_series)
		return;
	if (run->nr_series == run->cap_series) {
		size_t cap = run->cap_series ? run->cap_series * 2 : 4096;

		s = realloc(run->series_w, cap * sizeof(*s));
		if (!s) {
			run->error = ENOMEM;
			return;
		}
		run->series_w = s;
		run->cap_series = cap;
	}
	run->series_w[run->nr_series++] = (float)w;
}

/*
 * A sample closes the interval since the one before: the model's power
 * over it is cpu.idle plus what the busy CPUs drew, at the interval's
 * mean voltage.  Like a gauge reading, it is the interval's before it.
 */
static void on_power(struct report_model_run *run, const struct trace_event *ev)
{
	double v = ev->power.voltage_uv * 1e-6, dt;
	int cpu;

	if (ev->power.flags & MODEL_UNUSABLE)
		return;
	settle_shares(run, ev->ts_ns);
	for (cpu = 0; cpu < run->nr_cpus; cpu++)
		settle(run, cpu, ev->ts_ns);
	if (run->have_sample && ev->ts_ns > run->sample_ns) {
		dt = (double)(ev->ts_ns - run->sample_ns);
		run->power_w = (profile_model_base_ma(run->m) + run->busy_mans / dt) / 1000 *
			       (v + run->sample_v) / 2;
	} else {
		run->power_w = profile_model_base_ma(run->m) / 1000 * v;
	}
	run->busy_mans = 0;
	run->have_sample = true;
	run->sample_ns = ev->ts_ns;
	run->sample_v = v;
	series_add(run, run->power_w);
}

int report_model_event(struct report_model_run *run, const struct trace_event *ev)
{
	if (ev->kind == TRACE_EV_SWITCH)
		on_switch(run, ev);
	else if (ev->kind == TRACE_EV_CPU_FREQ)
		on_freq(run, ev);
	else if (ev->kind == TRACE_EV_POWER)
		on_power(run, ev);
	return run->error ? -1 : 0;
}

/* CPUs the clusters cover when the model has shared terms; else 0. */
static int model_share_cpus(const struct profile_model *m)
{
	bool shared = m && m->active_ma != 0;
	long cpus = 0;
	int c;

	for (c = 0; m && c < m->nclusters; c++) {
		shared = shared || m->cluster_ma[c] != 0;
		cpus += m->cores[c];
	}
	return shared ? (int)(cpus < 65536 ? cpus : 65536) : 0;
}

struct report_model_run *report_model_open(const struct report *r, bool keep_series)
{
	struct report_model_run *run = calloc(1, sizeof(*run));
	uint32_t i;

	if (!run)
		return NULL;
	run->r = r;
	run->m = r->model;
	run->keep_series = keep_series;
	run->share_cpus = model_share_cpus(run->m);
	run->keys = calloc(r->nr_processes + 1, sizeof(*run->keys));
	run->proc_mans = calloc(r->nr_processes + 1, sizeof(*run->proc_mans));
	if (!run->m || !run->keys || !run->proc_mans) {
		report_model_free(run);
		return NULL;
	}
	for (i = 0; i < r->nr_processes; i++)
		run->keys[i] = (struct model_proc_key){ .tgid = r->processes[i].tgid, .idx = i };
	qsort(run->keys, r->nr_processes, sizeof(*run->keys), key_cmp);
	return run;
}

void report_model_free(struct report_model_run *run)
{
	if (!run)
		return;
	free(run->cpu);
	free(run->keys);
	free(run->proc_mans);
	free(run->series_w);
	free(run);
}

static int run_event(const struct trace_event *ev, void *arg)
{
	return report_model_event(arg, ev);
}

int report_model_run(struct report *r, const char *path, char *err, size_t errlen)
{
	static const struct trace_input_ops ops = { .event = run_event };
	struct report_model_run *run = report_model_open(r, false);

	if (!run) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* the same events as the measured report: its filters and instance */
	if (report_filter_read(path, &ops, run, r->opt.filter, err, errlen)) {
		if (run->error)
			snprintf(err, errlen, "%s: out of memory while pricing it by the model", path);
		report_model_free(run);
		return -1;
	}
	report_model_free(r->model_run);
	r->model_run = run;
	return 0;
}

/* ---- what a run says ----------------------------------------------------- */

double report_model_power_w(const struct report_model_run *run)
{
	return run && run->have_sample ? run->power_w : NAN;
}

/* J of @mans (mA x ns) at the first pass's mean voltage. */
static double mans_j(const struct report_model_run *run, double mans)
{
	return mans / 1e3 / 1e9 * run->r->voltage_v.mean;
}

double report_model_process_j(const struct report_model_run *run, uint32_t i)
{
	return run && i < run->r->nr_processes ? mans_j(run, run->proc_mans[i]) : NAN;
}

double report_model_device_j(const struct report_model_run *run)
{
	const struct report *r = run->r;
	uint64_t upto = run->have_sample ? run->sample_ns : r->first_ns;
	double idle_s = upto > r->first_ns ? (upto - r->first_ns) / 1e9 : 0;

	return idle_s * profile_model_base_ma(run->m) / 1000 * r->voltage_v.mean +
	       mans_j(run, run->all_mans);
}

const float *report_model_series(const struct report_model_run *run, size_t *n)
{
	*n = run ? run->nr_series : 0;
	return run ? run->series_w : NULL;
}

/* ---- text and JSON ------------------------------------------------------- */

/* A process's modelled J: the run's, else CPU time at the averaged core current. */
static double process_model_j(const struct report *r, uint32_t i)
{
	if (r->model_run)
		return report_model_process_j(r->model_run, i);
	return (double)r->processes[i].cpu_ns / 1e9 * profile_model_core_ma(r->model) / 1000 *
	       r->voltage_v.mean;
}

static double device_model_j(const struct report *r)
{
	double j = r->duration_s * profile_model_base_ma(r->model) / 1000 * r->voltage_v.mean;
	uint32_t i;

	if (r->model_run)
		return report_model_device_j(r->model_run);
	for (i = 0; i < r->nr_processes; i++)
		j += process_model_j(r, i);
	return j;
}

/* "by the frequency of N cpu_frequency events" or why the highest speed. */
static const char *pricing(const struct report *r)
{
	return r->model_run && r->model_run->freq_events ?
	       "CPU time priced at the frequency each CPU ran at (cpu_frequency events)" :
	       "no cpu_frequency events: CPU time priced at each cluster's highest speed";
}

void report_model_write_text(const struct report *r, FILE *out)
{
	uint32_t i;

	const struct profile_model *m = r->model;

	fprintf(out, "\nmodel (power_profile.xml): %.1f mA per busy CPU, cpu.idle %.1f mA, at the mean %.3f V\n",
		profile_model_core_ma(m), m->idle_ma, r->voltage_v.mean);
	fprintf(out, "  keys of %s; awake baseline %.1f mA (suspend %.1f + idle %.1f)%s\n",
		profile_format_describe(m->format), profile_model_base_ma(m), m->suspend_ma,
		m->idle_ma, m->format >= PROFILE_XML_9 ?
		"; cluster power once while any of its cores runs, cpu.active once while any CPU runs" :
		"; per-speed currents only");
	fprintf(out, "  %s\n", pricing(r));
	fprintf(out, "  device      %10.4f J measured, %10.4f J modelled, %+10.4f J difference\n",
		r->energy_j, device_model_j(r), r->energy_j - device_model_j(r));
	for (i = 0; i < r->nr_processes && i < MODEL_TEXT_TOP; i++) {
		const struct report_process *p = &r->processes[i];
		double model = process_model_j(r, i);

		fprintf(out, "  %10.4f J measured, %10.4f J modelled, %+10.4f J  %-16s %s %d\n",
			p->energy_j, model, p->energy_j - model, p->comm,
			p->tgid_known ? "tgid" : "tgid unknown, pid", p->tgid);
	}
	if (r->nr_processes > MODEL_TEXT_TOP)
		fprintf(out, "  (%u more processes in --json)\n", r->nr_processes - MODEL_TEXT_TOP);
}

/* CPU seconds per cluster and speed: "clusters": [{"speeds_khz": [...], "cpu_s": [...]}] */
static void json_cpu_time(const struct report *r, FILE *out)
{
	const struct report_model_run *run = r->model_run;
	const struct profile_model *m = r->model;
	int c, f;

	fprintf(out, "\"cpu_frequency_events\": %" PRIu64 ", \"clusters\": [",
		run ? run->freq_events : 0);
	for (c = 0; run && c < m->nclusters; c++) {
		fprintf(out, "%s{\"cluster\": %d, \"speeds_khz\": [", c ? ", " : "", c);
		for (f = 0; f < m->nspeeds[c]; f++)
			fprintf(out, "%s%u", f ? ", " : "", m->speeds_khz[c][f]);
		fputs("], \"cpu_s_at_speed\": [", out);
		for (f = 0; f < m->nspeeds[c]; f++)
			fprintf(out, "%s%.9f", f ? ", " : "", run->cpu_ns[c][f] / 1e9);
		fprintf(out, "], \"cpu_s_unknown_speed\": %.9f}",
			run->cpu_ns[c][PROFILE_MAX_FREQS] / 1e9);
	}
	fputs("],\n    ", out);
}

void report_model_write_json(const struct report *r, FILE *out)
{
	uint32_t i;

	fprintf(out, "  \"model\": {\"format\": %d, \"core_ma\": %.6g, \"idle_ma\": %.6g, "
		"\"suspend_ma\": %.6g, \"active_ma\": %.6g, \"voltage_v\": %.6g, "
		"\"energy_j\": %.9g, \"measured_energy_j\": %.9g,\n    ", (int)r->model->format,
		profile_model_core_ma(r->model), r->model->idle_ma, r->model->suspend_ma,
		r->model->active_ma, r->voltage_v.mean, device_model_j(r), r->energy_j);
	json_cpu_time(r, out);
	fputs("\"processes\": [", out);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];
		double model = process_model_j(r, i);

		if (p->tgid_known)
			fprintf(out, "%s\n      {\"tgid\": %d, \"comm\": ", i ? "," : "", p->tgid);
		else
			fprintf(out, "%s\n      {\"tgid\": null, \"pid\": %d, \"comm\": ",
				i ? "," : "", p->tgid);
		json_string(out, p->comm, sizeof(p->comm));
		fprintf(out, ", \"cpu_s\": %.9f, \"measured_j\": %.9g, \"modelled_j\": %.9g, "
			"\"difference_j\": %.9g}", (double)p->cpu_ns / 1e9, p->energy_j, model,
			p->energy_j - model);
	}
	fputs("\n    ]},\n", out);
}

/* ---- HTML ---------------------------------------------------------------- */

void report_model_write_html(const struct report *r, FILE *out)
{
	uint32_t i;

	if (!r->model)
		return;
	fprintf(out, "<h3>Model (power_profile.xml)</h3>\n<p class=\"pp-model-note\">cpu.idle %.1f mA "
		"(and cpu.suspend %.1f mA) over the capture plus each process's CPU time at its "
		"cluster's current, at the mean %.3f V; ", r->model->idle_ma, r->model->suspend_ma,
		r->voltage_v.mean);
	html_text(out, pricing(r));
	fputs(".</p>\n<table class=\"pp-model\"><tr><th>process</th><th>tgid</th><th>CPU s</th>"
	      "<th>measured J</th><th>modelled J</th><th>difference J</th></tr>\n", out);
	fprintf(out, "<tr><td>device</td><td></td><td></td><td>%.4f</td><td>%.4f</td><td>%+.4f</td></tr>\n",
		r->energy_j + 0.0, device_model_j(r), r->energy_j - device_model_j(r) + 0.0);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];
		double model = process_model_j(r, i);

		fputs("<tr><td>", out);
		html_text(out, p->comm);
		fprintf(out, "</td><td>%d</td><td>%.3f</td><td>%.4f</td><td>%.4f</td><td>%+.4f</td></tr>\n",
			p->tgid, (double)p->cpu_ns / 1e9, p->energy_j + 0.0, model,
			p->energy_j - model + 0.0);
	}
	fputs("</table>\n", out);
}

/*
 * The modelled power at every sample the page plots, as base64 f32
 * little-endian watts, one per pp-samples record that is a sample.
 */
void report_model_write_html_series(const struct report *live, FILE *out)
{
	struct b64_stream b = { .out = out };
	const float *w;
	size_t n, k;

	if (!live->model_run)
		return;
	w = report_model_series(live->model_run, &n);
	fputs("<script type=\"application/octet-stream\" id=\"pp-model\">\n", out);
	for (k = 0; k < n; k++) {
		uint8_t rec[4];

		memcpy(rec, &w[k], 4);
		b64_put(&b, rec, sizeof(rec));
	}
	b64_end(&b);
	fputs("\n</script>\n", out);
}
