// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report known answers, from generated ftrace text: energy by both
 * methods, the exact trapezoid sum, the sign convention, percentiles,
 * attribution by CPU time, slices, markers, counters and the baseline.
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

#define MS	1000000ULL
#define SEC	1000000000ULL
/* the first sample's time: any offset, as in a real trace */
#define T0	(1234 * SEC + 567 * MS)

FIXTURE(report) {
	char dir[64];
	char path[128];
	struct gen g;
	struct report r;
	char err[512];
};

FIXTURE_SETUP(report)
{
	strcpy(self->dir, "/tmp/powerpin-report-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/trace.txt", self->dir);
	memset(&self->g, 0, sizeof(self->g));
	self->err[0] = '\0';
}

FIXTURE_TEARDOWN(report)
{
	report_free(&self->r);
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int run(struct __test_metadata *_metadata, FIXTURE_DATA(report) *self,
	       const struct report_options *opt)
{
	int ret;

	if (gen_write(&self->g, self->path))
		return -1;
	if (report_init(&self->r, opt))
		return -1;
	ret = report_run(&self->r, self->path, self->err, sizeof(self->err));
	if (ret)
		TH_LOG("report: %s", self->err);
	return ret;
}

/* 3.8 V, 500 mA discharge for 10 s at 100 Hz: 19.0 J by both methods */
TEST_F(report, constant_19_joules)
{
	const double q0 = 2500000;	/* uAh */
	int k;

	for (k = 0; k <= 1000; k++) {
		double t = k * 0.01;

		gen_battery(&self->g, T0 + k * 10 * MS, k, 3800000, -500000,
			    llround(q0 - 500000 * t / 3600), 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(1001U, self->r.samples);
	EXPECT_NEAR(10.0, self->r.duration_s, 1e-9);
	EXPECT_NEAR(19.0, self->r.energy_j, 19.0 * 0.005);
	EXPECT_NEAR(19.0, self->r.energy_from_charge_j, 19.0 * 0.005);
	/* trapezoid of a constant is exact */
	EXPECT_NEAR(19.0, self->r.energy_j, 1e-9);
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	EXPECT_STREQ("detected from the charge counter", self->r.sign_method);
	EXPECT_NEAR(0.5, self->r.current_a.mean, 1e-12);
	EXPECT_NEAR(0.5, self->r.current_a.p50, 1e-12);
	EXPECT_NEAR(0.5, self->r.current_a.p95, 1e-12);
	EXPECT_NEAR(1.9, self->r.power_w.max, 1e-12);
	EXPECT_NEAR(3.8, self->r.voltage_v.min, 1e-12);
	EXPECT_EQ(0U, self->r.seq_gaps);
	EXPECT_EQ(0U, self->r.gaps);
	EXPECT_NEAR(0.010, self->r.median_interval_s, 1e-9);
	/* no scheduler events: everything is "other" */
	EXPECT_NEAR(19.0, self->r.sign * self->r.other_energy, 1e-9);
}

/*
 * The median interval is exact: 10 ms sampling with +-20 us of jitter, a
 * pattern straddling 10 ms, gives its middle value, not a 1 ms bin's
 * centre (9.5 or 10.5 ms); an even count gives the mean of the two middle
 * intervals, and intervals past 2^32 ns (4.3 s) count like any other.
 */
TEST_F(report, median_interval_exact)
{
	static const uint64_t jitter[] = { 9990000, 10003000, 10020000 };
	uint64_t t = T0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int k;

	gen_battery(&self->g, t, 0, 3800000, -500000, 0, 0);
	for (k = 1; k <= 300; k++) {
		t += jitter[k % 3];
		gen_battery(&self->g, t, k, 3800000, -500000, 0, 0);
	}
	/* one gap: more than twice the median */
	t += 20007 * 1000;
	gen_battery(&self->g, t, 301, 3800000, -500000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(0.010003, self->r.median_interval_s);
	EXPECT_EQ(1U, self->r.gaps);
	/* and as the writers give it: JSON to the nanosecond, text to 0.1 ms */
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_json(&self->r, f));
	EXPECT_NE(NULL, strstr(buf, "\"median_interval_s\": 0.010003000,"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_text(&self->r, f));
	EXPECT_NE(NULL, strstr(buf, "(median interval 10.0 ms, max 20.0 ms)"));
	free(buf);
}

TEST_F(report, median_interval_even_and_long)
{
	static const uint64_t ms[] = { 4, 1, 3, 2 };
	static const uint64_t mixed[] = { 7000, 1, 5000, 6000 };
	uint64_t t = T0;
	int k;

	gen_battery(&self->g, t, 0, 3800000, -500000, 0, 0);
	for (k = 0; k < 4; k++) {
		t += ms[k] * MS;
		gen_battery(&self->g, t, k + 1, 3800000, -500000, 0, 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(0.0025, self->r.median_interval_s);
	EXPECT_EQ(0U, self->r.gaps);
	report_free(&self->r);

	t = T0;
	gen_battery(&self->g, t, 0, 3800000, -500000, 0, 0);
	for (k = 0; k < 4; k++) {
		t += mixed[k] * MS;
		gen_battery(&self->g, t, k + 1, 3800000, -500000, 0, 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(5.5, self->r.median_interval_s);
	EXPECT_EQ(0U, self->r.gaps);
}

/* Square-wave current at uneven timestamps: the report equals the hand sum */
TEST_F(report, square_wave_trapezoid)
{
	uint64_t ts = T0, dts[] = { 10 * MS, 13 * MS, 7 * MS, 25 * MS };
	double expect = 0, prev_p = 0;
	int k;

	for (k = 0; k < 400; k++) {
		long long ua = (k / 5) % 2 ? -1200000 : -200000;
		long long uv = 4000000 - (k % 7) * 1000;
		double p = uv * 1e-6 * -ua * 1e-6;

		if (k) {
			ts += dts[k % 4];
			expect += (prev_p + p) / 2 * (double)dts[k % 4] / 1e9;
		}
		prev_p = p;
		gen_battery(&self->g, ts, k, uv, ua, 1000000, 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_NEAR(expect, self->r.energy_j, expect * 1e-12);
	/* the counter never moved: sign from the mean current */
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	EXPECT_STREQ("assumed from the mean current, device on battery", self->r.sign_method);
	EXPECT_NEAR(1.2, self->r.current_a.max, 1e-12);
	EXPECT_NEAR(0.2, self->r.current_a.min, 1e-12);
	EXPECT_NEAR(1.2, self->r.current_a.p95, 1e-12);
}

/*
 * Energy from charge weighs the voltage by time: 4.0 V sampled at 100 Hz
 * for 1 s, then 3.0 V at 1 Hz for 9 s, 1 A throughout.  The time-weighted
 * mean is 3.15 V (the sample mean, 3.92 V, would be 24% high).
 */
TEST_F(report, charge_time_weighted_voltage)
{
	const double q0 = 10000000;
	uint64_t t;
	int k;

	for (k = 0; k <= 100; k++) {
		t = k * 10 * MS;
		gen_battery(&self->g, T0 + t, k, 4000000, -1000000,
			    llround(q0 - 1e6 * (t / 1e9) / 3600), 0);
	}
	for (k = 2; k <= 10; k++) {
		t = k * SEC;
		gen_battery(&self->g, T0 + t, 99 + k, 3000000, -1000000,
			    llround(q0 - 1e6 * (t / 1e9) / 3600), 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(110U, self->r.samples);
	/* 4 J + 3.5 J + 24 J */
	EXPECT_NEAR(31.5, self->r.energy_j, 1e-9);
	EXPECT_NEAR(3.15, self->r.mean_voltage_v, 1e-12);
	EXPECT_EQ(-2778, self->r.charge_delta_uah);
	EXPECT_EQ(0U, self->r.charge_jumps);
	EXPECT_NEAR(2778 * 3600e-6 * 3.15, self->r.energy_from_charge_j, 1e-9);
	EXPECT_NEAR(0.008, self->r.discrepancy_pct, 0.001);
	EXPECT_STREQ("detected from the charge counter", self->r.sign_method);
}

/*
 * The counter wraps half way (a 16-bit QH register of 0.5 mAh: 16384 mAh)
 * and gets nudged by a recalibration of 2 mAh: the wrap is a jump the
 * current cannot explain and is left out, the nudge is kept.
 */
TEST_F(report, charge_counter_jump)
{
	const double q0 = 1000000;
	long long q;
	int k;

	for (k = 0; k <= 1000; k++) {
		q = llround(q0 - 500000 * (k * 0.01) / 3600);
		if (k >= 500)
			q += 16384000;
		if (k >= 700)
			q -= 2000;
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, -500000, q, 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(1U, self->r.charge_jumps);
	/* 1389 uAh in 10 s, less the 1 uAh that moved in the wrap's own step */
	EXPECT_EQ(-1388 - 2000, self->r.charge_delta_uah);
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	EXPECT_STREQ("detected from the charge counter", self->r.sign_method);
	EXPECT_NEAR(20.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(3388 * 3600e-6 * 4.0, self->r.energy_from_charge_j, 1e-9);
}

/* A counter that never moved gives no energy: null in JSON, n/a in text */
TEST_F(report, charge_counter_still)
{
	char *text = NULL, *json = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *f;
	int k;

	for (k = 0; k <= 100; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, -250000, 2500000, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_TRUE(self->r.have_charge);
	EXPECT_EQ(0, self->r.charge_delta_uah);
	EXPECT_TRUE(isnan(self->r.energy_from_charge_j));
	EXPECT_TRUE(isnan(self->r.discrepancy_pct));
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_text(&self->r, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "from charge    n/a: the charge counter did not change"));
	f = open_memstream(&json, &jlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_json(&self->r, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(json, "\"energy_from_charge_j\": null,"));
	EXPECT_NE(NULL, strstr(json, "\"energy_discrepancy_pct\": null,"));
	EXPECT_NE(NULL, strstr(json, "\"charge_counter_delta_uah\": 0,"));
	EXPECT_NE(NULL, strstr(json, "\"charge_mean_voltage_v\": 4,"));
	free(text);
	free(json);
}

/* The seed's lines: positive current while the counter rises = charging */
TEST_F(report, seed_lines)
{
	long long q = -203095456;
	int k;

	for (k = 0; k < 50; k++) {
		gen_seed(&self->g, 574 * SEC + k * 107 * MS, 4380000 + (k % 3) * 1000, 530000,
			 q);
		q += 150;
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(50U, self->r.samples);
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	/* charging: energy flows into the battery, reported negative */
	EXPECT_LT(self->r.energy_j, 0);
	EXPECT_NEAR(-0.53, self->r.current_a.mean, 1e-9);
	EXPECT_NEAR(5.243, self->r.duration_s, 1e-9);
	/* power is V x I at the seed's values */
	EXPECT_NEAR(-4.380 * 0.53, self->r.power_w.max, 1e-9);
}

/* --sign overrides detection */
TEST_F(report, sign_given)
{
	struct report_options opt = { .sign = REPORT_SIGN_DISCHARGE_POSITIVE };
	int k;

	for (k = 0; k <= 100; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, -250000, 100, 0);
	ASSERT_EQ(0, run(_metadata, self, &opt));
	EXPECT_STREQ("discharge-positive", self->r.sign_name);
	EXPECT_NEAR(-1.0, self->r.energy_j, 1e-9);
}

/* Percentiles by nearest rank: voltages 3.01 .. 4.00 V */
TEST_F(report, percentiles)
{
	int k;

	for (k = 1; k <= 100; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 3000000 + ((k * 37) % 100 + 1) * 10000,
			    -100000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_NEAR(3.50, self->r.voltage_v.p50, 1e-9);
	EXPECT_NEAR(3.95, self->r.voltage_v.p95, 1e-9);
	EXPECT_NEAR(3.01, self->r.voltage_v.min, 1e-9);
	EXPECT_NEAR(4.00, self->r.voltage_v.max, 1e-9);
	EXPECT_NEAR(3.505, self->r.voltage_v.mean, 1e-9);
}

/*
 * A laptop's BAT0: 14.02 .. 16.00 V and 2.02 .. 4.00 A discharge, so power
 * 28 .. 64 W.  Percentiles at full resolution, well away from any fixed range.
 */
TEST_F(report, percentiles_laptop_15_volts)
{
	int k;

	for (k = 1; k <= 100; k++) {
		int j = (k * 37) % 100 + 1;

		gen_battery(&self->g, T0 + k * 10 * MS, k, 14000000 + j * 20000,
			    -(2000000 + j * 20000), 0, 0);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	EXPECT_NEAR(15.00, self->r.voltage_v.p50, 1e-9);
	EXPECT_NEAR(15.90, self->r.voltage_v.p95, 1e-9);
	EXPECT_NEAR(14.02, self->r.voltage_v.min, 1e-9);
	EXPECT_NEAR(16.00, self->r.voltage_v.max, 1e-9);
	EXPECT_NEAR(3.00, self->r.current_a.p50, 1e-9);
	EXPECT_NEAR(3.90, self->r.current_a.p95, 1e-9);
	/* voltage and current rise together: the 50th power is 15 V x 3 A */
	EXPECT_NEAR(45.00, self->r.power_w.p50, 1e-9);
	EXPECT_NEAR(15.90 * 3.90, self->r.power_w.p95, 1e-9);
	EXPECT_NEAR(64.00, self->r.power_w.max, 1e-9);
	/* no widening was needed */
	EXPECT_EQ(REPORT_VOLTAGE_RES_UV, self->r.volt.res);
	EXPECT_EQ(REPORT_CURRENT_RES_UA, self->r.cur.res);
	EXPECT_EQ(REPORT_POWER_RES_UW, self->r.pow.res);
}

/* -25 .. +25 A at 20 V: wider than the bins at 100 uA, so they widen */
TEST_F(report, percentiles_widen_past_the_window)
{
	struct report_options opt = { .sign = REPORT_SIGN_DISCHARGE_POSITIVE };
	int k;

	for (k = 0; k <= 1000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 20000000, -25000000 + k * 50000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, &opt));
	/* 50 A in 2^18 bins: 200 uA; 1000 W: 4 mW */
	EXPECT_EQ(200, self->r.cur.res);
	EXPECT_EQ(4000, self->r.pow.res);
	EXPECT_NEAR(-25.0, self->r.current_a.min, 1e-12);
	EXPECT_NEAR(25.0, self->r.current_a.max, 1e-12);
	EXPECT_NEAR(0.0, self->r.current_a.p50, 1e-12);
	EXPECT_NEAR(22.5, self->r.current_a.p95, 1e-12);
	EXPECT_NEAR(0.0, self->r.power_w.p50, 1e-12);
	EXPECT_NEAR(450.0, self->r.power_w.p95, 1e-12);
	EXPECT_NEAR(-500.0, self->r.power_w.min, 1e-12);
	EXPECT_EQ(1001U, self->r.cur.n);
}

/*
 * Two CPUs, 2 W.  CPU 0 runs process 100 (threads 100 and 101) all the time;
 * CPU 1 runs process 200 a third of the time and idles otherwise, so process
 * 100 has 75% of the busy time.
 */
TEST_F(report, attribution_75_25)
{
	double total, a, b, idle, other, sum = 0;
	uint64_t t;
	uint32_t i;
	int k;

	self->g.nr_cpus = 2;
	gen_switch(&self->g, T0 - 5 * MS, 0, "swapper/0", 0, 0, "worker", 100);
	gen_switch(&self->g, T0 - 5 * MS, 1, "swapper/1", 0, 0, "spin", 200);
	for (t = T0; t < T0 + 10 * SEC; t += 30 * MS) {
		/* CPU 0: thread 100 for 15 ms, thread 101 for 15 ms */
		gen_switch(&self->g, t + 5 * MS, 0, "worker", 100, 100, "worker2", 101);
		gen_switch(&self->g, t + 20 * MS, 0, "worker2", 101, 100, "worker", 100);
		/* CPU 1: process 200 for 10 ms of every 30 */
		gen_switch(&self->g, t + 5 * MS, 1, "spin", 200, 200, "swapper/1", 0);
		gen_switch(&self->g, t + 25 * MS, 1, "swapper/1", 0, 0, "spin", 200);
	}
	for (k = 0; k <= 1000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, -500000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));

	total = self->r.energy_j;
	EXPECT_NEAR(20.0, total, 1e-9);
	ASSERT_EQ(2U, self->r.nr_processes);
	EXPECT_EQ(100, self->r.processes[0].tgid);
	EXPECT_STREQ("worker", self->r.processes[0].comm);
	EXPECT_EQ(2, self->r.processes[0].threads);
	EXPECT_EQ(200, self->r.processes[1].tgid);
	a = self->r.processes[0].energy_j;
	b = self->r.processes[1].energy_j;
	idle = self->r.sign * self->r.idle_energy;
	other = self->r.sign * self->r.other_energy;
	/* 10 s / 30 ms is not whole: the last partial period shifts it slightly */
	EXPECT_NEAR(0.75, a / (a + b), 0.005);
	EXPECT_NEAR(0.25, b / (a + b), 0.005);
	EXPECT_NEAR(10.0, a, 0.05);
	EXPECT_NEAR(total / 3, idle, 0.05);
	EXPECT_NEAR(0.0, other, 1e-9);
	EXPECT_NEAR(total, a + b + idle + other, 1e-9);
	/* threads add up to their process */
	for (i = 0; i < self->r.nr_tasks; i++)
		if (self->r.tasks[i].pid == 100 || self->r.tasks[i].pid == 101)
			sum += self->r.sign * self->r.tasks[i].energy;
	EXPECT_NEAR(a, sum, 1e-9);
	EXPECT_NEAR(10.0, self->r.processes[0].cpu_ns / 1e9, 0.001);
}

/* CPU time on a CPU that never switches goes to "other"; the parts add up */
TEST_F(report, attribution_other)
{
	int k;

	self->g.nr_cpus = 2;
	/* CPU 1 is never seen; CPU 0 idles, then runs 300 from half way */
	gen_switch(&self->g, T0 + 5 * SEC, 0, "swapper/0", 0, 0, "late", 300);
	for (k = 0; k <= 100; k++)
		gen_battery(&self->g, T0 + k * 100 * MS, k, 4000000, -250000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_NEAR(10.0, self->r.energy_j, 1e-9);
	ASSERT_EQ(1U, self->r.nr_processes);
	/* 5 s of one of two CPUs each: 300, idle before it (prev_pid 0), CPU 1 */
	EXPECT_NEAR(2.5, self->r.processes[0].energy_j, 1e-9);
	EXPECT_NEAR(2.5, self->r.sign * self->r.idle_energy, 1e-9);
	EXPECT_NEAR(5.0, self->r.sign * self->r.other_energy, 1e-9);
}

/*
 * The first switch on a CPU names, as prev, the task that ran there before:
 * CPU 0 ran 400 until 4.05 s, then idled; CPU 1 idled until 6.05 s, then
 * ran 500.  Nothing is left for "other".
 */
TEST_F(report, attribution_before_first_switch)
{
	const struct report_task *t;
	int k;

	self->g.nr_cpus = 2;
	gen_switch(&self->g, T0 + 4050 * MS, 0, "early", 400, 400, "swapper/0", 0);
	gen_switch(&self->g, T0 + 6050 * MS, 1, "swapper/1", 0, 0, "late", 500);
	for (k = 0; k <= 100; k++)
		gen_battery(&self->g, T0 + k * 100 * MS, k, 4000000, -250000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_NEAR(10.0, self->r.energy_j, 1e-9);
	ASSERT_EQ(2U, self->r.nr_processes);
	/* 1 W over two CPUs: 0.5 W per CPU */
	EXPECT_EQ(400, self->r.processes[0].tgid);
	EXPECT_STREQ("early", self->r.processes[0].comm);
	EXPECT_NEAR(2.025, self->r.processes[0].energy_j, 1e-9);
	EXPECT_NEAR(4.05, self->r.processes[0].cpu_ns / 1e9, 1e-9);
	EXPECT_EQ(500, self->r.processes[1].tgid);
	EXPECT_NEAR(1.975, self->r.processes[1].energy_j, 1e-9);
	EXPECT_NEAR(2.975 + 3.025, self->r.sign * self->r.idle_energy, 1e-9);
	EXPECT_NEAR(0.0, self->r.sign * self->r.other_energy, 1e-9);
	t = report_find_task(&self->r, 400);
	ASSERT_NE(NULL, t);
	EXPECT_NEAR(2.025, self->r.sign * t->energy, 1e-9);
}

/* Slices get the energy of their span; markers span to the next marker */
TEST_F(report, slices_markers_counters)
{
	const struct report_slice_stat *s;
	int k, found = 0;
	uint32_t i;

	for (k = 0; k <= 1000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, -500000, 0, 0);
	gen_mark(&self->g, T0 + 2 * SEC + 5 * MS, 0, "app", 501, 500, "B|500|load");
	gen_mark(&self->g, T0 + 3 * SEC, 0, "app", 501, 500, "B|500|inflate");
	gen_mark(&self->g, T0 + 3 * SEC + 500 * MS, 0, "app", 501, 500, "E|500");
	/* another thread's slice does not end ours */
	gen_mark(&self->g, T0 + 4 * SEC, 1, "ui", 502, 500, "B|500|draw");
	gen_mark(&self->g, T0 + 4 * SEC + 250 * MS, 1, "ui", 502, 500, "E");
	gen_mark(&self->g, T0 + 5 * SEC + 5 * MS, 0, "app", 501, 500, "E|500");
	gen_mark(&self->g, T0 + 6 * SEC, 0, "app", 501, 500, "C|500|queue|7");
	gen_mark(&self->g, T0 + 7 * SEC, 0, "app", 501, 500, "C|500|queue|3");
	gen_mark(&self->g, T0 + 1 * SEC, 0, "sh", 600, 600, "powerpin:phase1");
	gen_mark(&self->g, T0 + 6 * SEC, 0, "sh", 600, 600, "powerpin:phase2");
	/* still open at the end: closed with the capture */
	gen_mark(&self->g, T0 + 9 * SEC, 0, "app", 501, 500, "B|500|tail");
	ASSERT_EQ(0, run(_metadata, self, NULL));

	for (i = 0; i < self->r.nr_slice_stats; i++) {
		s = &self->r.slice_stats[i];
		if (!strcmp(s->name, "load")) {
			EXPECT_NEAR(6.0, self->r.sign * s->energy, 1e-9);
			EXPECT_EQ(3 * SEC, s->duration_ns);
			found++;
		} else if (!strcmp(s->name, "inflate")) {
			EXPECT_NEAR(1.0, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "draw")) {
			EXPECT_NEAR(0.5, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "phase1")) {
			EXPECT_TRUE(s->marker);
			EXPECT_NEAR(10.0, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "phase2")) {
			EXPECT_NEAR(8.0, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "tail")) {
			EXPECT_NEAR(2.0, self->r.sign * s->energy, 1e-9);
			EXPECT_EQ(1U, s->unterminated);
			found++;
		}
	}
	EXPECT_EQ(6, found);
	ASSERT_EQ(1U, self->r.nr_counters);
	EXPECT_STREQ("queue", self->r.counters[0].name);
	EXPECT_EQ(2U, self->r.counters[0].count);
	EXPECT_EQ(3, self->r.counters[0].last);
	EXPECT_EQ(7, self->r.counters[0].max);
}

/* --baseline: mean power of the first N s, subtracted from the total */
TEST_F(report, baseline)
{
	struct report_options opt = { .baseline_s = 4.0 };
	int k;

	for (k = 0; k <= 1000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000, k < 500 ? -250000 : -750000,
			    0, 0);
	ASSERT_EQ(0, run(_metadata, self, &opt));
	EXPECT_NEAR(1.0, self->r.baseline_w, 1e-9);
	/* 4.99 s at 1 W, a 10 ms step from 1 to 3 W, 5 s at 3 W */
	EXPECT_NEAR(4.99 + 0.02 + 15.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(4.99 + 0.02 + 15.0 - 10.0, self->r.energy_above_baseline_j, 1e-9);
}

/* Repeats, seq gaps, sampler flags, lost events and gaps are counted */
TEST_F(report, sample_quality)
{
	uint64_t t = T0;
	int k;

	for (k = 0; k < 100; k++) {
		int seq = k < 50 ? k : k + 3;	/* 3 samples lost */

		t += k == 70 ? 500 * MS : 10 * MS;	/* one gap */
		gen_battery(&self->g, t, seq, 4000000, -100000 - (k / 2) * 1000, 0,
			    k % 2 ? 1 : 0);
	}
	gen_add(&self->g, T0 + 300 * MS, "CPU:1 [LOST 42 EVENTS]\n");
	/* a failed read (0 V) between two samples: left out, not a seq gap */
	gen_battery(&self->g, t + 5 * MS, 103, 0, 0, 0, 1U << 2);
	gen_battery(&self->g, t + 10 * MS, 104, 4000000, -100000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(101U, self->r.samples);
	EXPECT_EQ(1U, self->r.read_errors);
	EXPECT_NEAR(4.0, self->r.voltage_v.min, 1e-12);
	EXPECT_EQ(50U, self->r.repeated);
	EXPECT_EQ(50U, self->r.flagged_repeated);
	EXPECT_EQ(3U, self->r.seq_gaps);
	EXPECT_EQ(42U, self->r.lost_events);
	EXPECT_EQ(1U, self->r.gaps);
	EXPECT_EQ(500 * MS, self->r.max_interval_ns);
}

/* Everything left out is counted and shown: JSON always, text when non-zero */
TEST_F(report, drops_and_resets_reported)
{
	char *text = NULL, *json = NULL;
	size_t tlen = 0, jlen = 0;
	uint64_t t = T0;
	char mark[32];
	FILE *f;
	int k, seq = 0;

	for (k = 0; k < 150; k++) {
		if (k == 100)
			seq = 0;	/* the module reloaded */
		if (k == 120)
			seq += 2;	/* two samples lost */
		t += k == 60 ? 0 : 10 * MS;	/* one sample at the previous one's time */
		gen_battery(&self->g, t, ++seq, 4000000, -100000, 0, k >= 10 && k < 13 ? 1U << 1 : 0);
	}
	gen_mark(&self->g, T0 + 100 * MS, 0, "app", 501, 500, "E|500");
	gen_mark(&self->g, T0 + 110 * MS, 0, "app", 501, 500, "hello, not atrace");
	gen_mark(&self->g, T0 + 120 * MS, 0, "app", 501, 500, "B|500");
	for (k = 0; k < REPORT_MAX_OPEN_SLICES + 4; k++) {
		snprintf(mark, sizeof(mark), "B|500|level%d", k % 3);
		gen_mark(&self->g, T0 + 200 * MS + k * 1000, 0, "app", 501, 500, mark);
	}
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(150U, self->r.samples);
	EXPECT_EQ(1U, self->r.seq_resets);
	EXPECT_EQ(2U, self->r.seq_gaps);
	EXPECT_EQ(1U, self->r.zero_intervals);
	EXPECT_EQ(3U, self->r.missing);
	EXPECT_EQ(4U, self->r.slices_dropped);
	EXPECT_EQ(1U, self->r.slice_ends_unmatched);
	EXPECT_EQ(2U, self->r.marks_ignored);

	f = open_memstream(&json, &jlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_json(&self->r, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(json, "\"seq_gaps\": 2,\n  \"seq_resets\": 1,"));
	EXPECT_NE(NULL, strstr(json, "\"missing_property_samples\": 3,"));
	EXPECT_NE(NULL, strstr(json, "\"zero_intervals\": 1,"));
	EXPECT_NE(NULL, strstr(json, "\"slices_dropped\": 4,"));
	EXPECT_NE(NULL, strstr(json, "\"slice_ends_unmatched\": 1,"));
	EXPECT_NE(NULL, strstr(json, "\"marks_ignored\": 2,"));
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_text(&self->r, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "2 samples missing by seq;"));
	EXPECT_NE(NULL, strstr(text, "seq resets     1 times"));
	EXPECT_NE(NULL, strstr(text, "missing        3 samples flagged"));
	EXPECT_NE(NULL, strstr(text, "same time      1 sample at"));
	EXPECT_NE(NULL, strstr(text, "slices         4 not tracked (4096 already open), 1 ends without a begin, 2 trace_marker writes ignored"));
	free(text);
	free(json);
}

/* A capture without any of those shows none of those lines */
TEST_F(report, clean_capture_text)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;
	int k;

	for (k = 0; k < 10; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k + 1, 4000000, -100000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, report_write_text(&self->r, f));
	fclose(f);
	EXPECT_EQ(NULL, strstr(text, "seq resets"));
	EXPECT_EQ(NULL, strstr(text, "flagged with a property"));
	EXPECT_EQ(NULL, strstr(text, "same time"));
	EXPECT_EQ(NULL, strstr(text, "trace_marker writes ignored"));
	free(text);
}

/* The u32 seq wrapping round is not a reset, and loses nothing */
TEST_F(report, seq_wraps_round)
{
	static const unsigned int seqs[] = { 4294967293U, 4294967294U, 4294967295U, 0, 1, 3 };
	int k;

	for (k = 0; k < 6; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, seqs[k], 4000000, -100000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	EXPECT_EQ(0U, self->r.seq_resets);
	EXPECT_EQ(1U, self->r.seq_gaps);
}

/* Memory: the plot keeps REPORT_PLOT_BUCKETS min/max buckets, extremes kept */
TEST_F(report, plot_decimation_keeps_extremes)
{
	int64_t vmax = INT64_MIN, vmin = INT64_MAX;
	uint64_t used = 0;
	int k;

	for (k = 0; k < 20000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k, 4000000,
			    k == 12345 ? -3000000 : -100000, 0, 0);
	ASSERT_EQ(0, run(_metadata, self, NULL));
	for (k = 0; k < REPORT_PLOT_BUCKETS; k++) {
		if (!self->r.buckets[k].n)
			continue;
		used += self->r.buckets[k].n;
		vmin = self->r.buckets[k].i_min < vmin ? self->r.buckets[k].i_min : vmin;
		vmax = self->r.buckets[k].i_max > vmax ? self->r.buckets[k].i_max : vmax;
	}
	EXPECT_EQ(20000U, used);
	EXPECT_EQ(-3000000, vmin);
	EXPECT_EQ(-100000, vmax);
	EXPECT_GE(self->r.bucket_ns * REPORT_PLOT_BUCKETS, 200 * SEC - 10 * MS);
}

TEST_HARNESS_MAIN
