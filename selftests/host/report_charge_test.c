// SPDX-License-Identifier: GPL-2.0
/*
 * The charge counter's cross-check, honestly: the report gives the
 * counter's resolution (its smallest step), the uncertainty that gives the
 * energy from charge (one step at the mean voltage), and no discrepancy
 * percentage when the counter moved fewer than REPORT_MIN_CHARGE_STEPS
 * steps, saying why instead, in text, JSON and HTML alike.  And counter
 * values near the ends of int64 are no undefined arithmetic and no
 * nonsense joules.
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

#define T0	100000000000ULL
#define MS	1000000ULL

FIXTURE(charge) {
	char dir[64];
	char path[128];
	struct gen g;
	struct report r;
	char err[512];
	char *text, *json, *html;
};

FIXTURE_SETUP(charge)
{
	strcpy(self->dir, "/tmp/powerpin-charge-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/trace", self->dir);
	memset(&self->g, 0, sizeof(self->g));
	self->g.nr_cpus = 1;
	self->text = self->json = self->html = NULL;
}

FIXTURE_TEARDOWN(charge)
{
	report_free(&self->r);
	free(self->text);
	free(self->json);
	free(self->html);
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Report the generated lines and render every writer into memory. */
static int run(FIXTURE_DATA(charge) *self)
{
	size_t len;
	FILE *f;

	if (gen_write(&self->g, self->path) || report_init(&self->r, NULL))
		return -1;
	if (report_run(&self->r, self->path, self->err, sizeof(self->err)))
		return -1;
	f = open_memstream(&self->text, &len);
	if (!f || report_write_text(&self->r, f) || fclose(f))
		return -1;
	f = open_memstream(&self->json, &len);
	if (!f || report_write_json(&self->r, f) || fclose(f))
		return -1;
	f = open_memstream(&self->html, &len);
	if (!f || report_write_outputs(&self->r, self->path,
				       &(struct report_outputs){ .html = f, .title = "t" },
				       self->err, sizeof(self->err)) || fclose(f))
		return -1;
	return 0;
}

/*
 * 1.5 s at 4 V and 1 A with a MAX17042-like counter of 500 uAh steps: it
 * moves once, at 0.9 s.  One step is 7.2 J; the trapezoid says 6 J.  A
 * "+20%" would be the counter's rounding, not a finding: none is given.
 */
