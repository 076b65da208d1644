// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler's timing rules: no gauge transfer while the system is frozen
 * for suspend (pm_test=freezer, echo freeze > /sys/power/state) and one
 * LATE sample after thaw; no two samples closer than half a period, after
 * a late wake-up (the sampler's CPU taken by a SCHED_FIFO task, in or
 * between reads) or a read that ends more than half a period past the
 * next deadline; a new period starts one new period after the change.
 *
 * Events are read from the text trace with trace_clock "mono", so their
 * timestamps compare with CLOCK_MONOTONIC here.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/powerpin.h>

#include "guest_harness.h"

#include "sampler_helpers.h"

#define PERIOD_S	0.010

#define TEST_BATTERY_PARAMS	"/sys/module/pp_test_supply/parameters"

/*
 * Stop sampling without closing the capture: a supply that is not there.
 * Once the thread has looked it up (state waiting_supply) no read is in
 * progress, and the counters and the gauge's transfers stand still.
 */
static void park_sampler(void)
{
	write_str(PARAMS "/supply", "no_such_supply");
	wait_status_is("state", "waiting_supply", 10.0);
}

static void unpark_sampler(void)
{
	write_str(PARAMS "/supply", "max170xx_battery");
}

/* Gauge transfers per sample, measured while only the sampler reads. */
static long long transfers_per_sample(struct __test_metadata *_metadata)
{
	long long s0, t0, s1, t1;

	park_sampler();
	s0 = status_ll("samples");
	t0 = emu_transfers();
	unpark_sampler();
	EXPECT_TRUE(wait_status_ge("samples", s0 + 10, 10.0));
	park_sampler();
	s1 = status_ll("samples");
	t1 = emu_transfers();
	EXPECT_GT(s1, s0);
	if (s1 <= s0)
		return -1;
	EXPECT_EQ(0, (t1 - t0) % (s1 - s0));
	return (t1 - t0) / (s1 - s0);
}

/* Timestamp of the first trace line containing @what, or -1. */
static double trace_ts_of(const char *what)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512];
	double ts = -1;

	if (!f)
		return -1;
	while (ts < 0 && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, what), *colon;

		if (!p)
			continue;
		colon = strstr(line, ": suspend_resume:");
		if (colon)
			ts = trace_line_ts(line, colon);
	}
	fclose(f);
	return ts;
}

FIXTURE(timing) {
	char tracing_on[8];
};

FIXTURE_SETUP(timing)
{
	if (access(STATUS, F_OK))
		SKIP(return, "powerpin.ko is not loaded (run under scripts/vm-run)");
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			      sizeof(self->tracing_on)));
	ASSERT_EQ(0, tracing_reset());
	ASSERT_EQ(0, write_str(TRACING "/buffer_size_kb", "4096"));
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "10000"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	emu_reset();
	ASSERT_EQ(0, emu_ensure_bound());
}

FIXTURE_TEARDOWN(timing)
{
	write_str(TRACING "/tracing_on", "0");
	write_str("/sys/power/pm_test", "none");
	write_str(TRACING "/events/enable", "0");
	write_str(PARAMS "/supply", "max170xx_battery");
	if (!access(TEST_BATTERY_PARAMS, F_OK))
		system("rmmod pp_test_supply");
	write_str(PARAMS "/period_us", "100000");
	write_str(TRACING "/tracing_on", self->tracing_on[0] ? self->tracing_on : "1");
	write_str(TRACING "/trace_clock", "local");
}

/*
 * I2C transfers (i2c:i2c_result events) in the trace with a timestamp in
 * [@from, @to]: all of them, and those made by other tasks than the
 * sampler thread (@others).
 */
static int i2c_transfers_between(double from, double to, int *others)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512];
	int n = 0;

	*others = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ": i2c_result:");
		double ts;

		if (!p)
			continue;
		ts = trace_line_ts(line, p);
		if (ts < from || ts > to)
			continue;
		n++;
		if (!strstr(line, "powerpin-sample"))
			(*others)++;
	}
	fclose(f);
	return n;
}

