// SPDX-License-Identifier: GPL-2.0
/*
 * What powerpin profile writes: a table for people, AOSP's power_profile.xml
 * (frameworks/base/core/res/res/xml/power_profile.xml; the keys
 * com.android.internal.os.PowerProfile reads) and JSON.  Currents in mA,
 * discharge counted positive whatever the driver's sign.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "profile.h"
#include "base/base.h"

double profile_coef_ma(const struct profile_result *r, int col)
{
	return r->fit->coef[col] * r->sign / 1000;
}

double profile_ci_ma(const struct profile_result *r, int col)
{
	return r->fit->ci95[col] / 1000;
}

int profile_find_column(const struct profile_result *r, enum profile_column_kind kind,
			int cluster, int freq)
{
	int j;

	for (j = 0; j < r->ncols; j++)
		if (r->cols[j].kind == kind && r->cols[j].cluster == cluster &&
		    r->cols[j].freq == freq)
			return j;
	return -1;
}

/* Cores as Android counts them: every CPU of related_cpus, online or not. */
static int cluster_cores(const struct profile_cluster *cl)
{
	return cl->nrelated > cl->ncpus ? cl->nrelated : cl->ncpus;
}

/* What the fitted model says of step @i, in mA discharge positive. */
static double model_ma(const struct profile_result *r, int i)
{
	double row[PROFILE_MAX_COLUMNS], sum = 0;
	int j;

	profile_design_row(r->cols, r->ncols, &r->plan->steps[i], &r->measures[i], row);
	for (j = 0; j < r->ncols; j++)
		sum += row[j] * r->fit->coef[j];
	return sum * r->sign / 1000;
}

static double step_busy(const struct profile_result *r, int i)
{
	double busy = 0;
	int c;

	for (c = 0; c < r->topo->nclusters; c++)
		busy += r->measures[i].busy[c];
	return busy;
}

static int remeasured_steps(const struct profile_result *r)
{
	int i, n = 0;

	for (i = 0; r->rechecks && i < r->plan->nsteps; i++)
		n += r->rechecks[i].why != 0;
	return n;
}

static void table_steps(FILE *out, const struct profile_result *r)
{
	char desc[512];
	int i;

	fprintf(out, "%-4s %-44s %10s %10s %9s %9s %8s\n", "step", "what", "mA", "model mA",
		"spread mA", "busy CPUs", "samples");
	for (i = 0; i < r->plan->nsteps; i++) {
		const struct profile_measure *m = &r->measures[i];

		profile_step_describe(r->topo, &r->plan->steps[i], desc, sizeof(desc));
		fprintf(out, "%-4d %-44s %10.1f %10.1f %9.1f %9.2f %4u/%-3u\n", i + 1, desc,
			m->current_ua * r->sign / 1000, model_ma(r, i), m->spread_ua / 1000,
			step_busy(r, i), m->fresh, m->samples);
	}
}

/* The steps measured again, and the first fit's residual. */
static void table_rechecks(FILE *out, const struct profile_result *r)
{
	const struct profile_recheck *c;
	int i;

	if (!remeasured_steps(r))
		return;
	fprintf(out, "re-measured (first fit: %.2f mA rms; bounds %.0f mA residual, %.0f mA spread):\n",
		r->first_residual_rms_ma, PROFILE_MAX_RESIDUAL_MA, PROFILE_MAX_SPREAD_MA);
	for (i = 0; i < r->plan->nsteps; i++) {
		c = &r->rechecks[i];
		if (c->why)
			fprintf(out, "  step %d: first %.1f mA, residual %+.1f mA, spread %.1f mA\n",
				i + 1, c->first_current_ma, c->first_residual_ma, c->first_spread_ma);
	}
}

