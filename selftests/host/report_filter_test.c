// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report's filters and views, known answers from generated ftrace
 * text: --from/--to (seconds, slice and marker names), --cpu, --pid, --tid,
 * --comm through the library, and through the command the same selection
 * in every output (JSON, CSV tables, HTML, Chrome JSON, Perfetto), --top,
 * --sort, --units, --stat, and a --baseline longer than the capture.
 *
 * The capture: 4 V, 500 mA discharge (2 W) for 1 s at 100 Hz on 2 CPUs, so
 * each CPU busy throughout gets 1 J.  CPU 0 runs app (100, process 100)
 * all along; CPU 1 runs RenderThread (101, process 100) for the first half
 * and netd (200, process 200) for the second.  Slices: "frame" on app
 * from 0.2 to 0.4 s, "netRequest" on netd from 0.6 to 0.9 s; a powerpin
 * marker "phase2" at 0.5 s.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report/report.h"
#include "report_gen.h"

#define POWERPIN	"build/bin/powerpin"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define T0		(500 * SEC)

static void gen_capture(struct gen *g)
{
	int k;

	g->nr_cpus = 2;
	for (k = 0; k <= 100; k++)
		gen_battery(g, T0 + k * 10 * MS, k + 1, 4000000, 500000, 1000000, 0);
	gen_switch(g, T0 - MS, 0, "swapper/0", 0, 0, "app", 100);
	gen_switch(g, T0 - MS, 1, "swapper/1", 0, 0, "RenderThread", 101);
	gen_switch(g, T0 + 500 * MS, 1, "RenderThread", 101, 100, "netd", 200);
	gen_switch(g, T0 + SEC, 1, "netd", 200, 200, "swapper/1", 0);
	gen_switch(g, T0 + SEC, 0, "app", 100, 100, "swapper/0", 0);
	gen_mark(g, T0 + 200 * MS, 0, "app", 100, 100, "B|100|frame");
	gen_mark(g, T0 + 400 * MS, 0, "app", 100, 100, "E|100");
	gen_mark(g, T0 + 500 * MS, 0, "app", 100, 100, "powerpin:phase2");
	gen_mark(g, T0 + 600 * MS, 1, "netd", 200, 200, "B|200|netRequest");
	gen_mark(g, T0 + 900 * MS, 1, "netd", 200, 200, "E|200");
}

FIXTURE(filter) {
	char dir[64];
	char path[128];
	struct report r;
	struct report_filter f;
	char err[512];
	bool ran;
};

FIXTURE_SETUP(filter)
{
	struct gen g = { 0 };

	strcpy(self->dir, "/tmp/powerpin-filter-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/trace.txt", self->dir);
	gen_capture(&g);
	ASSERT_EQ(0, gen_write(&g, self->path));
	memset(&self->f, 0, sizeof(self->f));
	self->ran = false;
}

FIXTURE_TEARDOWN(filter)
{
	if (self->ran)
		report_free(&self->r);
	report_filter_free(&self->f);
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Resolve @s into the fixture's filter and run the report through it. */
static int run(struct __test_metadata *_metadata, FIXTURE_DATA(filter) *self,
	       const struct report_selection *s)
{
	struct report_options opt = { .filter = &self->f };

	if (report_filter_resolve(&self->f, self->path, s, self->err, sizeof(self->err))) {
		TH_LOG("resolve: %s", self->err);
		return -1;
	}
	if (report_init(&self->r, &opt))
		return -1;
	self->ran = true;
	if (report_run(&self->r, self->path, self->err, sizeof(self->err))) {
		TH_LOG("report: %s", self->err);
		return -1;
	}
	return 0;
}

static double task_j(const struct report *r, int pid)
{
	const struct report_task *t = report_find_task(r, pid);

	return t ? r->sign * t->energy : 0;
}

static const struct report_slice_stat *slice(const struct report *r, const char *name)
{
	uint32_t i;

	for (i = 0; i < r->nr_slice_stats; i++)
		if (!strcmp(r->slice_stats[i].name, name))
			return &r->slice_stats[i];
	return NULL;
}

TEST_F(filter, unfiltered_answers)
{
	const struct report_selection s = { 0 };

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(2.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(1.0, task_j(&self->r, 100), 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 101), 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 200), 1e-9);
	ASSERT_NE(NULL, slice(&self->r, "frame"));
	EXPECT_NEAR(0.4, self->r.sign * slice(&self->r, "frame")->energy, 1e-9);
	EXPECT_NEAR(0.6, self->r.sign * slice(&self->r, "netRequest")->energy, 1e-9);
}

