// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile against ground truth: the gauge emulator's cpu mode
 * draws cpu_idle_ua + (cpu_busy_ua - cpu_idle_ua) * busy, busy being the
 * busy fraction of all online CPUs, so a profile must find cpu.idle =
 * -cpu_idle_ua and a per-core active current of
 * -(cpu_busy_ua - cpu_idle_ua) / CPUs (mA, discharge positive; the driver
 * and the emulator count discharge negative).  Also: the XML's shape and
 * battery.capacity, and that SIGTERM puts tracing back and writes nothing.
 * Runs as root in the guest, with powerpin.ko and max17042_emu.ko.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define EMU		"/sys/kernel/debug/max17042_emu/"
#define BAT		"/sys/class/power_supply/max170xx_battery/"
#define TRACING		"/sys/kernel/tracing/"
#define POWERPIN	"build/bin/powerpin"
#define IDLE_UA		(-120000)
#define BUSY_UA		(-900000)

static int emu_write(const char *knob, const char *val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), EMU "%s", knob);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* The number after name="@name"> (an item) or after its array's first <value>. */
static double xml_value(const char *xml, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "name=\"%s\">", name);
	p = strstr(xml, key);
	if (!p)
		return NAN;
	p += strlen(key);
	while (*p == ' ' || *p == '\n')
		p++;
	if (!strncmp(p, "<value>", 7))
		p += 7;
	return strtod(p, NULL);
}

static long read_long(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 10);
}

/* A tracefs switch reads exactly "0" (not "1", not "X" for mixed). */
static bool is_off(const char *path)
{
	char buf[16];

	return !read_line(path, buf, sizeof(buf)) && !strcmp(buf, "0");
}

FIXTURE(profile) {
	char dir[64];
	char xml[8192];
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
	ASSERT_EQ(0, system("echo 0 > " TRACING "tracing_on"));
}

FIXTURE_TEARDOWN(profile)
{
	char cmd[128];

	if (!self->dir[0])
		return;
	emu_write("mode", "constant");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

/* The emulator's currents come back within 5 %. */
TEST_F_TIMEOUT(profile, recovers_emulator_currents, 300)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), design_uah;
	double idle, core, cluster, want_core = (IDLE_UA - BUSY_UA) / 1000.0 / ncpus;
	char cmd[512], out[8192], path[128];

	snprintf(cmd, sizeof(cmd),
		 POWERPIN " profile -q --steps 3 --duration 4 -o %s/pp.xml --json %s/pp.json 2>&1",
		 self->dir, self->dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	TH_LOG("%s", out);
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
	EXPECT_TRUE(is_off(TRACING "tracing_on"));
	EXPECT_TRUE(is_off(TRACING "events/powerpin/enable"));
}

/* SIGTERM in the middle: exit 128 + 15, no file, tracing as it was. */
TEST_F_TIMEOUT(profile, sigterm_restores_and_writes_nothing, 120)
{
	char path[128], desc[64];
	struct stat st;
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/pp.xml", self->dir);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(POWERPIN, "powerpin", "profile", "-q", "-d", "3", "-o", path, (char *)NULL);
		_exit(127);
	}
	sleep(4);
	ASSERT_EQ(0, kill(pid, SIGTERM));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(128 + SIGTERM, WEXITSTATUS(status));
	EXPECT_NE(0, stat(path, &st));
	EXPECT_TRUE(is_off(TRACING "tracing_on"));
	EXPECT_TRUE(is_off(TRACING "events/powerpin/enable"));
	/* and the temporary capture is gone (grep finds nothing: status 1) */
	snprintf(desc, sizeof(desc), "ls /tmp | grep -q powerpin-profile");
	EXPECT_EQ(1, run_cmd(desc, NULL, 0));
}

TEST_HARNESS_MAIN
