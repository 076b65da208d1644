// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report on a real capture: trace-cmd records powerpin:powerpin_battery,
 * sched_switch and trace_marker writes while the gauge emulator's current
 * follows the guest's CPU load; an idle phase, a busy phase with two
 * CPU-bound processes (one spinning a third of the time), and idle again.
 * Runs in the guest with the emulator, max17042_battery and powerpin.ko
 * loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_harness.h"

#include "cmd_helpers.h"
#include "report/report.h"
#include "report_gen.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EMU		"/sys/kernel/debug/max17042_emu"
#define PERIOD		"/sys/module/powerpin/parameters/period_us"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mark(const char *text)
{
	write_str(TRACEFS "/trace_marker", text);
}

/* Spin for @secs of wall time, busy @duty of every 30 ms, inside a slice. */
static void spin(double secs, double duty)
{
	double end = now_s() + secs, t0;
	volatile unsigned long x = 0;
	char buf[64];

	snprintf(buf, sizeof(buf), "B|%d|spin", getpid());
	mark(buf);
	while (now_s() < end) {
		t0 = now_s();
		while (now_s() - t0 < 0.030 * duty)
			x++;
		if (duty < 1)
			usleep((useconds_t)(30000 * (1 - duty)));
	}
	snprintf(buf, sizeof(buf), "E|%d", getpid());
	mark(buf);
	_exit(0);
}

FIXTURE(capture) {
	char dir[64];
	char dat[128];
	char mode[32], idle_ua[32], busy_ua[32], period[32], tracing_on[8];
	pid_t spinner[2];
};

