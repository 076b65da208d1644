// SPDX-License-Identifier: GPL-2.0
/*
 * Built with the tests' flags and run by harness_teardown_test, never on
 * its own: a fixture whose test fails an ASSERT, and whose teardown says
 * so in the file named by $PP_TEARDOWN_MARK.  The tests rely on teardown
 * putting back what a failed test changed.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <kselftest_harness.h>

FIXTURE(probe) {
	int setup_ran;
};

FIXTURE_SETUP(probe)
{
	self->setup_ran = 1;
}

FIXTURE_TEARDOWN(probe)
{
	const char *mark = getenv("PP_TEARDOWN_MARK");
	int fd;

	if (!mark || !self->setup_ran)
		return;
	fd = open(mark, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		if (write(fd, "teardown\n", 9) != 9)
			_exit(3);
		close(fd);
	}
}

TEST_F(probe, assert_fails)
{
	ASSERT_EQ(0, 1);
}

TEST_HARNESS_MAIN
