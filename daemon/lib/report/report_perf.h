/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Energy per function from perf samples taken during a capture
 * (`powerpin report CAPTURE --perf PERFDATA`).  A sample of a clock event
 * (cpu-clock, task-clock) stands for its period of CPU time on one CPU; it
 * gets the share of the energy of the power interval it falls in that
 * the report gives CPU time everywhere: energy x period / (CPUs x
 * interval).  The innermost frame's function gets it as its own ("self"),
 * every function on the stack as "total".  Frames perf could not name
 * are looked up in the process's perf-<pid>.map (JIT code).
 */
#ifndef POWERPIN_REPORT_PERF_H
#define POWERPIN_REPORT_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "java/java.h"
#include "trace/trace.h"

struct report;

#define REPORT_PERF_TEXT_TOP	20

struct report_function {
	char *name;
	char *dso;		/* as perf names it; "JIT" for a perf map */
	double self_j, total_j;
	uint64_t self_samples, samples;
	uint64_t last_sample;	/* counting "total" once per sample */
};

struct report_perf_map {
	int pid;
	struct perf_map map;
	bool loaded;
};

struct report_perf {
	const struct report *r;
	const char *map_path;	/* a perf-<pid>.map, or a directory of them */
	/* the capture's power samples: time and raw V x I */
	uint64_t *pt_ns;
	double *pt_uw;
	size_t nr_pts, cap_pts;
	int ncpus;
	char event[64];
	uint64_t samples;	/* read */
	uint64_t used;		/* inside the capture, given energy */
	uint64_t outside;	/* before the first power sample or after the last */
	uint64_t jit_named;	/* frames named through a perf map here */
	double energy_j;	/* given to samples */
	double cpu_s;		/* CPU time the used samples stand for */
	struct report_function *fns;
	uint32_t nr_fns, cap_fns;
	uint32_t *fn_hash, fn_hcap;
	uint32_t *order;	/* functions by self energy */
	struct report_perf_map *maps;
	uint32_t nr_maps;
	struct flame flame;	/* joules; other: samples */
	char *buf;		/* scratch for names and stacks */
	size_t buf_cap;
	char err[256];
};

int report_perf_init(struct report_perf *rp, const struct report *r, const char *map_path);
void report_perf_free(struct report_perf *rp);

/* Read the capture's power samples again (a finished report gives the sign). */
int report_perf_power(struct report_perf *rp, const char *trace_path, char *err, size_t errlen);

/* perf_script callback: one sample. */
int report_perf_sample(const struct perf_sample *s, void *rp);

/* After the last sample: order the functions; -1 with a message in @err. */
int report_perf_finish(struct report_perf *rp, char *err, size_t errlen);

/* The report's writers call these when the report has a perf part. */
void report_perf_write_text(const struct report_perf *rp, FILE *out);
void report_perf_write_json(const struct report_perf *rp, FILE *out);
void report_perf_write_html(const struct report_perf *rp, FILE *out);

#endif
