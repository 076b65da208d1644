// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler's gate against every real consumer of the powerpin events:
 * tracefs instances (by hand and through trace-cmd record -B), perf,
 * enable_event triggers, triggers on the event itself, a BPF raw
 * tracepoint; the gauge is read exactly when one of them records (the
 * emulator's transfer counter), the counters count recorded samples, and a
 * consumer that becomes able to record gets its first sample within 100 ms
 * whatever the period.  Also: the events' records have no holes.
 *
 * Events are read from the text trace with trace_clock "mono", so their
 * timestamps compare with CLOCK_MONOTONIC here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/powerpin.h>

#include "guest_harness.h"

#include "capture/capture.h"
#include "sampler_helpers.h"

#define INST		TRACING "/instances/ppgate"
#define INST_CMD	"ppgate_cmd"

/* Gauge transfers by powerpin.ko's thread (not the driver's own work). */
static long long sampler_transfers(void)
{
	return read_ll(EMU "/sampler_transfers");
}

/*
 * No sample and no gauge transfer by the sampler for @secs; in a KMI build
 * no transfer but for its trial samples, at most one per 50 ms.
 */
static void assert_quiet(struct __test_metadata *_metadata, double secs)
{
	long long s0 = status_ll("samples"), t0 = sampler_transfers();
	long long r0 = status_ll("gate_trials"), r;
	char state[32];

	sleep_s(secs);
	EXPECT_EQ(s0, status_ll("samples"));
	r = status_ll("gate_trials") - r0;
	if (kmi_build()) {
		EXPECT_LE(r, (long long)(secs / 0.05) + 2) TH_LOG("%lld trial samples in %.1f s", r, secs);
	} else {
		EXPECT_EQ(0, r);
	}
	if (!r) {
		EXPECT_EQ(t0, sampler_transfers()) TH_LOG("the gauge was read for nobody");
	}
	ASSERT_EQ(0, status_str("state", state, sizeof(state)));
	EXPECT_STREQ("idle", state);
}

/* Stop sampling without touching the consumers: an absent supply name. */
static void park_sampler(void)
{
	write_str(PARAMS "/supply", "no_such_supply");
	sleep_s(0.1);
}

FIXTURE(gate) {
	char tracing_on[8];
};

FIXTURE_SETUP(gate)
{
	if (access(STATUS, F_OK))
		SKIP(return, "powerpin.ko is not loaded (run under scripts/vm-run)");
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			      sizeof(self->tracing_on)));
	ASSERT_EQ(0, tracing_reset());
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "10000"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	emu_reset();
	ASSERT_EQ(0, emu_ensure_bound());
}

FIXTURE_TEARDOWN(gate)
{
	write_str(TRACING "/events/powerpin/powerpin_battery/trigger", "!traceon");
	write_str(TRACING "/events/powerpin/powerpin_battery/filter", "0");
	write_str(TRACING "/events/sched/sched_process_fork/trigger",
		  "!enable_event:powerpin:powerpin_battery");
	write_str(INST "/events/enable", "0");
	rmdir(INST);
	write_str(TRACING "/events/enable", "0");
	write_str(TRACING "/tracing_on", self->tracing_on[0] ? self->tracing_on : "1");
	write_str(TRACING "/trace_clock", "local");
	write_str(PARAMS "/period_us", "100000");
	write_str(PARAMS "/supply", "max170xx_battery");
}

/*
 * The event enabled only in an instance, top-level tracing_on 0: every
 * sample lands in the instance, none at the top level, and the counters
 * count exactly those.  Instance tracing_on 0 (top level 1 now, the event
 * not enabled there): no sample and no gauge read at all.
 */
TEST_F_TIMEOUT(gate, instance_only, 300)
{
	struct battery_ev *e = NULL;
	long long s0, s1;
	int n;

	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, trace_clock_use_mono(INST));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 20, 10.0));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "0"));
	sleep_s(0.2);
	s1 = status_ll("samples");

	n = trace_file_events(INST "/trace", &e);
	EXPECT_EQ(s1 - s0, n);
	for (int k = 1; k < n; k++)
		EXPECT_EQ(e[k - 1].seq + 1, e[k].seq);
	free(e);
	EXPECT_EQ(0, trace_file_events(TRACING "/trace", &e));
	free(e);

	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	EXPECT_EQ(1, status_ll("event_enabled"));
	assert_quiet(_metadata, 1.0);
}

/*
 * The event enabled at the top level with tracing_on 0 there: the gate
 * knows that file is off on every CPU (tracing_is_on()) and asks no other
 * CPU, on every kernel, also where it learns the top level's file at load
 * (before 5.6, no trace_get_event_file()): no IPI and no gauge read.
 */
