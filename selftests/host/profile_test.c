// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile's pieces on the host: the least-squares fit and its 95 %
 * intervals on data with known coefficients, the topology and plan read
 * from a fake sysfs with two cpufreq policies, pinning and restoring those
 * policies, the capture reader, the exact power_profile.xml, --dry-run,
 * and one line and exit status 2 for each bad option.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "profile/profile.h"
#include "report_gen.h"

#define POWERPIN	"build/bin/powerpin"

/* Deterministic standard normal deviates (xorshift64 + Box-Muller). */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u1 = ((*s >> 11) + 1.0) / 9007199254740993.0;
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u2 = (*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Rows of [1, cluster busy?, busy CPUs] as a 2-CPU calibration gives them. */
static void design(double *x, int n)
{
	static const double busy[] = { 0.02, 0.97, 1.95, 0.03, 0.99, 1.9 };
	int i;

	for (i = 0; i < n; i++) {
		x[i * 3] = 1;
		x[i * 3 + 1] = i % 6 != 0 && i % 6 != 3;
		x[i * 3 + 2] = busy[i % 6] + 0.01 * (i / 6);
	}
}

TEST(lsq_exact_data_gives_exact_coefficients)
{
	const double truth[3] = { -120000, 5000, -390000 };
	double x[12 * 3], y[12];
	struct profile_fit f;
	int i, bad;

	design(x, 12);
	for (i = 0; i < 12; i++)
		y[i] = truth[0] + truth[1] * x[i * 3 + 1] + truth[2] * x[i * 3 + 2];
	ASSERT_EQ(0, profile_lsq(x, y, 12, 3, &f, &bad));
	EXPECT_EQ(9, f.dof);
	for (i = 0; i < 3; i++)
		EXPECT_NEAR(truth[i], f.coef[i], 1e-6);
	EXPECT_NEAR(0, f.rss, 1e-9);
	EXPECT_NEAR(0, f.max_residual, 1e-6);
	profile_fit_free(&f);
}

/* A straight line: the textbook slope, intercept and standard errors. */
TEST(lsq_line_matches_closed_form)
{
	const double xs[5] = { 1, 2, 3, 4, 5 }, ys[5] = { 2.1, 3.9, 6.2, 7.8, 10.1 };
	double x[10], sxx = 10, b, a, s2, rss = 0;
	struct profile_fit f;
	int i, bad;

	for (i = 0; i < 5; i++)
		x[2 * i] = 1, x[2 * i + 1] = xs[i];
	b = (1 * -3.9 * 2 + 2 * -1.95 + 0 + 1 * 1.75 + 2 * 4.05) / sxx;	/* Sxy / Sxx, mean y 6.02 */
	b = 0;
	for (i = 0; i < 5; i++)
		b += (xs[i] - 3) * (ys[i] - 6.02);
	b /= sxx;
	a = 6.02 - b * 3;
	for (i = 0; i < 5; i++)
		rss += pow(ys[i] - a - b * xs[i], 2);
	s2 = rss / 3;
	ASSERT_EQ(0, profile_lsq(x, ys, 5, 2, &f, &bad));
	EXPECT_NEAR(a, f.coef[0], 1e-9);
	EXPECT_NEAR(b, f.coef[1], 1e-9);
	EXPECT_NEAR(rss, f.rss, 1e-9);
	EXPECT_NEAR(sqrt(s2 / sxx), f.se[1], 1e-9);
	EXPECT_NEAR(sqrt(s2 * (1.0 / 5 + 9 / sxx)), f.se[0], 1e-9);
	EXPECT_NEAR(3.1824 * f.se[1], f.ci95[1], 1e-9);
	EXPECT_NEAR(sqrt(rss / 3), f.residual_rms, 1e-9);
	profile_fit_free(&f);
}

/*
 * The intervals hold what they claim: over 4000 noisy fits with 3 degrees
 * of freedom, about 95 % of the intervals cover the true coefficient (a
 * normal quantile instead of Student's t would cover only about 86 %).
 */
TEST(lsq_intervals_cover_95_percent)
{
	const double truth[3] = { -120000, 5000, -390000 };
	int trial, i, j, bad, cover[3] = { 0 }, trials = 4000;
	double x[6 * 3], y[6];
	uint64_t seed = 42;
	struct profile_fit f;

	design(x, 6);
	for (trial = 0; trial < trials; trial++) {
		for (i = 0; i < 6; i++)
			y[i] = truth[0] + truth[1] * x[i * 3 + 1] + truth[2] * x[i * 3 + 2] +
			       2000 * gauss(&seed);
		ASSERT_EQ(0, profile_lsq(x, y, 6, 3, &f, &bad));
		for (j = 0; j < 3; j++)
			cover[j] += fabs(f.coef[j] - truth[j]) <= f.ci95[j];
		profile_fit_free(&f);
	}
	for (j = 0; j < 3; j++) {
		TH_LOG("coefficient %d: %.1f %% covered", j, 100.0 * cover[j] / trials);
		EXPECT_GE(cover[j], trials * 0.93);
		EXPECT_LE(cover[j], trials * 0.97);
	}
}

TEST(lsq_refuses_dependent_columns_and_too_few_rows)
{
	double x[6 * 3], y[6] = { 1, 2, 3, 4, 5, 6 };
	struct profile_fit f;
	int i, bad;

	for (i = 0; i < 6; i++)
		x[i * 3] = 1, x[i * 3 + 1] = i, x[i * 3 + 2] = 2 * i + 1;
	EXPECT_EQ(-1, profile_lsq(x, y, 6, 3, &f, &bad));
	EXPECT_EQ(EDOM, errno);
	EXPECT_EQ(2, bad);
	EXPECT_EQ(-1, profile_lsq(x, y, 2, 3, &f, &bad));
	EXPECT_EQ(EDOM, errno);
	/* as many rows as terms: exact, no interval */
	x[2] = 5;
	ASSERT_EQ(0, profile_lsq(x, y, 3, 3, &f, &bad));
	EXPECT_EQ(0, f.dof);
	EXPECT_TRUE(isnan(f.ci95[0]));
	profile_fit_free(&f);
}

TEST(t_quantiles)
{
	EXPECT_NEAR(12.7062, profile_t95(1), 1e-4);
	EXPECT_NEAR(2.0423, profile_t95(30), 1e-4);
	EXPECT_NEAR(2.0395, profile_t95(31), 2e-4);
	EXPECT_NEAR(2.0211, profile_t95(40), 2e-4);
	EXPECT_NEAR(1.9799, profile_t95(120), 2e-4);
	EXPECT_NEAR(1.9623, profile_t95(1000), 2e-4);
	EXPECT_TRUE(isnan(profile_t95(0)));
}

/* ---- a fake sysfs with two policies ------------------------------------- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s)", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static char *get(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (read_line(path, buf, len))
		return "(missing)";
	return buf;
}

#define CPUFREQ "sys/devices/system/cpu/cpufreq/"

FIXTURE(sysfs) {
	char root[64];
	struct profile_topology t;
};

FIXTURE_SETUP(sysfs)
{
	strcpy(self->root, "/tmp/ppsysfs.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	put(self->root, "sys/devices/system/cpu/online", "0-2\n");
	/* a policy with the userspace governor; frequencies out of order */
	put(self->root, CPUFREQ "policy0/related_cpus", "0 1\n");
	put(self->root, CPUFREQ "policy0/scaling_available_frequencies", "600000 300000 \n");
	put(self->root, CPUFREQ "policy0/scaling_available_governors", "performance userspace schedutil\n");
	put(self->root, CPUFREQ "policy0/scaling_governor", "schedutil\n");
	put(self->root, CPUFREQ "policy0/scaling_min_freq", "300000\n");
	put(self->root, CPUFREQ "policy0/scaling_max_freq", "600000\n");
	put(self->root, CPUFREQ "policy0/scaling_setspeed", "<unsupported>\n");
	/* one without: pinned through min = max; CPU 3 is offline */
	put(self->root, CPUFREQ "policy2/related_cpus", "2-3\n");
	put(self->root, CPUFREQ "policy2/scaling_available_frequencies", "1000000 2000000\n");
	put(self->root, CPUFREQ "policy2/scaling_available_governors", "performance schedutil\n");
	put(self->root, CPUFREQ "policy2/scaling_governor", "performance\n");
	put(self->root, CPUFREQ "policy2/scaling_min_freq", "1000000\n");
	put(self->root, CPUFREQ "policy2/scaling_max_freq", "2000000\n");
	put(self->root, "sys/class/power_supply/bat/charge_full", "3000000\n");
	ASSERT_EQ(0, profile_topology_read(self->root, &self->t));
}

