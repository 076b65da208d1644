// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile: which steps of a calibration are out of bounds and
 * get measured again (docs/profile.md).  A step in which something else
 * took the CPUs (a hypervisor, a burst of background work) shows as a
 * residual far above the others, or as samples that wander.
 */
#include <math.h>

#include "profile.h"

double profile_step_residual_ma(const struct profile_result *r, int i)
{
	double row[PROFILE_MAX_COLUMNS], model = 0;
	int j;

	profile_design_row(r->cols, r->ncols, &r->plan->steps[i], &r->measures[i], row);
	for (j = 0; j < r->ncols; j++)
		model += row[j] * r->fit->coef[j];
	return (r->measures[i].current_ua - model) * r->sign / 1000;
}

/* The steps whose residual is over the bound, or the worst one; how many. */
static int residual_steps(const struct profile_result *r, unsigned int *why)
{
	int i, worst = 0, n = 0;
	double res, worst_res = -1;

	if (!(r->fit->residual_rms / 1000 > PROFILE_MAX_RESIDUAL_MA))
		return 0;
	for (i = 0; i < r->plan->nsteps; i++) {
		res = fabs(profile_step_residual_ma(r, i));
		if (res > worst_res) {
			worst_res = res;
			worst = i;
		}
		if (res > PROFILE_MAX_RESIDUAL_MA) {
			why[i] |= PROFILE_RECHECK_RESIDUAL;
			n++;
		}
	}
	if (!n) {
		why[worst] |= PROFILE_RECHECK_RESIDUAL;
		n++;
	}
	return n;
}

int profile_steps_to_remeasure(const struct profile_result *r, unsigned int *why)
{
	int i, n;

	for (i = 0; i < r->plan->nsteps; i++)
		why[i] = 0;
	residual_steps(r, why);
	for (i = 0; i < r->plan->nsteps; i++)
		if (r->measures[i].spread_ua / 1000 > PROFILE_MAX_SPREAD_MA)
			why[i] |= PROFILE_RECHECK_SPREAD;
	/* a suspend in the step: the gauge saw a sleeping device */
	for (i = 0; i < r->plan->nsteps; i++)
		if (r->measures[i].suspended_s > PROFILE_MAX_SUSPEND_S)
			why[i] |= PROFILE_RECHECK_SUSPEND;
	for (i = n = 0; i < r->plan->nsteps; i++)
		n += why[i] != 0;
	return n;
}
