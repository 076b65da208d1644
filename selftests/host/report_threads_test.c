// SPDX-License-Identifier: GPL-2.0
/*
 * Threads in their processes: a multi-threaded app's RenderThread is a
 * thread of the app in the per-process table, the JSON and the Perfetto
 * trace, from what the kernel recorded (text's (tgid) column; a
 * trace.dat's saved tgids and task_newtask), and a thread whose group no
 * source gives is "tgid unknown", never a process of its own.  Also: the
 * Perfetto trace leaves out CPUs >= 1024 with a warning, and the
 * not-attributed energy is exactly 0 when every CPU's task is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#include "report_gen.h"
#include "report_tracedat.h"

#define POWERPIN	"build/bin/powerpin"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define T0		(100 * SEC)

FIXTURE(thr) {
	char dir[64];
	char in[128], out[128], json[128], pf[128], err[128];
	char *text, *js, *trace, *warn, *procs, *threads, *chrome, *html;
};

FIXTURE_SETUP(thr)
{
	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-thr-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->in, sizeof(self->in), "%s/in", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/report.txt", self->dir);
	snprintf(self->json, sizeof(self->json), "%s/report.json", self->dir);
	snprintf(self->pf, sizeof(self->pf), "%s/trace.pftrace", self->dir);
	snprintf(self->err, sizeof(self->err), "%s/err", self->dir);
}

FIXTURE_TEARDOWN(thr)
{
	free(self->text);
	free(self->js);
	free(self->trace);
	free(self->warn);
	free(self->procs);
	free(self->threads);
	free(self->chrome);
	free(self->html);
	if (!self->dir[0])
		return;
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Report self->in: text, JSON, the decoded Perfetto trace and stderr, squeezed. */
static int run(FIXTURE_DATA(thr) *self)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s report %s --json %s --perfetto %s --csv %s/s.csv --chrome-json %s/c.json --html %s/r.html > %s 2> %s",
		 POWERPIN, self->in, self->json, self->pf, self->dir, self->dir, self->dir, self->out,
		 self->err);
	st = system(cmd);
	self->warn = slurp(self->err);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/s-processes.csv", self->dir);
	self->procs = slurp(cmd);
	snprintf(cmd, sizeof(cmd), "%s/s-threads.csv", self->dir);
	self->threads = slurp(cmd);
	snprintf(cmd, sizeof(cmd), "%s/c.json", self->dir);
	self->chrome = slurp(cmd);
	snprintf(cmd, sizeof(cmd), "%s/r.html", self->dir);
	self->html = slurp(cmd);
	if (!self->procs || !self->threads || !self->chrome || !self->html)
		return -1;
	self->text = slurp(self->out);
	self->js = slurp(self->json);
	if (!system("command -v protoc >/dev/null")) {
		snprintf(cmd, sizeof(cmd),
			 "protoc --proto_path=daemon/lib/report --decode=perfetto.protos.Trace perfetto_trace.proto < %s > %s.txt",
			 self->pf, self->pf);
		if (system(cmd))
			return -1;
		snprintf(cmd, sizeof(cmd), "%s.txt", self->pf);
		self->trace = slurp(cmd);
		if (self->trace)
			squeeze(self->trace);
	}
	return self->text && self->js && self->warn ? 0 : -1;
}

/*
 * app (1215) and its RenderThread (1216) share CPU time with "lone"
 * (2000), whose lines say "(-------)": the kernel had no group for it.
 */