FIXTURE_TEARDOWN(sysfs)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);
	system(cmd);
}

TEST_F(sysfs, topology)
{
	const struct profile_topology *t = &self->t;

	EXPECT_EQ(3, t->ncpus);
	EXPECT_TRUE(t->cpufreq);
	ASSERT_EQ(2, t->nclusters);
	EXPECT_STREQ("policy0", t->cluster[0].policy);
	EXPECT_EQ(2, t->cluster[0].ncpus);
	EXPECT_EQ(2, t->cluster[0].nfreqs);
	EXPECT_EQ(300000, (int)t->cluster[0].freqs_khz[0]);
	EXPECT_EQ(600000, (int)t->cluster[0].freqs_khz[1]);
	/* as Android counts them: the file's order; and every related CPU */
	ASSERT_EQ(2, t->cluster[0].nandroid);
	EXPECT_EQ(1, t->cluster[0].android_freq[0]);
	EXPECT_EQ(0, t->cluster[0].android_freq[1]);
	EXPECT_EQ(2, t->cluster[1].nrelated);
	EXPECT_EQ(2, t->cluster[1].first_related);
	EXPECT_TRUE(t->cluster[0].userspace);
	EXPECT_STREQ("policy2", t->cluster[1].policy);
	EXPECT_EQ(1, t->cluster[1].ncpus);
	EXPECT_EQ(2, t->cluster[1].cpus[0]);
	EXPECT_FALSE(t->cluster[1].userspace);
	EXPECT_NEAR(3000, profile_capacity_mah(self->root, "bat"), 1e-9);
	EXPECT_EQ(-1, profile_capacity_mah(self->root, "nothere"));
}

/*
 * A 4.4-era tree has both layouts: cpufreq/policyN, and cpuN/cpufreq as a
 * link to its policy.  The policies are read once each, as policyN.
 */
TEST_F(sysfs, both_layouts_read_once)
{
	struct profile_topology t;
	char cmd[512];
	int cpu;

	for (cpu = 0; cpu < 3; cpu++) {
		snprintf(cmd, sizeof(cmd), "ln -s ../cpufreq/policy%d %s/sys/devices/system/cpu/cpu%d/cpufreq",
			 cpu < 2 ? 0 : 2, self->root, cpu);
		ASSERT_EQ(0, sh("mkdir -p %s/sys/devices/system/cpu/cpu%d && %s", self->root, cpu, cmd));
	}
	ASSERT_EQ(0, profile_topology_read(self->root, &t));
	ASSERT_EQ(2, t.nclusters);
	EXPECT_STREQ("policy0", t.cluster[0].policy);
	EXPECT_EQ(2, t.cluster[0].ncpus);
	EXPECT_STREQ("policy2", t.cluster[1].policy);
	EXPECT_EQ(1, t.cluster[1].ncpus);
	EXPECT_EQ(3, t.ncpus);
}

TEST_F(sysfs, plan_and_dry_run_text)
{
	struct profile_plan plan;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	ASSERT_EQ(0, profile_plan_build(&self->t, 2, 4, 1, &plan));
	/* per round: idle, cluster 0 at 2 speeds x 1..2 CPUs, cluster 1 at 2 x 1 */
	ASSERT_EQ(14, plan.nsteps);
	EXPECT_EQ(1, profile_step_cpu(&self->t, &plan.steps[7 + 1], 0));
	EXPECT_EQ(0, profile_step_freq(&plan.steps[6], 0));
	EXPECT_EQ(1, profile_step_freq(&plan.steps[6], 1));
	f = open_memstream(&text, &size);
	profile_plan_print(f, &self->t, &plan);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "cluster 0: 2 CPUs, policy0, 2 frequencies, pinned by the userspace governor\n"));
	EXPECT_NE(NULL, strstr(text, "cluster 1: 1 CPU, policy2, 2 frequencies, pinned by scaling_min_freq = scaling_max_freq\n"));
	EXPECT_NE(NULL, strstr(text, "step 5/14: 2 CPUs (0,1) busy, cluster 0 at 600000 kHz, 4.0 s\n"));
	EXPECT_NE(NULL, strstr(text, "step 10/14: 2 CPUs (1,0) busy, cluster 0 at 300000 kHz, 4.0 s\n"));
	EXPECT_NE(NULL, strstr(text, "step 14/14: 1 CPU (2) busy, cluster 1 at 2000000 kHz, 4.0 s\n"));
	EXPECT_NE(NULL, strstr(text, "total: 14 steps of 4.0 s (the first 1.0 s of each discarded): 56 s\n"));
	free(text);
	profile_plan_free(&plan);
}

