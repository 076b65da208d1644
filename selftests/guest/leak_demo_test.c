// SPDX-License-Identifier: GPL-2.0
/*
 * A test that leaks on purpose, to show run-guest catching it: an orphaned
 * spinner, the powerpin event left on, a tracing instance, a changed
 * parameter, tracing_on left on, a file under /tmp and a mount.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_harness.h"

TEST(leaks_everything)
{
	if (fork() == 0) {
		if (fork() == 0) {
			setsid();
			for (;;)
				;
		}
		_exit(0);
	}
	ASSERT_EQ(0, system("echo 1 > /sys/kernel/tracing/events/powerpin/powerpin_battery/enable"));
	ASSERT_EQ(0, system("mkdir /sys/kernel/tracing/instances/leaked"));
	ASSERT_EQ(0, system("echo 5000 > /sys/module/powerpin/parameters/period_us"));
	ASSERT_EQ(0, system("echo 1 > /sys/kernel/tracing/tracing_on"));
	ASSERT_EQ(0, mkdir("/tmp/leaked-dir", 0755));
	ASSERT_EQ(0, mount("tmpfs", "/tmp/leaked-dir", "tmpfs", 0, "size=1m"));
}

TEST_HARNESS_MAIN