void profile_write_table(FILE *out, const struct profile_result *r)
{
	char name[64];
	int j;

	table_steps(out, r);
	fprintf(out, "\n%-34s %10s  %s\n", "coefficient", "mA", "95% interval (Student's t)");
	for (j = 0; j < r->ncols; j++) {
		profile_column_name(&r->cols[j], name, sizeof(name));
		if (r->cols[j].kind == PROFILE_COL_CORE && r->topo->cpufreq)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " %u kHz",
				 r->topo->cluster[r->cols[j].cluster].freqs_khz[r->cols[j].freq]);
		if (isnan(r->fit->ci95[j]))
			fprintf(out, "%-34s %10.1f  (no interval: as many steps as terms)%s\n",
				name, profile_coef_ma(r, j),
				profile_coef_ma(r, j) < 0 ? "; written as 0" : "");
		else
			fprintf(out, "%-34s %10.1f  +/- %.1f%s\n", name, profile_coef_ma(r, j),
				profile_ci_ma(r, j), profile_coef_ma(r, j) < 0 ? "; written as 0" : "");
	}
	fprintf(out, "residual: %.2f mA rms, %.2f mA at most, %d steps, %d terms, %d degrees of freedom\n",
		r->fit->residual_rms / 1000, r->fit->max_residual / 1000, r->fit->n,
		r->fit->p, r->fit->dof);
	table_rechecks(out, r);
	for (j = 0; j < r->topo->nclusters; j++)
		if (cluster_cores(&r->topo->cluster[j]) > r->topo->cluster[j].ncpus)
			fprintf(out, "cluster %d (%s): %d of its %d CPUs online; the others were not measured (cpu.clusters.cores counts them)\n",
				j, r->topo->cluster[j].policy, r->topo->cluster[j].ncpus,
				cluster_cores(&r->topo->cluster[j]));
	if (r->capacity_mah > 0)
		fprintf(out, "battery.capacity: %.0f mAh (%s)\n", r->capacity_mah, r->supply);
}

/* A name fit for an XML comment: no "--", no markup. */
static void xml_comment_name(FILE *out, const char *s)
{
	for (; s && *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ? *s : '_', out);
}

/*
 * A coefficient by kind as the XML has it: 0 when the model has no such
 * term (a 1-CPU cluster's), and a negative fit (noise around 0) written
 * as 0, since no current is negative; the JSON says which were.
 */
static double coef_or_0(const struct profile_result *r, enum profile_column_kind kind, int c,
			int f)
{
	int j = profile_find_column(r, kind, c, f);

	return j < 0 ? 0.0 : fmax(0.0, profile_coef_ma(r, j));
}


/* The cluster's speeds in Android's order (file order, boost last). */
static void xml_speeds(FILE *out, const char *name, const struct profile_cluster *cl)
{
	int i;

	fprintf(out, "  <array name=\"%s\">\n", name);
	for (i = 0; i < profile_android_speeds(cl); i++)
		fprintf(out, "    <value>%u</value>\n", cl->freqs_khz[profile_android_freq(cl, i)]);
	fprintf(out, "  </array>\n");
}

/*
 * One cluster's per-speed currents as @name.  @with_cluster: before
 * Android 9 there is no cluster term; each speed's value is then what one
 * core of the cluster running alone draws (core + cluster).
 */
static void xml_powers(FILE *out, const char *name, const struct profile_result *r, int c,
		       bool with_cluster)
{
	const struct profile_cluster *cl = &r->topo->cluster[c];
	double add = with_cluster ? coef_or_0(r, PROFILE_COL_CLUSTER, c, -1) : 0;
	int i;

	fprintf(out, "  <array name=\"%s\">\n", name);
	for (i = 0; i < profile_android_speeds(cl); i++)
		fprintf(out, "    <value>%.1f</value>\n",
			coef_or_0(r, PROFILE_COL_CORE, c, profile_android_freq(cl, i)) + add);
	fprintf(out, "  </array>\n");
}

/*
 * Android 5's cpu.active for clusters that share one speed table
 * (profile_one_speed_table(): a policy per core): at each speed, what one
 * core running alone draws (core + cluster), the mean over the measured
 * CPUs of every cluster.
 */
