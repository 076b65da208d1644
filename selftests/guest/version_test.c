// SPDX-License-Identifier: GPL-2.0
/*
 * Versions in the guest: the module built from this tree and the tools
 * report the same version, `powerpin status` shows both and says nothing
 * more, and the same CLI built as another version warns, in text and JSON.
 * `powerpin modcheck` says the module built for the guest's kernel (the one
 * the rig loaded) matches it, and one claimed for another release does not.
 * Runs as root from the repo root with powerpin.ko loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"

#define POWERPIN	"build/bin/powerpin"
#define OTHER		"build/tests/bin/powerpin-other-version"

/* Run @cmd; its stdout into @out, its stderr into @err; exit status. */
static int run(const char *cmd, char *out, size_t outlen, char *err, size_t errlen)
{
	char full[1200];
	FILE *fp;
	size_t n;
	int st;

	snprintf(full, sizeof(full), "%s >/tmp/vt.out 2>/tmp/vt.err", cmd);
	st = system(full);
	fp = fopen("/tmp/vt.out", "r");
	n = fp ? fread(out, 1, outlen - 1, fp) : 0;
	out[n] = '\0';
	if (fp)
		fclose(fp);
	fp = fopen("/tmp/vt.err", "r");
	n = fp ? fread(err, 1, errlen - 1, fp) : 0;
	err[n] = '\0';
	if (fp)
		fclose(fp);
	unlink("/tmp/vt.out");
	unlink("/tmp/vt.err");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void module_version(char *buf, size_t len)
{
	FILE *fp = fopen("/sys/module/powerpin/version", "r");

	buf[0] = '\0';
	if (fp) {
		if (!fgets(buf, len, fp))
			buf[0] = '\0';
		fclose(fp);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

TEST(module_and_tools_agree)
{
	char mod[128], out[8192], err[4096], want[512];

	module_version(mod, sizeof(mod));
	ASSERT_NE('\0', mod[0]);
	ASSERT_EQ(0, run(POWERPIN " --version", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want), "powerpin %s\n", mod);
	EXPECT_STREQ(want, out);
	ASSERT_EQ(0, run("build/bin/powerpind --version", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want), "powerpind %s\n", mod);
	EXPECT_STREQ(want, out);

	ASSERT_EQ(0, run(POWERPIN " status", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want), "version:      powerpin %s, powerpin.ko %s\n", mod, mod);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_STREQ("", err);

	ASSERT_EQ(0, run(POWERPIN " status --json", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want), "\"version\":\"%s\",\"module_version\":\"%s\",\"versions_match\":true}",
		 mod, mod);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_STREQ("", err);
}

TEST(mismatch_warns)
{
	char mod[128], out[8192], err[4096], want[512];

	module_version(mod, sizeof(mod));
	ASSERT_NE('\0', mod[0]);
	ASSERT_NE(0, strcmp(mod, "0.0.0-other"));

	/* a warning, not a failure: the status itself is still right */
	ASSERT_EQ(0, run(OTHER " status", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want), "version:      powerpin 0.0.0-other, powerpin.ko %s\n", mod);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, "state:"));
	snprintf(want, sizeof(want),
		 "powerpin status: warning: powerpin.ko is version %s but powerpin is 0.0.0-other",
		 mod);
	EXPECT_NE(NULL, strstr(err, want));

	ASSERT_EQ(0, run(OTHER " status --json", out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want),
		 "\"version\":\"0.0.0-other\",\"module_version\":\"%s\",\"versions_match\":false}\n",
		 mod);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(err, "warning"));
}

TEST(modcheck_matches_the_loaded_module)
{
	char cmd[1024], out[2048], err[1024];
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), POWERPIN " modcheck build/%s/powerpin.ko", u.release);
	EXPECT_EQ(0, run(cmd, out, sizeof(out), err, sizeof(err))) TH_LOG("%s%s", out, err);
	EXPECT_NE(NULL, strstr(out, "\nmatches (insmod's vermagic check passes")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), POWERPIN " modcheck build/%s/powerpin.ko --release %s-other --kernel-version '%s'",
		 u.release, u.release, u.version);
	EXPECT_EQ(1, run(cmd, out, sizeof(out), err, sizeof(err))) TH_LOG("%s%s", out, err);
	EXPECT_NE(NULL, strstr(out, "differs release: ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "differs SMP")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "differs preemption")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