TEST_F(sysfs, pin_and_restore)
{
	struct profile_freq_saved *saved = profile_freq_save(self->root, &self->t);
	char buf[64];

	ASSERT_NE(NULL, saved);
	ASSERT_EQ(0, profile_freq_set(self->root, &self->t, 0, 1));
	EXPECT_STREQ("userspace", get(self->root, CPUFREQ "policy0/scaling_governor", buf, sizeof(buf)));
	EXPECT_STREQ("600000", get(self->root, CPUFREQ "policy0/scaling_setspeed", buf, sizeof(buf)));
	ASSERT_EQ(0, profile_freq_set(self->root, &self->t, 1, 0));
	EXPECT_STREQ("performance", get(self->root, CPUFREQ "policy2/scaling_governor", buf, sizeof(buf)));
	EXPECT_STREQ("1000000", get(self->root, CPUFREQ "policy2/scaling_min_freq", buf, sizeof(buf)));
	EXPECT_STREQ("1000000", get(self->root, CPUFREQ "policy2/scaling_max_freq", buf, sizeof(buf)));
	ASSERT_EQ(0, profile_freq_restore(self->root, saved));
	profile_freq_free(saved);
	EXPECT_STREQ("schedutil", get(self->root, CPUFREQ "policy0/scaling_governor", buf, sizeof(buf)));
	EXPECT_STREQ("300000", get(self->root, CPUFREQ "policy0/scaling_min_freq", buf, sizeof(buf)));
	EXPECT_STREQ("600000", get(self->root, CPUFREQ "policy0/scaling_max_freq", buf, sizeof(buf)));
	EXPECT_STREQ("1000000", get(self->root, CPUFREQ "policy2/scaling_min_freq", buf, sizeof(buf)));
	EXPECT_STREQ("2000000", get(self->root, CPUFREQ "policy2/scaling_max_freq", buf, sizeof(buf)));
}

/*
 * The whole model on the fake topology: steps measured from known per-
 * frequency currents come back as those currents, and the XML is exact.
 */
static const double want_ma[] = { 80, 12, 100, 220, 350, 700 };	/* idle, cl0, core0 x2, core1 x2 */

static void fake_measure(const struct profile_topology *t, const struct profile_plan *plan,
			 struct profile_measure *m, const struct profile_column *cols, int ncols)
{
	double row[PROFILE_MAX_COLUMNS];
	int i, j;

	for (i = 0; i < plan->nsteps; i++) {
		const struct profile_step *s = &plan->steps[i];

		memset(&m[i], 0, sizeof(m[i]));
		m[i].busy[0] = 0.01 * (i % 3);
		if (s->cluster >= 0)
			m[i].busy[s->cluster] += s->nbusy * (0.95 + 0.01 * (i % 4));
		m[i].samples = 20;
		m[i].fresh = 11;
		profile_design_row(cols, ncols, s, &m[i], row);
		for (j = 0; j < ncols; j++)
			m[i].current_ua -= row[j] * want_ma[j] * 1000;
	}
}

static const char want_xml[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<!-- Measured by powerpin profile from the fuel gauge of bat: currents in mA. -->\n"
	"<device name=\"Android\">\n"
	"  <item name=\"battery.capacity\">3000</item>\n"
	"  <item name=\"cpu.idle\">80.0</item>\n"
	"  <array name=\"cpu.clusters.cores\">\n"
	"    <value>2</value>\n"
	"    <value>2</value>\n"
	"  </array>\n"
	"  <!-- cpu.clusters.cores counts every CPU of related_cpus; 1 of them were offline, not measured: "
	"cluster 1 (policy2) 1 of 2 online -->\n"
	"  <item name=\"cpu.cluster_power.cluster0\">12.0</item>\n"
	"  <array name=\"cpu.core_speeds.cluster0\">\n"
	"    <value>600000</value>\n"
	"    <value>300000</value>\n"
	"  </array>\n"
	"  <array name=\"cpu.core_power.cluster0\">\n"
	"    <value>220.0</value>\n"
	"    <value>100.0</value>\n"
	"  </array>\n"
	"  <item name=\"cpu.cluster_power.cluster1\">0.0</item>\n"
	"  <array name=\"cpu.core_speeds.cluster1\">\n"
	"    <value>1000000</value>\n"
	"    <value>2000000</value>\n"
	"  </array>\n"
	"  <array name=\"cpu.core_power.cluster1\">\n"
	"    <value>350.0</value>\n"
	"    <value>700.0</value>\n"
	"  </array>\n"
	"</device>\n";

TEST_F(sysfs, fit_and_xml)
{
	struct profile_column cols[PROFILE_MAX_COLUMNS];
	struct profile_measure m[14];
	struct profile_plan plan;
	struct profile_fit fit;
	double x[14 * 6], y[14];
	char *text = NULL;
	size_t size = 0;
	int ncols, i, bad;
	FILE *f;

	ASSERT_EQ(0, profile_plan_build(&self->t, 2, 4, 1, &plan));
	ncols = profile_columns(&self->t, cols);
	ASSERT_EQ(6, ncols);
	fake_measure(&self->t, &plan, m, cols, ncols);
	for (i = 0; i < 14; i++) {
		profile_design_row(cols, ncols, &plan.steps[i], &m[i], x + i * 6);
		y[i] = m[i].current_ua;
	}
	ASSERT_EQ(0, profile_lsq(x, y, 14, 6, &fit, &bad));
	struct profile_result r = {
		.topo = &self->t, .plan = &plan, .measures = m, .cols = cols, .ncols = ncols,
		.fit = &fit, .sign = -1, .capacity_mah = 3000, .supply = "bat",
	};
	for (i = 0; i < ncols; i++)
		EXPECT_NEAR(want_ma[i], profile_coef_ma(&r, i), 1e-6);
	f = open_memstream(&text, &size);
	profile_write_xml(f, &r);
	fclose(f);
	EXPECT_STREQ(want_xml, text);
	free(text);
	f = open_memstream(&text, &size);
	profile_write_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "{\"name\": \"cpu.core_power.cluster1[1]\", \"value_ma\": 700.0000, \"ci95_ma\": 0.0000}"));
	EXPECT_NE(NULL, strstr(text, "\"dof\": 8"));
	free(text);
	profile_fit_free(&fit);
	profile_plan_free(&plan);
}

/* Fit @m of @plan into @fit and @r (the caller's result) */
static int fit_result(const struct profile_plan *plan, struct profile_measure *m,
		      const struct profile_column *cols, int ncols, struct profile_fit *fit)
{
	double x[14 * 6], y[14];
	int i, bad;

	for (i = 0; i < plan->nsteps; i++) {
		profile_design_row(cols, ncols, &plan->steps[i], &m[i], x + i * ncols);
		y[i] = m[i].current_ua;
	}
	return profile_lsq(x, y, plan->nsteps, ncols, fit, &bad);
}

/*
 * A clean calibration re-measures nothing; a step disturbed by 60 mA is
 * the one the residual names, a step whose samples wander is named by its
 * spread, and the JSON says what the first measurement was.
 */