static void xml_active_merged(FILE *out, const struct profile_result *r)
{
	const struct profile_topology *t = r->topo;
	int c, i, n = 0;

	for (c = 0; c < t->nclusters; c++)
		n += t->cluster[c].ncpus;
	fprintf(out, "  <!-- cpu.active: %d cpufreq policies with one speed table; each speed's current is their mean over %d CPUs -->\n",
		t->nclusters, n);
	fprintf(out, "  <array name=\"cpu.active\">\n");
	for (i = 0; i < profile_android_speeds(&t->cluster[0]); i++) {
		double sum = 0;

		for (c = 0; c < t->nclusters; c++) {
			const struct profile_cluster *cl = &t->cluster[c];

			sum += cl->ncpus * (coef_or_0(r, PROFILE_COL_CORE, c, profile_android_freq(cl, i)) +
					    coef_or_0(r, PROFILE_COL_CLUSTER, c, -1));
		}
		fprintf(out, "    <value>%.1f</value>\n", n ? sum / n : 0.0);
	}
	fprintf(out, "  </array>\n");
}

/* The policy number Android 14+ keys a cluster by: policyN's N, else its first CPU. */
static int policy_number(const struct profile_cluster *cl)
{
	int n;

	if (sscanf(cl->policy, "policy%d", &n) == 1)
		return n;
	return cl->nrelated ? cl->first_related : cl->cpus[0];
}

static void xml_cluster(FILE *out, const struct profile_result *r, int c)
{
	const struct profile_cluster *cl = &r->topo->cluster[c];
	char name[64];

	if (r->format == PROFILE_XML_6) {
		snprintf(name, sizeof(name), "cpu.speeds.cluster%d", c);
		xml_speeds(out, name, cl);
		snprintf(name, sizeof(name), "cpu.active.cluster%d", c);
		xml_powers(out, name, r, c, true);
		return;
	}
	fprintf(out, "  <item name=\"cpu.cluster_power.cluster%d\">%.1f</item>\n", c,
		coef_or_0(r, PROFILE_COL_CLUSTER, c, -1));
	snprintf(name, sizeof(name), "cpu.core_speeds.cluster%d", c);
	xml_speeds(out, name, cl);
	snprintf(name, sizeof(name), "cpu.core_power.cluster%d", c);
	xml_powers(out, name, r, c, false);
	if (r->format != PROFILE_XML_14)
		return;
	fprintf(out, "  <item name=\"cpu.scaling_policy_power.policy%d\">%.1f</item>\n",
		policy_number(cl), coef_or_0(r, PROFILE_COL_CLUSTER, c, -1));
	snprintf(name, sizeof(name), "cpu.scaling_step_power.policy%d", policy_number(cl));
	xml_powers(out, name, r, c, false);
}

/* A comment naming the CPUs counted but offline, so not measured. */
static void xml_offline(FILE *out, const struct profile_result *r)
{
	int c, n = 0;

	for (c = 0; c < r->topo->nclusters; c++)
		n += cluster_cores(&r->topo->cluster[c]) - r->topo->cluster[c].ncpus;
	if (!n)
		return;
	fprintf(out, "  <!-- cpu.clusters.cores counts every CPU of related_cpus; %d of them were offline, not measured:", n);
	for (c = 0; c < r->topo->nclusters; c++)
		if (cluster_cores(&r->topo->cluster[c]) > r->topo->cluster[c].ncpus)
			fprintf(out, " cluster %d (%s) %d of %d", c, r->topo->cluster[c].policy,
				r->topo->cluster[c].ncpus, cluster_cores(&r->topo->cluster[c]));
	fprintf(out, " online -->\n");
}

/* The idle items: cpu.idle is awake-idle from Android 9 on, suspend before. */
static void xml_idle(FILE *out, const struct profile_result *r)
{
	double idle = coef_or_0(r, PROFILE_COL_IDLE, -1, -1);

	if (r->format == PROFILE_XML_5 || r->format == PROFILE_XML_6) {
		fprintf(out, "  <!-- cpu.idle (suspend before Android 9) is not measured: keep the device's -->\n"
			"  <item name=\"cpu.awake\">%.1f</item>\n", idle);
		return;
	}
	fprintf(out, "  <item name=\"cpu.idle\">%.1f</item>\n", idle);
}