TEST_F(charge, one_step_gives_no_percentage)
{
	int k;

	for (k = 0; k <= 150; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k + 1, 4000000, -1000000,
			    k < 90 ? 2000000 : 1999500, 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_NEAR(6.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(500.0, self->r.charge_resolution_uah, 0);
	EXPECT_NEAR(1.0, self->r.charge_steps, 0);
	EXPECT_NEAR(7.2, self->r.energy_from_charge_j, 1e-9);
	EXPECT_NEAR(7.2, self->r.energy_from_charge_uncertainty_j, 1e-9);
	EXPECT_TRUE(isnan(self->r.discrepancy_pct));
	EXPECT_EQ((int)REPORT_CHARGE_TOO_FEW_STEPS, (int)self->r.charge_note);

	EXPECT_NE(NULL, strstr(self->text,
			       "from charge    7.2000 J +- 7.2000 J (charge counter delta x time-weighted mean voltage)\n"
			       "               counter resolution 500 uAh (smallest step seen), moved 1 step\n"
			       "               no discrepancy: the charge counter moved 1 step of 500 uAh (fewer than 10): too coarse to compare with the trapezoid\n"))
		TH_LOG("%s", self->text);
	EXPECT_EQ(NULL, strstr(self->text, "discrepancy +"));

	EXPECT_NE(NULL, strstr(self->json, "\"energy_from_charge_j\": 7.2,\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"energy_from_charge_uncertainty_j\": 7.2,\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"energy_discrepancy_pct\": null,\n"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"energy_discrepancy_note\": \"the charge counter moved 1 step of 500 uAh (fewer than 10): too coarse to compare with the trapezoid\",\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"charge_counter_resolution_uah\": 500,\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"charge_counter_steps\": 1,\n"));

	EXPECT_NE(NULL, strstr(self->html, "<td>energy from charge</td><td>7.2000 J &plusmn; 7.2000 J</td>"));
	EXPECT_NE(NULL, strstr(self->html, "<td>resolution (smallest step seen)</td><td>500 uAh</td>"));
	EXPECT_NE(NULL, strstr(self->html, "<td>change</td><td>1 step</td>"));
	EXPECT_NE(NULL, strstr(self->html,
			       "<td>discrepancy</td><td>none: the charge counter moved 1 step of 500 uAh (fewer than 10): too coarse to compare with the trapezoid</td>"));
	EXPECT_EQ(NULL, strstr(self->html, "%)"));
}

/* Nine steps: still no percentage; ten: the discrepancy, to the step. */
TEST_F(charge, ten_steps_are_compared)
{
	int k;

	/* 9 steps of 500 uAh over 9 s at 4 V, 0.5 A: 18 J trapezoid, 64.8 J from charge */
	for (k = 0; k <= 900; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k + 1, 4000000, -500000,
			    3000000 - 500 * (k / 100), 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_NEAR(9.0, self->r.charge_steps, 0);
	EXPECT_TRUE(isnan(self->r.discrepancy_pct));
	EXPECT_NE(NULL, strstr(self->text, "moved 9 steps of 500 uAh (fewer than 10)"));
	report_free(&self->r);
	free(self->text);
	free(self->json);
	free(self->html);
	self->text = self->json = self->html = NULL;

	memset(&self->g, 0, sizeof(self->g));
	self->g.nr_cpus = 1;
	/* 10 steps over 10 s: 20 J trapezoid, 72 J +- 7.2 J from charge: +260% */
	for (k = 0; k <= 1000; k++)
		gen_battery(&self->g, T0 + k * 10 * MS, k + 1, 4000000, -500000,
			    3000000 - 500 * (k / 100), 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_NEAR(10.0, self->r.charge_steps, 0);
	EXPECT_NEAR(72.0, self->r.energy_from_charge_j, 1e-9);
	EXPECT_NEAR(7.2, self->r.energy_from_charge_uncertainty_j, 1e-9);
	EXPECT_NEAR(260.0, self->r.discrepancy_pct, 1e-9);
	EXPECT_EQ((int)REPORT_CHARGE_COMPARED, (int)self->r.charge_note);
	EXPECT_NE(NULL, strstr(self->text, "               discrepancy +260.00% against the trapezoid\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"energy_discrepancy_pct\": 260,\n"));
	EXPECT_NE(NULL, strstr(self->json, "\"energy_discrepancy_note\": null,\n"));
	EXPECT_NE(NULL, strstr(self->html, "<td>discrepancy</td><td>+260.00%</td>"));
}

/* The resolution is the smallest step, not the first or the usual one. */
/*
 * No current at all: every format says 0 J, not "-0.0000 J" (the sign is
 * discharge-negative, and -1 * 0 is -0); one sample is "1 sample".
 */
TEST_F(charge, zero_energy_and_one_sample)
{
	int k;

	for (k = 0; k <= 10; k++)
		gen_battery(&self->g, T0 + k * 100 * MS, k + 1, 4000000, 0, 2000000, 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(NULL, strstr(self->html, "-0.0000")) TH_LOG("%s", self->html);
	EXPECT_NE(NULL, strstr(self->html, "11 samples, energy <b>0.0000 J</b>"));
	EXPECT_EQ(NULL, strstr(self->text, "-0.0000")) TH_LOG("%s", self->text);
	report_free(&self->r);
	free(self->text);
	free(self->json);
	free(self->html);
	self->text = self->json = self->html = NULL;

	memset(&self->g, 0, sizeof(self->g));
	self->g.nr_cpus = 1;
	gen_battery(&self->g, T0, 1, 4000000, -1000000, 2000000, 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->text, ", 1 sample (")) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->html, ", 1 sample, energy")) TH_LOG("%s", self->html);
}

TEST_F(charge, resolution_is_the_smallest_step)
{
	static const long long q[] = { 5000000, 4998500, 4997000, 4996500, 4995000, 4993000 };
	int k;

	for (k = 0; k < 6; k++)
		gen_battery(&self->g, T0 + k * 1000 * MS, k + 1, 3700000, -2000000, q[k], 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_NEAR(500.0, self->r.charge_resolution_uah, 0);
	EXPECT_EQ(-7000, self->r.charge_delta_uah);
	EXPECT_NEAR(14.0, self->r.charge_steps, 0);
	EXPECT_NEAR(500 * 3600e-6 * 3.7, self->r.energy_from_charge_uncertainty_j, 1e-12);
}

/* A counter that never moved, or is missing: a note, and no numbers. */
TEST_F(charge, no_movement_no_counter)
{
	int k;

	for (k = 0; k <= 10; k++)
		gen_battery(&self->g, T0 + k * 100 * MS, k + 1, 4000000, -1000000, 2000000, 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_TRUE(isnan(self->r.charge_resolution_uah));
	EXPECT_NE(NULL, strstr(self->json, "\"charge_counter_resolution_uah\": null,"));
	EXPECT_NE(NULL, strstr(self->json, "\"energy_from_charge_uncertainty_j\": null,"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"energy_discrepancy_note\": \"the charge counter did not change (too coarse for this capture)\""));
	EXPECT_NE(NULL, strstr(self->html, "<td>discrepancy</td><td>none: the charge counter did not change"));
	report_free(&self->r);
	free(self->text);
	free(self->json);
	free(self->html);
	self->text = self->json = self->html = NULL;

	memset(&self->g, 0, sizeof(self->g));
	self->g.nr_cpus = 1;
	for (k = 0; k <= 10; k++)
		gen_add(&self->g, T0 + k * 100 * MS,
			"        powerpin-77      (     77) [000] ..... %llu.%09llu: battery: seq=%d voltage_uv=4000000 current_ua=-1000000 flags=0x0\n",
			GEN_TS(T0 + k * 100 * MS), k + 1);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	EXPECT_EQ((int)REPORT_CHARGE_NO_COUNTER, (int)self->r.charge_note);
	EXPECT_NE(NULL, strstr(self->text, "from charge    n/a: no charge counter in the input\n"));
}

/*
 * Counter values at the ends of int64: a step past int64 is a jump, never
 * wrapped arithmetic (which printed -1.2e17 J), and every figure stays sane.
 */
TEST_F(charge, extreme_values_do_not_overflow)
{
	static const long long q[] = {
		9223372036854775807LL, -9223372036854775807LL - 1, 9223372036854775807LL,
		-9223372036854775807LL - 1, 9223372036854775000LL, 9223372036854774500LL,
	};
	int k;

	for (k = 0; k < 6; k++)
		gen_battery(&self->g, T0 + k * 100 * MS, k + 1, 4000000, -1000000, q[k], 0);
	ASSERT_EQ(0, run(self)) TH_LOG("%s", self->err);
	/* the first four steps are past int64: jumps; the last, 500 uAh, is real */
	EXPECT_EQ(4U, self->r.charge_jumps);
	EXPECT_EQ(-500, self->r.charge_delta_uah);
	EXPECT_NEAR(500 * 3600e-6 * 4.0, self->r.energy_from_charge_j, 1e-9);
	EXPECT_EQ(NULL, strstr(self->text, "e+"));
	EXPECT_EQ(NULL, strstr(self->json, "e+"));
}

/* A number past int64 in the text itself is refused with its line. */
TEST_F(charge, value_past_int64_is_refused_with_its_line)
{
	gen_battery(&self->g, T0, 1, 4000000, -1000000, 1000, 0);
	gen_add(&self->g, T0 + 100 * MS,
		"        powerpin-77      (     77) [000] ..... 100.100000000: battery: seq=2 voltage_uv=4000000 current_ua=-1000000 charge_uah=9223372036854775808 flags=0x0\n");
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_init(&self->r, NULL));
	EXPECT_EQ(-1, report_run(&self->r, self->path, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "trace:6: a power or counter value past 64 bits"))
		TH_LOG("%s", self->err);
}

TEST_HARNESS_MAIN