TEST_F_TIMEOUT(thr, text_tgid_column, 120)
{
	struct gen g = { .nr_cpus = 2 };
	int k;

	for (k = 0; k <= 100; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 5000, 0);
	gen_switch(&g, T0 - SEC, 0, "swapper/0", 0, 0, "app", 1215);
	gen_switch(&g, T0 - SEC, 1, "swapper/1", 0, 0, "RenderThread", 1216);
	gen_switch(&g, T0 + 500 * MS, 0, "app", 1215, 1215, "lone", 2000);
	gen_add(&g, T0 + 800 * MS,
		"            lone-2000    (-------) [000] d..2. %llu.%09llu: sched_switch: prev_comm=lone prev_pid=2000 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
		GEN_TS(T0 + 800 * MS));
	gen_switch(&g, T0 + 900 * MS, 1, "RenderThread", 1216, 1215, "swapper/1", 0);
	gen_mark(&g, T0 + 100 * MS, 1, "RenderThread", 1216, 1215, "B|1215|DrawFrame");
	gen_mark(&g, T0 + 200 * MS, 1, "RenderThread", 1216, 1215, "E|1215");
	ASSERT_EQ(0, gen_write(&g, self->in));
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->warn ? self->warn : "");

	/* app: 1215 for 0.5 s and 1216 for 0.9 s of 2 CPUs at 2 W */
	EXPECT_NE(NULL, strstr(self->text, "app              tgid 1215, 2 threads, 1.400 s CPU"));
	EXPECT_NE(NULL, strstr(self->text, "lone             tgid unknown (pid 2000), 1 thread, 0.300 s CPU"));
	EXPECT_EQ(NULL, strstr(self->text, "tgid 1216"));
	EXPECT_EQ(NULL, strstr(self->text, "tgid 2000"));
	EXPECT_NE(NULL, strstr(self->js, "{\"kind\": \"process\", \"tgid\": 1215, \"comm\": \"app\", \"threads\": 2,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"kind\": \"process\", \"tgid\": null, \"pid\": 2000, \"comm\": \"lone\", \"threads\": 1,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 1216, \"tgid\": 1215, \"comm\": \"RenderThread\""));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 2000, \"tgid\": null, \"comm\": \"lone\""));
	/* the CSV tables say the same, in the same columns as the JSON's keys */
	EXPECT_EQ(0, strncmp(self->procs, "kind,tgid,pid,comm,threads,cpu_s,energy_j\n", 42));
	EXPECT_NE(NULL, strstr(self->procs, "\nprocess,1215,,\"app\",2,1.400000000,")) TH_LOG("%s", self->procs);
	EXPECT_NE(NULL, strstr(self->procs, "\nprocess,,2000,\"lone\",1,0.300000000,")) TH_LOG("%s", self->procs);
	EXPECT_EQ(NULL, strstr(self->procs, "pid 2000:"));
	EXPECT_EQ(0, strncmp(self->threads, "pid,tgid,comm,cpu_s,energy_j\n", 29));
	EXPECT_NE(NULL, strstr(self->threads, "\n1216,1215,\"RenderThread\",")) TH_LOG("%s", self->threads);
	EXPECT_NE(NULL, strstr(self->threads, "\n2000,,\"lone\",")) TH_LOG("%s", self->threads);
	/* Chrome JSON: "lone" under one "tgid unknown" process, not as process 2000 */
	EXPECT_NE(NULL, strstr(self->chrome, "\"pid\":2147483645,\"args\":{\"name\":\"tgid unknown"))
		TH_LOG("%s", self->chrome);
	EXPECT_NE(NULL, strstr(self->chrome, "\"pid\":2147483645,\"tid\":2000,\"args\":{\"name\":\"lone\"}"));
	EXPECT_EQ(NULL, strstr(self->chrome, "\"pid\":2000,"));
	EXPECT_NE(NULL, strstr(self->chrome, "\"pid\":1215,\"tid\":1216,\"args\":{\"name\":\"RenderThread\"}"));
	/* HTML: tables and slice lanes say unknown, never the pid as a tgid */
	EXPECT_NE(NULL, strstr(self->html, "<tr><td>lone</td><td>unknown (pid 2000)</td><td>1</td>"))
		TH_LOG("%s", self->html);
	EXPECT_NE(NULL, strstr(self->html, "<tr><td>lone</td><td>2000</td><td>unknown</td>"));
	EXPECT_NE(NULL, strstr(self->html, "<tr><td>RenderThread</td><td>1216</td><td>1215</td>"));
	EXPECT_EQ(NULL, strstr(self->html, "<td>2000</td><td>2000</td>"));
	/* every CPU's task known from the start: nothing unattributed, exactly */
	EXPECT_NE(NULL, strstr(self->js, "\"other_j\": 0,"));
	if (!self->trace)
		SKIP(return, "protoc not installed: the Perfetto trace not decoded");
	EXPECT_EQ(1, count_of(self->trace, "thread { pid: 1215 tid: 1216 thread_name: \"RenderThread\" }"));
	EXPECT_EQ(1, count_of(self->trace, "thread { pid: 1215 tid: 1215 thread_name: \"app\" }"));
	EXPECT_EQ(0, count_of(self->trace, "process { pid: 1216"));
	EXPECT_EQ(0, count_of(self->trace, "tid: 2000"));
	EXPECT_EQ(0, count_of(self->trace, "process { pid: 2000"));
	EXPECT_EQ(1, count_of(self->trace, "name: \"lone 2000 (tgid unknown)\""));
	EXPECT_EQ(1, count_of(self->trace, "name: \"Energy: lone 2000 (tgid unknown; cumulative, discharge +)\""));
	/* the slice on RenderThread's track, inside app */
	EXPECT_EQ(1, count_of(self->trace, "type: TYPE_SLICE_BEGIN track_uuid: 8589935808 name: \"DrawFrame\""));
}

/*
 * A trace.dat: saved tgids for 1215 and its thread 1216; 1217 is a new
 * thread (task_newtask with CLONE_THREAD), 1300 a new process (no
 * CLONE_THREAD), 3000 is named by nothing.
 */