TEST_F(sysfs, out_of_bounds_steps_are_measured_again)
{
	struct profile_column cols[PROFILE_MAX_COLUMNS];
	struct profile_recheck rc[14] = { 0 };
	struct profile_measure m[14];
	struct profile_plan plan;
	struct profile_fit fit;
	unsigned int why[14];
	char *text = NULL;
	size_t size = 0;
	int ncols, i, worst = 0;
	FILE *f;

	ASSERT_EQ(0, profile_plan_build(&self->t, 2, 4, 1, &plan));
	ncols = profile_columns(&self->t, cols);
	fake_measure(&self->t, &plan, m, cols, ncols);
	ASSERT_EQ(0, fit_result(&plan, m, cols, ncols, &fit));
	struct profile_result r = {
		.topo = &self->t, .plan = &plan, .measures = m, .cols = cols, .ncols = ncols,
		.fit = &fit, .sign = -1, .capacity_mah = 3000, .supply = "bat",
	};
	EXPECT_EQ(0, profile_steps_to_remeasure(&r, why));
	profile_fit_free(&fit);

	m[3].current_ua -= 60000;	/* 60 mA more discharge in step 4 */
	m[9].spread_ua = 1000 * (PROFILE_MAX_SPREAD_MA + 1);
	ASSERT_EQ(0, fit_result(&plan, m, cols, ncols, &fit));
	EXPECT_LT(PROFILE_MAX_RESIDUAL_MA, fit.residual_rms / 1000);
	EXPECT_LE(2, profile_steps_to_remeasure(&r, why));
	for (i = 0; i < 14; i++)
		if (fabs(profile_step_residual_ma(&r, i)) > fabs(profile_step_residual_ma(&r, worst)))
			worst = i;
	EXPECT_EQ(3, worst);
	EXPECT_LT(0, profile_step_residual_ma(&r, 3));
	EXPECT_NE(0, (int)(why[3] & PROFILE_RECHECK_RESIDUAL));
	EXPECT_NE(0, (int)(why[9] & PROFILE_RECHECK_SPREAD));
	/* only the wandering step is named for its spread */
	for (i = 0; i < 14; i++)
		if (i != 9)
			EXPECT_EQ(0, (int)(why[i] & PROFILE_RECHECK_SPREAD)) TH_LOG("step %d", i + 1);

	rc[3] = (struct profile_recheck){ PROFILE_RECHECK_RESIDUAL, 123.4, 56.7, 1.5 };
	r.rechecks = rc;
	r.first_residual_rms_ma = 21.5;
	f = open_memstream(&text, &size);
	profile_write_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "\"remeasured\": {\"why\": \"residual\", \"first_current_ma\": 123.4000, "
			       "\"first_residual_ma\": 56.7000, \"first_spread_ma\": 1.5000}}")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"remeasured_steps\": 1, \"first_residual_rms_ma\": 21.5000"));
	EXPECT_NE(NULL, strstr(text, "\"max_residual_bound_ma\": 10.0, \"max_spread_bound_ma\": 50.0"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	profile_write_table(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "re-measured (first fit: 21.50 mA rms; bounds 10 mA residual, 50 mA spread):\n"
			       "  step 4: first 123.4 mA, residual +56.7 mA, spread 1.5 mA\n")) TH_LOG("%s", text);
	free(text);
	profile_fit_free(&fit);
	profile_plan_free(&plan);
}

/* ---- cpufreq as Linux 3.10 and 3.18 lay it out -------------------------- */

/*
 * No cpufreq/policyN before Linux 4.3: each CPU's policy is at
 * cpuN/cpufreq (on the policy's other CPUs a link to the same directory;
 * here a copy).  A 3.18-shaped tree: CPUs 0-1 share a policy, CPU 2 has
 * its own with the userspace governor, CPU 3 is offline (its directory
 * gone, as 3.10 removes it).
 */
static void old_policy(const char *root, int cpu, const char *related, const char *freqs,
		       const char *governors)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/related_cpus", cpu);
	put(root, rel, related);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_frequencies", cpu);
	put(root, rel, freqs);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors", cpu);
	put(root, rel, governors);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	put(root, rel, "interactive\n");
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_min_freq", cpu);
	put(root, rel, "300000\n");
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", cpu);
	put(root, rel, "2649600\n");
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_setspeed", cpu);
	put(root, rel, "<unsupported>\n");
}