TEST_F_TIMEOUT(gate, top_level_off_asks_no_other_cpu, 300)
{
	long long ipis;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: no other CPU to ask");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	sleep_s(0.2);
	ipis = status_ll("gate_ipis");
	assert_quiet(_metadata, 2.0);
	EXPECT_EQ(ipis, status_ll("gate_ipis")) TH_LOG("the gate asked other CPUs");
}

/*
 * A filter on the event itself: the gate asks the buffer through the
 * filtered file, and never gets (nor discards into the ring buffer) the
 * per-CPU scratch record a filtered write is handed first.  Samples come
 * while tracing is on, each one in the trace, none while it is off, and
 * the kernel log stays clean (run-guest).
 */
TEST_F_TIMEOUT(gate, filtered_event, 300)
{
	struct battery_ev *e = NULL;
	long long s0, s1;
	int n;

	if (kmi_build())
		SKIP(return, "a KMI build believes a filtered file by its flags: it counts samples the buffer drops (kmod/README.md, \"A KMI build\")");
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/filter",
			       "voltage_uv > 0"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	assert_quiet(_metadata, 0.5);
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 20, 10.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	sleep_s(0.2);
	s1 = status_ll("samples");
	n = trace_file_events(TRACING "/trace", &e);
	EXPECT_EQ(s1 - s0, n);
	free(e);
	assert_quiet(_metadata, 1.0);
}

struct captures {
	int started, stopped;
	uint64_t samples;
};

static void count_capture(const struct pp_event *ev, void *arg)
{
	struct captures *c = arg;

	if (ev->kind == PP_EVENT_CAPTURE_STARTED)
		c->started++;
	if (ev->kind == PP_EVENT_CAPTURE_STOPPED) {
		c->stopped++;
		c->samples = ev->capture_samples;
	}
}

/* Read capture events for @secs. */
static void read_captures(struct pp_genl *l, struct captures *c, double secs)
{
	double end = now_mono() + secs;

	while (now_mono() < end) {
		struct pollfd p = { pp_genl_fd(l), POLLIN, 0 };

		poll(&p, 1, 100);
		pp_genl_read_events(l, count_capture, c);
	}
}

/*
 * An instance whose tracing_cpumask leaves a CPU out takes writes on the
 * other one only.  For 3 s at a 10 ms period, with the mask on either CPU
 * of a 2-CPU guest: one capture (one CAPTURE_STARTED, and one
 * CAPTURE_STOPPED only when tracing goes off), every deadline sampled or
 * missed (samples + missed), every sample in the instance, on that CPU.
 */
TEST_F_TIMEOUT(gate, instance_cpumask, 300)
{
	static const char * const masks[] = { "1", "2" };
	static const char * const cpu_tags[] = { "[000]", "[001]" };
	struct battery_ev *e = NULL;
	struct captures c;
	struct pp_genl *l;
	long long s0, m0, s1, m1;
	double t0, t1;
	bool loaded;
	int i, n;

	if (sysconf(_SC_NPROCESSORS_ONLN) != 2)
		SKIP(return, "needs a 2-CPU guest (vm-run --smp 2), not %ld CPUs",
		     sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(0, mkdir(INST, 0755));
	n = access(INST "/tracing_cpumask", F_OK);
	ASSERT_EQ(0, rmdir(INST));
	if (n)
		SKIP(return, "this kernel's instances have no tracing_cpumask of their own (3.10): one mask, the top level's, for every buffer");
	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_TRUE(loaded);
	for (i = 0; i < 2; i++) {
		memset(&c, 0, sizeof(c));
		ASSERT_EQ(0, mkdir(INST, 0755));
		ASSERT_EQ(0, trace_clock_use_mono(INST));
		ASSERT_EQ(0, write_str(INST "/tracing_cpumask", masks[i]));
		ASSERT_EQ(0, write_str(INST "/tracing_on", "1"));
		s0 = status_ll("samples");
		m0 = status_ll("missed");
		/* (enabling an event can take a while: it patches kernel text) */
		ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "1"));
		t0 = now_mono();
		read_captures(l, &c, 3.0);
		ASSERT_EQ(0, write_str(INST "/tracing_on", "0"));
		t1 = now_mono();
		read_captures(l, &c, 0.5);
		s1 = status_ll("samples");
		m1 = status_ll("missed");
		EXPECT_EQ(1, c.started) TH_LOG("mask %s: %d captures started, %d stopped",
					       masks[i], c.started, c.stopped);
		EXPECT_EQ(1, c.stopped);
		EXPECT_EQ(s1 - s0, (long long)c.samples);
		/*
		 * at least 80 % of the deadlines from the enable to tracing_on
		 * 0 (the capture opens after a look, and a loaded guest is
		 * slow to get there; captures opening and closing by CPU lost
		 * 44 % with mask 1 and all of them with mask 2)
		 */
		EXPECT_GE(s1 - s0 + m1 - m0, (long long)((t1 - t0) / 0.01 * 0.8))
			TH_LOG("mask %s: %lld samples, %lld missed in %.2f s",
			       masks[i], s1 - s0, m1 - m0, t1 - t0);
		n = trace_file_events(INST "/trace", &e);
		/*
		 * every counted sample is in the trace, but for one: the write
		 * of tracing_on 0 can land between the gate's look and the
		 * event's write on the other CPU (a vCPU starved there for
		 * long), and nothing the tracing core exports says the write
		 * was dropped
		 */
		EXPECT_LE(n, s1 - s0);
		EXPECT_GE(n, s1 - s0 - 1);
		free(e);
		e = NULL;
		/* all of them written on the CPU of the mask */
		EXPECT_EQ(n, command_count("cat " INST "/trace", cpu_tags[i]));
		write_str(INST "/events/powerpin/powerpin_battery/enable", "0");
		ASSERT_EQ(0, rmdir(INST));
	}
	pp_genl_close(l);
}

