// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile against ground truth: the gauge emulator's cpu mode
 * draws cpu_idle_ua + (cpu_busy_ua - cpu_idle_ua) * busy, busy being the
 * busy fraction of all online CPUs, so a profile must find cpu.idle =
 * -cpu_idle_ua and a per-core active current of
 * -(cpu_busy_ua - cpu_idle_ua) / CPUs (mA, discharge positive; the driver
 * and the emulator count discharge negative).  Also: the XML's shape and
 * battery.capacity, report --model against a capture, and that SIGTERM puts tracing back and writes nothing.
 * Runs as root in the guest, with powerpin.ko and max17042_emu.ko.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "guest_harness.h"

#include "cmd_helpers.h"
#include "profile_helpers.h"

#define BAT		"/sys/class/power_supply/max170xx_battery/"
#define TRACING		"/sys/kernel/tracing/"
#define POWERPIN	"build/bin/powerpin"
#define IDLE_UA		(-120000)
#define BUSY_UA		(-900000)

static long read_long(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 10);
}

/*
 * A tracefs switch reads exactly "0" (not "1", not "X" for mixed); what
 * it reads instead is said, and with it every powerpin event still on.
 */
static bool is_off(const char *path)
{
	char buf[16];

	if (read_line(path, buf, sizeof(buf))) {
		fprintf(stderr, "# %s: cannot read it\n", path);
		return false;
	}
	if (!strcmp(buf, "0"))
		return true;
	fprintf(stderr, "# %s reads \"%s\"\n", path, buf);
	system("grep -l 1 " TRACING "events/powerpin/*/enable | sed 's/^/#   on: /' >&2");
	return false;
}

FIXTURE(profile) {
	char dir[64];
	char xml[8192];
	char tracing_on[8];	/* as found, put back at the end */
};

