// SPDX-License-Identifier: GPL-2.0
/*
 * The calibration plan of powerpin profile and the model it fits: which
 * CPUs spin at which frequency in each step, and the design matrix row a
 * measured step gives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static int plan_add(struct profile_plan *plan, int *cap, struct profile_step s)
{
	if (plan->nsteps == *cap) {
		int n = *cap ? *cap * 2 : 16;
		void *p = realloc(plan->steps, n * sizeof(*plan->steps));

		if (!p)
			return -1;
		plan->steps = p;
		*cap = n;
	}
	plan->steps[plan->nsteps++] = s;
	return 0;
}

int profile_plan_build(const struct profile_topology *t, int rounds, double duration_s,
		       double settle_s, struct profile_plan *plan)
{
	struct profile_step idle = { .cluster = -1, .freq = -1 };
	int r, c, f, k, cap = 0;

	memset(plan, 0, sizeof(*plan));
	plan->duration_s = duration_s;
	plan->settle_s = settle_s;
	for (r = 0; r < rounds; r++) {
		if (plan_add(plan, &cap, idle))
			goto nomem;
		for (c = 0; c < t->nclusters; c++) {
			const struct profile_cluster *cl = &t->cluster[c];

			for (f = 0; f < cl->nfreqs; f++)
				for (k = 1; k <= cl->ncpus; k++) {
					struct profile_step s = {
						.cluster = c, .freq = f, .nbusy = k,
						.first = r % cl->ncpus,
					};

					if (plan_add(plan, &cap, s))
						goto nomem;
				}
		}
	}
	return 0;
nomem:
	profile_plan_free(plan);
	errno = ENOMEM;
	return -1;
}

void profile_plan_free(struct profile_plan *plan)
{
	free(plan->steps);
	plan->steps = NULL;
	plan->nsteps = 0;
}

int profile_step_cpu(const struct profile_topology *t, const struct profile_step *s, int j)
{
	const struct profile_cluster *c = &t->cluster[s->cluster];

	return c->cpus[(s->first + j) % c->ncpus];
}

int profile_step_freq(const struct profile_step *s, int c)
{
	return s->cluster == c ? s->freq : 0;
}

void profile_step_describe(const struct profile_topology *t, const struct profile_step *s,
			   char *buf, size_t len)
{
	const struct profile_cluster *c;
	size_t n;
	int j;

	if (s->cluster < 0) {
		snprintf(buf, len, "idle");
		return;
	}
	c = &t->cluster[s->cluster];
	n = snprintf(buf, len, "%d CPU%s (", s->nbusy, s->nbusy == 1 ? "" : "s");
	for (j = 0; j < s->nbusy && n < len; j++)
		n += snprintf(buf + n, len - n, "%s%d", j ? "," : "",
			      profile_step_cpu(t, s, j));
	if (n < len)
		n += snprintf(buf + n, len - n, ") busy, cluster %d", s->cluster);
	if (n < len && t->cpufreq && c->freqs_khz[s->freq])
		snprintf(buf + n, len - n, " at %u kHz", c->freqs_khz[s->freq]);
}

void profile_plan_print(FILE *out, const struct profile_topology *t,
			const struct profile_plan *plan)
{
	char desc[512];
	int i, c;

	fprintf(out, "CPUs: %d online in %d cluster%s%s\n", t->ncpus, t->nclusters,
		t->nclusters == 1 ? "" : "s",
		t->cpufreq ? "" : " (no cpufreq: one speed, not pinned)");
	for (c = 0; c < t->nclusters; c++) {
		const struct profile_cluster *cl = &t->cluster[c];

		fprintf(out, "cluster %d: %d CPU%s", c, cl->ncpus, cl->ncpus == 1 ? "" : "s");
		if (t->cpufreq)
			fprintf(out, ", %s, %d frequenc%s, pinned by %s", cl->policy,
				cl->nfreqs, cl->nfreqs == 1 ? "y" : "ies",
				!cl->freqs_khz[0] ? "nothing (no frequency list)" :
				cl->userspace ? "the userspace governor" :
				"scaling_min_freq = scaling_max_freq");
		fputc('\n', out);
	}
	for (i = 0; i < plan->nsteps; i++) {
		profile_step_describe(t, &plan->steps[i], desc, sizeof(desc));
		fprintf(out, "step %d/%d: %s, %.1f s\n", i + 1, plan->nsteps, desc,
			plan->duration_s);
	}
	fprintf(out, "total: %d steps of %.1f s (the first %.1f s of each discarded): %.0f s\n",
		plan->nsteps, plan->duration_s, plan->settle_s,
		plan->nsteps * plan->duration_s);
}

int profile_columns(const struct profile_topology *t, struct profile_column *cols)
{
	int n = 0, c, f;

	cols[n++] = (struct profile_column){ PROFILE_COL_IDLE, -1, -1 };
	for (c = 0; c < t->nclusters; c++) {
		/* one CPU: the cluster and its core cannot be told apart */
		if (t->cluster[c].ncpus > 1)
			cols[n++] = (struct profile_column){ PROFILE_COL_CLUSTER, c, -1 };
		for (f = 0; f < t->cluster[c].nfreqs; f++)
			cols[n++] = (struct profile_column){ PROFILE_COL_CORE, c, f };
	}
	return n;
}

void profile_design_row(const struct profile_column *cols, int ncols,
			const struct profile_step *s, const struct profile_measure *m,
			double *row)
{
	int j;

	for (j = 0; j < ncols; j++) {
		const struct profile_column *col = &cols[j];

		switch (col->kind) {
		case PROFILE_COL_IDLE:
			row[j] = 1;
			break;
		case PROFILE_COL_CLUSTER:
			row[j] = s->cluster == col->cluster && s->nbusy > 0;
			break;
		case PROFILE_COL_CORE:
			row[j] = profile_step_freq(s, col->cluster) == col->freq ?
				 m->busy[col->cluster] : 0;
			break;
		}
	}
}

void profile_column_name(const struct profile_column *col, char *buf, size_t len)
{
	switch (col->kind) {
	case PROFILE_COL_IDLE:
		snprintf(buf, len, "cpu.idle");
		break;
	case PROFILE_COL_CLUSTER:
		snprintf(buf, len, "cpu.cluster_power.cluster%d", col->cluster);
		break;
	case PROFILE_COL_CORE:
		snprintf(buf, len, "cpu.core_power.cluster%d[%d]", col->cluster, col->freq);
		break;
	}
}