void profile_write_xml(FILE *out, const struct profile_result *r)
{
	int c;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		"<!-- Measured by powerpin profile from the fuel gauge of ");
	xml_comment_name(out, r->supply);
	fprintf(out, ": currents in mA.%s", r->topo->cpufreq ? "" :
		" No cpufreq: one unknown speed (0) per cluster.");
	if (r->format != PROFILE_XML_AUTO)
		fprintf(out, " Keys of %s.", profile_format_describe(r->format));
	fprintf(out, " -->\n<device name=\"Android\">\n");
	if (r->capacity_mah > 0)
		fprintf(out, "  <item name=\"battery.capacity\">%.0f</item>\n", r->capacity_mah);
	xml_idle(out, r);
	if (r->format == PROFILE_XML_5) {
		xml_speeds(out, "cpu.speeds", &r->topo->cluster[0]);
		if (r->topo->nclusters > 1)
			xml_active_merged(out, r);
		else
			xml_powers(out, "cpu.active", r, 0, true);
		fprintf(out, "</device>\n");
		return;
	}
	/* as Android counts cores: every CPU of related_cpus, online or not */
	fprintf(out, "  <array name=\"cpu.clusters.cores\">\n");
	for (c = 0; c < r->topo->nclusters; c++)
		fprintf(out, "    <value>%d</value>\n", cluster_cores(&r->topo->cluster[c]));
	fprintf(out, "  </array>\n");
	xml_offline(out, r);
	for (c = 0; c < r->topo->nclusters; c++)
		xml_cluster(out, r, c);
	fprintf(out, "</device>\n");
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.4f", v);
	else
		fputs("null", out);
}

static void json_clusters(FILE *out, const struct profile_result *r)
{
	int c, i;

	fputs("  \"clusters\": [", out);
	for (c = 0; c < r->topo->nclusters; c++) {
		const struct profile_cluster *cl = &r->topo->cluster[c];

		fprintf(out, "%s\n    {\"cluster\": %d, \"policy\": ", c ? "," : "", c);
		if (cl->policy[0])
			json_string(out, cl->policy, SIZE_MAX);
		else
			fputs("null", out);
		fputs(", \"cpus\": [", out);
		for (i = 0; i < cl->ncpus; i++)
			fprintf(out, "%s%d", i ? ", " : "", cl->cpus[i]);
		fputs("], \"speeds_khz\": [", out);
		for (i = 0; i < cl->nfreqs; i++)
			fprintf(out, "%s%u", i ? ", " : "", cl->freqs_khz[i]);
		fprintf(out, "], \"cores\": %d, \"android_speeds_khz\": [", cluster_cores(cl));
		for (i = 0; i < profile_android_speeds(cl); i++)
			fprintf(out, "%s%u", i ? ", " : "", cl->freqs_khz[profile_android_freq(cl, i)]);
		fputs("]}", out);
	}
	fputs("\n  ],\n", out);
}

/* Why a step was measured again, and what its first measurement said; null if it was not. */
static void json_recheck(FILE *out, const struct profile_recheck *c)
{
	if (!c || !c->why) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"why\": \"%s%s%s%s%s\", \"first_current_ma\": ",
		c->why & PROFILE_RECHECK_RESIDUAL ? "residual" : "",
		(c->why & PROFILE_RECHECK_RESIDUAL) && (c->why & ~PROFILE_RECHECK_RESIDUAL) ?
		" and " : "",
		c->why & PROFILE_RECHECK_SPREAD ? "spread" : "",
		(c->why & PROFILE_RECHECK_SPREAD) && (c->why & PROFILE_RECHECK_SUSPEND) ? " and " : "",
		c->why & PROFILE_RECHECK_SUSPEND ? "suspend" : "");
	json_num(out, c->first_current_ma);
	fputs(", \"first_residual_ma\": ", out);
	json_num(out, c->first_residual_ma);
	fputs(", \"first_spread_ma\": ", out);
	json_num(out, c->first_spread_ma);
	fputs("}", out);
}

