// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile's capture, read back: the gauge's samples of each step's
 * measured window, between the markers the runner wrote.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/powerpin.h>

#include "profile.h"
#include "trace/trace.h"

#define UNUSABLE (POWERPIN_SAMPLE_MISSING | POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)

struct reader {
	struct profile_measure *m;
	double *sum_ua;
	double *sum2_ua;		/* squares, for the spread */
	int nsteps;
	int step;		/* the open window's step (0-based), -1 none */
};

/* The step number after @prefix in a marker, or -1. */
static int mark_step(const struct trace_event *ev, const char *prefix)
{
	size_t n = strlen(prefix);
	char num[16];
	char *end;
	long v;

	if (ev->mark.len <= n || ev->mark.len - n >= sizeof(num) ||
	    memcmp(ev->mark.text, prefix, n))
		return -1;
	memcpy(num, ev->mark.text + n, ev->mark.len - n);
	num[ev->mark.len - n] = '\0';
	v = strtol(num, &end, 10);
	return *end || end == num || v < 1 ? -1 : (int)v;
}

static int on_event(const struct trace_event *ev, void *arg)
{
	struct reader *r = arg;
	int n;

	if (ev->kind == TRACE_EV_MARK) {
		n = mark_step(ev, PROFILE_MARK_BEGIN);
		if (n > 0 && n <= r->nsteps)
			r->step = n - 1;
		else if (mark_step(ev, PROFILE_MARK_END) > 0)
			r->step = -1;
		return 0;
	}
	if (ev->kind != TRACE_EV_POWER || r->step < 0 || (ev->power.flags & UNUSABLE))
		return 0;
	r->m[r->step].samples++;
	if (!(ev->power.flags & POWERPIN_SAMPLE_REPEATED))
		r->m[r->step].fresh++;
	r->sum_ua[r->step] += ev->power.current_ua;
	r->sum2_ua[r->step] += (double)ev->power.current_ua * ev->power.current_ua;
	return 0;
}

int profile_read_capture(const char *path, int nsteps, struct profile_measure *m,
			 char *err, size_t errlen)
{
	struct trace_input_ops ops = { .event = on_event };
	struct reader r = { .m = m, .nsteps = nsteps, .step = -1 };
	int i, ret = -1;

	r.sum_ua = calloc(nsteps, sizeof(double));
	r.sum2_ua = calloc(nsteps, sizeof(double));
	if (!r.sum_ua || !r.sum2_ua) {
		free(r.sum_ua);
		free(r.sum2_ua);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < nsteps; i++)
		m[i].samples = m[i].fresh = 0;
	if (trace_input_read(path, &ops, &r, err, errlen))
		goto out;
	for (i = 0; i < nsteps; i++) {
		if (!m[i].samples) {
			snprintf(err, errlen, "step %d has no power samples in %s", i + 1, path);
			goto out;
		}
		m[i].current_ua = r.sum_ua[i] / m[i].samples;
		m[i].spread_ua = sqrt(fmax(0, r.sum2_ua[i] / m[i].samples -
					   m[i].current_ua * m[i].current_ua));
	}
	ret = 0;
out:
	free(r.sum_ua);
	free(r.sum2_ua);
	return ret;
}
