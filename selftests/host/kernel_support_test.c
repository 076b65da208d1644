// SPDX-License-Identifier: GPL-2.0
/*
 * The module builds only for the kernels it supports (Linux 3.10, 3.18,
 * 4.4, 4.9, 4.14, 4.19, 5.4, and 5.10 or newer): kmod/probes.mk, which kmod/Kbuild
 * and the gauge emulator's Kbuild include, stops any other with one line
 * naming the supported set, before a probe picks an untested branch.  Checked by evaluating
 * probes.mk alone with the kernel Makefile's VERSION and PATCHLEVEL.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#define PROBES	"kmod/probes.mk"
#define SUPPORTED "supported: Linux 3.10, 3.18, 4.4, 4.9, 4.14, 4.19, 5.4, and 5.10 or newer"

/* Evaluate probes.mk for kernel @ver.@patch: 0 accepted, 1 refused, -1. */
static int probes_verdict(int ver, int patch, char *out, size_t len)
{
	char cmd[256];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "make -s -f %s VERSION=%d PATCHLEVEL=%d srctree=/nonexistent 2>&1",
		 PROBES, ver, patch);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	pclose(f);
	if (strstr(out, "is not supported"))
		return 1;
	return strstr(out, "No targets") ? 0 : -1;
}

TEST(supported_kernels_build)
{
	static const int ok[][2] = { { 3, 10 }, { 3, 18 }, { 4, 4 }, { 4, 9 }, { 4, 14 },
				     { 4, 19 }, { 5, 4 }, { 5, 10 }, { 5, 15 },
				     { 6, 1 }, { 6, 6 }, { 6, 12 }, { 7, 2 },
				     { 10, 0 } };
	char out[512];
	size_t i;

	if (access(PROBES, R_OK))
		SKIP(return, "run from the project's top directory");
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		EXPECT_EQ(0, probes_verdict(ok[i][0], ok[i][1], out, sizeof(out)))
			TH_LOG("%d.%d: %s", ok[i][0], ok[i][1], out);
}

TEST(unsupported_kernels_are_refused_in_one_line)
{
	static const int bad[][2] = { { 2, 6 }, { 3, 4 }, { 3, 13 }, { 3, 17 }, { 3, 19 },
				      { 4, 1 }, { 4, 3 }, { 4, 5 }, { 4, 20 }, { 5, 0 },
				      { 5, 3 }, { 5, 5 }, { 5, 9 } };
	char out[512], want[64];
	size_t i;

	if (access(PROBES, R_OK))
		SKIP(return, "run from the project's top directory");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(1, probes_verdict(bad[i][0], bad[i][1], out, sizeof(out)))
			TH_LOG("%d.%d: %s", bad[i][0], bad[i][1], out);
		snprintf(want, sizeof(want), "Linux %d.%d is not supported",
			 bad[i][0], bad[i][1]);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, SUPPORTED)) TH_LOG("%s", out);
		EXPECT_EQ(NULL, strchr(out, '\n') == out + strlen(out) - 1 ?
			  NULL : strchr(out, '\n')) TH_LOG("not one line: %s", out);
	}
}

TEST_HARNESS_MAIN