/* Seconds from the first sample, both ends in: 0.5 to 0.8 s is 0.6 J */
TEST_F(filter, window_in_seconds)
{
	const struct report_selection s = { .from = "0.5", .to = "0.8" };
	const struct report_slice_stat *net;

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_EQ(31U, self->r.samples);
	EXPECT_NEAR(0.3, self->r.duration_s, 1e-9);
	EXPECT_NEAR(0.6, self->r.energy_j, 1e-9);
	EXPECT_NEAR(0.3, task_j(&self->r, 100), 1e-9);
	EXPECT_NEAR(0.3, task_j(&self->r, 200), 1e-9);
	EXPECT_NEAR(0.0, task_j(&self->r, 101), 1e-9);
	/* a slice outside is gone; one the window cuts ends with it */
	EXPECT_EQ(NULL, slice(&self->r, "frame"));
	net = slice(&self->r, "netRequest");
	ASSERT_NE(NULL, net);
	EXPECT_NEAR(0.4, self->r.sign * net->energy, 1e-9);
	EXPECT_EQ(1U, net->unterminated);
}

/* A slice's name: from its begin to its end, exactly its energy */
TEST_F(filter, window_by_slice_name)
{
	const struct report_selection s = { .from = "frame", .to = "frame" };
	const struct report_slice_stat *frame;

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(0.2, self->r.duration_s, 1e-9);
	EXPECT_NEAR(0.4, self->r.energy_j, 1e-9);
	frame = slice(&self->r, "frame");
	ASSERT_NE(NULL, frame);
	EXPECT_EQ(1U, frame->count);
	EXPECT_EQ(0U, frame->unterminated);
	EXPECT_NEAR(0.4, self->r.sign * frame->energy, 1e-9);
}

/* A marker's name: from the marker to the end of the capture */
TEST_F(filter, window_from_marker)
{
	const struct report_selection s = { .from = "phase2" };

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(0.5, self->r.duration_s, 1e-9);
	EXPECT_NEAR(1.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 200), 1e-9);
}

/*
 * 10 Hz (the module's default period) while the current climbs 1 A/s at
 * 4 V: p(t) = 4 * (0.5 + t) W, sampled at 0, 0.1, ... 1.0 s.  A 16 ms
 * slice from 0.420 s to 0.436 s lies between two samples.
 */
static void ramp_capture(const char *path)
{
	struct gen g = { .nr_cpus = 1 };
	int k;

	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 100 * MS, k + 1, 4000000, 500000 + 100000 * k,
			    1000000, 0);
	gen_switch(&g, T0 - MS, 0, "swapper/0", 0, 0, "app", 100);
	gen_mark(&g, T0 + 420 * MS, 0, "app", 100, 100, "B|100|frame");
	gen_mark(&g, T0 + 436 * MS, 0, "app", 100, 100, "E|100");
	if (gen_write(&g, path))
		abort();
}

/* The integral of 4 * (0.5 + t) W from @a to @b seconds. */
static double ramp_j(double a, double b)
{
	return 4 * (0.5 * (b - a) + (b * b - a * a) / 2);
}

/* A window between two samples is priced as the slice table prices the slice */
TEST_F(filter, window_inside_one_interval)
{
	const struct report_selection s = { .from = "frame", .to = "frame" };
	double slice_j;

	ramp_capture(self->path);
	{
		const struct report_selection all = { 0 };

		ASSERT_EQ(0, run(_metadata, self, &all));
		ASSERT_NE(NULL, slice(&self->r, "frame"));
		slice_j = self->r.sign * slice(&self->r, "frame")->energy;
		report_free(&self->r);
		self->ran = false;
		report_filter_free(&self->f);
	}
	EXPECT_NEAR(ramp_j(0.420, 0.436), slice_j, 1e-9);
	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(slice_j, self->r.energy_j, 1e-9);
	EXPECT_NEAR(0.016, self->r.duration_s, 1e-9);
	EXPECT_EQ(0U, self->r.samples);
	EXPECT_EQ(2U, self->r.window_edges);
	EXPECT_NEAR(slice_j, task_j(&self->r, 100), 1e-9);
}