/*
 * Suspend to idle stopped after the freezer (pm_test=freezer): between the
 * end of freeze_processes and the start of thaw_processes the sampler
 * takes no sample and the gauge sees no transfer (the I2C core's trace
 * events and the emulator's counter); after thaw one sample, flagged LATE,
 * stands for the deadlines that passed, which are counted missed, and the
 * next one keeps its distance.  The emulator counts every transfer: the
 * sampler's are whole samples, any other (the thermal core looks at the
 * battery's temperature after resume) is seen in the trace.
 */
TEST_F_TIMEOUT(timing, suspend_freezer, 300)
{
	long long per, s0, t0, m0, s1, t1, m1;
	double frozen, thawed, gap, w0, w1;
	struct battery_ev *e = NULL;
	int n, after = -1, others;

	if (access("/sys/power/pm_test", F_OK))
		SKIP(return, "no /sys/power/pm_test (CONFIG_PM_DEBUG)");
	if (access(TRACING "/events/i2c/i2c_result", F_OK))
		SKIP(return, "no i2c trace events");
	ASSERT_EQ(0, write_str("/sys/power/pm_test", "freezer"));
	/* 3 s; where there is no such parameter (3.18) the test holds 5 s */
	if (!access("/sys/module/suspend/parameters/pm_test_delay", F_OK))
		ASSERT_EQ(0, write_str("/sys/module/suspend/parameters/pm_test_delay", "3"));
	ASSERT_EQ(0, write_str(TRACING "/events/power/suspend_resume/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/events/i2c/i2c_result/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	per = transfers_per_sample(_metadata);
	ASSERT_GT(per, 0);
	/* counted with the sampler parked: no read straddles a count */
	w0 = now_mono();
	s0 = status_ll("samples");
	t0 = emu_transfers();
	m0 = status_ll("missed");
	unpark_sampler();
	ASSERT_TRUE(wait_status_ge("samples", s0 + 5, 10.0));
	ASSERT_EQ(0, write_str("/sys/power/state", "freeze"));
	sleep_s(0.3);
	park_sampler();
	s1 = status_ll("samples");
	t1 = emu_transfers();
	m1 = status_ll("missed");
	w1 = now_mono();
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));

	frozen = trace_ts_of("freeze_processes[0] end");
	thawed = trace_ts_of("thaw_processes[0] begin");
	ASSERT_GT(frozen, 0);
	/*
	 * pm_test_delay is an mdelay(): under emulation it can be far shorter
	 * than asked; whatever its length, the capture has a gap
	 */
	ASSERT_GE(thawed, frozen);
	EXPECT_EQ(0, i2c_transfers_between(frozen, thawed, &others))
		TH_LOG("gauge transfers while frozen");
	/* the sampler's transfers are whole samples; the rest are others' */
	n = i2c_transfers_between(w0, w1, &others);
	EXPECT_EQ(t1 - t0, n);
	EXPECT_EQ(per * (s1 - s0) + others, t1 - t0);

	n = trace_file_events(TRACING "/trace", &e);
	ASSERT_GT(n, 0);
	for (int k = 0; k < n; k++) {
		EXPECT_FALSE(e[k].start > frozen && e[k].start < thawed)
			TH_LOG("sample %u read while frozen", e[k].seq);
		if (after < 0 && e[k].start > thawed)
			after = k;
	}
	ASSERT_GT(after, 0);
	ASSERT_LT(after + 1, n);
	gap = e[after].start - e[after - 1].start;
	TH_LOG("frozen %.2f s; %lld deadlines missed; gap %.3f s; %d other transfers",
	       thawed - frozen, m1 - m0, gap, others);
	EXPECT_NE(0UL, e[after].flags & POWERPIN_SAMPLE_LATE);
	/* the deadlines in the gap: one sampled, the others missed */
	EXPECT_GE(m1 - m0, (long long)(gap / PERIOD_S) - 2);
	EXPECT_LE(m1 - m0, (long long)((w1 - w0) / PERIOD_S));
	EXPECT_GE(e[after + 1].start - e[after].start, PERIOD_S / 2 - 0.001);
	free(e);
}

/* Spin on the current CPU for @secs. */
static void spin_s(double secs)
{
	double end = now_mono() + secs;

	while (now_mono() < end)
		;
}

/*
 * What the sampler promises between two samples, whatever the load, from
 * kmod/README.md (Timing): the next read starts at a deadline at least half
 * a period after the previous event was written (so starts and timestamps
 * are both at least that far apart); a read of half a period or more makes
 * the sample after it LATE; and the deadlines a read of R ns uses up
 * (those after its own, up to R + period / 2 past it) are all missed.
 * Returns that lower bound on the deadlines missed, counted over the pairs
 * of @e; *@late gets the LATE samples after the first.
 */
