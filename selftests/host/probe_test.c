// SPDX-License-Identifier: GPL-2.0
/*
 * Residency probing without the module: the mincore fallback reports exactly
 * the pages read, says it was used, and is refused where mincore would not
 * tell the truth (a caller that can neither write nor owns the file), by
 * the same rule as the kernel's, checked against the kernel case by case.
 */
#include <errno.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/types.h>
#include <linux/capability.h>

/* the harness compares through int-typed temporaries: silence its noise */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <kselftest_harness.h>

#include "pin_helpers.h"
#include "pin/pin.h"

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

/*
 * A caller that locks every future mapping (mlockall(MCL_FUTURE)) learns
 * what was cached before it asked: the probe's own mapping faults nothing
 * in (a readable one would be populated whole).
 */
TEST_F(probe, mincore_under_mlockall_brings_nothing_in)
{
	struct probe_result pr;
	int status, p[2];
	uint64_t got = 0;
	char err[512];
	pid_t pid;

	ASSERT_EQ(0, pin_read_range(self->file, 0, 1));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(self->file, O_RDONLY);

		if (mlockall(MCL_FUTURE))
			_exit(3);	/* not allowed here: said below */
		if (fd < 0 || probe_residency(fd, self->file, PROBE_AUTO, "/nonexistent/powerpin",
					      &pr, err, sizeof(err)))
			_exit(2);
		got = pr.nr_resident;
		_exit(write(p[1], &got, sizeof(got)) == sizeof(got) ? 0 : 4);
	}
	close(p[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 3)
		SKIP(close(p[0]); return, "mlockall(MCL_FUTURE) is not allowed to this user");
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ((ssize_t)sizeof(got), read(p[0], &got, sizeof(got)));
	close(p[0]);
	EXPECT_EQ(1, got) TH_LOG("the probe's mapping faulted the file in");
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

/*
 * What the kernel decided for @fd: with one page of 64 cached, mincore says
 * all 64 are resident exactly where it will not describe the file.
 */
static int kernel_truthful(int fd)
{
	long n = pin_resident(fd, 64 * 4096);

	return n < 0 ? -1 : n != 64;
}

/* Drop capabilities @caps (a mask of CAP_TO_MASK bits, all below 32). */
static int drop_caps(uint32_t caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[0].effective &= ~caps;
	data[0].permitted &= ~caps;
	data[0].inheritable &= ~caps;
	return syscall(SYS_capset, &hdr, data);
}

enum who { NOBODY_RDONLY, NOBODY_INHERITED_RDWR, ROOT_WITHOUT };

/*
 * In a child: become @who (for ROOT_WITHOUT: root without @caps), open the
 * file (or use an O_RDWR fd opened before), and report 10 + 2 * ours +
 * kernel's verdict.
 */
static int verdict(const char *file, enum who who, uint32_t caps)
{
	pid_t pid;
	int st, rdwr = -1;

	if (who == NOBODY_INHERITED_RDWR) {
		rdwr = open(file, O_RDWR);
		if (rdwr < 0)
			return -1;
	}
	pid = fork();
	if (!pid) {
		int fd = rdwr, k;

		if (who == ROOT_WITHOUT) {
			if (drop_caps(caps))
				_exit(99);
		} else if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
			_exit(99);
		}
		if (fd < 0)
			fd = open(file, O_RDONLY);
		if (fd < 0)
			_exit(98);
		k = kernel_truthful(fd);
		if (k < 0)
			_exit(97);
		_exit(10 + 2 * probe_mincore_truthful(fd) + k);
	}
	if (rdwr >= 0)
		close(rdwr);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define BOTH_NO		10
#define BOTH_YES	13

/*
 * probe_mincore_truthful() against the kernel's own answer, case by case:
 * how the fd was opened does not matter, root's uid does not either, only
 * ownership, CAP_FOWNER and write permission on the inode.
 */
TEST_F(probe, truthful_matches_the_kernel)
{
	const uint32_t fowner = CAP_TO_MASK(CAP_FOWNER);
	const uint32_t dac = CAP_TO_MASK(CAP_DAC_OVERRIDE);

	if (geteuid())
		SKIP(return, "needs root to switch users and drop capabilities");
	ASSERT_EQ(0, pin_read_range(self->file, 7 * 4096, 1));

	/* root's 0644 file: nobody neither owns nor may write it */
	EXPECT_EQ(BOTH_NO, verdict(self->file, NOBODY_RDONLY, 0));
	/* ... not even through an O_RDWR fd root opened for it */
	EXPECT_EQ(BOTH_NO, verdict(self->file, NOBODY_INHERITED_RDWR, 0));
	/* root itself: CAP_FOWNER */
	EXPECT_EQ(BOTH_YES, verdict(self->file, ROOT_WITHOUT, 0));

	ASSERT_EQ(0, chown(self->file, NOBODY, NOBODY));
	/* nobody's file: root without CAP_FOWNER and CAP_DAC_OVERRIDE is refused */
	EXPECT_EQ(BOTH_NO, verdict(self->file, ROOT_WITHOUT, fowner | dac));
	/* write permission through CAP_DAC_OVERRIDE is enough */
	EXPECT_EQ(BOTH_YES, verdict(self->file, ROOT_WITHOUT, fowner));
	/* a read-only file: CAP_FOWNER alone is enough */
	ASSERT_EQ(0, chmod(self->file, 0444));
	EXPECT_EQ(BOTH_YES, verdict(self->file, ROOT_WITHOUT, dac));
	EXPECT_EQ(BOTH_NO, verdict(self->file, ROOT_WITHOUT, fowner | dac));
	/* the owner, even of a read-only file */
	EXPECT_EQ(BOTH_YES, verdict(self->file, NOBODY_RDONLY, 0));
	/* group write for nobody's group */
	ASSERT_EQ(0, chown(self->file, 0, NOBODY));
	ASSERT_EQ(0, chmod(self->file, 0664));
	EXPECT_EQ(BOTH_YES, verdict(self->file, NOBODY_RDONLY, 0));
	ASSERT_EQ(0, chmod(self->file, 0644));
	EXPECT_EQ(BOTH_NO, verdict(self->file, NOBODY_RDONLY, 0));
}

TEST_HARNESS_MAIN