TEST(cpufreq_in_the_3_10_layout)
{
	char root[] = "/tmp/ppsys310.XXXXXX", cmd[128], buf[64];
	struct profile_freq_saved *saved;
	struct profile_topology t;

	ASSERT_NE(NULL, mkdtemp(root));
	put(root, "sys/devices/system/cpu/online", "0-2\n");
	old_policy(root, 0, "0 1\n", "300000 422400 652800 \n", "interactive performance\n");
	old_policy(root, 1, "0 1\n", "300000 422400 652800 \n", "interactive performance\n");
	old_policy(root, 2, "2\n", "300000 2649600\n", "interactive userspace\n");
	ASSERT_EQ(0, profile_topology_read(root, &t));
	EXPECT_EQ(3, t.ncpus);
	EXPECT_TRUE(t.cpufreq);
	ASSERT_EQ(2, t.nclusters);
	EXPECT_STREQ("cpu0", t.cluster[0].policy);
	EXPECT_EQ(2, t.cluster[0].ncpus);
	EXPECT_EQ(1, t.cluster[0].cpus[1]);
	ASSERT_EQ(3, t.cluster[0].nfreqs);
	EXPECT_EQ(652800, (int)t.cluster[0].freqs_khz[2]);
	EXPECT_FALSE(t.cluster[0].userspace);
	EXPECT_STREQ("cpu2", t.cluster[1].policy);
	EXPECT_EQ(2, t.cluster[1].cpus[0]);
	EXPECT_TRUE(t.cluster[1].userspace);
	/* pinned and put back through cpuN/cpufreq */
	saved = profile_freq_save(root, &t);
	ASSERT_NE(NULL, saved);
	ASSERT_EQ(0, profile_freq_set(root, &t, 0, 1));
	EXPECT_STREQ("422400", get(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq", buf, sizeof(buf)));
	EXPECT_STREQ("422400", get(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", buf, sizeof(buf)));
	ASSERT_EQ(0, profile_freq_set(root, &t, 1, 1));
	EXPECT_STREQ("userspace", get(root, "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", buf, sizeof(buf)));
	EXPECT_STREQ("2649600", get(root, "sys/devices/system/cpu/cpu2/cpufreq/scaling_setspeed", buf, sizeof(buf)));
	ASSERT_EQ(0, profile_freq_restore(root, saved));
	profile_freq_free(saved);
	EXPECT_STREQ("300000", get(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq", buf, sizeof(buf)));
	EXPECT_STREQ("2649600", get(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", buf, sizeof(buf)));
	EXPECT_STREQ("interactive", get(root, "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", buf, sizeof(buf)));
	/* the command on the same tree, Android 7.1's build.prop beside it */
	if (!access(POWERPIN, X_OK)) {
		char out[16384], line[512];

		put(root, "system/build.prop", "ro.build.version.release=7.1.1\nro.build.version.sdk=25\n");
		snprintf(line, sizeof(line), "POWERPIN_PROFILE_SYSROOT=%s " POWERPIN
			 " profile --dry-run --steps 1 -d 3 2>&1", root);
		ASSERT_EQ(0, run_cmd(line, out, sizeof(out))) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "cluster 0: 2 CPUs, cpu0, 3 frequencies, pinned by scaling_min_freq = scaling_max_freq\n")) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "cluster 1: 1 CPU, cpu2, 2 frequencies, pinned by the userspace governor\n"));
		EXPECT_NE(NULL, strstr(out, "writes power_profile.xml with the keys of Android 6.0 to 8.1 (SDK 23-27)\n"));
		/* 5.1's keys have one cluster: refused before anything runs */
		put(root, "system/build.prop", "ro.build.version.sdk=22\n");
		EXPECT_EQ(1, run_cmd(line, out, sizeof(out)));
		EXPECT_STREQ("powerpin profile: the power_profile.xml of Android 5.1 and earlier (SDK 22 and below) "
			     "has one CPU cluster; this device has 2 with different speeds (use --format 6 or later)\n", out);
		put(root, "system/build.prop", "ro.build.version.sdk=\n");
		EXPECT_EQ(1, run_cmd(line, out, sizeof(out)));
		EXPECT_STREQ("powerpin profile: cannot read ro.build.version.sdk from /system/build.prop: "
			     "Invalid argument (choose with --format)\n", out);
		strcat(line, " --format 14");
		ASSERT_EQ(0, run_cmd(line, out, sizeof(out))) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "writes power_profile.xml with the keys of Android 14 and later (SDK 34 and above)\n"));
	}
	/* a CPU without cpufreq is left out; none at all: one speed */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/system/cpu/cpu2/cpufreq", root);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, profile_topology_read(root, &t));
	EXPECT_EQ(1, t.nclusters);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/system/cpu/cpu[01]/cpufreq", root);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, profile_topology_read(root, &t));
	EXPECT_FALSE(t.cpufreq);
	EXPECT_EQ(3, t.cluster[0].ncpus);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	system(cmd);
}

/* ---- the XML of each Android version ------------------------------------ */

/* The fit of the fake calibration, written as @format into a malloc'ed string. */
static char *xml_as(const struct profile_topology *t, enum profile_xml_format format)
{
	static struct profile_column cols[PROFILE_MAX_COLUMNS];
	struct profile_measure m[14];
	struct profile_plan plan;
	struct profile_fit fit;
	char *text = NULL;
	size_t size = 0;
	int ncols;
	FILE *f;

	if (profile_plan_build(t, 2, 4, 1, &plan) || plan.nsteps > 14)
		return NULL;
	ncols = profile_columns(t, cols);
	fake_measure(t, &plan, m, cols, ncols);
	if (fit_result(&plan, m, cols, ncols, &fit))
		return NULL;
	struct profile_result r = {
		.topo = t, .plan = &plan, .measures = m, .cols = cols, .ncols = ncols,
		.fit = &fit, .sign = -1, .capacity_mah = 3000, .supply = "bat", .format = format,
	};
	f = open_memstream(&text, &size);
	profile_write_xml(f, &r);
	fclose(f);
	profile_fit_free(&fit);
	profile_plan_free(&plan);
	return text;
}

/*
 * Android 6.0 to 8.1 (PowerProfile of M-O): cpu.speeds.clusterN and
 * cpu.active.clusterN, no cluster term (a core alone: core + cluster),
 * cpu.awake for the awake-idle current, cpu.idle (suspend) left out.
 */
TEST_F(sysfs, xml_for_android_6_to_8)
{
	char *text = xml_as(&self->t, PROFILE_XML_6);

	ASSERT_NE(NULL, text);
	EXPECT_STREQ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		"<!-- Measured by powerpin profile from the fuel gauge of bat: currents in mA. "
		"Keys of Android 6.0 to 8.1 (SDK 23-27). -->\n"
		"<device name=\"Android\">\n"
		"  <item name=\"battery.capacity\">3000</item>\n"
		"  <!-- cpu.idle (suspend before Android 9) is not measured: keep the device's -->\n"
		"  <item name=\"cpu.awake\">80.0</item>\n"
		"  <array name=\"cpu.clusters.cores\">\n    <value>2</value>\n    <value>2</value>\n  </array>\n"
		"  <!-- cpu.clusters.cores counts every CPU of related_cpus; 1 of them were offline, not measured: "
		"cluster 1 (policy2) 1 of 2 online -->\n"
		"  <array name=\"cpu.speeds.cluster0\">\n    <value>600000</value>\n    <value>300000</value>\n  </array>\n"
		"  <array name=\"cpu.active.cluster0\">\n    <value>232.0</value>\n    <value>112.0</value>\n  </array>\n"
		"  <array name=\"cpu.speeds.cluster1\">\n    <value>1000000</value>\n    <value>2000000</value>\n  </array>\n"
		"  <array name=\"cpu.active.cluster1\">\n    <value>350.0</value>\n    <value>700.0</value>\n  </array>\n"
		"</device>\n", text);
	free(text);
}

/* Android 14+: 9's keys and the scaling policy's, keyed by policy number. */
TEST_F(sysfs, xml_for_android_14)
{
	char *text = xml_as(&self->t, PROFILE_XML_14), *nine = xml_as(&self->t, PROFILE_XML_9);

	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, nine);
	EXPECT_NE(NULL, strstr(text, "  <item name=\"cpu.cluster_power.cluster0\">12.0</item>\n"));
	EXPECT_NE(NULL, strstr(text, "  <item name=\"cpu.scaling_policy_power.policy0\">12.0</item>\n"
			       "  <array name=\"cpu.scaling_step_power.policy0\">\n"
			       "    <value>220.0</value>\n    <value>100.0</value>\n  </array>\n"));
	EXPECT_NE(NULL, strstr(text, "  <item name=\"cpu.scaling_policy_power.policy2\">0.0</item>\n"
			       "  <array name=\"cpu.scaling_step_power.policy2\">\n"
			       "    <value>350.0</value>\n    <value>700.0</value>\n  </array>\n"));
	/* 9 to 13: what the command wrote before, with the version named */
	EXPECT_EQ(NULL, strstr(nine, "scaling"));
	EXPECT_NE(NULL, strstr(nine, "Keys of Android 9 to 13 (SDK 28-33). -->\n"));
	EXPECT_STREQ(strstr(want_xml, "<device"), strstr(nine, "<device"));
	free(text);
	free(nine);
}

/* Android 5.1 and earlier: one cluster, cpu.speeds and cpu.active. */
TEST_F(sysfs, xml_for_android_5)
{
	struct profile_topology one = self->t;
	char err[256], *text;

	EXPECT_EQ(-1, profile_format_check(&self->t, PROFILE_XML_5, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "has one CPU cluster; this device has 2 with different speeds (use --format 6 or later)"));
	EXPECT_EQ(0, profile_format_check(&self->t, PROFILE_XML_6, err, sizeof(err)));
	one.nclusters = 1;
	ASSERT_EQ(0, profile_format_check(&one, PROFILE_XML_5, err, sizeof(err)));
	text = xml_as(&one, PROFILE_XML_5);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "<device name=\"Android\">\n"
			       "  <item name=\"battery.capacity\">3000</item>\n"
			       "  <!-- cpu.idle (suspend before Android 9) is not measured: keep the device's -->\n"
			       "  <item name=\"cpu.awake\">80.0</item>\n"
			       "  <array name=\"cpu.speeds\">\n    <value>600000</value>\n    <value>300000</value>\n  </array>\n"
			       "  <array name=\"cpu.active\">\n    <value>232.0</value>\n    <value>112.0</value>\n  </array>\n"
			       "</device>\n")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "clusters"));
	free(text);
}