FIXTURE_SETUP(capture)
{
	char *argv[] = { "trace-cmd", "record", "-q", "-o", self->dat,
			 "-e", "powerpin:powerpin_battery", "-e", "sched:sched_switch", NULL };
	char on[8] = "";
	pid_t rec;
	int status, i;

	if (access(EMU "/mode", W_OK) || access(PERIOD, W_OK))
		SKIP(return, "gauge emulator or powerpin.ko not loaded");
	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "trace-cmd not installed");
	strcpy(self->dir, "/tmp/powerpin-report-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->dat, sizeof(self->dat), "%s/trace.dat", self->dir);

	ASSERT_EQ(0, read_line(EMU "/mode", self->mode, sizeof(self->mode)));
	ASSERT_EQ(0, read_line(EMU "/cpu_idle_ua", self->idle_ua, sizeof(self->idle_ua)));
	ASSERT_EQ(0, read_line(EMU "/cpu_busy_ua", self->busy_ua, sizeof(self->busy_ua)));
	ASSERT_EQ(0, read_line(PERIOD, self->period, sizeof(self->period)));
	/* trace-cmd resets tracing when it ends; the next test gets it back */
	ASSERT_EQ(0, read_line(TRACEFS "/tracing_on", self->tracing_on, sizeof(self->tracing_on)));
	/* discharge is negative for the MAX17042 */
	ASSERT_EQ(0, write_str(EMU "/cpu_idle_ua", "-200000"));
	ASSERT_EQ(0, write_str(EMU "/cpu_busy_ua", "-2000000"));
	ASSERT_EQ(0, write_str(EMU "/mode", "cpu"));
	ASSERT_EQ(0, write_str(PERIOD, "20000"));

	rec = fork();
	ASSERT_LE(0, rec);
	if (!rec) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execvp("trace-cmd", argv);
		_exit(127);
	}
	/* recording has begun once the battery event is enabled */
	for (i = 0; i < 600; i++) {
		/* trace_marker writes (ftrace:print) are recorded without enabling */
		ASSERT_EQ(0, waitpid(rec, &status, WNOHANG)) TH_LOG("trace-cmd record failed");
		if (!read_line(TRACEFS "/events/powerpin/powerpin_battery/enable", on, sizeof(on)) &&
		    on[0] == '1')
			break;
		usleep(50000);
	}
	ASSERT_EQ('1', on[0]);
	usleep(300000);

	mark("powerpin:idle");
	usleep(1500000);
	mark("powerpin:busy");
	for (i = 0; i < 2; i++) {
		self->spinner[i] = fork();
		ASSERT_LE(0, self->spinner[i]);
		if (!self->spinner[i])
			spin(2.5, i ? 1.0 / 3 : 1.0);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(self->spinner[i], waitpid(self->spinner[i], &status, 0));
	mark("powerpin:idle-after");
	usleep(1500000);

	kill(rec, SIGINT);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

FIXTURE_TEARDOWN(capture)
{
	char cmd[160];

	if (self->mode[0]) {
		write_str(EMU "/mode", self->mode);
		write_str(EMU "/cpu_idle_ua", self->idle_ua);
		write_str(EMU "/cpu_busy_ua", self->busy_ua);
		write_str(PERIOD, self->period);
		write_str(TRACEFS "/tracing_on", self->tracing_on);
	}
	if (self->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		if (system(cmd))
			TH_LOG("could not remove %s", self->dir);
	}
}

static const struct report_slice_stat *find_slice(const struct report *r, const char *name)
{
	uint32_t i;

	for (i = 0; i < r->nr_slice_stats; i++)
		if (!strcmp(r->slice_stats[i].name, name))
			return &r->slice_stats[i];
	return NULL;
}

static const struct report_process *find_process(const struct report *r, int tgid)
{
	uint32_t i;

	for (i = 0; i < r->nr_processes; i++)
		if (r->processes[i].tgid == tgid)
			return &r->processes[i];
	return NULL;
}

static void check_tracedat(struct __test_metadata *_metadata, FIXTURE_DATA(capture) *self)
{
	const struct report_slice_stat *idle, *busy, *spin_slice;
	const struct report_process *a, *b;
	double p_idle, p_busy, parts = 0;
	struct report r;
	char err[512];
	uint32_t i;

	ASSERT_EQ((int)TRACE_FORMAT_TRACEDAT, (int)trace_input_detect(self->dat, err, sizeof(err)));
	ASSERT_EQ(0, report_init(&r, NULL));
	ASSERT_EQ(0, report_run(&r, self->dat, err, sizeof(err))) TH_LOG("%s", err);

	TH_LOG("%llu samples over %.2f s, %.4f J, %.4f J from charge, %s (%s)",
	       (unsigned long long)r.samples, r.duration_s, r.energy_j, r.energy_from_charge_j,
	       r.sign_name, r.sign_method);
	/* 50 Hz for about 5.5 s; a loaded TCG guest may miss some deadlines */
	EXPECT_GE(r.samples, 100U);
	EXPECT_EQ(0U, r.seq_gaps);
	EXPECT_EQ(0U, r.lost_events);
	EXPECT_STREQ("discharge-negative", r.sign_name);
	EXPECT_GT(r.voltage_v.min, 2.5);
	EXPECT_LT(r.voltage_v.max, 4.5);
	/* the emulator's current lies between its idle and busy settings */
	EXPECT_GE(r.current_a.min, 0.2 - 0.001);
	EXPECT_LE(r.current_a.max, 2.0 + 0.001);
	EXPECT_GT(r.energy_j, 0);
	/* gauge registers repeat between 175.8 ms refreshes */
	EXPECT_GT(r.repeated, 0U);

	idle = find_slice(&r, "idle");
	busy = find_slice(&r, "busy");
	spin_slice = find_slice(&r, "spin");
	ASSERT_NE(NULL, idle);
	ASSERT_NE(NULL, busy);
	ASSERT_NE(NULL, spin_slice);
	EXPECT_EQ(2U, spin_slice->count);
	p_idle = idle->energy / (idle->duration_ns / 1e9) * r.sign;
	p_busy = busy->energy / (busy->duration_ns / 1e9) * r.sign;
	TH_LOG("idle phase %.3f W, busy phase %.3f W", p_idle, p_busy);
	EXPECT_GT(p_busy, 2 * p_idle);

	a = find_process(&r, self->spinner[0]);
	b = find_process(&r, self->spinner[1]);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	TH_LOG("spinner %.3f s CPU %.4f J, third-time spinner %.3f s CPU %.4f J",
	       a->cpu_ns / 1e9, a->energy_j, b->cpu_ns / 1e9, b->energy_j);
	EXPECT_GT(a->cpu_ns, b->cpu_ns);
	EXPECT_GT(a->energy_j, b->energy_j);
	EXPECT_GT(b->energy_j, 0);
	for (i = 0; i < r.nr_processes; i++)
		parts += r.processes[i].energy_j;
	parts += r.sign * (r.idle_energy + r.other_energy);
	EXPECT_NEAR(r.energy_j, parts, fabs(r.energy_j) * 1e-9);
	report_free(&r);
}

/* trace-cmd report's text of the same capture gives the same numbers */
static void check_text(struct __test_metadata *_metadata, FIXTURE_DATA(capture) *self)
{
	struct report dat, txt;
	char err[512], cmd[400], path[160];

	snprintf(path, sizeof(path), "%s/trace.txt", self->dir);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s > %s 2>/dev/null", self->dat, path);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ((int)TRACE_FORMAT_TEXT, (int)trace_input_detect(path, err, sizeof(err)));
	ASSERT_EQ(0, report_init(&dat, NULL));
	ASSERT_EQ(0, report_init(&txt, NULL));
	ASSERT_EQ(0, report_run(&dat, self->dat, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, report_run(&txt, path, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(dat.samples, txt.samples);
	/* trace-cmd report rounds to microseconds */
	EXPECT_GE(1000, llabs((long long)(dat.first_ns - txt.first_ns)));
	/* trace-cmd prints microseconds: energies agree to that resolution */
	EXPECT_NEAR(dat.energy_j, txt.energy_j, fabs(dat.energy_j) * 1e-4);
	EXPECT_NEAR(dat.voltage_v.mean, txt.voltage_v.mean, 1e-12);
	EXPECT_EQ(dat.nr_slice_stats, txt.nr_slice_stats);
	EXPECT_EQ(dat.switches, txt.switches);
	report_free(&dat);
	report_free(&txt);
}

/* A trace.dat cut short is refused with a message, not half-read */
static void check_truncated(struct __test_metadata *_metadata, FIXTURE_DATA(capture) *self)
{
	struct report r;
	char err[512], cmd[400], path[160];
	struct stat st;

	ASSERT_EQ(0, stat(self->dat, &st));
	snprintf(path, sizeof(path), "%s/cut.dat", self->dir);
	snprintf(cmd, sizeof(cmd), "head -c %lld %s > %s", (long long)st.st_size / 3, self->dat,
		 path);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, report_init(&r, NULL));
	EXPECT_EQ(-1, report_run(&r, path, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "cut.dat"));
	report_free(&r);
}

/* one recording (slow under emulation), three looks at it */
TEST_F_TIMEOUT(capture, tracedat_energy_follows_load, 300)
{
	check_tracedat(_metadata, self);
	check_text(_metadata, self);
	check_truncated(_metadata, self);
}

/* What a slice's end became, and what the text report says of it. */
static void log_slice_ends(struct __test_metadata *_metadata, const char *text,
			   const char *dir)
{
	const char *p = text;
	char cmd[512];

	while ((p = strstr(p, "TYPE_SLICE_END"))) {
		const char *from = p - text > 300 ? p - 300 : text;

		TH_LOG("...%.*s", (int)(p - from + 20), from);
		p++;
	}
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin report %s/t.dat >&2", dir);
	system(cmd);
}

/*
 * powerpin record's own capture through --perfetto: the clock pair it
 * stored becomes a clock snapshot, the kernel it named a SystemInfo
 * packet, the scheduler and the command's fork, exit and atrace slice are
 * in the trace, decoded with protoc.
 */
TEST(record_to_perfetto)
{
	char dir[] = "/tmp/powerpin-pf-XXXXXX", cmd[1024], path[160], want[512];
	struct utsname u;
	char *text;
	struct stat st;
	FILE *f;

	if (access(PERIOD, W_OK))
		SKIP(return, "powerpin.ko not loaded");
	if (system("command -v protoc >/dev/null"))
		SKIP(return, "protoc not installed");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpin record -q -o %s/t.dat -- sh -c 'echo B\\|$$\\|pp_work > %s/trace_marker; sleep 0.5; echo E\\|$$ > %s/trace_marker; sleep 0.3'",
		 dir, TRACEFS, TRACEFS);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpin report %s/t.dat --perfetto %s/t.pftrace >/dev/null && "
		 "protoc --proto_path=daemon/lib/report --decode=perfetto.protos.Trace perfetto_trace.proto "
		 "< %s/t.pftrace | tr -s ' \\n' ' ' > %s/t.txt", dir, dir, dir, dir);
	ASSERT_EQ(0, system(cmd));
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	ASSERT_EQ(0, stat(path, &st));
	text = calloc(1, st.st_size + 1);
	ASSERT_NE(NULL, text);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ((size_t)st.st_size, fread(text, 1, st.st_size, f));
	fclose(f);
	/* the guest's trace clock is local: a snapshot maps it to boottime */
	EXPECT_NE(NULL, strstr(text, "clock_snapshot { clocks { clock_id: 6 timestamp: "));
	EXPECT_NE(NULL, strstr(text, "clocks { clock_id: 64 timestamp: "));
	EXPECT_NE(NULL, strstr(text, "trace_packet_defaults { timestamp_clock_id: 64 }"));
	EXPECT_NE(NULL, strstr(text, "ftrace_clock: FTRACE_CLOCK_LOCAL"));
	EXPECT_NE(NULL, strstr(text, "compact_sched { switch_timestamp: "));
	EXPECT_NE(NULL, strstr(text, "sched_process_fork {"));
	EXPECT_NE(NULL, strstr(text, "sched_process_exit { comm: \"sleep\""));
	/* sleeping tasks leave as S: the letters came through */
	EXPECT_NE(NULL, strstr(text, "switch_prev_state: 1 "));
	/* the capture named this kernel, and the trace names it to Perfetto */
	ASSERT_EQ(0, uname(&u));
	snprintf(want, sizeof(want),
		 "system_info { utsname { sysname: \"%s\" release: \"%s\" machine: \"%s\" } }",
		 u.sysname, u.release, u.machine);
	EXPECT_NE(NULL, strstr(text, want));
	EXPECT_NE(NULL, strstr(text, "type: TYPE_SLICE_BEGIN"));
	EXPECT_NE(NULL, strstr(text, "name: \"pp_work\""));
	EXPECT_NE(NULL, strstr(text, "name: \"energy_j\" } type: TYPE_SLICE_END"))
		log_slice_ends(_metadata, text, dir);
	EXPECT_NE(NULL, strstr(text, "track_uuid: 2 double_counter_value: "));
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
