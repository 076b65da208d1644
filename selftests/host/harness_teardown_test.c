// SPDX-License-Identifier: GPL-2.0
/*
 * FIXTURE_TEARDOWN runs after a failed ASSERT in the tests as they are
 * built (TEST_CFLAGS): kselftest_harness.h keeps the pid of its fork in a
 * plain local across setjmp(), and built with optimisation an ASSERT's
 * longjmp() brings back the value from before the fork, so the test's
 * process skips the teardown and a failed test leaves everything it
 * changed (tracing_on, events, files) to the tests after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#define PROBE "build/tests/bin/teardown_probe"

TEST(teardown_runs_after_a_failed_assert)
{
	char dir[] = "/tmp/pp-teardown-XXXXXX", mark[64], cmd[256], buf[64] = "";
	FILE *f;
	int st;

	if (access(PROBE, X_OK))
		SKIP(return, "%s not built (make tests)", PROBE);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(mark, sizeof(mark), "%s/mark", dir);
	snprintf(cmd, sizeof(cmd), "PP_TEARDOWN_MARK=%s " PROBE " >%s/out 2>&1", mark, dir);
	st = system(cmd);
	/* the probe's one test fails: that is its point */
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	f = fopen(mark, "r");
	EXPECT_NE(NULL, f) TH_LOG("the teardown did not run after the failed ASSERT");
	if (f) {
		EXPECT_NE(NULL, fgets(buf, sizeof(buf), f));
		fclose(f);
	}
	EXPECT_STREQ("teardown\n", buf);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