/* The sampler thread's Cpus_allowed_list into @buf ("" when not found). */
static void sampler_cpus(char *buf, size_t len)
{
	FILE *f = popen("for d in /proc/[0-9]*; do [ \"$(cat $d/comm 2>/dev/null)\" = powerpin-sample ] && "
			"sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' $d/status && break; done", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	pclose(f);
}

/* The CPU the sampler thread last ran on (field 39 of its stat), or -1. */
static int sampler_last_cpu(void)
{
	char path[64], buf[1024], *p;
	int pid = status_ll("kthread_pid"), i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pid <= 0 || read_line(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');		/* past the comm, which may hold spaces */
	for (i = 2; p && i < 39; i++)
		p = strchr(p + 1, ' ');
	return p ? atoi(p + 1) : -1;
}

/*
 * On a 2-CPU guest whose sampler runs on @home (its CPUs): a CPU it may not
 * run on now, else the one it did not run on last.
 */
static int cpu_away_from_sampler(const char *home)
{
	return !strcmp(home, "0") ? 1 : !strcmp(home, "1") ? 0 :
	       sampler_last_cpu() == 1 ? 0 : 1;
}

/*
 * Moved onto the one CPU an instance's tracing_cpumask names, the thread
 * goes back, when the capture closes, to the CPUs kernel threads keep to:
 * not onto CPUs isolcpus= or nohz_full= took out of them.  The CPU asked
 * is one outside the thread's CPUs where there is one (a guest booted with
 * vm-run --append nohz_full=1), else the one it did not run on last: on
 * the CPU the mask names already, it has no reason to move.
 */
TEST_F_TIMEOUT(gate, thread_returns_to_its_cpus, 300)
{
	char home[64], moved[64], back[64], mask[8];
	struct captures c = { 0 };
	struct pp_genl *l;
	bool loaded;
	int cpu;

	if (sysconf(_SC_NPROCESSORS_ONLN) != 2)
		SKIP(return, "needs a 2-CPU guest (vm-run --smp 2)");
	ASSERT_EQ(0, mkdir(INST, 0755));
	cpu = access(INST "/tracing_cpumask", F_OK);
	ASSERT_EQ(0, rmdir(INST));
	if (cpu)
		SKIP(return, "this kernel's instances have no tracing_cpumask of their own (3.10)");
	sampler_cpus(home, sizeof(home));
	ASSERT_STRNE("", home);
	/* a CPU the thread may not run on now, else the one it is not on */
	cpu = cpu_away_from_sampler(home);
	TH_LOG("the thread's CPUs: %s; the capture's: %d%s", home, cpu,
	       strcmp(home, "0-1") ? " (isolated)" : "");
	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, mkdir(INST, 0755));
	snprintf(mask, sizeof(mask), "%d", 1 << cpu);
	ASSERT_EQ(0, write_str(INST "/tracing_cpumask", mask));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "1"));
	ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "1"));
	read_captures(l, &c, 2.0);
	sampler_cpus(moved, sizeof(moved));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "0"));
	read_captures(l, &c, 1.0);
	sampler_cpus(back, sizeof(back));
	write_str(INST "/events/powerpin/powerpin_battery/enable", "0");
	ASSERT_EQ(0, rmdir(INST));
	pp_genl_close(l);
	EXPECT_EQ(1, c.started);
	EXPECT_EQ(1, c.stopped);
	EXPECT_EQ(cpu, atoi(moved)) TH_LOG("during the capture: %s", moved);
	EXPECT_STREQ(home, back);
}

