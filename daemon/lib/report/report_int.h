/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the report (report.c, report_attr.c, report_slices.c,
 * report_base.c): the pieces one part calls in another.  Calls run one way:
 * report.c drives the attribution and slice passes, the slice pass asks the
 * attribution for a thread, and all of them use report_base.c, which calls
 * none of them.  Not for writers: they read struct report.
 */
#ifndef POWERPIN_REPORT_INT_H
#define POWERPIN_REPORT_INT_H

#include "report.h"

#define NS_PER_S		1e9

/* report_base.c: below every part of the pass */

/*
 * Grow @arr to hold @need entries of @size (doubling, new entries zeroed).
 * NULL with errno ENOMEM when that cannot be done; @arr is then untouched.
 */
void *report_grow(void *arr, uint32_t *cap, uint32_t need, size_t size);

/* The first allocation failure: noted, and the report fails with it. */
void report_oom(struct report *r);

/* Integral over [a, b] of power linear between (t0, p0) and (t1, p1), J. */
double report_lin_energy(uint64_t t0, double p0, uint64_t t1, double p1, uint64_t a, uint64_t b);

/* report_attr.c: threads, CPUs and the split of each interval's energy */
struct report_task *report_task_get(struct report *r, int pid);
void report_on_switch(struct report *r, const struct trace_event *ev);
/* The first sample: CPU time before it is charged to no one. */
void report_attr_first_sample(struct report *r);
/* The interval [t0, t1] closed with @energy (raw sign, J); r->energy has it already. */
void report_attr_interval(struct report *r, uint64_t t0, uint64_t t1, double energy);
/* Settle every CPU's running task after the last sample; then processes. */
int report_attr_finish(struct report *r);
void report_attr_free(struct report *r);

/* report_slices.c: atrace slices and powerpin marker spans */
void report_slice_begin(struct report *r, int pid, const char *name, size_t len, bool marker,
			uint64_t ts);
void report_slice_end(struct report *r, int pid, bool marker, uint64_t ts);
/* The first sample at @ts: open slices are covered from there on. */
void report_slices_first_sample(struct report *r);
/* The interval [t0, t1] closed (p0, p1 in uW): slices get their share. */
void report_slices_interval(struct report *r, uint64_t t0, double p0, uint64_t t1, double p1);
/* Before the plot's buckets merge, and at the end: shading made exact. */
void report_plot_slices_settle(struct report *r);
/* Close what is still open at the end of the capture. */
void report_slices_finish(struct report *r);
void report_slices_free(struct report *r);

#endif