/* Seconds between samples: the partial intervals at both edges count */
TEST_F(filter, window_edges_between_samples)
{
	const struct report_selection s = { .from = "0.25", .to = "0.75" };

	ramp_capture(self->path);
	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_EQ(5U, self->r.samples);		/* 0.3 ... 0.7 s */
	EXPECT_EQ(2U, self->r.window_edges);
	EXPECT_NEAR(0.5, self->r.duration_s, 1e-9);
	EXPECT_NEAR(ramp_j(0.25, 0.75), self->r.energy_j, 1e-9);
	EXPECT_NEAR(ramp_j(0.25, 0.75), task_j(&self->r, 100), 1e-9);
	/* the samples CSV holds the 5 samples read, not the edges */
	{
		char *csv = NULL;
		size_t len = 0, rows = 0, i;
		FILE *f = open_memstream(&csv, &len);

		ASSERT_NE(NULL, f);
		ASSERT_EQ(0, report_write_outputs(&self->r, self->path,
						  &(struct report_outputs){ .csv = f, .title = "t" },
						  self->err, sizeof(self->err)));
		fclose(f);
		for (i = 0; i < len; i++)
			rows += csv[i] == '\n';
		EXPECT_EQ(1U + 5U, rows) TH_LOG("%s", csv);
		free(csv);
	}
}

/* Windows with nothing to price are named as what they are */
TEST_F(filter, window_empty_inverted_out_of_range)
{
	static const struct {
		const char *from, *to, *says;
	} cases[] = {
		{ "5", NULL, "the window starts at 5.000 s, past the capture's last power sample (1.000 s)" },
		{ "1.05", "2", "the window starts at 1.050 s, past the capture's last power sample (1.000 s)" },
		{ "0.3", "0.1", "the window is inverted: --from is at 0.300 s, after --to at 0.100 s" },
	};
	size_t k;

	ramp_capture(self->path);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct report_selection s = { .from = cases[k].from, .to = cases[k].to };
		struct report_options opt = { .filter = &self->f };
		struct report r;

		report_filter_free(&self->f);
		ASSERT_EQ(0, report_filter_resolve(&self->f, self->path, &s, self->err,
						   sizeof(self->err)));
		ASSERT_EQ(0, report_init(&r, &opt));
		EXPECT_EQ(-1, report_run(&r, self->path, self->err, sizeof(self->err)));
		EXPECT_NE(NULL, strstr(self->err, cases[k].says)) TH_LOG("%s", self->err);
		report_free(&r);
	}
}

TEST_F(filter, unknown_name)
{
	const struct report_selection s = { .to = "nosuchslice" };

	ASSERT_EQ(-1, report_filter_resolve(&self->f, self->path, &s, self->err,
					     sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "--to nosuchslice: no slice or marker of that name"));
}

/* CPU 1 only: its 1 J split as before, CPU 0's 1 J is nobody's */
TEST_F(filter, cpu)
{
	const struct report_selection s = { 0 };
	char err[256];

	ASSERT_EQ(0, report_filter_parse_cpus(&self->f, "1", err, sizeof(err)));
	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(2.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(0.0, task_j(&self->r, 100), 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 101), 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 200), 1e-9);
	EXPECT_NEAR(1.0, self->r.sign * self->r.other_energy, 1e-9);
}