/* trace-cmd record -B: a real instance consumer with tracing off on top. */
TEST_F_TIMEOUT(gate, trace_cmd_instance, 300)
{
	const char *dat = "/tmp/powerpin-gate.dat";
	struct battery_ev *e = NULL;
	long long s0, s1;
	char cmd[256];
	int n;

	if (system("command -v trace-cmd >/dev/null 2>&1"))
		SKIP(return, "trace-cmd is not installed");
	s0 = status_ll("samples");
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd record -q -B " INST_CMD " -e powerpin:powerpin_battery -o %s sleep 1 >/dev/null 2>&1",
		 dat);
	ASSERT_EQ(0, system(cmd));
	s1 = status_ll("samples");
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>/dev/null", dat);
	n = command_events(cmd, &e);
	unlink(dat);
	TH_LOG("trace-cmd -B: %d events, %lld samples counted", n, s1 - s0);
	EXPECT_GE(n, 20);
	EXPECT_EQ(s1 - s0, n);
	for (int k = 1; k < n; k++)
		EXPECT_EQ(e[k - 1].seq + 1, e[k].seq);
	free(e);
	EXPECT_EQ(0, read_ll(TRACING "/tracing_on"));
	EXPECT_EQ(0, status_ll("event_enabled"));
}

/*
 * perf record -a, top-level tracing_on 0: perf gets every sample.  A perf
 * event that follows another task never sees the sampler's events: the
 * gauge is not read for it.
 */
TEST_F_TIMEOUT(gate, perf, 300)
{
	const char *data = "/tmp/powerpin-gate.perf";
	const char *no_perf = perf_cannot_record();
	long long s0, s1;
	char cmd[256];
	int n;

	if (no_perf)
		SKIP(return, "%s", no_perf);
	s0 = status_ll("samples");
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -a -e powerpin:powerpin_battery -o %s -- sleep 1 >/dev/null 2>&1",
		 data);
	ASSERT_EQ(0, system(cmd));
	s1 = status_ll("samples");
	snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null", data);
	n = command_count(cmd, "powerpin:powerpin_battery");
	unlink(data);
	TH_LOG("perf record -a: %d events, %lld samples counted", n, s1 - s0);
	EXPECT_GE(n, 20);
	EXPECT_EQ(s1 - s0, n);

	s0 = status_ll("samples");
	s1 = sampler_transfers();
	ASSERT_EQ(0, system("perf stat -e powerpin:powerpin_battery -o /dev/null -- sleep 1 >/dev/null 2>&1"));
	EXPECT_EQ(s0, status_ll("samples"));
	EXPECT_EQ(s1, sampler_transfers()) TH_LOG("read for a per-task perf event");
}

/*
 * An enable_event trigger arms the event in soft-disabled mode: nothing
 * is recorded until it fires, so nothing is read.  Once it fired, samples
 * go to the top level.
 */
TEST_F_TIMEOUT(gate, enable_event_trigger, 300)
{
	struct battery_ev *e = NULL;
	char trigger[128];
	long long s0, s1;
	pid_t pid;
	int n;

	if (access(TRACING "/events/sched/sched_process_fork/trigger", F_OK))
		SKIP(return, "no event triggers in this kernel (3.14+)");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	/* this test's own fork only: any other fork in the guest would fire it early */
	snprintf(trigger, sizeof(trigger),
		 "enable_event:powerpin:powerpin_battery if parent_pid == %d", (int)getpid());
	ASSERT_EQ(0, write_str(TRACING "/events/sched/sched_process_fork/trigger", trigger));
	EXPECT_EQ(1, status_ll("event_enabled"));
	assert_quiet(_metadata, 1.0);

	s0 = status_ll("samples");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	ASSERT_TRUE(wait_status_ge("samples", s0 + 10, 10.0));
	park_sampler();
	s1 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	n = trace_file_events(TRACING "/trace", &e);
	EXPECT_EQ(s1 - s0, n);
	free(e);
}

/* A counting perf event on powerpin_battery: @pid/@cpu as perf_event_open(). */
static int perf_counter_open(bool exclude_kernel, int pid, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.exclude_kernel = exclude_kernel,
	};

	attr.config = read_ll(TRACING "/events/powerpin/powerpin_battery/id");
	return syscall(__NR_perf_event_open, &attr, pid, cpu, -1, 0);
}

