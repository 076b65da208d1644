// SPDX-License-Identifier: GPL-2.0
/*
 * guest_profile: how close `powerpin profile` comes to the gauge emulator's
 * own settings and how long a calibration takes.  The emulator's cpu mode
 * draws cpu_idle_ua + (cpu_busy_ua - cpu_idle_ua) * busy; with -120 mA idle
 * and -900 mA all busy, the profile should say cpu.idle 120 mA and
 * (900 - 120) / CPUs mA per busy core.
 *
 *   bench profile_error: cpu.idle X mA (set 120, E %), core X mA (set Y, E %), cluster X mA (set 0)
 *   bench profile_time: N steps of S s in T s (plan S*N s)
 *   bench profile_fit: R mA rms residual, M steps measured again (first fit F mA rms)
 *
 * A benchmark reports; it never fails because a number is off.
 *
 *   guest_profile [ROUNDS [STEP_SECONDS]]   defaults 2 and 4
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile_helpers.h"

#define XML	"/tmp/guest_profile.xml"
#define JSON	"/tmp/guest_profile.json"

/* The number after @key in @s, NAN if none. */
static double json_num(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* @path's first @len - 1 bytes, NUL-terminated; 0 or -1. */
static int take_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2;
	double step_s = argc > 2 ? atof(argv[2]) : 4, t0, t, idle, core, cluster, want;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	char cmd[256], xml[8192], json[16384];
	int rc;

	if (emu_write("cpu_idle_ua", "-120000") || emu_write("cpu_busy_ua", "-900000") ||
	    emu_write("mode", "cpu")) {
		fprintf(stderr, "guest_profile: no max17042_emu controls (run in the guest)\n");
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin profile -q --steps %d --duration %g -o "
		 XML " --json " JSON " >/dev/null", rounds, step_s);
	t0 = now_s();
	rc = system(cmd);
	t = now_s() - t0;
	emu_write("mode", "constant");
	if (rc || take_file(XML, xml, sizeof(xml)) || take_file(JSON, json, sizeof(json))) {
		fprintf(stderr, "guest_profile: powerpin profile failed\n");
		return 1;
	}
	idle = xml_value(xml, "cpu.idle");
	core = xml_value(xml, "cpu.core_power.cluster0");
	cluster = xml_value(xml, "cpu.cluster_power.cluster0");
	want = 780.0 / ncpus;
	printf("bench profile_error: cpu.idle %.1f mA (set 120, %+.1f %%), core %.1f mA (set %.1f, %+.1f %%), cluster %.1f mA (set 0)\n",
	       idle, 100 * (idle - 120) / 120, core, want, 100 * (core - want) / want, cluster);
	printf("bench profile_time: %ld steps of %g s in %.1f s (plan %.0f s)\n",
	       rounds * (1 + ncpus), step_s, t, rounds * (1 + ncpus) * step_s);
	printf("bench profile_fit: %.2f mA rms residual, %.0f steps measured again (first fit %.2f mA rms)\n",
	       json_num(json, "\"residual_rms_ma\": "), json_num(json, "\"remeasured_steps\": "),
	       json_num(json, "\"first_residual_rms_ma\": "));
	return 0;
}
