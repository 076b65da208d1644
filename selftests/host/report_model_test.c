// SPDX-License-Identifier: GPL-2.0
/*
 * report --model: power_profile.xml read back (powerpin profile's own
 * output and AOSP's shape, bad files refused with a reason), and a report
 * whose processes' modelled energy is their CPU time x the model's per-core
 * current x the mean voltage, beside the measured energy; priced at the
 * frequency each CPU ran at where the capture has power:cpu_frequency
 * (text and trace.dat); in the HTML page (a table and the modelled power
 * at every sample) and the Perfetto trace (modelled power and energy
 * tracks, per-process modelled energy).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "profile/profile.h"
#include "report_gen.h"
#include "report_tracedat.h"

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

/*
 * Android 14's keys alone: the policies are the clusters, in CPU order
 * whatever the file's; a policy's cores run up to the next policy's first
 * CPU, the last one's to the end; no speeds in the file, so a CPU time is
 * priced at the top step.
 */
TEST(parse_android_14_policies_alone)
{
	static const char xml[] =
		"<device name=\"Android\">\n"
		"  <item name=\"cpu.suspend\">2</item>\n  <item name=\"cpu.idle\">40</item>\n"
		"  <item name=\"cpu.scaling_policy_power.policy6\">30</item>\n"
		"  <array name=\"cpu.scaling_step_power.policy6\"><value>400</value><value>900</value></array>\n"
		"  <item name=\"cpu.scaling_policy_power.policy0\">5</item>\n"
		"  <array name=\"cpu.scaling_step_power.policy0\"><value>20</value><value>50</value><value>90</value></array>\n"
		"</device>\n";
	struct profile_model m;
	char err[256];

	ASSERT_EQ(0, profile_model_parse(xml, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((int)PROFILE_XML_14, (int)m.format);
	EXPECT_NEAR(40, m.idle_ma, 1e-12);
	EXPECT_NEAR(2, m.suspend_ma, 1e-12);
	ASSERT_EQ(2, m.nclusters);
	EXPECT_EQ(6, m.cores[0]);
	EXPECT_EQ(PROFILE_MODEL_ALL_CPUS, m.cores[1]);
	EXPECT_NEAR(5, m.cluster_ma[0], 1e-12);
	EXPECT_NEAR(30, m.cluster_ma[1], 1e-12);
	ASSERT_EQ(3, m.nspeeds[0]);
	EXPECT_NEAR(90, m.core_ma[0][2], 1e-12);
	EXPECT_EQ(0, (int)m.speeds_khz[0][2]);
	ASSERT_EQ(2, m.nspeeds[1]);
	EXPECT_NEAR(900, m.core_ma[1][1], 1e-12);
}

TEST(parse_refuses_with_a_reason)
{
	static const struct { const char *xml, *why; } bad[] = {
		{ "<resources/>", "no <device name=\"Android\">" },
		{ "<device name=\"Android\"><item name=\"cpu.idle\">x</item></device>",
		  "item cpu.idle is not a number" },
		{ "<device name=\"Android\"><item name=\"cpu.idle\">1</item></device>",
		  "no CPU power keys (cpu.core_power.clusterN, cpu.active.clusterN, cpu.active or cpu.scaling_step_power.policyN)" },
		/* Android 14's keys: a policy without its steps */
		{ "<device name=\"Android\"><item name=\"cpu.scaling_policy_power.policy0\">3</item>"
		  "<array name=\"cpu.scaling_step_power.policy4\"><value>1</value></array></device>",
		  "no cpu.scaling_step_power.policy0" },
		{ "<device name=\"Android\"><array name=\"cpu.core_power.cluster0\"><value>1</value>"
		  "</array></device>", "no cpu.clusters.cores" },
		/* Android 6-8.1's keys: a cluster without its per-speed currents */
		{ "<device name=\"Android\"><array name=\"cpu.clusters.cores\"><value>1</value>"
		  "<value>2</value></array><array name=\"cpu.active.cluster0\"><value>0.1</value>"
		  "</array></device>", "no cpu.active.cluster1" },
		{ "<device name=\"Android\"><array name=\"cpu.speeds\"><value>300000</value>"
		  "</array></device>", "no cpu.active" },
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
 * Real device files, their CPU part as published (other items left out):
 * the Nexus 6's from LineageOS/android_device_moto_shamu,
 * overlay/frameworks/base/core/res/res/xml/power_profile.xml, branches
 * cm-14.1 (257ef24a, Android 7.1: 5.1's keys, which 6-8.1 still read as
 * one cluster) and lineage-17.1 (4363dbe3, Android 10: cpu.clusters.cores
 * as an <item>), and an early cm-12.0 stub with empty values; the Pixel
 * XL's from LineageOS/android_device_google_marlin, the same path
 * (8d98e31a, Android 7.1-8.1: cpu.speeds/active.clusterN).
 */
#define SHAMU_SPEEDS \
	"<value>300000</value> <!-- 300 MHz CPU speed -->\n<value>422400</value>\n" \
	"<value>652800</value>\n<value>729600</value>\n<value>883200</value>\n<value>960000</value>\n" \
	"<value>1036800</value>\n<value>1190400</value>\n<value>1267200</value>\n<value>1497600</value>\n" \
	"<value>1574400</value>\n<value>1728000</value>\n<value>1958400</value>\n<value>2265600</value>\n" \
	"<value>2457600</value>\n<value>2496000</value>\n<value>2572800</value>\n<value>2649600</value>\n"
#define SHAMU_POWER \
	"<value>71</value> <!-- 300 MHz CPU speed -->\n<value>83</value>\n<value>97</value>\n" \
	"<value>106</value>\n<value>115</value>\n<value>146</value>\n<value>153</value>\n" \
	"<value>167</value>\n<value>213</value>\n<value>249</value>\n<value>263</value>\n" \
	"<value>288</value>\n<value>324</value>\n<value>377</value>\n<value>405</value>\n" \
	"<value>405</value>\n<value>413</value>\n<value>414</value>\n"

static const char shamu_cm141[] =
	"<device name=\"Android\">\n    <!-- All values are in mAh except as noted -->\n"
	"    <array name=\"cpu.speeds\">\n" SHAMU_SPEEDS "    </array>\n"
	"    <!-- Power consumption when CPU is idle -->\n"
	"    <item name=\"cpu.idle\">6</item>\n    <item name=\"cpu.awake\">8</item>\n"
	"    <!-- Power consumption at different speeds -->\n"
	"    <array name=\"cpu.active\">\n" SHAMU_POWER "    </array>\n"
	"    <item name=\"battery.capacity\">3220</item>\n</device>\n";

static const char shamu_lineage171[] =
	"<device name=\"Android\">\n    <item name=\"battery.capacity\">3220</item>\n"
	"    <!-- Power consumption when CPU is suspended -->\n"
	"    <item name=\"cpu.suspend\">6</item>\n"
	"    <!-- Additional power consumption when CPU is in a kernel idle loop -->\n"
	"    <item name=\"cpu.idle\">8</item>\n"
	"    <item name=\"cpu.clusters.cores\">4</item>\n"
	"    <array name=\"cpu.core_speeds.cluster0\">\n" SHAMU_SPEEDS "    </array>\n"
	"    <array name=\"cpu.core_power.cluster0\">\n" SHAMU_POWER "    </array>\n</device>\n";

static const char shamu_cm120_stub[] =
	"<device name=\"Android\">\n    <item name=\"none\"></item>\n"
	"    <array name=\"radio.on\">\n        <value></value>\n        <value></value>\n    </array>\n"
	"    <array name=\"cpu.speeds\">\n" SHAMU_SPEEDS "    </array>\n"
	"    <item name=\"cpu.idle\"></item>\n    <item name=\"cpu.awake\"></item>\n"
	"    <array name=\"cpu.active\">\n        <value></value> <!-- 300 MHz CPU speed -->\n"
	"        <value></value>\n    </array>\n</device>\n";

static const char marlin[] =
	"<device name=\"Android\">\n"
	"    <array name=\"cpu.speeds.cluster0\">\n        <value>384000</value>\n        <value>460800</value>\n"
	"        <value>600000</value>\n        <value>672000</value>\n        <value>768000</value>\n"
	"        <value>864000</value>\n        <value>960000</value>\n        <value>1248000</value>\n"
	"        <value>1344000</value>\n        <value>1478400</value>\n        <value>1555200</value>\n    </array>\n"
	"    <array name=\"cpu.speeds.cluster1\">\n        <value>384000</value>\n        <value>480000</value>\n"
	"        <value>633600</value>\n        <value>768000</value>\n        <value>864000</value>\n"
	"        <value>960000</value>\n        <value>1248000</value>\n        <value>1344000</value>\n"
	"        <value>1440000</value>\n        <value>1536000</value>\n        <value>1632000</value>\n"
	"        <value>1728000</value>\n        <value>1824000</value>\n        <value>1958400</value>\n    </array>\n"
	"    <item name=\"cpu.idle\">5.58</item>\n    <item name=\"cpu.awake\">4.92</item>\n"
	"    <array name=\"cpu.active.cluster0\">\n        <value>24.14</value>\n        <value>27.2</value>\n"
	"        <value>32.3</value>\n        <value>36.94</value>\n        <value>41.57</value>\n"
	"        <value>49.87</value>\n        <value>57.84</value>\n        <value>79.8</value>\n"
	"        <value>88.81</value>\n        <value>102.4</value>\n        <value>110.9</value>\n    </array>\n"
	"    <array name=\"cpu.active.cluster1\">\n        <value>86.83</value>\n        <value>103.24</value>\n"
	"        <value>129.38</value>\n        <value>155.42</value>\n        <value>177.99</value>\n"
	"        <value>195.55</value>\n        <value>265.09</value>\n        <value>292.77</value>\n"
	"        <value>322.13</value>\n        <value>348.19</value>\n        <value>370.18</value>\n"
	"        <value>405.51</value>\n        <value>437.84</value>\n        <value>481.07</value>\n    </array>\n"
	"    <array name=\"cpu.clusters.cores\">\n        <value>4</value> <!-- Cluster 0 has 4 cores -->\n"
	"        <value>4</value>\n    </array>\n"
	"    <item name=\"battery.capacity\">3450</item>\n</device>\n";

TEST(parse_real_device_files)
{
	struct profile_model m;
	char err[256];

	/* Nexus 6, Android 7.1: one cluster of every CPU; cpu.idle is suspend */
	ASSERT_EQ(0, profile_model_parse(shamu_cm141, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(PROFILE_XML_5, (int)m.format);
	ASSERT_EQ(1, m.nclusters);
	EXPECT_EQ(PROFILE_MODEL_ALL_CPUS, m.cores[0]);
	ASSERT_EQ(18, m.nspeeds[0]);
	EXPECT_EQ(2649600, (int)m.speeds_khz[0][17]);
	EXPECT_NEAR(71, m.core_ma[0][0], 1e-12);
	EXPECT_NEAR(414, m.core_ma[0][17], 1e-12);
	EXPECT_NEAR(6, m.suspend_ma, 1e-12);
	EXPECT_NEAR(8, m.idle_ma, 1e-12);
	EXPECT_NEAR(0, m.cluster_ma[0], 1e-12);
	EXPECT_NEAR(414, profile_model_core_ma(&m), 1e-9);
	/* Nexus 6, Android 10: cpu.clusters.cores as an <item> */
	ASSERT_EQ(0, profile_model_parse(shamu_lineage171, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(PROFILE_XML_9, (int)m.format);
	ASSERT_EQ(1, m.nclusters);
	EXPECT_EQ(4, m.cores[0]);
	ASSERT_EQ(18, m.nspeeds[0]);
	EXPECT_NEAR(213, m.core_ma[0][8], 1e-12);
	EXPECT_NEAR(6, m.suspend_ma, 1e-12);
	EXPECT_NEAR(8, m.idle_ma, 1e-12);
	EXPECT_NEAR(14, profile_model_base_ma(&m), 1e-12);
	/* Pixel XL, Android 7.1-8.1: two clusters of per-speed currents */
	ASSERT_EQ(0, profile_model_parse(marlin, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(PROFILE_XML_6, (int)m.format);
	ASSERT_EQ(2, m.nclusters);
	EXPECT_EQ(4, m.cores[0]);
	EXPECT_EQ(4, m.cores[1]);
	EXPECT_EQ(11, m.nspeeds[0]);
	ASSERT_EQ(14, m.nspeeds[1]);
	EXPECT_EQ(1958400, (int)m.speeds_khz[1][13]);
	EXPECT_NEAR(481.07, m.core_ma[1][13], 1e-12);
	EXPECT_NEAR(5.58, m.suspend_ma, 1e-12);
	EXPECT_NEAR(4.92, m.idle_ma, 1e-12);
	/* (4 x 110.9 + 4 x 481.07) / 8 */
	EXPECT_NEAR((110.9 + 481.07) / 2, profile_model_core_ma(&m), 1e-9);
	/* the early stub: empty values are skipped, as PowerProfile skips them */
	EXPECT_EQ(-1, profile_model_parse(shamu_cm120_stub, &m, err, sizeof(err)));
	EXPECT_STREQ("no cpu.active", err);
}

/*
 * As BatteryStats prices CPU time: a cluster's power once while any of its
 * cores runs and cpu.active once while any CPU runs, each split between
 * the CPUs running; the awake baseline is suspend + idle.  Two CPUs of one
 * cluster at 4.0 V for 1 s: "app" runs on CPU 0 over 0-0.5 s, "other" on
 * CPU 1 over 0.3-1.0 s.
 */
static double priced(const char *dir, const char *xml, const char *what, char *out, size_t len)
{
	char path[96], cmd[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pp.xml", dir);
	f = fopen(path, "w");
	if (!f || fputs(xml, f) < 0 || fclose(f))
		return NAN;
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s/t.txt --model %s --json - 2>&1", dir, path);
	if (run_cmd(cmd, out, len))
		return NAN;
	if (!strcmp(what, "device"))
		return num_after(out, "\"model\":", "\"energy_j\": ");
	snprintf(cmd, sizeof(cmd), "\"comm\": \"%s\"", what);
	return num_after(strstr(out, "\"model\":") ? strstr(out, "\"model\":") : "", cmd,
			 "\"modelled_j\": ");
}

TEST(report_prices_as_batterystats)
{
	char dir[] = "/tmp/ppprice.XXXXXX", path[64], cmd[128], out[16384];
	struct gen g = { .nr_cpus = 2 };
	int k;

	ASSERT_NE(NULL, mkdtemp(dir));
	for (k = 0; k <= 100; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 0, 0);
	gen_switch(&g, T0, 0, "swapper/0", 0, 0, "app", 100);
	gen_switch(&g, T0 + 500 * MS, 0, "app", 100, 100, "swapper/0", 0);
	gen_switch(&g, T0 + 300 * MS, 1, "swapper/1", 0, 0, "other", 200);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	ASSERT_EQ(0, gen_write(&g, path));
	/*
	 * Android 9+: core 100 mA, cluster 40, cpu.active 20; alone a CPU
	 * draws 160 mA, together 100 + 30 each.  app: 0.5 s x 100 + 0.3 s x
	 * 60 + 0.2 s x 30 = 74 mA s; other: 0.7 x 100 + 0.2 x 30 + 0.5 x 60
	 * = 106 mA s; device: 1 s x (5 + 10) + both = 195 mA s; x 4 V.
	 */
	static const char nine[] =
		"<device name=\"Android\"><item name=\"cpu.suspend\">5</item>"
		"<item name=\"cpu.idle\">10</item><item name=\"cpu.active\">20</item>"
		"<array name=\"cpu.clusters.cores\"><value>2</value></array>"
		"<item name=\"cpu.cluster_power.cluster0\">40</item>"
		"<array name=\"cpu.core_speeds.cluster0\"><value>1000000</value></array>"
		"<array name=\"cpu.core_power.cluster0\"><value>100</value></array></device>";
	EXPECT_NEAR(0.074 * 4, priced(dir, nine, "app", out, sizeof(out)), 1e-9);
	EXPECT_NEAR(0.106 * 4, priced(dir, nine, "other", out, sizeof(out)), 1e-9);
	EXPECT_NEAR(0.195 * 4, priced(dir, nine, "device", out, sizeof(out)), 1e-9);
	EXPECT_NE(NULL, strstr(out, "\"format\": 9, \"core_ma\": 100, \"idle_ma\": 10, "
			       "\"suspend_ma\": 5, \"active_ma\": 20,")) TH_LOG("%s", out);
	/* Android 6-8.1: cpu.idle is suspend, cpu.awake the awake-idle current */
	static const char six[] =
		"<device name=\"Android\"><item name=\"cpu.idle\">5</item>"
		"<item name=\"cpu.awake\">10</item>"
		"<array name=\"cpu.clusters.cores\"><value>2</value></array>"
		"<array name=\"cpu.speeds.cluster0\"><value>1000000</value></array>"
		"<array name=\"cpu.active.cluster0\"><value>100</value></array></device>";
	EXPECT_NEAR(0.050 * 4, priced(dir, six, "app", out, sizeof(out)), 1e-9);
	EXPECT_NEAR(0.070 * 4, priced(dir, six, "other", out, sizeof(out)), 1e-9);
	EXPECT_NEAR(0.135 * 4, priced(dir, six, "device", out, sizeof(out)), 1e-9);
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s/t.txt --model %s/pp.xml 2>&1", dir, dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "  keys of Android 6.0 to 8.1 (SDK 23-27); awake baseline 15.0 mA "
			       "(suspend 5.0 + idle 10.0); per-speed currents only\n")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
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

/*
 * Two CPUs at 4.0 V for 1 s, samples every 10 ms, and a two-speed profile
 * (cpu.idle 50 mA, cluster 10 mA, cores 100 mA at 300 MHz, 220 mA at
 * 600 MHz).  "app" runs on CPU 0 for 0.8 s, at 300 MHz for the first
 * 0.4 s and 600 MHz after; "other" runs on CPU 1 for 0.5 s, whose
 * frequency no event names (the highest speed).
 */
#define FREQ_XML \
	"<device name=\"Android\">\n  <item name=\"cpu.idle\">50.0</item>\n" \
	"  <array name=\"cpu.clusters.cores\"><value>2</value></array>\n" \
	"  <item name=\"cpu.cluster_power.cluster0\">10.0</item>\n" \
	"  <array name=\"cpu.core_speeds.cluster0\"><value>300000</value><value>600000</value></array>\n" \
	"  <array name=\"cpu.core_power.cluster0\"><value>100.0</value><value>220.0</value></array>\n" \
	"</device>\n"
/*
 * The cluster's 10 mA is drawn once while either CPU runs, split between
 * the CPUs running (as BatteryStats does): 5 mA each for the first 0.5 s,
 * 10 mA to app alone after.  app: 0.4 s x 100 mA + 0.4 s x 220 mA +
 * 0.5 s x 5 mA + 0.3 s x 10 mA, x 4 V; other: 0.5 s x (220 + 5) mA x 4 V.
 */
#define APP_SHARE	(0.5 * 0.005 + 0.3 * 0.010)
#define APP_J		((0.4 * 0.100 + 0.4 * 0.220 + APP_SHARE) * 4.0)
#define APP_FLAT_J	((0.8 * 0.220 + APP_SHARE) * 4.0)
#define OTHER_J		(0.5 * 0.225 * 4.0)
#define DEVICE_J	(1.0 * 0.050 * 4.0 + APP_J + OTHER_J)

FIXTURE(freq) {
	char dir[64];
	char xml[96];
};

FIXTURE_SETUP(freq)
{
	FILE *f;

	strcpy(self->dir, "/tmp/ppfreq.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->xml, sizeof(self->xml), "%s/pp.xml", self->dir);
	f = fopen(self->xml, "w");
	ASSERT_NE(NULL, f);
	fputs(FREQ_XML, f);
	ASSERT_EQ(0, fclose(f));
}

FIXTURE_TEARDOWN(freq)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

static int freq_capture(const char *path, bool freq_events)
{
	struct gen g = { .nr_cpus = 2 };
	int k;

	for (k = 0; k <= 100; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 0, 0);
	gen_switch(&g, T0, 0, "swapper/0", 0, 0, "app", 100);
	gen_switch(&g, T0 + 800 * MS, 0, "app", 100, 100, "swapper/0", 0);
	gen_switch(&g, T0, 1, "swapper/1", 0, 0, "other", 200);
	gen_switch(&g, T0 + 500 * MS, 1, "other", 200, 200, "swapper/1", 0);
	if (freq_events) {
		gen_cpu_freq(&g, T0, 0, 300000);
		gen_cpu_freq(&g, T0 + 400 * MS, 0, 600000);
	}
	return gen_write(&g, path);
}

/* "modelled_j" of process @comm in report --json's "model" */
static double modelled_j(const char *json, const char *comm)
{
	char key[64];

	snprintf(key, sizeof(key), "\"comm\": \"%s\"", comm);
	return num_after(strstr(json, "\"model\":") ? strstr(json, "\"model\":") : "", key,
			 "\"modelled_j\": ");
}

TEST_F(freq, modelled_energy_follows_the_frequency)
{
	char in[128], cmd[512], out[16384];

	snprintf(in, sizeof(in), "%s/freq.txt", self->dir);
	ASSERT_EQ(0, freq_capture(in, true));
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s --json - 2>&1", in, self->xml);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NEAR(APP_J, modelled_j(out, "app"), 1e-9);
	EXPECT_NEAR(OTHER_J, modelled_j(out, "other"), 1e-9);
	EXPECT_NEAR(DEVICE_J, num_after(out, "\"model\":", "\"energy_j\": "), 1e-9);
	EXPECT_NE(NULL, strstr(out, "\"cpu_frequency_events\": 2, \"clusters\": [{\"cluster\": 0, "
			       "\"speeds_khz\": [300000, 600000], \"cpu_s_at_speed\": "
			       "[0.400000000, 0.400000000], \"cpu_s_unknown_speed\": 0.500000000}]"))
		TH_LOG("%s", out);
	/* the text says how it priced */
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s 2>&1", in, self->xml);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "  CPU time priced at the frequency each CPU ran at (cpu_frequency events)\n"));
	EXPECT_NE(NULL, strstr(out, "    0.8000 J measured,     0.5340 J modelled,    +0.2660 J  app")) TH_LOG("%s", out);

	/* the same capture without the events: every CPU second at 600 MHz */
	ASSERT_EQ(0, freq_capture(in, false));
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s --json - 2>&1", in, self->xml);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NEAR(APP_FLAT_J, modelled_j(out, "app"), 1e-9);
	EXPECT_NEAR(OTHER_J, modelled_j(out, "other"), 1e-9);
	EXPECT_NE(NULL, strstr(out, "\"cpu_frequency_events\": 0,"));
}

static const char fmt_cpu_frequency[] =
	"name: cpu_frequency\nID: 1700\nformat:\n" TDAT_COMMON
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, (unsigned long)REC->cpu_id\n";

static void tdat_cpu_freq(struct tdat *w, int cpu, uint64_t ts, uint32_t khz)
{
	uint8_t p[16];
	uint32_t id = (uint32_t)cpu;

	tdat_common(p, 1700, 0);
	memcpy(p + 8, &khz, 4);
	memcpy(p + 12, &id, 4);
	tdat_event(w, cpu, ts, p, sizeof(p));
}

/* The same capture as a trace.dat: power:cpu_frequency read by libtraceevent */
TEST_F(freq, tracedat_cpu_frequency)
{
	struct tdat w = { 0 };
	char in[128], cmd[512], out[16384];
	int k;

	snprintf(in, sizeof(in), "%s/freq.dat", self->dir);
	ASSERT_EQ(0, tdat_open(&w, 2));
	w.extra_format = fmt_cpu_frequency;
	w.extra_format_len = strlen(fmt_cpu_frequency);
	w.extra_system = "power";
	tdat_comm(&w, 100, "app");
	tdat_comm(&w, 200, "other");
	tdat_switch(&w, 0, T0, "swapper/0", 0, "app", 100);
	tdat_cpu_freq(&w, 0, T0, 300000);
	tdat_switch(&w, 1, T0, "swapper/1", 0, "other", 200);
	for (k = 0; k <= 100; k++) {
		if (k == 40)
			tdat_cpu_freq(&w, 0, T0 + 400 * MS, 600000);
		tdat_battery(&w, 0, T0 + k * 10 * MS, 77, k, 4000000, -500000, 0, 0);
		if (k == 50)
			tdat_switch(&w, 1, T0 + 500 * MS, "other", 200, "swapper/1", 0);
		if (k == 80)
			tdat_switch(&w, 0, T0 + 800 * MS, "app", 100, "swapper/0", 0);
	}
	ASSERT_EQ(0, tdat_close(&w, in));
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s --json - 2>&1", in, self->xml);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NEAR(APP_J, modelled_j(out, "app"), 1e-9);
	EXPECT_NEAR(OTHER_J, modelled_j(out, "other"), 1e-9);
	EXPECT_NE(NULL, strstr(out, "\"cpu_frequency_events\": 2,"));
}

/* The value after each "@prefix" in @text, in order; returns how many. */
static int values_after(const char *text, const char *prefix, double *out, int max)
{
	int n = 0;

	while ((text = strstr(text, prefix)) && n < max) {
		text += strlen(prefix);
		out[n++] = strtod(text, NULL);
	}
	return n;
}

/* The model's power per interval: idle 50 mA + CPU 0 + CPU 1, x 4 V */
static double model_w(int k)
{
	double ma = 50;

	if (k == 0)
		return 0.050 * 4;		/* the first sample: no interval yet */
	ma += k <= 40 ? 100 : k <= 80 ? 220 : 0;
	ma += k <= 50 ? 220 : 0;
	ma += k <= 80 ? 10 : 0;		/* the cluster, once while either CPU runs */
	return ma / 1000 * 4;
}

TEST_F(freq, perfetto_model_tracks)
{
	char in[128], pf[128], cmd[768], *text;
	double v[256];
	int n, k;

	if (system("command -v protoc >/dev/null"))
		SKIP(return, "protoc not installed (protobuf-compiler)");
	snprintf(in, sizeof(in), "%s/freq.txt", self->dir);
	snprintf(pf, sizeof(pf), "%s/t.pftrace", self->dir);
	ASSERT_EQ(0, freq_capture(in, true));
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s --perfetto %s >/dev/null && "
		 "protoc --proto_path=daemon/lib/report --decode=perfetto.protos.Trace perfetto_trace.proto "
		 "< %s > %s.txt", in, self->xml, pf, pf, pf);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s.txt", pf);
	text = slurp(cmd);
	ASSERT_NE(NULL, text);
	squeeze(text);
	/* beside the measured power (uuid 4, rank 3) and energy (5, rank 4); 13 is the marker spans */
	EXPECT_NE(NULL, strstr(text, "track_descriptor { uuid: 14 name: \"Power, modelled (power_profile.xml)\" "
			       "parent_uuid: 1 counter { unit_name: \"W\" } sibling_order_rank: 3"));
	EXPECT_NE(NULL, strstr(text, "track_descriptor { uuid: 15 name: \"Energy, modelled (cumulative, "
			       "power_profile.xml)\" parent_uuid: 1 counter { unit_name: \"J\" } sibling_order_rank: 4"));
	/* one value a sample, following the frequency */
	n = values_after(text, "type: TYPE_COUNTER track_uuid: 14 double_counter_value: ", v, 256);
	ASSERT_EQ(101, n);
	for (k = 0; k < n; k++)
		EXPECT_NEAR(model_w(k), v[k], 1e-6);
	n = values_after(text, "type: TYPE_COUNTER track_uuid: 15 double_counter_value: ", v, 256);
	ASSERT_EQ(101, n);
	EXPECT_NEAR(DEVICE_J, v[n - 1], 1e-9);
	/* each process's modelled energy under its process track, to its total */
	EXPECT_NE(NULL, strstr(text, "track_descriptor { uuid: 21474836580 name: \"Energy, modelled "
			       "(cumulative, power_profile.xml)\" parent_uuid: 4294967396"));
	n = values_after(text, "type: TYPE_COUNTER track_uuid: 21474836580 double_counter_value: ",
			 v, 256);
	ASSERT_LT(1, n);
	EXPECT_NEAR(APP_J, v[n - 1], 1e-9);
	n = values_after(text, "type: TYPE_COUNTER track_uuid: 21474836680 double_counter_value: ",
			 v, 256);
	ASSERT_LT(1, n);
	EXPECT_NEAR(OTHER_J, v[n - 1], 1e-9);
	free(text);
	/* without --model: no model track */
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --perfetto %s >/dev/null && "
		 "protoc --proto_path=daemon/lib/report --decode=perfetto.protos.Trace perfetto_trace.proto "
		 "< %s > %s.txt", in, pf, pf, pf);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s.txt", pf);
	text = slurp(cmd);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(NULL, strstr(text, "modelled"));
	free(text);
}

/* base64 (RFC 4648, whitespace skipped) into @out; bytes written */
static size_t unbase64(const char *s, const char *end, uint8_t *out, size_t max)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	size_t n = 0;
	int bits = 0;
	const char *p;

	for (; s < end && *s != '='; s++) {
		p = strchr(abc, *s);
		if (!p || !*s)
			continue;
		acc = acc << 6 | (uint32_t)(p - abc);
		bits += 6;
		if (bits >= 8 && n < max) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

TEST_F(freq, html_model_table_and_series)
{
	char in[128], html[128], cmd[512], *page, *p, *end;
	uint8_t bytes[1024];
	float w;
	size_t n;
	int k;

	snprintf(in, sizeof(in), "%s/freq.txt", self->dir);
	snprintf(html, sizeof(html), "%s/r.html", self->dir);
	ASSERT_EQ(0, freq_capture(in, true));
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --model %s --html %s >/dev/null", in,
		 self->xml, html);
	ASSERT_EQ(0, system(cmd));
	page = slurp(html);
	ASSERT_NE(NULL, page);
	/* modelled next to measured, per process and for the device */
	EXPECT_NE(NULL, strstr(page, "<table class=\"pp-model\"><tr><th>process</th><th>tgid</th><th>CPU s</th>"
			       "<th>measured J</th><th>modelled J</th><th>difference J</th></tr>\n"
			       "<tr><td>device</td><td></td><td></td><td>2.0000</td><td>1.1840</td><td>+0.8160</td></tr>\n"
			       "<tr><td>app</td><td>100</td><td>0.800</td><td>0.8000</td><td>0.5340</td><td>+0.2660</td></tr>\n"
			       "<tr><td>other</td><td>200</td><td>0.500</td><td>0.5000</td><td>0.4500</td><td>+0.0500</td></tr>\n"));
	/* the modelled power at each of the 101 samples the page plots */
	p = strstr(page, "<script type=\"application/octet-stream\" id=\"pp-model\">\n");
	ASSERT_NE(NULL, p);
	p += strlen("<script type=\"application/octet-stream\" id=\"pp-model\">\n");
	end = strstr(p, "</script>");
	ASSERT_NE(NULL, end);
	n = unbase64(p, end, bytes, sizeof(bytes));
	ASSERT_EQ(101 * 4, (int)n);
	for (k = 0; k < 101; k++) {
		memcpy(&w, bytes + 4 * k, 4);
		EXPECT_NEAR(model_w(k), w, 1e-6);
	}
	free(page);
	/* in a browser (when there is one): the page draws the model beside the power */
	if (!system("command -v chromium >/dev/null && command -v python3 >/dev/null")) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/probe && timeout 180 python3 "
			 "selftests/host/html_probe.py %s %s/probe > %s/probe.txt 2>/dev/null",
			 self->dir, html, self->dir, self->dir);
		ASSERT_EQ(0, system(cmd));
		snprintf(cmd, sizeof(cmd), "%s/probe.txt", self->dir);
		page = slurp(cmd);
		ASSERT_NE(NULL, page);
		EXPECT_NE(NULL, strstr(page, "legend=Power (discharge +), every sample\n"
				       "legend=Modelled (power_profile.xml)\n"));
		EXPECT_NE(NULL, strstr(page, "console_errors=0\n"));
		free(page);
	}
	/* without --model the page has neither */
	snprintf(cmd, sizeof(cmd), POWERPIN " report %s --html %s >/dev/null", in, html);
	ASSERT_EQ(0, system(cmd));
	page = slurp(html);
	ASSERT_NE(NULL, page);
	EXPECT_EQ(NULL, strstr(page, "id=\"pp-model\""));
	EXPECT_EQ(NULL, strstr(page, "class=\"pp-model\""));
	free(page);
}

TEST_HARNESS_MAIN
