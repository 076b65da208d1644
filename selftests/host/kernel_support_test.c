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
#include <sys/stat.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

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

/*
 * uapi/linux/powerpin.h builds with the oldest headers it meets: the
 * module's on 3.10.40 (the Nexus 6's tree, whose <linux/const.h> has
 * _AC() and _AT() but no _BITUL()), and userspace's.  A C file that uses
 * every flag is compiled with that const.h ahead of the host's headers.
 */
TEST(uapi_header_builds_with_3_10_40_headers)
{
	char dir[] = "/tmp/pp-uapi-XXXXXX", path[128], out[4096];

	if (access("uapi/linux/powerpin.h", R_OK))
		SKIP(return, "run from the project's top directory");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/linux", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	snprintf(path, sizeof(path), "%s/linux/const.h", dir);
	put_file(path, "#ifndef _LINUX_CONST_H\n#define _LINUX_CONST_H\n"
		       "#define __AC(X,Y) (X##Y)\n#define _AC(X,Y) __AC(X,Y)\n"
		       "#define _AT(T,X) ((T)(X))\n#endif\n");
	snprintf(path, sizeof(path), "%s/use.c", dir);
	put_file(path, "#include <linux/const.h>\n#include <linux/powerpin.h>\n"
		       "unsigned long flags = POWERPIN_SAMPLE_REPEATED | POWERPIN_SAMPLE_MISSING |\n"
		       "	POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN | POWERPIN_SAMPLE_LATE;\n"
		       "_Static_assert(POWERPIN_SAMPLE_LATE == 16, \"bit 4\");\n");
	/* -std=gnu89 as the 3.10 kernel builds; -Werror: no implicit _BITUL */
	snprintf(out, sizeof(out), "cc -std=gnu89 -Wall -Werror -fsyntax-only -I%s -Iuapi %s 2>&1",
		 dir, path);
	EXPECT_EQ(0, run_cmd(out, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(0, sh("rm -rf %s", dir));
}

/*
 * The module is built by the compiler its kernel was built with: a
 * CROSS_COMPILE the user gives (arm-eabi-, Google's prebuilt for a stock
 * Nexus 6 kernel) reaches the kernel's make, as does a tree's own
 * CONFIG_CROSS_COMPILE whose compiler exists; only without either does
 * Debian's cross compiler stand in.  Checked on the make arguments of a
 * fake ARM tree (a .config alone).
 */
TEST(arm_module_build_keeps_the_users_compiler)
{
	char dir[] = "/tmp/pp-kdir-XXXXXX", path[128], cmd[1024], out[1024];
	static const char show[] = "make -s -f Makefile -f /dev/stdin show";

	if (access("scripts/kbuild-args", X_OK))
		SKIP(return, "run from the project's top directory");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/.config", dir);
	put_file(path, "CONFIG_ARM=y\n");
	/* the script alone, from the environment */
	snprintf(cmd, sizeof(cmd), "CROSS_COMPILE=arm-eabi- scripts/kbuild-args %s", dir);
	EXPECT_STREQ("ARCH=arm CROSS_COMPILE=arm-eabi-", line_of(cmd, out, sizeof(out)));
	/* through make modules' command line, as kmod/README.md says */
	snprintf(cmd, sizeof(cmd), "echo 'show: ; @echo $(KBUILD_ARGS)' | "
		 "%s KDIR=%s ARCH=arm CROSS_COMPILE=arm-eabi- 2>&1", show, dir);
	EXPECT_STREQ("ARCH=arm CROSS_COMPILE=arm-eabi-", line_of(cmd, out, sizeof(out)));
	/* a tree that names an installed compiler in its .config */
	put_file(path, "CONFIG_ARM=y\nCONFIG_CROSS_COMPILE=\"arm-linux-gnueabi-\"\n");
	snprintf(cmd, sizeof(cmd), "env -u CROSS_COMPILE PATH=%s:$PATH scripts/kbuild-args %s", dir, dir);
	snprintf(path, sizeof(path), "%s/arm-linux-gnueabi-gcc", dir);
	put_file(path, "#!/bin/sh\necho 12.2.0\n");
	ASSERT_EQ(0, chmod(path, 0755));
	EXPECT_STREQ("ARCH=arm CROSS_COMPILE=arm-linux-gnueabi-", line_of(cmd, out, sizeof(out)));
	/* none: Debian's */
	snprintf(path, sizeof(path), "%s/.config", dir);
	put_file(path, "CONFIG_ARM=y\n");
	snprintf(cmd, sizeof(cmd), "env -u CROSS_COMPILE scripts/kbuild-args %s", dir);
	EXPECT_STREQ("ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-", line_of(cmd, out, sizeof(out)));
	EXPECT_EQ(0, sh("rm -rf %s", dir));
}

/*
 * A tree that lacks what the module needs stops the build in one line that
 * names every missing option (kmod/requires.mk), before any compiler
 * error; a tree with all of them passes the check.
 */
TEST(missing_kernel_options_are_named_in_one_line)
{
	static const char cmd[] = "make -s -f kmod/requires.mk srctree=/shamu %s 2>&1";
	char line[512], out[1024];

	if (access("kmod/requires.mk", R_OK))
		SKIP(return, "run from the project's top directory");
	snprintf(line, sizeof(line), cmd, "CONFIG_NET=y");
	EXPECT_NE(0, run_cmd(line, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "powerpin: the kernel at /shamu lacks what the module needs: "
				    "CONFIG_EVENT_TRACING (trace events, which any tracer selects: "
				    "CONFIG_ENABLE_DEFAULT_TRACERS=y), CONFIG_POWER_SUPPLY (")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "CONFIG_NET")) TH_LOG("%s", out);
	EXPECT_EQ(strlen(out) - 1, strcspn(out, "\n")) TH_LOG("not one line: %s", out);
	snprintf(line, sizeof(line), cmd, "CONFIG_NET=y CONFIG_POWER_SUPPLY=m CONFIG_EVENT_TRACING=y");
	run_cmd(line, out, sizeof(out));
	EXPECT_EQ(NULL, strstr(out, "lacks")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "No targets")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