/*
 * A counting perf event on @pid/@cpu that can record the thread's samples
 * wakes the thread, which reads and emits: the counter counts 20 of them.
 * Returns the gauge transfers per event counted (each read the thread
 * made for no one adds to it), 0 if too few were counted.  The ceilings
 * are for a hang only.
 */
static double perf_counter_records(struct __test_metadata *_metadata, int pid,
				   int cpu, const char *what)
{
	unsigned long long count = 0;
	int fd = perf_counter_open(false, pid, cpu);
	double end = now_mono() + 120.0;
	long long t0 = sampler_transfers(), t1;

	if (fd < 0) {
		TH_LOG("perf_event_open %s: %s", what, strerror(errno));
		return 0;
	}
	EXPECT_TRUE(wait_status_is("state", "sampling", 120.0)) TH_LOG("%s", what);
	EXPECT_EQ(1, status_ll("event_enabled")) TH_LOG("%s", what);
	do {
		if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
			break;
		sleep_s(0.005);
	} while (count < 20 && now_mono() < end);
	t1 = sampler_transfers();
	close(fd);
	EXPECT_GE(count, 20ULL) TH_LOG("%s: %llu events counted", what, count);
	EXPECT_TRUE(wait_status_is("state", "idle", 120.0)) TH_LOG("%s: closed", what);
	TH_LOG("%s: %llu events, %lld gauge transfers", what, count, t1 - t0);
	return count >= 20 ? (double)(t1 - t0) / count : 0;
}

/*
 * A perf event that cannot record the thread's samples is no consumer: one
 * that excludes the kernel (any user may open that on their own task with
 * perf_event_paranoid <= 2), or one that follows a user task (only the
 * kernel thread emits).  Held open, the thread neither reads the gauge
 * nor polls, and opened and closed in a loop it never wakes it.
 * A counter on the sampler thread does record, and so does a system-wide
 * one on a single CPU, the one the thread did not run on last (perf stat
 * -a -C 1): the thread moves there, where perf takes the samples.
 */
TEST_F_TIMEOUT(gate, perf_that_cannot_record, 900)
{
	static const struct { bool exclude_kernel; const char *what; } cases[] = {
		{ true, "excluding the kernel" }, { false, "on this task" },
	};
	int pid = status_ll("kthread_pid"), fd, i, k, cpu;
	char home[64], online[64] = "";
	double per_task, one_cpu;
	long long sw0, t0;

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	for (i = 0; i < 2; i++) {
		fd = perf_counter_open(cases[i].exclude_kernel, 0, -1);
		if (fd < 0)
			SKIP(return, "perf_event_open: %s", strerror(errno));
		sleep_s(0.2);
		sw0 = ctxt_switches(pid);
		t0 = sampler_transfers();
		sleep_s(2.0);
		EXPECT_EQ(0, status_ll("event_enabled")) TH_LOG("%s", cases[i].what);
		EXPECT_LE(ctxt_switches(pid) - sw0, 2) TH_LOG("%s: the thread polled", cases[i].what);
		EXPECT_EQ(t0, sampler_transfers()) TH_LOG("%s: the gauge was read", cases[i].what);
		close(fd);
	}
	/* 50 opens and closes in 1 s: nothing to wake for */
	sleep_s(0.2);
	sw0 = ctxt_switches(pid);
	t0 = sampler_transfers();
	for (k = 0; k < 50; k++) {
		fd = perf_counter_open(true, 0, -1);
		ASSERT_GE(fd, 0);
		sleep_s(0.01);
		close(fd);
		sleep_s(0.01);
	}
	sleep_s(0.5);
	EXPECT_LE(ctxt_switches(pid) - sw0, 2);
	EXPECT_EQ(t0, sampler_transfers());
	/* system-wide ones on every CPU are gate.perf's */
	per_task = perf_counter_records(_metadata, pid, -1, "on the sampler thread");
	ASSERT_GT(per_task, 0);
	read_line("/sys/devices/system/cpu/online", online, sizeof(online));
	if (strcmp(online, "0-1")) {
		TH_LOG("CPUs online: %s, not a 2-CPU guest: no single-CPU counter", online);
		return;
	}
	sampler_cpus(home, sizeof(home));
	ASSERT_STRNE("", home);
	cpu = cpu_away_from_sampler(home);
	TH_LOG("the thread's CPUs: %s, last ran on %d; the counter's CPU: %d",
	       home, sampler_last_cpu(), cpu);
	one_cpu = perf_counter_records(_metadata, -1, cpu, "system-wide on one CPU");
	ASSERT_GT(one_cpu, 0);
	/* no read for no one: as many transfers an event as on the thread */
	EXPECT_LE(one_cpu, per_task * 1.25)
		TH_LOG("%.2f gauge transfers an event, %.2f on the thread", one_cpu, per_task);
}

