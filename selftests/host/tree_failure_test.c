// SPDX-License-Identifier: GPL-2.0
/*
 * A tree kernel that cannot be built is its guest's failure, never the end
 * of scripts/deps: ltree_build_or_record (scripts/lib.sh, what deps runs
 * for each tree line) survives the shell's errexit and pipefail, records
 * the build's own error line as the reason (which scripts/check turns into
 * that guest's "not run" failure), records a tree the user named that is
 * not one, leaves a line without a tree to be skipped, and forgets the
 * reason once the build succeeds.  The build is a stand-in script; the
 * cache is a temporary directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

FIXTURE(tree) {
	char dir[64];
	char out[8192];
};

FIXTURE_SETUP(tree)
{
	strcpy(self->dir, "/tmp/pp-tree-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* a 5.15 tree as ltree_tree() accepts it, and a build that fails as a
	 * tree with only arch/x86 did */
	ASSERT_EQ(0, sh("mkdir -p %s/cache %s/t && printf 'VERSION = 5\\nPATCHLEVEL = 15\\n' > %s/t/Makefile",
			self->dir, self->dir, self->dir));
	ASSERT_EQ(0, sh("printf '#!/bin/sh\\necho building $1 >&2\\n"
			"echo \"powerpin: error: arch/arm64/Makefile: No such file or directory\" >&2\\n"
			"echo more noise >&2\\nexit ${FAKE_RC:-1}\\n' > %s/build && chmod +x %s/build",
			self->dir, self->dir));
}

FIXTURE_TEARDOWN(tree)
{
	sh("rm -rf %s", self->dir);
}

/* @script run under errexit and pipefail with lib.sh sourced; its status */
static int lib(FIXTURE_DATA(tree) *self, const char *env, const char *script)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "env -u POWERPIN_LINUX_5_15 POWERPIN_CACHE=%s/cache LTREE_BUILD=%s/build %s "
		 "bash -c 'set -euo pipefail; . scripts/lib.sh; %s' 2>&1",
		 self->dir, self->dir, env, script);
	return run_cmd(cmd, self->out, sizeof(self->out));
}

TEST_F(tree, failed_build_is_recorded_and_the_run_goes_on)
{
	char env[256], want[512];

	snprintf(env, sizeof(env), "POWERPIN_LINUX_5_15=%s/t", self->dir);
	ASSERT_EQ(0, lib(self, env, "ltree_build_or_record 5.15; echo went on; ltree_failed 5.15"));
	EXPECT_NE(NULL, strstr(self->out, "building 5.15\n"));	/* shown as it came */
	EXPECT_NE(NULL, strstr(self->out, "went on\n"));
	snprintf(want, sizeof(want),
		 "its kernel could not be built from %s/t: arch/arm64/Makefile: No such file or directory\n",
		 self->dir);
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "powerpin: warning: guest 5.15 will fail: "));
	/* built now: the reason is gone */
	snprintf(env, sizeof(env), "POWERPIN_LINUX_5_15=%s/t FAKE_RC=0", self->dir);
	ASSERT_EQ(0, lib(self, env, "ltree_build_or_record 5.15; ltree_failed 5.15 || echo none"));
	EXPECT_NE(NULL, strstr(self->out, "none\n"));
}

TEST_F(tree, a_named_tree_that_is_none_fails_and_no_tree_skips)
{
	char env[256];

	snprintf(env, sizeof(env), "POWERPIN_LINUX_5_15=%s/cache", self->dir);
	ASSERT_EQ(0, lib(self, env, "ltree_build_or_record 5.15; ltree_failed 5.15"));
	EXPECT_NE(NULL, strstr(self->out, "is not a Linux 5.15 source tree")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "building"));
	/* no tree named and none at the default place: nothing to fail */
	ASSERT_EQ(0, lib(self, "", "ltree_build_or_record 5.15; ltree_failed 5.15 || echo none"));
	EXPECT_STREQ("none\n", self->out);
}

TEST_HARNESS_MAIN
