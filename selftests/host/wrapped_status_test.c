// SPDX-License-Identifier: GPL-2.0
/*
 * A wrapped command's status, as a shell (and time, perf record) reports
 * it: its exit code, 128 + N for signal N, 127 when it is not found, 126
 * when it cannot be run.  The helpers in util.c, and `powerpin pin capture`
 * on the host (mincore residency), which writes its pinlist all the same.
 * `powerpin record -- CMD` needs tracefs and the module: see
 * selftests/guest/record_test.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "pin_helpers.h"
#include "base/base.h"

/* fork, exec_command(@argv) in the child; its wait status turned into an exit status */
static int wrapped(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		/* its message would clutter the TAP output */
		if (!freopen("/dev/null", "w", stderr))
			_exit(99);
		exec_command("test", argv);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return wait_exit_status(st);
}

TEST(exec_and_wait_statuses)
{
	char *ok[] = { "true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };
	char *usr1[] = { "sh", "-c", "kill -USR1 $$", NULL };
	char *missing[] = { "/nonexistent/powerpin-no-such-command", NULL };
	char *missing_path[] = { "powerpin-no-such-command-anywhere", NULL };
	char *not_exec[] = { "/etc/hostname", NULL };
	char *dir[] = { "/tmp", NULL };

	EXPECT_EQ(0, wrapped(ok));
	EXPECT_EQ(3, wrapped(three));
	EXPECT_EQ(128 + SIGUSR1, wrapped(usr1));
	EXPECT_EQ(127, wrapped(missing));
	EXPECT_EQ(127, wrapped(missing_path));
	if (!access("/etc/hostname", F_OK) && access("/etc/hostname", X_OK))
		EXPECT_EQ(126, wrapped(not_exec));
	EXPECT_EQ(126, wrapped(dir));
}

/* pin capture: the workload's status, and its pinlist written each time */
TEST(pin_capture_returns_the_workload_status)
{
	static const struct {
		const char *cmd;
		int status;
	} cases[] = {
		{ "true", 0 },
		{ "sh -c 'exit 3'", 3 },
		{ "sh -c 'kill -USR1 $$'", 128 + SIGUSR1 },
		{ "./no-such-command", 127 },
		{ "./plain", 126 },
	};
	char dir[256], out[300], *bin;
	struct stat st;
	size_t i;

	if (access(pin_bin(), X_OK))
		SKIP(return, "powerpin not built");
	/* absolute: the command runs in the scratch directory */
	bin = realpath(pin_bin(), NULL);
	ASSERT_NE(NULL, bin);
	ASSERT_EQ(0, pin_mkdtemp(dir, sizeof(dir), "wrapped"));
	ASSERT_EQ(0, pin_run("head -c 8192 /dev/urandom > %s/data && cat %s/data >/dev/null && "
			     "echo 'echo hi' > %s/plain && chmod 644 %s/plain", dir, dir, dir, dir));
	snprintf(out, sizeof(out), "%s/out/data.pinlist", dir);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unlink(out);
		EXPECT_EQ(cases[i].status,
			  pin_run("cd %s && %s pin capture --file data --probe-method mincore -o out -- %s >/dev/null 2>&1",
				  dir, bin, cases[i].cmd))
			TH_LOG("%s", cases[i].cmd);
		EXPECT_EQ(0, stat(out, &st)) TH_LOG("%s: no pinlist", cases[i].cmd);
	}
	pin_run("rm -rf %s", dir);
	free(bin);
}

TEST_HARNESS_MAIN