/*
 * A trigger on the event itself is a consumer even with tracing off: a
 * traceon trigger sees the first sample and turns tracing on.  A hist
 * trigger (where the kernel has them) counts exactly the samples.
 */
TEST_F_TIMEOUT(gate, trigger_on_event, 300)
{
	char buf[4096], *hits;
	long long s0, s1;
	ssize_t len;
	int fd;

	if (access(TRACING "/events/powerpin/powerpin_battery/trigger", F_OK))
		SKIP(return, "no event triggers in this kernel (3.14+)");
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/trigger", "traceon"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 1, 2.0));
	sleep_s(0.05);
	EXPECT_EQ(1, read_ll(TRACING "/tracing_on"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/trigger", "!traceon"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));

	s0 = status_ll("samples");
	if (write_str(TRACING "/events/powerpin/powerpin_battery/trigger", "hist:keys=capacity")) {
		TH_LOG("no hist triggers in this kernel: hist part skipped");
		return;
	}
	ASSERT_TRUE(wait_status_ge("samples", s0 + 10, 10.0));
	park_sampler();
	s1 = status_ll("samples");
	fd = open(TRACING "/events/powerpin/powerpin_battery/hist", O_RDONLY);
	ASSERT_GE(fd, 0);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_GT(len, 0);
	buf[len] = '\0';
	write_str(TRACING "/events/powerpin/powerpin_battery/trigger", "!hist:keys=capacity");
	hits = strstr(buf, "Hits: ");
	ASSERT_NE(NULL, hits);
	EXPECT_EQ(s1 - s0, strtoll(hits + 6, NULL, 10));
}

/* BPF_PROG_TYPE_RAW_TRACEPOINT program "return 0" attached to @tp. */
static int bpf_raw_tp_attach(const char *tp, int *prog_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	*prog_fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (*prog_fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (uintptr_t)tp;
	attr.raw_tracepoint.prog_fd = *prog_fd;
	fd = syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
	if (fd < 0) {
		fd = -errno;
		close(*prog_fd);
	}
	return fd;
}

static long long bpf_run_cnt(int prog_fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = prog_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)))
		return -1;
	return info.run_cnt;
}

/*
 * A BPF raw tracepoint is a probe neither tracefs nor perf knows of: it
 * sees every call, so the sampler samples for it, and the program ran
 * exactly once per sample counted.  Both counts are read with the sampler
 * parked, so no sample is half done at either end.  Detached: quiet again.
 */
TEST_F_TIMEOUT(gate, bpf_raw_tracepoint, 300)
{
	int link, prog;
	long long s0, s1, c0;

	if (access("/proc/sys/kernel/bpf_stats_enabled", F_OK))
		SKIP(return, "no BPF raw tracepoints or their stats in this kernel (4.17+ and 5.1+, with CONFIG_BPF_SYSCALL)");
	ASSERT_EQ(0, write_str("/proc/sys/kernel/bpf_stats_enabled", "1"));
	park_sampler();
	link = bpf_raw_tp_attach("powerpin_battery", &prog);
	ASSERT_GE(link, 0) TH_LOG("raw tracepoint: %s", strerror(-link));
	sleep_s(0.1);
	s0 = status_ll("samples");
	c0 = bpf_run_cnt(prog);
	ASSERT_LE(0, c0);
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 20, 10.0));
	park_sampler();
	s1 = status_ll("samples");
	EXPECT_EQ(s1 - s0, bpf_run_cnt(prog) - c0);
	close(link);
	close(prog);
	write_str("/proc/sys/kernel/bpf_stats_enabled", "0");
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	sleep_s(0.1);
	EXPECT_EQ(0, status_ll("event_enabled"));
	assert_quiet(_metadata, 0.5);
}

/* A timer the sampler thread armed: when (trace time) and its expiry. */
struct armed_timer {
	double armed;
	double expires;
};

/*
 * Sleep timers (function hrtimer_wakeup, or a KMI build's
 * powerpin_sleeper_wake) in the hrtimer_start events of the
 * trace file @path, at most @max kept.  The others are interrupts' timers
 * (the tick, the deadline server) armed while the thread was current.
 */