TEST(cpu_lists)
{
	struct report_filter f = { 0 };
	char err[256];

	ASSERT_EQ(0, report_filter_parse_cpus(&f, "0,2-3,4095", err, sizeof(err)));
	EXPECT_EQ(0xdULL, f.cpus[0]);
	EXPECT_EQ(1ULL << 63, f.cpus[63]);
	EXPECT_EQ(-1, report_filter_parse_cpus(&f, "3-2", err, sizeof(err)));
	EXPECT_EQ(-1, report_filter_parse_cpus(&f, "4096", err, sizeof(err)));
	EXPECT_EQ(-1, report_filter_parse_cpus(&f, "1,", err, sizeof(err)));
	EXPECT_EQ(-1, report_filter_parse_cpus(&f, "a", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--cpu wants CPU numbers"));
	report_filter_free(&f);
}

/* A process: its threads get what they got unfiltered, the rest is other */
TEST_F(filter, pid)
{
	const int pids[] = { 100 };
	const struct report_selection s = { .pids = pids, .nr_pids = 1 };

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(2.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(1.0, task_j(&self->r, 100), 1e-9);
	EXPECT_NEAR(0.5, task_j(&self->r, 101), 1e-9);
	EXPECT_EQ(NULL, report_find_task(&self->r, 200));
	EXPECT_NEAR(0.5, self->r.sign * self->r.other_energy, 1e-9);
	ASSERT_EQ(1U, self->r.nr_processes);
	EXPECT_EQ(100, self->r.processes[0].tgid);
	EXPECT_EQ(2, self->r.processes[0].threads);
	EXPECT_NE(NULL, slice(&self->r, "frame"));
	EXPECT_EQ(NULL, slice(&self->r, "netRequest"));
	/* the marker is everyone's */
	EXPECT_NE(NULL, slice(&self->r, "phase2"));
}

/* --tid and --comm, alone and together (every kind given must match) */
TEST_F(filter, tid_and_comm)
{
	const int tids[] = { 101, 200 };
	const char *const comms[] = { "RenderThread", "app" };
	const struct report_selection s = { .tids = tids, .nr_tids = 2, .comms = comms,
					    .nr_comms = 2 };

	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(0.5, task_j(&self->r, 101), 1e-9);
	EXPECT_EQ(NULL, report_find_task(&self->r, 100));
	EXPECT_EQ(NULL, report_find_task(&self->r, 200));
	EXPECT_NEAR(1.5, self->r.sign * self->r.other_energy, 1e-9);
}

TEST_F(filter, no_thread_matches)
{
	const char *const comms[] = { "nosuch" };
	const struct report_selection s = { .comms = comms, .nr_comms = 1 };

	ASSERT_EQ(-1, report_filter_resolve(&self->f, self->path, &s, self->err,
					     sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "no thread in the input matches"));
}

/* --cpu naming no CPU of the capture (2 CPUs) is an error, not all <other> */
TEST_F(filter, cpu_not_in_capture)
{
	const struct report_selection s = { 0 };
	struct report_event_counts c;
	char err[256];

	ASSERT_EQ(0, report_filter_parse_cpus(&self->f, "5,7-9", err, sizeof(err)));
	ASSERT_EQ(-1, run(_metadata, self, &s));
	EXPECT_NE(NULL, strstr(self->err, "--cpu selects none of the capture's CPUs (it has 2: 0 to 1)"))
		TH_LOG("%s", self->err);
	/* --stat too */
	EXPECT_EQ(-1, report_count_events(self->path, &self->f, &c, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "it has 2: 0 to 1")) TH_LOG("%s", self->err);
	/* one CPU of the capture among them is a selection */
	report_filter_free(&self->f);
	report_free(&self->r);
	self->ran = false;
	ASSERT_EQ(0, report_filter_parse_cpus(&self->f, "1,5", err, sizeof(err)));
	ASSERT_EQ(0, run(_metadata, self, &s));
	EXPECT_NEAR(0.5, task_j(&self->r, 200), 1e-9);
}

/* ---- the command: every output made from the same events ----------------- */

static bool file_has(const char *path, const char *what)
{
	size_t len;
	char *buf = read_whole(path, &len);
	bool has = buf && memmem(buf, len, what, strlen(what));

	free(buf);
	return has;
}

TEST_F(filter, pid_in_every_output)
{
	static const char *const outs[] = {
		"r.json", "s.csv", "s-threads.csv", "s-slices.csv", "s-processes.csv", "r.html",
		"r.pftrace", "r.chrome.json",
	};
	char cmd[1024], out[4096], p[256];
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && %s/" POWERPIN " report trace.txt --pid 100 --json r.json --csv s.csv --html r.html --perfetto r.pftrace --chrome-json r.chrome.json 2>&1",
		 self->dir, getcwd(p, sizeof(p)));
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	for (i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", self->dir, outs[i]);
		/* the other process's slice and thread are in none of them */
		EXPECT_FALSE(file_has(p, "netRequest")) TH_LOG("%s", outs[i]);
		EXPECT_FALSE(file_has(p, "netd")) TH_LOG("%s", outs[i]);
		if (strcmp(outs[i], "s.csv") && strcmp(outs[i], "s-processes.csv") &&
		    strcmp(outs[i], "s-threads.csv"))
			EXPECT_TRUE(file_has(p, "frame")) TH_LOG("%s", outs[i]);
	}
	snprintf(p, sizeof(p), "%s/s-threads.csv", self->dir);
	EXPECT_TRUE(file_has(p, "pid,tgid,comm,cpu_s,energy_j\n100,100,\"app\",1.000000000,1\n101,100,\"RenderThread\",0.500000000,0.5\n"));
	snprintf(p, sizeof(p), "%s/s-slices.csv", self->dir);
	EXPECT_TRUE(file_has(p, "kind,name,count,duration_s,energy_j,energy_above_baseline_j,unterminated\nslice,\"frame\",1,0.200000000,0.4,,0\n"));
	snprintf(p, sizeof(p), "%s/r.json", self->dir);
	EXPECT_TRUE(file_has(p, "\"other_j\": 0.5,"));
}

TEST_F(filter, text_views)
{
	char cmd[512], out[8192];

	snprintf(cmd, sizeof(cmd), "%s report %s --units mWh --top 1 --sort name 2>&1", POWERPIN,
		 self->path);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "energy         2.0000 J (trapezoid of V x I) = 0.5556 mWh\n"));
	/* by name: app before netd; one row, the rest counted */
	EXPECT_NE(NULL, strstr(out, "      0.4167 mWh   75.0%  app ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "  (1 more processes: --top all, or --json/--csv)\n"));
	EXPECT_NE(NULL, strstr(out, "      0.1111 mWh  slice   frame ")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), "%s report %s --units mah --sort cpu --top all 2>&1", POWERPIN,
		 self->path);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	/* 2 J at 4 V: 2 / 3.6 / 4 mAh */
	EXPECT_NE(NULL, strstr(out, " = 0.1389 mAh at the mean voltage\n"));
	EXPECT_EQ(NULL, strstr(out, "more processes"));
	/* by CPU time (slices by duration): netRequest (0.3 s) before frame */
	ASSERT_NE(NULL, strstr(out, "netRequest"));
	EXPECT_LT(strstr(out, "netRequest"), strstr(out, "frame"));
}

/* A line of --stat's table */
static const char *stat_line(const char *kind, int n)
{
	static char line[128];

	snprintf(line, sizeof(line), "  %-32s %12d\n", kind, n);
	return line;
}

TEST_F(filter, stat_counts)
{
	char cmd[512], out[4096];

	snprintf(cmd, sizeof(cmd), "%s report %s --stat 2>&1", POWERPIN, self->path);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, stat_line("powerpin:powerpin_battery", 101)));
	EXPECT_NE(NULL, strstr(out, stat_line("sched:sched_switch", 5)));
	EXPECT_NE(NULL, strstr(out, stat_line("ftrace:print (trace_marker)", 5)));
	EXPECT_EQ(NULL, strstr(out, "energy "));
	snprintf(cmd, sizeof(cmd), "%s report %s --stat --cpu 0 --from 0.1 2>&1", POWERPIN,
		 self->path);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	/* 0.1 s on: 91 samples; CPU 0's switch at the end, and the one that
	 * says what it ran when the window opened */
	EXPECT_NE(NULL, strstr(out, stat_line("powerpin:powerpin_battery", 91))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, stat_line("sched:sched_switch", 2))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, stat_line("ftrace:print (trace_marker)", 5)));
}