/* The numbers of the <value> lines of array @name in @xml, into @v; how many. */
static int xml_array(const char *xml, const char *name, double *v, int max)
{
	char open[128];
	const char *p, *end;
	int n = 0;

	snprintf(open, sizeof(open), "<array name=\"%s\">", name);
	p = strstr(xml, open);
	if (!p)
		return 0;
	end = strstr(p, "</array>");
	while (n < max && (p = strstr(p, "<value>")) && p < end) {
		p += strlen("<value>");
		v[n++] = strtod(p, NULL);
	}
	return n;
}

/*
 * The Nexus 6: a cpufreq policy per Krait core (Linux 3.10's cpuN/cpufreq),
 * one speed table.  Android 5's one cpu.speeds list describes them: each
 * speed's cpu.active is the mean of the cores' own (what Android 6's
 * cpu.active.clusterN says per core).  Tables that differ are refused.
 */
TEST(android_5_with_a_policy_per_core)
{
	char root[] = "/tmp/ppsysn6.XXXXXX", err[256], *five, *six;
	double a5[8], a6[2][8];
	struct profile_topology t;
	int n, i;

	ASSERT_NE(NULL, mkdtemp(root));
	put(root, "sys/devices/system/cpu/online", "0-1\n");
	old_policy(root, 0, "0\n", "300000 652800\n", "interactive performance\n");
	old_policy(root, 1, "1\n", "300000 652800\n", "interactive performance\n");
	ASSERT_EQ(0, profile_topology_read(root, &t));
	ASSERT_EQ(2, t.nclusters);
	EXPECT_TRUE(profile_one_speed_table(&t));
	ASSERT_EQ(0, profile_format_check(&t, PROFILE_XML_5, err, sizeof(err))) TH_LOG("%s", err);
	five = xml_as(&t, PROFILE_XML_5);
	six = xml_as(&t, PROFILE_XML_6);
	ASSERT_NE(NULL, five);
	ASSERT_NE(NULL, six);
	EXPECT_NE(NULL, strstr(five, "  <array name=\"cpu.speeds\">\n    <value>300000</value>\n"
			       "    <value>652800</value>\n  </array>\n")) TH_LOG("%s", five);
	EXPECT_EQ(NULL, strstr(five, "cluster")) TH_LOG("%s", five);
	n = xml_array(five, "cpu.active", a5, 8);
	ASSERT_EQ(2, n) TH_LOG("%s", five);
	ASSERT_EQ(2, xml_array(six, "cpu.active.cluster0", a6[0], 8)) TH_LOG("%s", six);
	ASSERT_EQ(2, xml_array(six, "cpu.active.cluster1", a6[1], 8));
	for (i = 0; i < n; i++) {
		EXPECT_LT(0.0, a5[i]);
		EXPECT_GE(0.051, fabs(a5[i] - (a6[0][i] + a6[1][i]) / 2))
			TH_LOG("speed %d: %.1f, cores %.1f and %.1f", i, a5[i], a6[0][i], a6[1][i]);
	}
	free(five);
	free(six);

	/* one core with another table: no single list */
	old_policy(root, 1, "1\n", "300000 652800 883200\n", "interactive performance\n");
	ASSERT_EQ(0, profile_topology_read(root, &t));
	EXPECT_FALSE(profile_one_speed_table(&t));
	EXPECT_EQ(-1, profile_format_check(&t, PROFILE_XML_5, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "this device has 2 with different speeds"));
	snprintf(err, sizeof(err), "rm -rf %s", root);
	system(err);
}

/*
 * Each format read back by PowerProfile's rules (profile_model_parse(),
 * what report --model uses): the same device in every one.  Android 9's
 * keys are the reference; before 9 a speed's value is a core running
 * alone (core + cluster), and cpu.awake is the awake-idle current.
 */
static void model_of(struct __test_metadata *_metadata, const struct profile_topology *t,
		     enum profile_xml_format f, struct profile_model *m)
{
	char err[256], *text = xml_as(t, f);

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, profile_model_parse(text, m, err, sizeof(err))) TH_LOG("%s\n%s", err, text);
	free(text);
}

static void same_device(struct __test_metadata *_metadata, const struct profile_model *ref,
			const struct profile_model *m, bool alone)
{
	int c, i;

	EXPECT_GE(0.051, fabs(ref->idle_ma - m->idle_ma));
	ASSERT_EQ(ref->nclusters, m->nclusters);
	for (c = 0; c < m->nclusters; c++) {
		/* Android 5's one list is every CPU, however many */
		EXPECT_EQ(m->format == PROFILE_XML_5 ? PROFILE_MODEL_ALL_CPUS : ref->cores[c],
			  m->cores[c]);
		ASSERT_EQ(ref->nspeeds[c], m->nspeeds[c]);
		for (i = 0; i < m->nspeeds[c]; i++) {
			double want = ref->core_ma[c][i] + (alone ? ref->cluster_ma[c] : 0);

			EXPECT_EQ(ref->speeds_khz[c][i], m->speeds_khz[c][i]);
			EXPECT_GE(0.11, fabs(want - m->core_ma[c][i] - (alone ? m->cluster_ma[c] : 0)))
				TH_LOG("cluster %d speed %d: want %.2f", c, i, want);
		}
	}
}

TEST_F(sysfs, every_format_reads_back_as_the_same_device)
{
	struct profile_topology one = self->t;
	struct profile_model ref, m;

	model_of(_metadata, &self->t, PROFILE_XML_9, &ref);
	EXPECT_EQ((int)PROFILE_XML_9, (int)ref.format);
	ASSERT_EQ(2, ref.nclusters);
	EXPECT_LT(0.0, ref.core_ma[0][0]);
	EXPECT_LT(0.0, ref.cluster_ma[0]);
	model_of(_metadata, &self->t, PROFILE_XML_14, &m);
	same_device(_metadata, &ref, &m, false);
	model_of(_metadata, &self->t, PROFILE_XML_6, &m);
	EXPECT_EQ((int)PROFILE_XML_6, (int)m.format);
	same_device(_metadata, &ref, &m, true);
	one.nclusters = 1;
	model_of(_metadata, &one, PROFILE_XML_9, &ref);
	model_of(_metadata, &one, PROFILE_XML_5, &m);
	EXPECT_EQ((int)PROFILE_XML_5, (int)m.format);
	same_device(_metadata, &ref, &m, true);
}