static int armed_timers(const char *path, struct armed_timer *t, int max)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ": hrtimer_start:"), *x;

		if (!p)
			continue;
		x = strstr(p, " expires=");
		/* a KMI build's thread sleeps on a timer of its own (compat.h) */
		if (!x || n >= max || (!strstr(p, " function=hrtimer_wakeup ") &&
				       !strstr(p, " function=powerpin_sleeper_wake ")))
			continue;
		t[n].armed = trace_line_ts(line, p);
		t[n].expires = strtoull(x + 9, NULL, 10) / 1e9;
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Top level: tracing_on 0 -> 1 at every period, the shortest to the
 * longest, five times each with the guest idle in between.  Nothing
 * announces tracing_on, so the thread polls: what it promises, whatever
 * the load, is in the timers it arms (timer:hrtimer_start, filtered to the
 * thread, in an instance of its own): each sleep ends at most 50 ms (plus
 * its 10 % slack) after it began, and once tracing_on 1 is written the
 * thread arms at most one more (a look at the gate that began just before
 * the write) before the first sample.  How long the first sample then took
 * is the host's business and is only reported.  (The gate is never idle
 * here for the 5 s after which the thread looks only once a second:
 * sampler.idle_backoff tests that state.)
 */
TEST_F_TIMEOUT(gate, start_latency, 300)
{
	static const char * const periods[] = { "1000", "10000", "1000000", "60000000" };
	const double poll_max = 0.055, tol = 0.0005;
	const int trials = 5;
	int pid = status_ll("kthread_pid");
	char filter[64];

	/*
	 * A KMI build sees tracing_on 0 only when a sample goes nowhere: with
	 * a period longer than its 50 ms looks, the capture is still open
	 * when tracing_on comes back, and the next sample comes at its
	 * deadline (kmod/README.md, "A KMI build").  The periods up to a
	 * look's length are tested there.
	 */
	size_t nperiods = kmi_build() ? 2 : sizeof(periods) / sizeof(periods[0]);

	if (access(TRACING "/events/timer/hrtimer_start", F_OK))
		SKIP(return, "no timer trace events");
	if (nperiods < sizeof(periods) / sizeof(periods[0]))
		TH_LOG("a KMI build: periods above 50 ms left out");
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, trace_clock_use_mono(INST));
	snprintf(filter, sizeof(filter), "common_pid == %d", pid);
	ASSERT_EQ(0, write_str(INST "/events/timer/hrtimer_start/filter", filter));
	ASSERT_EQ(0, write_str(INST "/events/timer/hrtimer_start/enable", "1"));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "1"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	for (size_t i = 0; i < nperiods; i++) {
		double worst = 0, worst_due = 0;

		ASSERT_EQ(0, write_str(PARAMS "/period_us", periods[i]));
		for (int trial = 0; trial < trials; trial++) {
			struct armed_timer t[256];
			struct battery_ev *e = NULL;
			int n, nt, before = 0, after = 0;
			double t_on, t_done, due = 0;
			long long s0;

			/* the offset of a clock without "mono", again: over minutes it drifts */
			if (trace_clock_offset_s)
				ASSERT_EQ(0, trace_clock_calibrate());
			ASSERT_EQ(0, write_str(TRACING "/trace", ""));
			ASSERT_EQ(0, write_str(INST "/trace", ""));
			/* let the thread settle into its tracing_on poll */
			sleep_s(0.5 + 0.037 * trial);
			s0 = status_ll("samples");
			t_on = now_mono();
			ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
			t_done = now_mono();
			ASSERT_TRUE(wait_status_ge("samples", s0 + 1, 20.0))
				TH_LOG("period %s us: no sample", periods[i]);
			ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
			n = trace_file_events(TRACING "/trace", &e);
			ASSERT_GT(n, 0) TH_LOG("period %s us: no sample written", periods[i]);
			EXPECT_GE(e[0].start, t_on);
			nt = armed_timers(INST "/trace", t, 256);
			ASSERT_GT(nt, 0);
			for (int k = 0; k < nt && t[k].armed <= e[0].start; k++) {
				EXPECT_LE(t[k].expires - t[k].armed, poll_max + tol)
					TH_LOG("period %s us: a sleep of %.1f ms", periods[i],
					       (t[k].expires - t[k].armed) * 1e3);
				if (t[k].armed < t_on) {
					before++;
					due = t[k].expires;
				} else if (t[k].armed > t_done) {
					after++;
				}
			}
			EXPECT_GT(before, 0) TH_LOG("no poll in the 0.5 s before tracing_on 1");
			EXPECT_LE(after, 1) TH_LOG("period %s us: %d sleeps after tracing_on 1",
						   periods[i], after);
			for (int k = 0; after > 1 && k < nt && t[k].armed <= e[0].start; k++)
				TH_LOG("sleep armed at %+.3f ms for %.3f ms (write took %.3f ms, read began at %+.3f ms)",
				       (t[k].armed - t_on) * 1e3, (t[k].expires - t[k].armed) * 1e3,
				       (t_done - t_on) * 1e3, (e[0].start - t_on) * 1e3);
			if (e[0].ts - t_on > worst)
				worst = e[0].ts - t_on;
			if (due - t_on > worst_due)
				worst_due = due - t_on;
			free(e);
		}
		TH_LOG("period %s us: the poll pending at tracing_on 1 due after %.1f ms at most; first sample after %.1f ms at most",
		       periods[i], worst_due * 1e3, worst * 1e3);
	}
}