FIXTURE_SETUP(profile)
{
	if (access("/sys/module/powerpin", F_OK) || access(EMU "mode", F_OK))
		SKIP(return, "needs powerpin.ko and max17042_emu.ko (run in the vm-run guest)");
	strcpy(self->dir, "/tmp/ppprofile.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, emu_write("cpu_idle_ua", "-120000"));
	ASSERT_EQ(0, emu_write("cpu_busy_ua", "-900000"));
	ASSERT_EQ(0, emu_write("mode", "cpu"));
	ASSERT_EQ(0, read_line(TRACING "tracing_on", self->tracing_on, sizeof(self->tracing_on)));
	ASSERT_EQ(0, system("echo 0 > " TRACING "tracing_on"));
}

FIXTURE_TEARDOWN(profile)
{
	char cmd[128];

	if (!self->dir[0])
		return;
	if (self->tracing_on[0])
		put_file(TRACING "tracing_on", self->tracing_on);
	emu_write("mode", "constant");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

/* The number after @key, after the first @from in @s; NAN if none. */
static double num_after(const char *s, const char *from, const char *key)
{
	const char *p = strstr(s, from);

	p = p ? strstr(p, key) : NULL;
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/*
 * The profile just measured, used as a model: on the emulator the current
 * is exactly idle + per-core x busy CPUs, so over a capture with one CPU
 * spinning, the device's modelled energy (cpu.idle over the capture plus
 * every process's CPU time) comes near the measured energy.
 */
static void model_matches_device(struct __test_metadata *_metadata, const char *dir)
{
	char cmd[512], out[65536];
	double measured, modelled;
	time_t t0 = time(NULL);

	snprintf(cmd, sizeof(cmd),
		 "cd %s && $PP/" POWERPIN " record -q -o t.dat -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' 2>&1 && "
		 "$PP/" POWERPIN " report t.dat --model pp.xml --json - 2>&1", dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	measured = num_after(out, "\"model\":", "\"measured_energy_j\": ");
	modelled = num_after(out, "\"model\":", "\"energy_j\": ");
	TH_LOG("device: %.3f J measured, %.3f J modelled (record and report took %ld s)",
	       measured, modelled, (long)(time(NULL) - t0));
	/*
	 * Loose: the report's CPU time is wall time between sched_switches,
	 * the emulator's load is accounted time, and a host that starves the
	 * guest's vCPUs pulls them apart (16 % seen with 5 guests on 2 cores).
	 * Leaving out cpu.idle (40 % here) or a unit slip still fails.
	 */
	EXPECT_LT(fabs(modelled - measured) / measured, 0.25);
}

/*
 * The emulator's currents come back within 5 %.  A slow limit: steps
 * measured again and the model's capture take minutes on an emulated CPU
 * that shares the host with two other guests, and a test killed at its
 * limit cannot put tracing back.
 */
TEST_F_TIMEOUT(profile, recovers_emulator_currents, 900)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), design_uah;
	double idle, core, cluster, want_core = (IDLE_UA - BUSY_UA) / 1000.0 / ncpus;
	char cmd[512], out[8192], path[128];
	int remeasured, objects = 0;
	const char *p;
	time_t t0;

	setenv("PP", getcwd(path, sizeof(path)), 1);
	snprintf(cmd, sizeof(cmd),
		 POWERPIN " profile -q --steps 3 --duration 4 -o %s/pp.xml --json %s/pp.json 2>&1",
		 self->dir, self->dir);
	/*
	 * The rig's host runs other guests: a vCPU starved in the middle of a
	 * step shows as a large residual (a clean run here: 3-7 mA rms).  The
	 * profile command measures such steps again itself; the currents are
	 * those of its one run.
	 */
	t0 = time(NULL);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	TH_LOG("%s", out);
	TH_LOG("profile took %ld s", (long)(time(NULL) - t0));
	snprintf(path, sizeof(path), "%s/pp.xml", self->dir);
	ASSERT_EQ(0, read_text(path, self->xml, sizeof(self->xml)));
	ASSERT_NE(NULL, strstr(self->xml, "<device name=\"Android\">"));
	idle = xml_value(self->xml, "cpu.idle");
	core = xml_value(self->xml, "cpu.core_power.cluster0");
	cluster = xml_value(self->xml, "cpu.cluster_power.cluster0");
	TH_LOG("idle %.1f mA (want 120), core %.1f mA (want %.1f), cluster %.1f mA",
	       idle, core, want_core, cluster);
	EXPECT_LT(fabs(idle - 120) / 120, 0.05);
	EXPECT_LT(fabs(core - want_core) / want_core, 0.05);
	/* the emulator has no cluster term: within 5 % of the all-busy current */
	EXPECT_LT(fabs(cluster), 0.05 * 900);
	EXPECT_EQ(ncpus, (long)xml_value(self->xml, "cpu.clusters.cores"));
	EXPECT_EQ(0, (long)xml_value(self->xml, "cpu.core_speeds.cluster0"));
	design_uah = read_long(BAT "charge_full_design");
	if (design_uah <= 0)
		design_uah = read_long(BAT "charge_full");
	EXPECT_EQ(design_uah / 1000, (long)xml_value(self->xml, "battery.capacity"));
	snprintf(path, sizeof(path), "%s/pp.json", self->dir);
	ASSERT_EQ(0, read_text(path, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"interval\": \"95% Student's t\""));
	EXPECT_NE(NULL, strstr(out, "\"dof\": 6"));
	/*
	 * Steps measured again say why and what they first measured; a run
	 * that measured nothing again was within the bounds at its first fit.
	 */
	remeasured = (int)num_after(out, "\"fit\":", "\"remeasured_steps\": ");
	for (p = out; (p = strstr(p, "\"remeasured\": {\"why\": ")); p++)
		objects++;
	TH_LOG("%d steps measured again; first fit %.2f mA rms, final %.2f mA rms", remeasured,
	       num_after(out, "\"fit\":", "\"first_residual_rms_ma\": "),
	       num_after(out, "\"fit\":", "\"residual_rms_ma\": "));
	EXPECT_EQ(remeasured, objects);
	if (!remeasured)
		EXPECT_GE(10.0, num_after(out, "\"fit\":", "\"residual_rms_ma\": "));
	EXPECT_TRUE(is_off(TRACING "tracing_on"));
	EXPECT_TRUE(is_off(TRACING "events/powerpin/enable"));
	model_matches_device(_metadata, self->dir);
}

/*
 * report --model prices CPU time by power:cpu_frequency: record enables
 * the event during the capture (the guests have no cpufreq, so it never
 * fires here, but the tracepoint exists) and puts it back after.
 */
TEST_F(profile, record_enables_cpu_frequency)
{
	char cmd[512], out[4096];

	if (access(TRACING "events/power/cpu_frequency/enable", F_OK))
		SKIP(return, "this kernel has no power:cpu_frequency");
	ASSERT_EQ(0, system("echo 0 > " TRACING "events/power/cpu_frequency/enable"));
	snprintf(cmd, sizeof(cmd), "cd %s && $PP/" POWERPIN " record -q -o f.dat -- "
		 "cat " TRACING "events/power/cpu_frequency/enable 2>/dev/null", self->dir);
	setenv("PP", getcwd(out, sizeof(out)), 1);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("1\n", out);
	EXPECT_TRUE(is_off(TRACING "events/power/cpu_frequency/enable"));
}

/*
 * @sig in the middle of the capture: exit 128 + @sig, no file, tracing as
 * it was, the temporary capture gone.
 */
static void stopped_by(struct __test_metadata *_metadata, const char *dir, int sig)
{
	char path[128], desc[64];
	struct stat st;
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/pp.xml", dir);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(POWERPIN, "powerpin", "profile", "-q", "-d", "3", "-o", path, (char *)NULL);
		_exit(127);
	}
	sleep(4);
	ASSERT_EQ(0, kill(pid, sig));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("signal %d killed it", sig);
	EXPECT_EQ(128 + sig, WEXITSTATUS(status));
	EXPECT_NE(0, stat(path, &st));
	EXPECT_TRUE(is_off(TRACING "tracing_on"));
	EXPECT_TRUE(is_off(TRACING "events/powerpin/enable"));
	/* and the temporary capture is gone (grep finds nothing: status 1) */
	snprintf(desc, sizeof(desc), "ls /tmp | grep -q powerpin-profile");
	EXPECT_EQ(1, run_cmd(desc, NULL, 0));
}

/* SIGTERM, and SIGHUP (the adb shell that ran it went away), alike. */
TEST_F_TIMEOUT(profile, sigterm_restores_and_writes_nothing, 300)
{
	stopped_by(_metadata, self->dir, SIGTERM);
	stopped_by(_metadata, self->dir, SIGHUP);
}

TEST_HARNESS_MAIN