/* The version from /system/build.prop; --format's names. */
TEST_F(sysfs, android_version)
{
	static const struct { const char *prop; int sdk; enum profile_xml_format f; } props[] = {
		{ "ro.build.version.release=5.1.1\nro.build.version.sdk=22\n", 22, PROFILE_XML_5 },
		{ "# shamu 7.1.1\nro.build.version.sdk = 25\n", 25, PROFILE_XML_6 },
		{ "ro.build.version.sdk=27\nro.build.version.sdk=28\n", 28, PROFILE_XML_9 },
		{ "ro.build.version.sdk=34", 34, PROFILE_XML_14 },
	};
	enum profile_xml_format f;
	unsigned int i;

	/* no build.prop: not Android */
	EXPECT_EQ(0, profile_android_sdk(self->root));
	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		put(self->root, "system/build.prop", props[i].prop);
		EXPECT_EQ(props[i].sdk, profile_android_sdk(self->root)) TH_LOG("%u", i);
		EXPECT_EQ((int)props[i].f, (int)profile_format_for_sdk(props[i].sdk));
	}
	put(self->root, "system/build.prop", "ro.build.version.sdk=Q\n");
	EXPECT_EQ(-1, profile_android_sdk(self->root));
	EXPECT_EQ(EINVAL, errno);
	put(self->root, "system/build.prop", "ro.product.model=Nexus 6\n");
	EXPECT_EQ(-1, profile_android_sdk(self->root));
	EXPECT_EQ(0, profile_format_parse("14", &f));
	EXPECT_EQ(PROFILE_XML_14, (int)f);
	EXPECT_EQ(0, profile_format_parse("auto", &f));
	EXPECT_EQ(PROFILE_XML_AUTO, (int)f);
	EXPECT_EQ(-1, profile_format_parse("8", &f));
}

/*
 * scaling_boost_frequencies are appended to the available ones, as
 * Android's CpuScalingPolicyReader does: calibrated (each speed once,
 * ascending, in the plan) and counted last.
 */
TEST_F(sysfs, boost_frequencies_are_speeds)
{
	struct profile_topology t;
	struct profile_plan plan;

	put(self->root, CPUFREQ "policy2/scaling_boost_frequencies", "2400000 2000000\n");
	ASSERT_EQ(0, profile_topology_read(self->root, &t));
	ASSERT_EQ(3, t.cluster[1].nfreqs);
	EXPECT_EQ(2400000, (int)t.cluster[1].freqs_khz[2]);
	/* 1000000 2000000, then the boost list: 2000000 is the same speed */
	ASSERT_EQ(4, t.cluster[1].nandroid);
	EXPECT_EQ(0, t.cluster[1].android_freq[0]);
	EXPECT_EQ(2, t.cluster[1].android_freq[2]);
	EXPECT_EQ(1, t.cluster[1].android_freq[3]);
	ASSERT_EQ(0, profile_plan_build(&t, 1, 4, 1, &plan));
	/* idle, cluster 0: 2 speeds x 1-2 CPUs, cluster 1: 3 speeds x 1 */
	EXPECT_EQ(8, plan.nsteps);
	profile_plan_free(&plan);
	/* an empty boost list is no boost */
	put(self->root, CPUFREQ "policy2/scaling_boost_frequencies", "\n");
	ASSERT_EQ(0, profile_topology_read(self->root, &t));
	EXPECT_EQ(2, t.cluster[1].nfreqs);
	EXPECT_EQ(2, t.cluster[1].nandroid);
}

/* A fitted current below 0 (noise around a 0 term) is written as 0 and noted. */
TEST_F(sysfs, negative_currents_written_as_0)
{
	static const double neg_ma[] = { 80, -0.6, 100, 220, 350, 700 };
	struct profile_column cols[PROFILE_MAX_COLUMNS];
	double row[PROFILE_MAX_COLUMNS];
	struct profile_measure m[14];
	struct profile_plan plan;
	struct profile_fit fit;
	char *text = NULL;
	size_t size = 0;
	int ncols, i, j;
	FILE *f;

	ASSERT_EQ(0, profile_plan_build(&self->t, 2, 4, 1, &plan));
	ncols = profile_columns(&self->t, cols);
	fake_measure(&self->t, &plan, m, cols, ncols);
	for (i = 0; i < plan.nsteps; i++) {
		profile_design_row(cols, ncols, &plan.steps[i], &m[i], row);
		m[i].current_ua = 0;
		for (j = 0; j < ncols; j++)
			m[i].current_ua -= row[j] * neg_ma[j] * 1000;
	}
	ASSERT_EQ(0, fit_result(&plan, m, cols, ncols, &fit));
	struct profile_result r = {
		.topo = &self->t, .plan = &plan, .measures = m, .cols = cols, .ncols = ncols,
		.fit = &fit, .sign = -1, .capacity_mah = 3000, .supply = "bat",
		.format = PROFILE_XML_6,
	};
	EXPECT_NEAR(-0.6, profile_coef_ma(&r, 1), 1e-6);
	f = open_memstream(&text, &size);
	profile_write_xml(f, &r);
	fclose(f);
	/* Android 6-8.1: core + cluster, with the cluster at 0 */
	EXPECT_NE(NULL, strstr(text, "  <array name=\"cpu.active.cluster0\">\n    <value>220.0</value>\n"
			       "    <value>100.0</value>\n  </array>\n")) TH_LOG("%s", text);
	free(text);
	text = NULL;
	r.format = PROFILE_XML_9;
	f = open_memstream(&text, &size);
	profile_write_xml(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "  <item name=\"cpu.cluster_power.cluster0\">0.0</item>\n"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	profile_write_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "{\"name\": \"cpu.cluster_power.cluster0\", \"value_ma\": -0.6000, "
			       "\"ci95_ma\": 0.0000, \"written_ma\": 0, \"note\": \"negative: written as 0 in the XML\"}"))
		TH_LOG("%s", text);
	free(text);
	profile_fit_free(&fit);
	profile_plan_free(&plan);
}

/*
 * The wakelock: held for the run where the kernel has /sys/power/wake_lock
 * (a fake one here), with a timeout, and released on the way out, here
 * the failure to reach powerpin.ko; nothing where there is none.
 */