static long long check_distance(struct __test_metadata *_metadata,
				const struct battery_ev *e, int n, int *late)
{
	const double tol = 0.0005;	/* text timestamps, read_ns rounding */
	long long must_miss = 0;

	*late = 0;
	for (int k = 1; k < n; k++) {
		double r = e[k - 1].read_ns / 1e9;

		if (e[k].flags & POWERPIN_SAMPLE_LATE)
			(*late)++;
		EXPECT_GE(e[k].start - e[k - 1].ts, PERIOD_S / 2 - tol)
			TH_LOG("sample %u written at %.3f ms, %u read from %.3f ms (%.3f ms apart)%s",
			       e[k - 1].seq, e[k - 1].ts * 1e3, e[k].seq,
			       e[k].start * 1e3, (e[k].start - e[k - 1].ts) * 1e3,
			       e[k - 1].flags & POWERPIN_SAMPLE_LATE ? ", the first LATE" : "");
		if (r >= PERIOD_S / 2 + tol)
			EXPECT_NE(0UL, e[k].flags & POWERPIN_SAMPLE_LATE)
				TH_LOG("sample %u read for %.3f ms, %u not LATE",
				       e[k - 1].seq, r * 1e3, e[k].seq);
		/* deadlines j >= 1 periods after its own with j < r / P + 1/2 */
		if (r > tol)
			must_miss += (long long)ceil((r - tol) / PERIOD_S + 0.5) - 1;
	}
	return must_miss;
}

/*
 * The sampler's CPU is taken by a SCHED_FIFO task 40 times, for 12..29 ms,
 * at a 10 ms period, while the emulated bus answers each transfer after
 * 0.2 ms (a read takes some 3 ms): the thread wakes with deadlines passed,
 * or loses its CPU in the middle of a lookup, a read or the write of an
 * event.  Whichever it is, no two samples come closer than half a period
 * (check_distance()), the spins of two periods or more each leave a LATE
 * sample, and every LATE sample stands after at least one missed deadline.
 * A sampler that took the distance from its wake-up rather than from the
 * written event fails at the first spin that hits a read (about one in
 * three).
 */
TEST_F_TIMEOUT(timing, no_burst_after_late_wakeup, 300)
{
	struct sched_param rt = { .sched_priority = 50 };
	const int spins = 40;
	struct battery_ev *e = NULL;
	int pid = status_ll("kthread_pid"), late = 0, long_spins = 0, n;
	long long m0, m1, must_miss;
	cpu_set_t one, all;
	pid_t hog;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_GT(pid, 0);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(0, sched_getaffinity(pid, sizeof(all), &all));
	ASSERT_EQ(0, sched_setaffinity(pid, sizeof(one), &one));
	ASSERT_EQ(0, write_str(EMU "/latency_us", "200"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 5, 10.0));
	m0 = status_ll("missed");

	for (int i = 0; i < spins; i++)
		long_spins += 12 + i % 18 >= 20;
	hog = fork();
	ASSERT_GE(hog, 0);
	if (!hog) {
		if (sched_setaffinity(0, sizeof(one), &one) ||
		    sched_setscheduler(0, SCHED_FIFO, &rt))
			_exit(1);
		for (int i = 0; i < spins; i++) {
			spin_s(0.001 * (12 + i % 18));
			usleep(40000 + (i * 7 % 23) * 1000);
		}
		_exit(0);
	}
	ASSERT_EQ(hog, waitpid(hog, &n, 0));
	ASSERT_EQ(0, n);
	sleep_s(0.05);
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	sleep_s(0.05);
	m1 = status_ll("missed");
	sched_setaffinity(pid, sizeof(all), &all);
	write_str(EMU "/latency_us", "0");

	n = trace_file_events(TRACING "/trace", &e);
	ASSERT_GT(n, 10);
	must_miss = check_distance(_metadata, e, n, &late);
	TH_LOG("%d samples, %d late, %lld missed (reads alone cost %lld); %d spins of 20 ms or more",
	       n, late, m1 - m0, must_miss, long_spins);
	/* one LATE sample per long spin; a host that stalls the guest may merge two */
	EXPECT_GE(late, long_spins / 2);
	EXPECT_GE(m1 - m0, late);
	EXPECT_GE(m1 - m0, must_miss);
	free(e);
}