TEST_F(filter, baseline_longer_than_capture)
{
	char cmd[512], out[4096];

	snprintf(cmd, sizeof(cmd), "%s report %s --baseline 5 2>&1", POWERPIN, self->path);
	EXPECT_EQ(1, run_cmd(cmd, out, sizeof(out)));
	EXPECT_STREQ("powerpin report: --baseline 5 s is longer than the capture (1.000 s)\n", out);
	snprintf(cmd, sizeof(cmd), "%s report %s --baseline 0.5 2>&1", POWERPIN, self->path);
	EXPECT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
}

/* Each bad value: status 2, one line naming it, one line pointing at --help */
TEST_F(filter, bad_values)
{
	static const char *const bad[][2] = {
		{ "--top 0", "--top wants a positive count or all, not '0'" },
		{ "--top 3x", "--top wants a positive count or all, not '3x'" },
		{ "--sort size", "--sort wants energy, cpu or name, not 'size'" },
		{ "--units kWh", "--units wants J, mWh or mAh, not 'kWh'" },
		{ "--cpu 2-1", "--cpu wants CPU numbers below 4096, as 0,2-3, not '2-1'" },
		{ "--pid x", "--pid wants positive ids, as 12,34, not 'x'" },
		{ "--tid 1,,2", "--tid wants positive ids, as 12,34, not '1,,2'" },
		{ "--stat --json -", "--stat prints on standard output, where an output already goes (-): give that output a file" },
		{ "--json '' --stat", "--json wants a file name (or - for standard output), not ''" },
	};
	char cmd[512], out[4096], want[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s report %s %s 2>&1", POWERPIN, self->path, bad[i][0]);
		EXPECT_EQ(2, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", bad[i][0]);
		snprintf(want, sizeof(want),
			 "powerpin report: %s\nTry 'powerpin report --help' for more information.\n",
			 bad[i][1]);
		EXPECT_STREQ(want, out);
	}
	snprintf(cmd, sizeof(cmd), "%s report %s --comm nosuch 2>&1", POWERPIN, self->path);
	EXPECT_EQ(1, run_cmd(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "no thread in the input matches"));
}

TEST_HARNESS_MAIN