TEST_F(sysfs, wakelock_held_and_released)
{
	char buf[128], cmd[512], out[4096];

	EXPECT_EQ(0, profile_wakelock_hold(self->root, 60));
	EXPECT_STREQ("(missing)", get(self->root, "sys/power/wake_lock", buf, sizeof(buf)));
	put(self->root, "sys/power/wake_lock", "");
	put(self->root, "sys/power/wake_unlock", "");
	EXPECT_EQ(1, profile_wakelock_hold(self->root, 60));
	EXPECT_STREQ(PROFILE_WAKELOCK " 60000000000", get(self->root, "sys/power/wake_lock", buf, sizeof(buf)));
	EXPECT_EQ(0, profile_wakelock_release(self->root));
	EXPECT_STREQ(PROFILE_WAKELOCK, get(self->root, "sys/power/wake_unlock", buf, sizeof(buf)));
	if (access(POWERPIN, X_OK))
		SKIP(return, "powerpin not built");
	if (!access("/sys/module/powerpin", F_OK))
		SKIP(return, "powerpin.ko is loaded here: the run would not fail early");
	put(self->root, "sys/power/wake_lock", "");
	put(self->root, "sys/power/wake_unlock", "");
	/* 1 round on 3 CPUs at 2 x 2 + 2 speeds: 7 steps of 3 s; 2 x 21 + 300 s */
	snprintf(cmd, sizeof(cmd), "POWERPIN_PROFILE_SYSROOT=%s " POWERPIN
		 " profile --steps 1 -d 3 -q -o %s/pp.xml 2>&1", self->root, self->root);
	EXPECT_EQ(1, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ(PROFILE_WAKELOCK " 342000000000", get(self->root, "sys/power/wake_lock", buf, sizeof(buf)));
	EXPECT_STREQ(PROFILE_WAKELOCK, get(self->root, "sys/power/wake_unlock", buf, sizeof(buf)));
	snprintf(cmd, sizeof(cmd), "%s/pp.xml", self->root);
	EXPECT_NE(0, access(cmd, F_OK));
}

/* A step during which the device suspended is measured again, whatever its residual. */
TEST_F(sysfs, suspended_step_is_measured_again)
{
	struct profile_column cols[PROFILE_MAX_COLUMNS];
	struct profile_recheck rc[14] = { 0 };
	struct profile_measure m[14];
	struct profile_plan plan;
	struct profile_fit fit;
	unsigned int why[14];
	char *text = NULL;
	size_t size = 0;
	int ncols;
	FILE *f;

	ASSERT_EQ(0, profile_plan_build(&self->t, 2, 4, 1, &plan));
	ncols = profile_columns(&self->t, cols);
	fake_measure(&self->t, &plan, m, cols, ncols);
	m[5].suspended_s = 2.5;
	m[6].suspended_s = PROFILE_MAX_SUSPEND_S / 2;	/* a blink: not a suspend */
	ASSERT_EQ(0, fit_result(&plan, m, cols, ncols, &fit));
	struct profile_result r = {
		.topo = &self->t, .plan = &plan, .measures = m, .cols = cols, .ncols = ncols,
		.fit = &fit, .sign = -1, .capacity_mah = 3000, .supply = "bat", .rechecks = rc,
	};
	ASSERT_EQ(1, profile_steps_to_remeasure(&r, why));
	EXPECT_EQ(PROFILE_RECHECK_SUSPEND, why[5]);
	rc[5] = (struct profile_recheck){ PROFILE_RECHECK_SUSPEND, 10.0, 0.0, 1.0 };
	f = open_memstream(&text, &size);
	profile_write_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "\"suspended_s\": 2.5000, \"samples\": 20, \"fresh_samples\": 11, "
			       "\"remeasured\": {\"why\": \"suspend\",")) TH_LOG("%s", text);
	free(text);
	profile_fit_free(&fit);
	profile_plan_free(&plan);
}

/* ---- the capture reader ------------------------------------------------- */

TEST(capture_reader_takes_the_marked_windows)
{
	char path[] = "/tmp/ppcapture.XXXXXX", err[256];
	struct profile_measure m[3];
	struct gen g = { 0 };
	int fd = mkstemp(path);
	uint64_t t;

	ASSERT_LE(0, fd);
	close(fd);
	/* before the window: not counted */
	gen_battery(&g, 1000000000ULL, 1, 3900000, -999000, 0, 0);
	gen_mark(&g, 1050000000ULL, 0, "powerpin", 9, 9, PROFILE_MARK_BEGIN "1");
	for (t = 1; t <= 4; t++)
		gen_battery(&g, 1000000000ULL + t * 100000000ULL, 1 + t, 3900000,
			    -100000 - 1000 * t, 0, t == 2 ? 1 /* repeated */ : 0);
	/* a failed read: no current */
	gen_battery(&g, 1450000000ULL, 6, 0, 0, 0, 4);
	gen_mark(&g, 1500000000ULL, 0, "powerpin", 9, 9, PROFILE_MARK_END "1");
	gen_battery(&g, 1600000000ULL, 7, 3900000, -555000, 0, 0);
	gen_mark(&g, 1700000000ULL, 1, "powerpin", 9, 9, PROFILE_MARK_BEGIN "2");
	gen_battery(&g, 1800000000ULL, 8, 3900000, -400000, 0, 0);
	gen_mark(&g, 1900000000ULL, 1, "powerpin", 9, 9, PROFILE_MARK_END "2");
	ASSERT_EQ(0, gen_write(&g, path));
	ASSERT_EQ(0, profile_read_capture(path, 2, m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(4, (int)m[0].samples);
	EXPECT_EQ(3, (int)m[0].fresh);
	EXPECT_NEAR(-102500, m[0].current_ua, 1e-9);
	/* -101, -102, -103, -104 mA: sqrt(1.25) mA around the mean */
	EXPECT_NEAR(1000 * sqrt(1.25), m[0].spread_ua, 1e-3);
	EXPECT_EQ(1, (int)m[1].samples);
	EXPECT_NEAR(-400000, m[1].current_ua, 1e-9);
	/* a step with no samples is an error that names it */
	EXPECT_EQ(-1, profile_read_capture(path, 3, m, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "step 3 has no power samples")) TH_LOG("%s", err);
	unlink(path);
}

/* ---- the command line ---------------------------------------------------- */

TEST(dry_run_prints_the_plan_and_touches_nothing)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	char out[16384], want[256], cmd[256];
	int lines = 0;
	char *p;

	if (access(POWERPIN, X_OK))
		SKIP(return, "powerpin not built");
	if (!access("/sys/devices/system/cpu/cpufreq/policy0", F_OK))
		SKIP(return, "this host has cpufreq: the plan depends on its policies");
	snprintf(cmd, sizeof(cmd), "d=$(mktemp -d) && cd $d && %s/" POWERPIN
		 " profile --dry-run --steps 1 -d 3 && ls -A $d | wc -l && rmdir $d",
		 getenv("PWD"));
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out)));
	for (p = out; (p = strstr(p, "\nstep ")); p++)
		lines++;
	EXPECT_EQ(1 + ncpus, lines);
	EXPECT_NE(NULL, strstr(out, "step 1/"));
	snprintf(want, sizeof(want), "total: %ld steps of 3.0 s (the first 0.6 s of each discarded): %ld s\n"
		 "writes power_profile.xml with the keys of Android 9 to 13 (SDK 28-33)\n0\n",
		 1 + ncpus, 3 * (1 + ncpus));
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
}

TEST(bad_options_one_line_exit_2)
{
	static const char *const bad[] = {
		"--steps 0", "--steps x", "--duration -1", "--duration", "-d 1",
		"--settle 4.5 -d 5", "--bogus", "-x", "extra", "-o ''",
		"-o - --json -", "-o a.xml --json a.xml", "--format 7", "--format ''",
		"--format",
	};
	char cmd[256], out[4096];
	unsigned int i;

	if (access(POWERPIN, X_OK))
		SKIP(return, "powerpin not built");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), POWERPIN " profile %s 2>&1 >/dev/null", bad[i]);
		EXPECT_EQ(2, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", bad[i]);
		EXPECT_EQ(0, strncmp(out, "powerpin profile: ", 18)) TH_LOG("%s: %s", bad[i], out);
		EXPECT_EQ(strlen(out) - 1, strcspn(out, "\n")) TH_LOG("%s: %s", bad[i], out);
		snprintf(cmd, sizeof(cmd), POWERPIN " profile %s 2>/dev/null | wc -c", bad[i]);
		run_cmd(cmd, out, sizeof(out));
		EXPECT_STREQ("0\n", out);
	}
}

TEST_HARNESS_MAIN