/*
 * Every 4th read of the test battery (pp_test_supply.ko) takes 16 ms at a
 * 10 ms period: the sample is written 6 ms past the next deadline, and the
 * one after that is only 4 ms away.  The next read waits for the first
 * deadline half a period after the write (the third), and the two before
 * it are missed and counted, and flag that sample LATE: no two samples are
 * ever closer than half a period (check_distance()).
 */
TEST_F_TIMEOUT(timing, no_burst_after_slow_read, 300)
{
	struct battery_ev *e = NULL;
	long long s0, m0, m1, must_miss;
	int n, slow = 0, late = 0;
	struct utsname u;
	char cmd[320];

	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), "build/%s/pp_test_supply.ko", u.release);
	if (access(cmd, F_OK))
		SKIP(return, "no test battery for this kernel (before 5.1 the sampler reads no parentless supply)");
	snprintf(cmd, sizeof(cmd),
		 "insmod build/%s/pp_test_supply.ko slow_every=4 slow_us=16000", u.release);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "pp_test_battery"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	m0 = status_ll("missed");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 80, 30.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	sleep_s(0.05);
	m1 = status_ll("missed");

	n = trace_file_events(TRACING "/trace", &e);
	ASSERT_GT(n, 40);
	for (int k = 0; k + 1 < n; k++)
		slow += e[k].read_ns >= 15000000;
	must_miss = check_distance(_metadata, e, n, &late);
	TH_LOG("%d samples, %d slow reads, %d late, %lld missed", n, slow, late, m1 - m0);
	EXPECT_GE(slow, 10);
	/* each slow read costs the two deadlines after its own ... */
	EXPECT_GE(must_miss, 2 * slow);
	EXPECT_GE(m1 - m0, must_miss);
	/* ... and flags the sample after it */
	EXPECT_GE(late, slow);
	free(e);
}

/*
 * period_us changed in the middle of a capture: a new series of deadlines
 * starts one new period after the change, and the change costs no
 * deadline.  The old period is 10 s, so a series that kept it would bring
 * its next sample some 9.7 s after the change, where the new one brings it
 * 100 ms after.  Load on the host can make the thread late, never early:
 * the first new sample is LATE only if it stands for a later deadline than
 * the first new one, and the deadlines counted since the change (sampled
 * or missed) never exceed those of the new series that have passed.
 */
TEST_F_TIMEOUT(timing, period_change_starts_new_series, 300)
{
	const double old_period = 10.0, new_period = 0.100;
	struct battery_ev *e = NULL;
	long long s0, m0, s1, m1;
	double t_change, first, t1;
	int n, k;

	ASSERT_EQ(0, write_str(PARAMS "/period_us", "10000000"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 1, 2.0));
	sleep_s(0.3);
	m0 = status_ll("missed");
	t_change = now_mono();
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "100000"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 5, old_period / 2));
	s1 = status_ll("samples");
	m1 = status_ll("missed");
	t1 = now_mono();
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));

	n = trace_file_events(TRACING "/trace", &e);
	for (k = 0; k < n && e[k].start < t_change; k++)
		;
	ASSERT_LT(k + 1, n);
	ASSERT_EQ(1, k) TH_LOG("the old series sampled again before the change");
	first = e[k].start - t_change;
	TH_LOG("first sample %.1f ms after the change%s; %lld after it, %lld missed",
	       first * 1e3, e[k].flags & POWERPIN_SAMPLE_LATE ? " (LATE)" : "",
	       s1 - s0 - 1, m1 - m0);
	/* one new period after the change, never earlier ... */
	EXPECT_GE(first, new_period - 0.002);
	/* ... and not at the old series' next deadline */
	EXPECT_LT(first, old_period / 5);
	if (e[k].flags & POWERPIN_SAMPLE_LATE)
		EXPECT_GE(first, 2 * new_period - 0.002);
	EXPECT_LE(s1 - s0 - 1 + (m1 - m0),
		  (long long)floor((t1 - t_change) / new_period));
	free(e);
}

TEST_HARNESS_MAIN
