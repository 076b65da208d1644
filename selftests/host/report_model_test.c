// SPDX-License-Identifier: GPL-2.0
/*
 * report --model: power_profile.xml read back (powerpin profile's own
 * output and AOSP's shape, bad files refused with a reason), and a report
 * whose processes' modelled energy is their CPU time x the model's per-core
 * current x the mean voltage, beside the measured energy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "profile.h"
#include "report_gen.h"

#define POWERPIN	"build/bin/powerpin"
#define MS		1000000ULL
#define T0		(1000 * MS)

static const char two_clusters[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<!-- before the device: <item name=\"cpu.idle\">999</item> -->\n"
	"<device name=\"Android\">\n"
	"  <item name=\"none\">0</item>\n"
	"  <item name=\"screen.on\">0.1</item>  <!-- ~200mA -->\n"
	"  <item name=\"battery.capacity\">3000</item>\n"
	"  <item name=\"cpu.idle\">80.0</item>\n"
	"  <item name=\"cpu.suspend\">2.5</item>\n"
	"  <!-- AOSP's example, commented out:\n"
	"       <array name=\"cpu.clusters.cores\">\n"
	"         <value>4</value> // cluster 0 has cpu0, cpu1, cpu2, cpu3\n"
	"         <value>2</value> // cluster 1 has cpu4, cpu5\n"
	"         <value>2</value> // cluster 2 has cpu6, cpu7\n"
	"       </array> -->\n"
	"  <array name=\"cpu.clusters.cores\">\n    <value>2</value>\n    <value>1</value>\n  </array>\n"
	"  <item name=\"cpu.cluster_power.cluster0\">12.0</item>\n"
	"  <array name=\"cpu.core_speeds.cluster0\">\n    <value>300000</value>\n    <value>600000</value>\n  </array>\n"
	"  <array name=\"cpu.core_power.cluster0\">\n    <value>100.0</value>\n    <value>220.0</value>\n  </array>\n"
	"  <array name=\"cpu.core_speeds.cluster1\">\n    <value>1000000</value>\n  </array>\n"
	"  <array name=\"cpu.core_power.cluster1\">\n    <value>700</value>\n  </array>\n"
	"</device>\n";

TEST(parse_profile)
{
	struct profile_model m;
	char err[256];

	/* the comment before <device> is outside it and never read */
	ASSERT_EQ(0, profile_model_parse(two_clusters, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_NEAR(80, m.idle_ma, 1e-12);
	EXPECT_NEAR(2.5, m.suspend_ma, 1e-12);
	ASSERT_EQ(2, m.nclusters);
	EXPECT_EQ(2, m.cores[0]);
	EXPECT_EQ(1, m.cores[1]);
	EXPECT_NEAR(12, m.cluster_ma[0], 1e-12);
	EXPECT_EQ(2, m.nspeeds[0]);
	EXPECT_EQ(600000, (int)m.speeds_khz[0][1]);
	EXPECT_NEAR(220, m.core_ma[0][1], 1e-12);
	EXPECT_NEAR(700, m.core_ma[1][0], 1e-12);
	/* each cluster's fastest speed, over the CPUs: (2 x 220 + 700) / 3 */
	EXPECT_NEAR(380, profile_model_core_ma(&m), 1e-9);
}

TEST(parse_refuses_with_a_reason)
{
	static const struct { const char *xml, *why; } bad[] = {
		{ "<resources/>", "no <device name=\"Android\">" },
		{ "<device name=\"Android\"><item name=\"cpu.idle\">x</item></device>",
		  "item cpu.idle is not a number" },
		{ "<device name=\"Android\"><item name=\"cpu.idle\">1</item></device>",
		  "no cpu.clusters.cores" },
		/* AOSP's pre-O keys: cpu.speeds/cpu.active, no core_power */
		{ "<device name=\"Android\"><array name=\"cpu.clusters.cores\"><value>1</value></array>"
		  "<array name=\"cpu.active.cluster0\"><value>0.1</value></array></device>",
		  "no cpu.core_power.cluster0" },
		{ "<device name=\"Android\"><array name=\"cpu.clusters.cores\"><value>1</value>",
		  "array cpu.clusters.cores has no </array>" },
		{ "<device name=\"Android\"><array name=\"cpu.core_power.cluster0\"><value>1</value>"
		  "<value>z</value></array></device>", "value 1 of cpu.core_power.cluster0 is not a number" },
	};
	struct profile_model m;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-1, profile_model_parse(bad[i].xml, &m, err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, bad[i].why)) TH_LOG("%u: %s", i, err);
	}
}

/* The number after @key in @s (first occurrence at or after @from), NAN if none. */
static double num_after(const char *s, const char *from, const char *key)
{
	const char *p = strstr(s, from);

	p = p ? strstr(p, key) : NULL;
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/*
 * One CPU at 4.0 V and 500 mA for 1 s; "app" runs the first 0.4 s: the
 * model (one cluster, 390 mA per core, 120 mA idle) charges it
 * 0.4 s x 0.390 A x 4.0 V = 0.624 J, and the device 1 s x 0.120 A x 4 V + that.
 */
TEST(report_shows_modelled_energy)
{
	char dir[] = "/tmp/ppmodel.XXXXXX", path[64], cmd[512], out[16384];
	struct gen g = { .nr_cpus = 1 };
	double cpu_s, measured, modelled;
	FILE *f;
	int k;

	ASSERT_NE(NULL, mkdtemp(dir));
	for (k = 0; k <= 100; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 0, 0);
	gen_switch(&g, T0, 0, "swapper/0", 0, 0, "app", 100);
	gen_switch(&g, T0 + 400 * MS, 0, "app", 100, 100, "swapper/0", 0);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	ASSERT_EQ(0, gen_write(&g, path));
	snprintf(path, sizeof(path), "%s/pp.xml", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("<device name=\"Android\">\n  <item name=\"cpu.idle\">120.0</item>\n"
	      "  <array name=\"cpu.clusters.cores\">\n    <value>1</value>\n  </array>\n"
	      "  <array name=\"cpu.core_power.cluster0\">\n    <value>390.0</value>\n  </array>\n"
	      "</device>\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s/t.txt --model %s/pp.xml --json - 2>&1",
		 dir, dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	cpu_s = num_after(out, "\"model\":", "\"cpu_s\": ");
	measured = num_after(out, "\"model\":", "\"measured_j\": ");
	modelled = num_after(out, "\"model\":", "\"modelled_j\": ");
	EXPECT_NEAR(0.4, cpu_s, 1e-9);
	EXPECT_NEAR(0.4 * 0.390 * 4.0, modelled, 1e-9);
	EXPECT_NEAR(0.4 * 2.0, measured, 1e-6);
	EXPECT_NEAR(1.0 * 0.120 * 4.0 + 0.624, num_after(out, "\"model\":", "\"energy_j\": "), 1e-9);
	EXPECT_NE(NULL, strstr(out, "\"comm\": \"app\""));
	/* the text summary says the same */
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s/t.txt --model %s/pp.xml 2>&1", dir, dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "model (power_profile.xml): 390.0 mA per busy CPU, cpu.idle 120.0 mA, at the mean 4.000 V\n"));
	EXPECT_NE(NULL, strstr(out, "    0.8000 J measured,     0.6240 J modelled,    +0.1760 J  app")) TH_LOG("%s", out);
	/* a bad model is refused before the input is read: exit 1, one line */
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s/t.txt --model %s/t.txt 2>&1", dir, dir);
	EXPECT_EQ(1, run_cmd(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not a power_profile.xml")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

TEST_HARNESS_MAIN
