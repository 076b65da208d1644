// SPDX-License-Identifier: GPL-2.0
/*
 * Residency probing without the module: the mincore fallback reports exactly
 * the pages read, says it was used, and is refused where mincore would not
 * tell the truth (a caller that can neither write nor owns the file).
 */
#include <errno.h>
#include <grp.h>
#include <sys/types.h>

/* the harness compares through int-typed temporaries: silence its noise */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <kselftest_harness.h>

#include "pin_helpers.h"
#include "probe.h"

#define NOBODY	65534

FIXTURE(probe) {
	char dir[64];
	char file[128];
};

FIXTURE_SETUP(probe)
{
	PIN_NEED_4K_PAGES();
	ASSERT_EQ(0, pin_mkdtemp(self->dir, sizeof(self->dir), "probe_test"));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	snprintf(self->file, sizeof(self->file), "%s/data", self->dir);
	ASSERT_EQ(0, pin_make_evicted(self->file, 64, 0644));
}

FIXTURE_TEARDOWN(probe)
{
	pin_run("rm -rf %s", self->dir);
}

TEST_F(probe, mincore_reports_exactly_the_pages_read)
{
	struct probe_result pr;
	char err[512];
	int fd;

	ASSERT_EQ(0, pin_read_range(self->file, 0, 1));
	ASSERT_EQ(0, pin_read_range(self->file, 5 * 4096 + 100, 3 * 4096 - 200));
	ASSERT_EQ(0, pin_read_range(self->file, 63 * 4096, 4096));
	fd = open(self->file, O_RDONLY);
	ASSERT_LE(0, fd);
	/* no module on the host: a device path that does not exist */
	ASSERT_EQ(0, probe_residency(fd, self->file, PROBE_AUTO, "/nonexistent/powerpin", &pr,
				     err, sizeof(err)));
	close(fd);
	EXPECT_EQ(PROBE_MINCORE, pr.method);
	EXPECT_NE(NULL, strstr(pr.fallback_reason, "/nonexistent/powerpin"));
	EXPECT_EQ(64 * 4096, pr.file_size);
	EXPECT_EQ(64, pr.nr_pages);
	EXPECT_EQ(5, pr.nr_resident);
	ASSERT_EQ(3, pr.resident.nr);
	EXPECT_EQ(0, pr.resident.v[0].offset);
	EXPECT_EQ(4096, pr.resident.v[0].length);
	EXPECT_EQ(5 * 4096, pr.resident.v[1].offset);
	EXPECT_EQ(3 * 4096, pr.resident.v[1].length);
	EXPECT_EQ(63 * 4096, pr.resident.v[2].offset);
	EXPECT_EQ(4096, pr.resident.v[2].length);
	probe_result_free(&pr);
}

TEST_F(probe, cli_probe_to_pinlist_names_the_method)
{
	const uint64_t want[] = { 4096, 8192, 40 * 4096, 4096 };
	char out[160];

	if (!access("/dev/powerpin", F_OK))
		SKIP(return, "/dev/powerpin exists: the guest test covers the ioctl path");
	ASSERT_EQ(0, pin_read_range(self->file, 4096, 8192));
	ASSERT_EQ(0, pin_read_range(self->file, 40 * 4096, 1));
	snprintf(out, sizeof(out), "%s/p.meta", self->dir);
	ASSERT_EQ(0, pin_run("%s file %s --gen-probe -o %s > %s/log 2>&1", pin_bin(),
			     self->file, out, self->dir));
	EXPECT_TRUE(pin_file_is(out, want, 2));
	EXPECT_EQ(0, pin_run("grep -q 'residency via mincore (/dev/powerpin: No such file or directory)' %s/log",
			     self->dir));
	EXPECT_EQ(0, pin_run("grep -qxF '%s size(B)=262144 resident(B)=12288 resident(%%)=4.6875' %s/log",
			     self->file, self->dir));
	EXPECT_EQ(0, pin_run("grep -qxF 'file_offset=163840 total_bytes=4096' %s/log", self->dir));
	/* --probe-method runs insists on the ioctl: a clear error, exit 1 */
	EXPECT_EQ(1, pin_run("%s file %s --gen-probe --probe-method runs > %s/log 2>&1",
			     pin_bin(), self->file, self->dir));
	EXPECT_EQ(0, pin_run("grep -q 'cannot open /dev/powerpin' %s/log", self->dir));
}

/* Run @fn as nobody in a child; returns its exit status. */
static int as_nobody(const char *file, int (*fn)(const char *))
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		_exit(fn(file));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int probe_as_caller(const char *file)
{
	struct probe_result pr;
	char err[512];
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return 98;
	if (probe_residency(fd, file, PROBE_AUTO, NULL, &pr, err, sizeof(err))) {
		/* refused, with the reason spelled out */
		if (errno == EPERM && strstr(err, "mincore would not tell the truth"))
			return 10;
		return 11;
	}
	if (pr.method == PROBE_MINCORE && pr.nr_resident == 1 && pr.resident.nr == 1 &&
	    pr.resident.v[0].offset == 7 * 4096)
		return 20;
	return 21;
}

TEST_F(probe, untruthful_mincore_is_refused)
{
	if (geteuid())
		SKIP(return, "needs root to switch to nobody");
	if (!access("/dev/powerpin", F_OK))
		SKIP(return, "/dev/powerpin exists: the guest test covers this path");
	ASSERT_EQ(0, pin_read_range(self->file, 7 * 4096, 1));
	/* root's file, read-only to nobody: mincore would lie, so refuse */
	EXPECT_EQ(10, as_nobody(self->file, probe_as_caller));
	/* nobody's own file: mincore tells the truth */
	ASSERT_EQ(0, chown(self->file, NOBODY, NOBODY));
	EXPECT_EQ(20, as_nobody(self->file, probe_as_caller));
	/* group-writable to nobody's group: truthful too */
	ASSERT_EQ(0, chown(self->file, 0, NOBODY));
	ASSERT_EQ(0, chmod(self->file, 0664));
	EXPECT_EQ(20, as_nobody(self->file, probe_as_caller));
}

TEST_HARNESS_MAIN