static void json_step(FILE *out, const struct profile_result *r, int i)
{
	const struct profile_step *s = &r->plan->steps[i];
	const struct profile_measure *m = &r->measures[i];
	int j;

	fprintf(out, "    {\"step\": %d, \"cluster\": ", i + 1);
	if (s->cluster < 0)
		fputs("null, \"freq_khz\": null", out);
	else
		fprintf(out, "%d, \"freq_khz\": %u", s->cluster,
			r->topo->cluster[s->cluster].freqs_khz[s->freq]);
	fputs(", \"busy_cpus\": [", out);
	for (j = 0; j < s->nbusy; j++)
		fprintf(out, "%s%d", j ? ", " : "", profile_step_cpu(r->topo, s, j));
	fputs("], \"current_ma\": ", out);
	json_num(out, m->current_ua * r->sign / 1000);
	fputs(", \"model_ma\": ", out);
	json_num(out, model_ma(r, i));
	fputs(", \"busy_cpu_equivalents\": ", out);
	json_num(out, step_busy(r, i));
	fputs(", \"spread_ma\": ", out);
	json_num(out, m->spread_ua / 1000);
	fputs(", \"suspended_s\": ", out);
	json_num(out, m->suspended_s);
	fprintf(out, ", \"samples\": %u, \"fresh_samples\": %u, \"remeasured\": ", m->samples,
		m->fresh);
	json_recheck(out, r->rechecks ? &r->rechecks[i] : NULL);
	fputs("}", out);
}

static void json_fit(FILE *out, const struct profile_result *r)
{
	char name[64];
	int j;

	fprintf(out, "  \"fit\": {\"method\": \"ordinary least squares (Householder QR)\", "
		"\"interval\": \"95%% Student's t\", \"steps\": %d, \"terms\": %d, \"dof\": %d, "
		"\"residual_rms_ma\": ", r->fit->n, r->fit->p, r->fit->dof);
	json_num(out, r->fit->residual_rms / 1000);
	fputs(", \"max_residual_ma\": ", out);
	json_num(out, r->fit->max_residual / 1000);
	fprintf(out, ", \"max_residual_bound_ma\": %.1f, \"max_spread_bound_ma\": %.1f, "
		"\"remeasured_steps\": %d, \"first_residual_rms_ma\": ", PROFILE_MAX_RESIDUAL_MA,
		PROFILE_MAX_SPREAD_MA, remeasured_steps(r));
	json_num(out, remeasured_steps(r) ? r->first_residual_rms_ma : NAN);
	fputs(",\n    \"coefficients\": [", out);
	for (j = 0; j < r->ncols; j++) {
		profile_column_name(&r->cols[j], name, sizeof(name));
		fprintf(out, "%s\n      {\"name\": \"%s\", \"value_ma\": ", j ? "," : "", name);
		json_num(out, profile_coef_ma(r, j));
		fputs(", \"ci95_ma\": ", out);
		json_num(out, profile_ci_ma(r, j));
		if (profile_coef_ma(r, j) < 0)
			fputs(", \"written_ma\": 0, \"note\": \"negative: written as 0 in the XML\"", out);
		fputs("}", out);
	}
	fputs("\n    ]}\n", out);
}

void profile_write_json(FILE *out, const struct profile_result *r)
{
	int i;

	fputs("{\n  \"supply\": ", out);
	json_string(out, r->supply ? r->supply : "", SIZE_MAX);
	fprintf(out, ",\n  \"driver_sign\": \"%s\",\n  \"battery_capacity_mah\": ",
		r->sign < 0 ? "discharge negative" : "discharge positive");
	json_num(out, r->capacity_mah > 0 ? r->capacity_mah : NAN);
	fprintf(out, ",\n  \"step_duration_s\": %.3f,\n  \"settle_s\": %.3f,\n"
		"  \"cpus\": %d,\n  \"cpufreq\": %s,\n", r->plan->duration_s,
		r->plan->settle_s, r->topo->ncpus, r->topo->cpufreq ? "true" : "false");
	json_clusters(out, r);
	fputs("  \"steps\": [\n", out);
	for (i = 0; i < r->plan->nsteps; i++) {
		json_step(out, r, i);
		fputs(i + 1 < r->plan->nsteps ? ",\n" : "\n", out);
	}
	fputs("  ],\n", out);
	json_fit(out, r);
	fputs("}\n", out);
}
