// SPDX-License-Identifier: GPL-2.0
/*
 * The agent on a real capture: trace-cmd records powerpin:powerpin_battery,
 * sched_switch and trace_marker writes, and perf records cpu-clock stacks,
 * while the Java workload runs under libpowerpin_agent.so (forced GCs, an
 * allocation hot spot, a JIT-hot method).  GC slices and the alloc_bytes
 * counter must reach powerpin report with energy, the log's top stack
 * must be the hot spot, and report --perf must give the workload's JIT
 * frames (named through the agent's perf map) energy.  Runs in the guest
 * with the emulator, max17042_battery and powerpin.ko loaded; the x86-64
 * guests see the host's /usr and so its JDK; a guest without a JVM skips.
 */
#include <glob.h>
#include <math.h>

#include "guest_harness.h"
#include "cmd_helpers.h"

#include "java/java.h"
#include "java_helpers.h"
#include "report/report.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EMU		"/sys/kernel/debug/max17042_emu"

static struct java_env env;

FIXTURE(jvm) {
	char dir[64], dat[128], log[128], perf[128], mode[32];
	char text[65536];
	bool have_perf, had_hsperfdata;
	glob_t maps;		/* the /tmp/perf-*.map files there before */
};

/*
 * What the JVM leaves in /tmp is the test's to remove: the perf maps the
 * agent wrote (perf reads them from there, so they outlive the JVM) and
 * HotSpot's hsperfdata directory, when the test's JVM made it.
 */
static void remove_jvm_leftovers(FIXTURE_DATA(jvm) *self)
{
	glob_t now;
	size_t i, j;

	if (!glob("/tmp/perf-*.map", 0, NULL, &now)) {
		for (i = 0; i < now.gl_pathc; i++) {
			for (j = 0; j < self->maps.gl_pathc; j++)
				if (!strcmp(now.gl_pathv[i], self->maps.gl_pathv[j]))
					break;
			if (j == self->maps.gl_pathc)
				unlink(now.gl_pathv[i]);
		}
		globfree(&now);
	}
	globfree(&self->maps);
	if (!self->had_hsperfdata && system("rm -rf /tmp/hsperfdata_$(id -un)"))
		fprintf(stderr, "# could not remove the JVM's hsperfdata directory\n");
}