TEST_F_TIMEOUT(thr, tracedat_saved_tgids_and_newtask, 120)
{
	struct tdat w;
	int k;

	ASSERT_EQ(0, tdat_open(&w, 3));
	tdat_cpustat(&w, "powerpin: tgids=1215:1215 1216:1215\n");
	tdat_comm(&w, 1215, "app");
	tdat_comm(&w, 1216, "RenderThread");
	for (k = 0; k <= 20; k++)
		tdat_battery(&w, 2, T0 + k * 50 * MS, 77, k + 1, 4000000, -500000, 4000, 0);
	tdat_switch(&w, 0, T0 + 1 * MS, "swapper/0", 0, "app", 1215);
	tdat_switch(&w, 1, T0 + 1 * MS, "swapper/1", 0, "RenderThread", 1216);
	tdat_newtask(&w, 0, T0 + 2 * MS, 1215, 1217, "app", 0x3d0f00);	/* a thread */
	tdat_fork(&w, 0, T0 + 2 * MS, "app", 1215, 1217);
	tdat_newtask(&w, 0, T0 + 3 * MS, 1215, 1300, "app", 0x1200011);	/* fork() */
	tdat_fork(&w, 0, T0 + 3 * MS, "app", 1215, 1300);
	tdat_switch(&w, 0, T0 + 200 * MS, "app", 1215, "worker", 1217);
	tdat_switch(&w, 0, T0 + 400 * MS, "worker", 1217, "child", 1300);
	tdat_switch(&w, 0, T0 + 600 * MS, "child", 1300, "stray", 3000);
	tdat_switch(&w, 0, T0 + 800 * MS, "stray", 3000, "swapper/0", 0);
	tdat_switch(&w, 1, T0 + 900 * MS, "RenderThread", 1216, "swapper/1", 0);
	ASSERT_EQ(0, tdat_close(&w, self->in));
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->warn ? self->warn : "");

	EXPECT_NE(NULL, strstr(self->text, "tgid 1215, 3 threads,"));
	EXPECT_NE(NULL, strstr(self->text, "tgid 1300, 1 thread,"));
	EXPECT_NE(NULL, strstr(self->text, "tgid unknown (pid 3000), 1 thread,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 1216, \"tgid\": 1215,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 1217, \"tgid\": 1215,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 1300, \"tgid\": 1300,"));
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 3000, \"tgid\": null,"));
	if (!self->trace)
		SKIP(return, "protoc not installed: the Perfetto trace not decoded");
	EXPECT_EQ(1, count_of(self->trace, "thread { pid: 1215 tid: 1216 thread_name: \"RenderThread\" }"));
	EXPECT_EQ(1, count_of(self->trace, "thread { pid: 1215 tid: 1217 "));
	EXPECT_EQ(1, count_of(self->trace, "thread { pid: 1300 tid: 1300 "));
	EXPECT_EQ(0, count_of(self->trace, "tid: 3000"));
}

/*
 * 1400's group is said only by its atrace writes (B|1400|...): a thread it
 * makes with CLONE_THREAD (1401) joins it, as one it makes with saved
 * tgids would.
 */
TEST_F_TIMEOUT(thr, clone_thread_of_an_atrace_group, 120)
{
	struct tdat w;
	int k;

	ASSERT_EQ(0, tdat_open(&w, 2));
	tdat_comm(&w, 1400, "game");
	for (k = 0; k <= 20; k++)
		tdat_battery(&w, 1, T0 + k * 50 * MS, 77, k + 1, 4000000, -500000, 4000, 0);
	tdat_switch(&w, 0, T0 + 1 * MS, "swapper/0", 0, "game", 1400);
	tdat_print(&w, 0, T0 + 2 * MS, 1400, "B|1400|load\n");
	tdat_print(&w, 0, T0 + 3 * MS, 1400, "E|1400\n");
	tdat_newtask(&w, 0, T0 + 4 * MS, 1400, 1401, "game", 0x3d0f00);	/* a thread */
	tdat_fork(&w, 0, T0 + 4 * MS, "game", 1400, 1401);
	tdat_switch(&w, 0, T0 + 500 * MS, "game", 1400, "loader", 1401);
	tdat_switch(&w, 0, T0 + 900 * MS, "loader", 1401, "swapper/0", 0);
	ASSERT_EQ(0, tdat_close(&w, self->in));
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->warn ? self->warn : "");

	EXPECT_NE(NULL, strstr(self->text, "tgid 1400, 2 threads,")) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->js, "{\"pid\": 1401, \"tgid\": 1400,")) TH_LOG("%s", self->js);
	EXPECT_EQ(NULL, strstr(self->text, "tgid unknown"));
}

/* Events on CPU 1024: left out of the Perfetto trace, with a warning. */
TEST_F_TIMEOUT(thr, perfetto_cpu_1024_left_out, 120)
{
	struct gen g = { .nr_cpus = 2 };
	int k;

	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 5000, 0);
	gen_switch(&g, T0 + 5 * MS, 1024, "swapper/1024", 0, 0, "spin", 42);
	gen_switch(&g, T0 + 6 * MS, 1, "swapper/1", 0, 0, "spin", 43);
	ASSERT_EQ(0, gen_write(&g, self->in));
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->warn ? self->warn : "");
	EXPECT_NE(NULL, strstr(self->warn, "warning: 1 events on CPUs numbered 1024 or more left out of the Perfetto trace"));
	if (!self->trace)
		SKIP(return, "protoc not installed: the Perfetto trace not decoded");
	EXPECT_EQ(0, count_of(self->trace, "cpu: 1024"));
	EXPECT_EQ(1, count_of(self->trace, "cpu: 1 "));
}

TEST_HARNESS_MAIN