/* Fields of an event's format file: offsets and sizes, in order. */
static int format_fields(const char *event, int *offset, int *size, int max)
{
	char path[256], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), TRACING "/events/powerpin/%s/format", event);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		char *o = strstr(line, "offset:"), *s = strstr(line, "size:");

		if (!o || !s)
			continue;
		offset[n] = atoi(o + 7);
		size[n] = atoi(s + 5);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Each field starts where the previous one ended (the common fields
 * included), and the fixed part ends on an 8-byte boundary or where a
 * dynamic string follows: no holes in either record.
 */
TEST(records_have_no_holes)
{
	static const char * const events[] = { "powerpin_battery", "powerpin_counter" };

	for (size_t i = 0; i < 2; i++) {
		int off[32], size[32], n;

		n = format_fields(events[i], off, size, 32);
		ASSERT_GT(n, 5) TH_LOG("%s format", events[i]);
		EXPECT_EQ(0, off[0]);
		for (int k = 1; k < n; k++) {
			EXPECT_EQ(off[k - 1] + size[k - 1], off[k]) {
				TH_LOG("%s: hole before field %d", events[i], k);
			}
		}
		if (!strcmp(events[i], "powerpin_battery"))
			EXPECT_EQ(0, (off[n - 1] + size[n - 1]) % 8);
	}
}

/* Whether the file at @path holds the @len bytes at @want; -1: unreadable. */
static int file_has(const char *path, const char *want, size_t len)
{
	char *buf;
	long n;
	int found;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n > 0 ? malloc(n) : NULL;
	found = buf && fread(buf, 1, n, f) == (size_t)n ? !!memmem(buf, n, want, len) : -1;
	free(buf);
	fclose(f);
	return found;
}

/*
 * Whether powerpin.ko has the symbol @sym: from /proc/kallsyms where it
 * lists the module's data symbols, else (3.10 without KALLSYMS_ALL) from
 * the string table of the module file that was loaded.
 */
static int module_symbol(const char *sym)
{
	char line[512], name[256], type[8], mod[64], want[160];
	int found = 0, data = 0;
	struct utsname u;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %7s %255s [%63[^]]]", type, name, mod) != 3 ||
		    strcmp(mod, "powerpin"))
			continue;
		data |= type[0] == 'd' || type[0] == 'D';
		found = !strcmp(name, sym);
	}
	fclose(f);
	if (found || data || uname(&u))
		return found;
	snprintf(line, sizeof(line), "build/%s/powerpin.ko", u.release);
	snprintf(want, sizeof(want), "%c%s", '\0', sym);
	return file_has(line, want, strlen(sym) + 2);
}

/*
 * The tracepoints and events are named powerpin_battery and
 * powerpin_counter: before 3.15 tracepoints are matched by name across the
 * whole kernel, and vendor trees have "battery" tracepoints of their own.
 * The old names (still read in older captures) are not registered.
 */
TEST(event_names_are_unique)
{
	static const char * const names[] = { "powerpin_battery", "powerpin_counter" };
	static const char * const old[] = { "battery", "counter" };
	char path[256], sym[128];

	if (access(STATUS, F_OK))
		SKIP(return, "powerpin.ko is not loaded (run under scripts/vm-run)");
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), TRACING "/events/powerpin/%s/format", names[i]);
		EXPECT_EQ(0, access(path, R_OK)) TH_LOG("%s", path);
		snprintf(path, sizeof(path), TRACING "/events/powerpin/%s", old[i]);
		EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s", path);
		snprintf(sym, sizeof(sym), "__tracepoint_%s", names[i]);
		EXPECT_EQ(1, module_symbol(sym)) TH_LOG("%s", sym);
		snprintf(sym, sizeof(sym), "__tracepoint_%s", old[i]);
		EXPECT_EQ(0, module_symbol(sym)) TH_LOG("%s", sym);
	}
	EXPECT_EQ(1, command_count("cat " TRACING "/available_events",
				   "powerpin:powerpin_battery"));
}

TEST_HARNESS_MAIN
