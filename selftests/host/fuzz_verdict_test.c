// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz regression of `make check` tells a timeout the host starved
 * from a finding: fuzz_timeout_verdict (scripts/lib.sh, what scripts/fuzz
 * runs on a timed-out input) runs the input again alone and judges it by
 * its own CPU time.  The harnesses are stand-in scripts: one that answers
 * at once (a starved run), one that spends twice the limit in CPU (a slow
 * input), one that hangs, one that crashes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

FIXTURE(verdict) {
	char dir[64];
	char out[1024];
};

FIXTURE_SETUP(verdict)
{
	strcpy(self->dir, "/tmp/pp-fuzzv-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, sh("cd %s && printf '#!/bin/sh\\nexit 0\\n' > quick && "
			"printf '#!/bin/bash\\nend=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do :; done\\n' > slow && "
			"printf '#!/bin/sh\\nexec sleep 600\\n' > hang && "
			"printf '#!/bin/sh\\nexit 77\\n' > crash && chmod +x quick slow hang crash && : > unit",
			self->dir));
}

FIXTURE_TEARDOWN(verdict)
{
	sh("rm -rf %s", self->dir);
}

/* The verdict on harness @bin with a 1 s limit, into self->out. */
static int verdict(FIXTURE_DATA(verdict) *self, const char *bin)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "bash -c 'set -euo pipefail; . scripts/lib.sh; fuzz_timeout_verdict %s/%s %s/unit 1'",
		 self->dir, bin, self->dir);
	return run_cmd(cmd, self->out, sizeof(self->out));
}

TEST_F(verdict, an_input_that_is_quick_alone_was_starved)
{
	ASSERT_EQ(0, verdict(self, "quick"));
	EXPECT_EQ(0, strncmp(self->out, "starved ", 8)) TH_LOG("%s", self->out);
}

TEST_F(verdict, an_input_slow_alone_is_a_finding)
{
	ASSERT_EQ(0, verdict(self, "slow"));
	EXPECT_EQ(0, strncmp(self->out, "finding ", 8)) TH_LOG("%s", self->out);
	EXPECT_LE(1.0, strtod(self->out + 8, NULL)) TH_LOG("%s", self->out);
}

TEST_F(verdict, an_input_that_hangs_alone_is_a_finding)
{
	ASSERT_EQ(0, verdict(self, "hang"));
	EXPECT_STREQ("finding hang\n", self->out);
}

TEST_F(verdict, an_input_that_fails_alone_is_a_finding)
{
	ASSERT_EQ(0, verdict(self, "crash"));
	EXPECT_EQ(0, strncmp(self->out, "finding ", 8)) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