static pid_t start(const char *const argv[])
{
	pid_t pid = fork();

	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

FIXTURE_SETUP(jvm)
{
	const char *why = java_env_find(&env);
	const char *rec[] = { "trace-cmd", "record", "-q", "-o", self->dat, "-e", "powerpin:powerpin_battery",
			      "-e", "sched:sched_switch", NULL };
	char jvm[4096], perf[256] = "", on[8] = "";
	pid_t trace;
	int status, i;

	if (why)
		SKIP(return, "%s (this guest's root has no JVM: it needs an OpenJDK for its architecture)", why);
	if (access(EMU "/mode", W_OK) || access(TRACEFS "/trace_marker", W_OK))
		SKIP(return, "gauge emulator or tracefs missing");
	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "trace-cmd not installed");
	self->had_hsperfdata = !system("test -e /tmp/hsperfdata_$(id -un)");
	if (glob("/tmp/perf-*.map", 0, NULL, &self->maps))
		memset(&self->maps, 0, sizeof(self->maps));
	self->have_perf = !system("command -v perf >/dev/null");
	strcpy(self->dir, "/tmp/powerpin-jvm-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->dat, sizeof(self->dat), "%s/trace.dat", self->dir);
	snprintf(self->log, sizeof(self->log), "%s/alloc.log", self->dir);
	snprintf(self->perf, sizeof(self->perf), "%s/perf.data", self->dir);
	ASSERT_EQ(0, read_line(EMU "/mode", self->mode, sizeof(self->mode)));
	ASSERT_EQ(0, write_str(EMU "/mode", "cpu"));

	trace = start(rec);
	ASSERT_LT(0, trace);
	for (i = 0; i < 600; i++) {
		ASSERT_EQ(0, waitpid(trace, &status, WNOHANG)) TH_LOG("trace-cmd record failed");
		if (!read_line(TRACEFS "/events/powerpin/powerpin_battery/enable", on, sizeof(on)) &&
		    on[0] == '1')
			break;
		usleep(50000);
	}
	ASSERT_EQ('1', on[0]);
	/* perf around the JVM: started in the background, it may still be setting up */
	if (self->have_perf)
		snprintf(perf, sizeof(perf), "perf record -q -e cpu-clock -F 1000 -g -o %s --",
			 self->perf);
	usleep(500000);
	snprintf(jvm, sizeof(jvm), "%s %s '-agentpath:%s=alloc=100,log=%s' -cp %s Workload 20 4 2>&1 </dev/null",
		 perf, env.java, env.agent, self->log, env.classes);
	status = run_cmd(jvm, self->text, sizeof(self->text));
	usleep(300000);
	kill(trace, SIGINT);
	ASSERT_EQ(trace, waitpid(trace, NULL, 0));
	ASSERT_EQ(0, status) TH_LOG("%s", self->text);
	/* tracefs is here: not a word about it missing */
	ASSERT_EQ(NULL, strstr(self->text, "no trace_marker")) TH_LOG("%s", self->text);
}

FIXTURE_TEARDOWN(jvm)
{
	char cmd[160];

	if (self->mode[0])
		write_str(EMU "/mode", self->mode);
	if (self->dir[0]) {
		remove_jvm_leftovers(self);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		if (system(cmd))
			TH_LOG("could not remove %s", self->dir);
	}
}

static void check_markers(struct __test_metadata *_metadata, FIXTURE_DATA(jvm) *self)
{
	const struct report_slice_stat *gc = NULL;
	const struct report_counter *alloc = NULL;
	struct report r;
	char err[512];
	uint32_t i;

	ASSERT_EQ(0, report_init(&r, NULL));
	ASSERT_EQ(0, report_run(&r, self->dat, err, sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < r.nr_slice_stats; i++)
		if (!strcmp(r.slice_stats[i].name, "GC"))
			gc = &r.slice_stats[i];
	for (i = 0; i < r.nr_counters; i++)
		if (!strcmp(r.counters[i].name, "alloc_bytes"))
			alloc = &r.counters[i];
	ASSERT_NE(NULL, gc);
	/* five System.gc() calls at least, each a whole slice */
	EXPECT_GE(gc->count, 5ULL);
	EXPECT_EQ(0ULL, gc->unterminated);
	EXPECT_GT(gc->duration_ns, 0ULL);
	EXPECT_GT(r.sign * gc->energy, 0.0);
	EXPECT_LT(r.sign * gc->energy, r.energy_j);
	ASSERT_NE(NULL, alloc);
	/* 20 rounds of 105,000 objects of 16 bytes or more */
	EXPECT_GT(alloc->max, 20LL * 105000 * 16 / 2);
	EXPECT_EQ(alloc->max, alloc->last);
	TH_LOG("%llu GC slices, %.4f J of %.4f J; alloc_bytes %lld", (unsigned long long)gc->count,
	       r.sign * gc->energy, r.energy_j, (long long)alloc->last);
	report_free(&r);
}

static void check_log(struct __test_metadata *_metadata, FIXTURE_DATA(jvm) *self)
{
	const struct alloc_def *top = NULL;
	struct alloc_log log;
	char err[256], *buf;
	size_t len;
	uint32_t i;

	ASSERT_EQ(0, read_all(self->log, &buf, &len));
	ASSERT_EQ(0, alloc_log_parse(buf, len, &log, err, sizeof(err))) TH_LOG("%s", err);
	free(buf);
	for (i = 0; i < log.nr_defs; i++)
		if (log.defs[i].kind == ALLOC_DEF_STACK && (!top || log.defs[i].samples > top->samples))
			top = &log.defs[i];
	ASSERT_NE(NULL, top);
	EXPECT_STREQ("LWorkload;::allocHotSpot(I)V",
		     log.defs[log.pool[top->first + top->nr - 1]].text);
	alloc_log_free(&log);
}

static void check_perf(struct __test_metadata *_metadata, FIXTURE_DATA(jvm) *self)
{
	char cmd[4096], json[160], flame[160], *buf, *p;
	size_t len;
	double e;

	if (!self->have_perf) {
		TH_LOG("perf not installed (linux-perf): report --perf not checked");
		return;
	}
	snprintf(json, sizeof(json), "%s/report.json", self->dir);
	snprintf(flame, sizeof(flame), "%s/flame.html", self->dir);
	snprintf(cmd, sizeof(cmd), "%s report %s --perf %s --json %s --flame %s 2>&1", env.powerpin,
		 self->dat, self->perf, json, flame);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, strstr(self->text, "energy by function")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_all(json, &buf, &len));
	/* a compiled method of the workload, named through the map, with energy */
	p = strstr(buf, "{\"name\": \"LWorkload;::");
	ASSERT_NE(NULL, p) TH_LOG("%.*s", (int)(len < 4000 ? len : 4000), buf);
	p = strstr(p, "\"total_j\": ");
	ASSERT_NE(NULL, p);
	e = strtod(p + 11, NULL);
	EXPECT_GT(e, 0.0);
	free(buf);
	ASSERT_EQ(0, read_all(flame, &buf, &len));
	EXPECT_NE(NULL, memmem(buf, len, "LWorkload:::", 12));
	free(buf);
}

/* One capture (a JVM under emulation is slow), every check on it. */
TEST_F_TIMEOUT(jvm, gc_slices_log_and_energy_per_method, 600)
{
	check_markers(_metadata, self);
	check_log(_metadata, self);
	check_perf(_metadata, self);
}

TEST_HARNESS_MAIN
