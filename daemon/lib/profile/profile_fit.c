// SPDX-License-Identifier: GPL-2.0
/*
 * Ordinary least squares for powerpin profile: Householder QR of the small
 * design matrix (steps x model terms), the coefficients from R b = Q'y, their
 * standard errors from the diagonal of (R'R)^-1 = R^-1 R^-T times the
 * residual variance, and 95 % intervals from Student's t.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* 97.5th percentiles of Student's t, 1 to 30 degrees of freedom. */
static const double t975[30] = {
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
	2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
	2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
	2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double profile_t95(int dof)
{
	const double z = 1.959963985;
	double d = dof, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;

	if (dof <= 0)
		return NAN;
	if (dof <= 30)
		return t975[dof - 1];
	/* Cornish-Fisher expansion around the normal quantile (< 1e-4 off at 31) */
	return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

/*
 * Householder QR in place: @a (n x p, row-major) becomes R above the
 * diagonal (diagonal in @rdiag) and the reflectors below it, which are
 * applied to @y as they are made.  Returns the first column whose
 * diagonal is negligible, or -1.
 */
static int householder(double *a, double *y, int n, int p, double *rdiag)
{
	double scale = 0;
	int i, j, k;

	for (i = 0; i < n * p; i++)
		scale = fmax(scale, fabs(a[i]));
	for (k = 0; k < p; k++) {
		double norm = 0, s;

		for (i = k; i < n; i++)
			norm = hypot(norm, a[i * p + k]);
		if (norm <= 1e-10 * scale * sqrt(n))
			return k;
		if (a[k * p + k] > 0)
			norm = -norm;
		for (i = k; i < n; i++)
			a[i * p + k] /= -norm;
		a[k * p + k] += 1;
		for (j = k + 1; j < p; j++) {
			for (s = 0, i = k; i < n; i++)
				s += a[i * p + k] * a[i * p + j];
			s = -s / a[k * p + k];
			for (i = k; i < n; i++)
				a[i * p + j] += s * a[i * p + k];
		}
		for (s = 0, i = k; i < n; i++)
			s += a[i * p + k] * y[i];
		s = -s / a[k * p + k];
		for (i = k; i < n; i++)
			y[i] += s * a[i * p + k];
		rdiag[k] = norm;
	}
	return -1;
}

/* R's element (i, j), i <= j, of householder()'s result. */
static double r_at(const double *a, const double *rdiag, int p, int i, int j)
{
	return i == j ? rdiag[i] : a[i * p + j];
}

/* Solve R b = (Q'y)[0..p) by back substitution. */
static void back_substitute(const double *a, const double *rdiag, const double *qty,
			    int p, double *b)
{
	int i, j;

	for (i = p - 1; i >= 0; i--) {
		double s = qty[i];

		for (j = i + 1; j < p; j++)
			s -= r_at(a, rdiag, p, i, j) * b[j];
		b[i] = s / rdiag[i];
	}
}

/* diag((R'R)^-1): squared row norms of R^-1, built column by column. */
static int inverse_diag(const double *a, const double *rdiag, int p, double *d)
{
	double *rinv = calloc((size_t)p * p, sizeof(*rinv));
	int i, j, k;

	if (!rinv)
		return -1;
	for (j = 0; j < p; j++) {
		rinv[j * p + j] = 1 / rdiag[j];
		for (i = j - 1; i >= 0; i--) {
			double s = 0;

			for (k = i + 1; k <= j; k++)
				s += r_at(a, rdiag, p, i, k) * rinv[k * p + j];
			rinv[i * p + j] = -s / rdiag[i];
		}
	}
	for (i = 0; i < p; i++) {
		d[i] = 0;
		for (j = i; j < p; j++)
			d[i] += rinv[i * p + j] * rinv[i * p + j];
	}
	free(rinv);
	return 0;
}

/* Residuals of @coef against the original @x, @y. */
static void residuals(const double *x, const double *y, int n, int p, struct profile_fit *fit)
{
	int i, j;

	fit->rss = 0;
	fit->max_residual = 0;
	for (i = 0; i < n; i++) {
		double r = y[i];

		for (j = 0; j < p; j++)
			r -= x[i * p + j] * fit->coef[j];
		fit->rss += r * r;
		fit->max_residual = fmax(fit->max_residual, fabs(r));
	}
	fit->residual_rms = fit->dof > 0 ? sqrt(fit->rss / fit->dof) : NAN;
}

static int fit_alloc(struct profile_fit *fit, int n, int p)
{
	memset(fit, 0, sizeof(*fit));
	fit->n = n;
	fit->p = p;
	fit->dof = n - p;
	fit->coef = calloc(p, sizeof(double));
	fit->se = calloc(p, sizeof(double));
	fit->ci95 = calloc(p, sizeof(double));
	if (!fit->coef || !fit->se || !fit->ci95) {
		profile_fit_free(fit);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int profile_lsq(const double *x, const double *y, int n, int p, struct profile_fit *fit,
		int *bad_col)
{
	double *a = NULL, *qty = NULL, *rdiag = NULL, t;
	int j, bad, ret = -1;

	*bad_col = -1;
	if (n < p || p < 1) {
		errno = EDOM;
		return -1;
	}
	if (fit_alloc(fit, n, p))
		return -1;
	a = malloc((size_t)n * p * sizeof(*a));
	qty = malloc(n * sizeof(*qty));
	rdiag = malloc(p * sizeof(*rdiag));
	if (!a || !qty || !rdiag) {
		errno = ENOMEM;
		goto out;
	}
	memcpy(a, x, (size_t)n * p * sizeof(*a));
	memcpy(qty, y, n * sizeof(*qty));
	bad = householder(a, qty, n, p, rdiag);
	if (bad >= 0) {
		*bad_col = bad;
		errno = EDOM;
		goto out;
	}
	back_substitute(a, rdiag, qty, p, fit->coef);
	residuals(x, y, n, p, fit);
	if (inverse_diag(a, rdiag, p, fit->se))
		goto out;
	t = profile_t95(fit->dof);
	for (j = 0; j < p; j++) {
		fit->se[j] = fit->dof > 0 ? sqrt(fit->se[j] * fit->rss / fit->dof) : NAN;
		fit->ci95[j] = t * fit->se[j];
	}
	ret = 0;
out:
	if (ret)
		profile_fit_free(fit);
	free(a);
	free(qty);
	free(rdiag);
	return ret;
}

void profile_fit_free(struct profile_fit *fit)
{
	free(fit->coef);
	free(fit->se);
	free(fit->ci95);
	fit->coef = fit->se = fit->ci95 = NULL;
}
