// SPDX-License-Identifier: GPL-2.0
/*
 * Pinlists from real page-cache state, in the guest with powerpin.ko loaded,
 * on /mnt/disk (ext4):
 *  - evict a file, read known pages, probe through the ioctl (runs and
 *    bitmap mode, and past one buffer of runs): exactly those pages;
 *  - `pin capture` around a workload that reads known entries of a zip:
 *    the pinlist covers exactly those entries' pages, and with --interval
 *    the entry read first comes first;
 *  - `pin apply` raises the process's VmLck by exactly the pinned bytes,
 *    from a --pinlist and from one embedded in the APK.
 *
 * The workload is this binary again: with PIN_TEST_READ=path:off+len,...
 * in the environment it reads those ranges (no readahead) and exits.  A
 * "probesN" item waits until the capture (its parent) has gone to sleep N
 * more times: with --interval each sleep ends one probe, so everything read
 * before is seen a tick earlier than what comes after, however slow the
 * guest (a fixed pause is not enough when three guests share two cores).
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <zip.h>

/* the harness compares through int-typed temporaries: silence its noise */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "guest_harness.h"

#include <linux/powerpin.h>

#include "pin_helpers.h"
#include "pin/pin.h"

#define PS	4096ULL
#define NOBODY	65534

/* ---- the workload --------------------------------------------------- */

/* The parent's voluntary context switches, or -1. */
static long parent_sleeps(void)
{
	return pin_status_field(getppid(), "voluntary_ctxt_switches");
}

/* Wait (at most 5 minutes) until the parent has slept @n more times. */
static int wait_parent_sleeps(long n)
{
	const struct timespec tick = { 0, 10 * 1000000 };
	long start = parent_sleeps(), now;
	int i;

	if (start < 0)
		return -1;
	for (i = 0; i < 30000; i++) {
		now = parent_sleeps();
		if (now < 0)
			return -1;
		if (now - start >= n)
			return 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

__attribute__((constructor))
static void workload(void)
{
	char *spec = getenv("PIN_TEST_READ"), *save, *tok, *path;

	if (!spec)
		return;
	spec = strdup(spec);
	path = strtok_r(spec, ":", &save);
	while ((tok = strtok_r(NULL, ",", &save))) {
		unsigned long long off, len;
		long probes;

		if (sscanf(tok, "probes%ld", &probes) == 1) {
			if (wait_parent_sleeps(probes))
				_exit(4);
			continue;
		}
		if (sscanf(tok, "%llu+%llu", &off, &len) != 2 ||
		    pin_read_range(path, off, len))
			_exit(3);
	}
	_exit(0);
}

/* ---- a zip with known entries ---------------------------------------- */

struct entry {
	const char *name;
	size_t size;
	uint64_t data;		/* data offset, from the local header layout */
};

/* Stored entries, no ZIP64: local header 30 + name, no extra field. */
static uint64_t make_zip(const char *path, struct entry *e, int n,
			 const void *meta, size_t meta_len)
{
	uint64_t cursor = 0;
	char *buf;
	zipFile zf;
	int i;

	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	if (!zf)
		return 0;
	for (i = 0; i < n; i++) {
		buf = malloc(e[i].size);
		memset(buf, 'A' + i, e[i].size);
		e[i].data = cursor + 30 + strlen(e[i].name);
		if (zipOpenNewFileInZip64(zf, e[i].name, NULL, NULL, 0, NULL, 0, NULL, 0, 0,
					  0) != ZIP_OK ||
		    zipWriteInFileInZip(zf, buf, e[i].size) != ZIP_OK ||
		    zipCloseFileInZip(zf) != ZIP_OK)
			return 0;
		free(buf);
		cursor = e[i].data + e[i].size;
	}
	if (meta && (zipOpenNewFileInZip64(zf, "assets/pinlist.meta", NULL, NULL, 0, NULL, 0,
					   NULL, Z_DEFLATED, 6, 0) != ZIP_OK ||
		     zipWriteInFileInZip(zf, meta, meta_len) != ZIP_OK ||
		     zipCloseFileInZip(zf) != ZIP_OK))
		return 0;
	return zipClose(zf, NULL) == ZIP_OK ? cursor : 0;
}

static uint64_t down(uint64_t x)
{
	return x / PS * PS;
}

static uint64_t up(uint64_t x)
{
	return (x + PS - 1) / PS * PS;
}

FIXTURE(pin) {
	char dir[64];
	char file[128];
	int have_dev;
};

FIXTURE_SETUP(pin)
{
	PIN_NEED_4K_PAGES();
	ASSERT_EQ(0, pin_mkdtemp(self->dir, sizeof(self->dir), "pin_test"));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	snprintf(self->file, sizeof(self->file), "%s/data", self->dir);
	self->have_dev = !access(POWERPIN_DEVICE, F_OK);
}

FIXTURE_TEARDOWN(pin)
{
	pin_run("rm -rf %s", self->dir);
}

static int probe_file(const char *path, enum probe_want want, struct probe_result *pr)
{
	char err[512];
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	ret = probe_residency(fd, path, want, NULL, pr, err, sizeof(err));
	if (ret)
		fprintf(stderr, "# %s\n", err);
	close(fd);
	return ret;
}

TEST_F(pin, probe_sees_exactly_the_pages_read)
{
	static const enum probe_want modes[] = {
		PROBE_WANT_RUNS, PROBE_WANT_BITMAP, PROBE_WANT_MINCORE,
	};
	static const enum probe_method methods[] = {
		PROBE_IOCTL_RUNS, PROBE_IOCTL_BITMAP, PROBE_MINCORE,
	};
	const uint64_t want[] = { 0, PS, 5 * PS, 3 * PS, 40 * PS, PS, 63 * PS, PS };
	char out[160];
	int m;

	if (!self->have_dev)
		SKIP(return, "no %s (powerpin.ko not loaded)", POWERPIN_DEVICE);
	ASSERT_EQ(0, pin_make_evicted(self->file, 64, 0644));
	ASSERT_EQ(0, pin_read_range(self->file, 0, 1));
	ASSERT_EQ(0, pin_read_range(self->file, 5 * PS + 7, 3 * PS - 14));
	ASSERT_EQ(0, pin_read_range(self->file, 40 * PS, PS));
	ASSERT_EQ(0, pin_read_range(self->file, 64 * PS - 1, 1));
	for (m = 0; m < 3; m++) {
		struct probe_result pr;
		int i;

		ASSERT_EQ(0, probe_file(self->file, modes[m], &pr));
		EXPECT_EQ(methods[m], pr.method);
		EXPECT_EQ(64, pr.nr_pages);
		EXPECT_EQ(6, pr.nr_resident);
		ASSERT_EQ(4, pr.resident.nr);
		for (i = 0; i < 4; i++) {
			EXPECT_EQ(want[2 * i], pr.resident.v[i].offset);
			EXPECT_EQ(want[2 * i + 1], pr.resident.v[i].length);
		}
		probe_result_free(&pr);
	}
	/* the CLI picks the ioctl by itself and says so */
	snprintf(out, sizeof(out), "%s/p.meta", self->dir);
	ASSERT_EQ(0, pin_run("%s file %s --gen-probe -o %s > %s/log 2>&1", pin_bin(),
			     self->file, out, self->dir));
	EXPECT_TRUE(pin_file_is(out, want, 4));
	EXPECT_EQ(0, pin_run("grep -q 'residency via ioctl-runs' %s/log", self->dir));
}

/* More runs than one ioctl call returns: the cursor must carry on. */
TEST_F(pin, probe_runs_past_one_buffer)
{
	const unsigned long pages = 10000;
	struct probe_result pr;
	unsigned long i;
	int fd;
	char *buf;

	if (!self->have_dev)
		SKIP(return, "no %s (powerpin.ko not loaded)", POWERPIN_DEVICE);
	ASSERT_EQ(0, pin_make_evicted(self->file, pages, 0644));
	fd = open(self->file, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
	buf = malloc(PS);
	for (i = 0; i < pages; i += 2)		/* every even page: 5000 runs */
		ASSERT_EQ(1, pread(fd, buf, 1, i * PS));
	free(buf);
	close(fd);
	ASSERT_EQ(0, probe_file(self->file, PROBE_WANT_RUNS, &pr));
	EXPECT_EQ(pages, pr.nr_pages);
	EXPECT_EQ(pages / 2, pr.nr_resident);
	ASSERT_EQ(pages / 2, pr.resident.nr);
	for (i = 0; i < pages / 2; i++) {
		if (pr.resident.v[i].offset != 2 * i * PS || pr.resident.v[i].length != PS) {
			TH_LOG("run %lu: %llu+%llu", i,
			       (unsigned long long)pr.resident.v[i].offset,
			       (unsigned long long)pr.resident.v[i].length);
			break;
		}
	}
	EXPECT_EQ(pages / 2, i);
	probe_result_free(&pr);
}

/* Without the ioctl's permission and without truthful mincore: refuse. */
TEST_F(pin, nobody_is_refused_clearly)
{
	pid_t pid;
	int st;

	if (geteuid())
		SKIP(return, "needs root to switch to nobody");
	ASSERT_EQ(0, pin_make_evicted(self->file, 8, 0644));
	ASSERT_EQ(0, pin_read_range(self->file, 0, PS));
	ASSERT_EQ(0, chmod(self->dir, 01777));	/* nobody writes the log */
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		execl("/bin/sh", "sh", "-c", "exec \"$0\" file \"$1\" --gen-probe > \"$1.log\" 2>&1",
		      pin_bin(), self->file, (char *)NULL);
		_exit(98);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));
	EXPECT_EQ(0, pin_run("grep -q 'mincore would not tell the truth' %s.log", self->file));
	EXPECT_NE(0, pin_run("grep -q 'resident(B)=0' %s.log", self->file));
}

TEST_F(pin, capture_covers_exactly_the_entries_read)
{
	struct entry e[] = {
		{ .name = "lib/arm64-v8a/libone.so", .size = 5 * PS + 123 },
		{ .name = "classes.dex", .size = 3 * PS },
		{ .name = "res/two.png", .size = 2 * PS + 1000 },
		{ .name = "lib/arm64-v8a/libthree.so", .size = 6 * PS },
		{ .name = "assets/four.bin", .size = 4 * PS },
	};
	char zip[160], out[192];
	uint64_t want[8];
	int ok;

	ASSERT_EQ(0, access(pin_bin(), X_OK));
	snprintf(zip, sizeof(zip), "%s/app.apk", self->dir);
	ASSERT_NE(0, make_zip(zip, e, 5, NULL, 0));
	/* the workload reads entries 1 and 3 whole, nothing else */
	snprintf(out, sizeof(out), "PIN_TEST_READ=%s:%llu+%zu,%llu+%zu", zip,
		 (unsigned long long)e[1].data, e[1].size, (unsigned long long)e[3].data,
		 e[3].size);
	ASSERT_EQ(0, pin_run("%s %s pin capture --file %s --evict -o %s/cap -- /proc/%d/exe > %s/log 2>&1",
			     out, pin_bin(), zip, self->dir, getpid(), self->dir));
	want[0] = down(e[1].data);
	want[1] = up(e[1].data + e[1].size) - want[0];
	want[2] = down(e[3].data);
	want[3] = up(e[3].data + e[3].size) - want[2];
	snprintf(out, sizeof(out), "%s/cap/app.apk.pinlist", self->dir);
	EXPECT_TRUE(pin_file_is(out, want, 2));
	EXPECT_EQ(0, pin_run("grep -qxF 'pinlist=%s total_bytes_to_pin=%llu' %s/log", out,
			     (unsigned long long)(want[1] + want[3]), self->dir));
	if (self->have_dev)
		EXPECT_EQ(0, pin_run("grep -q 'residency via ioctl-runs' %s/log", self->dir));

	/* the captured pinlist read back per entry: entries 1 and 3 whole */
	ASSERT_EQ(0, pin_run("%s file %s --zip --use-probe %s --dump > %s/dump 2>&1", pin_bin(),
			     zip, out, self->dir));
	EXPECT_EQ(0, pin_run("grep -qxF 'classes.dex size(B)=%zu resident(B)=%zu resident(%%)=100' %s/dump",
			     e[1].size, e[1].size, self->dir));
	EXPECT_EQ(0, pin_run("grep -qxF 'lib/arm64-v8a/libthree.so size(B)=%zu resident(B)=%zu resident(%%)=100' %s/dump",
			     e[3].size, e[3].size, self->dir));
	/* four.bin starts inside libthree's last page: only that part shows */
	{
		uint64_t end3 = up(e[3].data + e[3].size);
		uint64_t r4 = end3 > e[4].data ? end3 - e[4].data : 0;
		char line[512];

		snprintf(line, sizeof(line),
			 "grep -qxF 'assets/four.bin size(B)=%zu resident(B)=%llu resident(%%)=%g' %s/dump",
			 e[4].size, (unsigned long long)r4, (double)r4 / e[4].size * 100.0,
			 self->dir);
		EXPECT_EQ(0, pin_run("%s", line));
	}

	/* file --zip --gen-probe sees the same pages: probing comes before
	 * the archive is indexed, so indexing cannot add pages of its own */
	ASSERT_EQ(0, pin_evict(zip));
	ASSERT_EQ(0, pin_read_range(zip, e[1].data, e[1].size));
	ASSERT_EQ(0, pin_read_range(zip, e[3].data, e[3].size));
	snprintf(out, sizeof(out), "%s/gen.meta", self->dir);
	ASSERT_EQ(0, pin_run("%s file %s --zip --gen-probe -o %s > %s/log 2>&1", pin_bin(), zip,
			     out, self->dir));
	EXPECT_TRUE(pin_file_is(out, want, 2));

	/*
	 * --interval: entry 3 read first, then (three probes later) entry 1; the
	 * pinlist puts entry 3 first, and a quota of its size keeps only it.
	 * Each on a fresh copy: the 3.10 guests sometimes keep a range read a
	 * moment ago through every POSIX_FADV_DONTNEED (capture --evict then
	 * warns, and those pages rank first); what is checked here is the order.
	 */
	ASSERT_EQ(0, pin_run("cp %s %s.2 && mv %s.2 %s", zip, zip, zip, zip));
	snprintf(out, sizeof(out), "PIN_TEST_READ=%s:%llu+%zu,probes3,%llu+%zu", zip,
		 (unsigned long long)e[3].data, e[3].size, (unsigned long long)e[1].data,
		 e[1].size);
	ASSERT_EQ(0, pin_run("%s %s pin capture -v --file %s --evict --interval 50 -o %s/cap2 -- /proc/%d/exe > %s/log 2>&1",
			     out, pin_bin(), zip, self->dir, getpid(), self->dir));
	{
		const uint64_t ordered[] = { want[2], want[3], want[0], want[1] };

		snprintf(out, sizeof(out), "%s/cap2/app.apk.pinlist", self->dir);
		ok = pin_file_is(out, ordered, 2);
		if (!ok)
			pin_run("sed 's/^/# /' %s/log >&2", self->dir);
		EXPECT_TRUE(ok);
	}
	ASSERT_EQ(0, pin_run("cp %s %s.2 && mv %s.2 %s", zip, zip, zip, zip));
	snprintf(out, sizeof(out), "PIN_TEST_READ=%s:%llu+%zu,probes3,%llu+%zu", zip,
		 (unsigned long long)e[3].data, e[3].size, (unsigned long long)e[1].data,
		 e[1].size);
	ASSERT_EQ(0, pin_run("%s %s pin capture -v --file %s --evict --interval 50 --quota %llu -o %s/cap3 -- /proc/%d/exe > %s/log 2>&1",
			     out, pin_bin(), zip, (unsigned long long)want[3], self->dir, getpid(),
			     self->dir));
	snprintf(out, sizeof(out), "%s/cap3/app.apk.pinlist", self->dir);
	ok = pin_file_is(out, want + 2, 1);
	if (!ok)
		pin_run("sed 's/^/# /' %s/log >&2", self->dir);
	EXPECT_TRUE(ok);

	/* a failing workload: pinlists still written, exit status 1 */
	EXPECT_EQ(1, pin_run("%s pin capture --file %s -o %s/cap4 -- /bin/false > %s/log 2>&1",
			     pin_bin(), zip, self->dir, self->dir));
	EXPECT_EQ(0, pin_run("grep -q 'workload exited with status 1' %s/log", self->dir));
}

/*
 * Start `pin apply`, wait for its total line, return its pid and the total.
 * With @block, it starts with SIGTERM and SIGINT blocked, as a caller's
 * signal mask may leave them.
 */
static pid_t start_apply_mask(const char *args, bool block, long long *pinned,
			      char *log, size_t loglen)
{
	char cmd[1024], line[256];
	FILE *fp;
	pid_t pid;
	int p[2];

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		sigset_t stop;

		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		if (block)
			sigprocmask(SIG_BLOCK, &stop, NULL);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		snprintf(cmd, sizeof(cmd), "exec %s pin apply %s", pin_bin(), args);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	fp = fdopen(p[0], "r");
	*pinned = -1;
	log[0] = '\0';
	while (fgets(line, sizeof(line), fp)) {
		strncat(log, line, loglen - strlen(log) - 1);
		if (sscanf(line, "total_bytes_pinned=%lld", pinned) == 1)
			break;
	}
	fclose(fp);
	return pid;
}

static pid_t start_apply(const char *args, long long *pinned, char *log, size_t loglen)
{
	return start_apply_mask(args, false, pinned, log, loglen);
}

/* Send @sig; the exit status, or -2 if it is still holding 10 s later. */
static int stop_apply_sig(pid_t pid, int sig)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int st, i;

	kill(pid, sig);
	for (i = 0; i < 1000; i++) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (w < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -2;
}

static int stop_apply(pid_t pid)
{
	return stop_apply_sig(pid, SIGTERM);
}

TEST_F(pin, apply_locks_exactly_the_pinned_bytes)
{
	/* page 1 whole; 100 bytes inside page 5 (rounded out to the page);
	 * a range past EOF (clamped away) */
	const uint64_t ranges[] = { PS, PS, 5 * PS + 10, 100, 100 * PS, PS };
	char list[160], args[512], log[2048];
	long long pinned;
	pid_t pid;

	ASSERT_EQ(0, pin_make_evicted(self->file, 16, 0644));
	snprintf(list, sizeof(list), "%s/p.meta", self->dir);
	ASSERT_EQ(0, pin_write_pairs(list, ranges, 3));

	snprintf(args, sizeof(args), "%s --pinlist %s", self->file, list);
	pid = start_apply(args, &pinned, log, sizeof(log));
	ASSERT_LT(0, pid);
	EXPECT_EQ(2 * PS, pinned);
	EXPECT_EQ(2 * PS, pin_vmlck(pid));
	EXPECT_NE(NULL, strstr(log, "start=4096 bytes=4096\nstart=20480 bytes=4096\n"));
	/* pages held locked cannot be evicted: capture --evict says so and goes on */
	EXPECT_EQ(0, pin_run("%s pin capture --file %s --evict -o %s/cap -- true > %s/log 2>&1",
			     pin_bin(), self->file, self->dir, self->dir));
	EXPECT_EQ(0, pin_run("grep -qF '%s: warning: 8192 bytes stay cached after --evict' %s/log",
			     self->file, self->dir));
	EXPECT_EQ(0, stop_apply(pid));

	/* quota 5000: page 1, then 904 bytes charged (mlock still locks a page) */
	snprintf(args, sizeof(args), "%s --pinlist %s --quota 5000", self->file, list);
	pid = start_apply(args, &pinned, log, sizeof(log));
	ASSERT_LT(0, pid);
	EXPECT_EQ(5000, pinned);
	EXPECT_EQ(2 * PS, pin_vmlck(pid));
	EXPECT_NE(NULL, strstr(log, "start=20480 bytes=904\n"));
	EXPECT_EQ(0, stop_apply(pid));
}

/* Started with SIGTERM and SIGINT blocked, either still releases the pages. */
TEST_F(pin, apply_stops_when_started_with_stop_signals_blocked)
{
	const uint64_t ranges[] = { 0, PS };
	char list[160], args[512], log[2048];
	long long pinned;
	pid_t pid;

	ASSERT_EQ(0, pin_make_evicted(self->file, 4, 0644));
	snprintf(list, sizeof(list), "%s/p.meta", self->dir);
	ASSERT_EQ(0, pin_write_pairs(list, ranges, 1));
	snprintf(args, sizeof(args), "%s --pinlist %s", self->file, list);

	pid = start_apply_mask(args, true, &pinned, log, sizeof(log));
	ASSERT_LT(0, pid);
	EXPECT_EQ(PS, pinned);
	EXPECT_EQ(0, stop_apply_sig(pid, SIGTERM));

	pid = start_apply_mask(args, true, &pinned, log, sizeof(log));
	ASSERT_LT(0, pid);
	EXPECT_EQ(PS, pinned);
	EXPECT_EQ(0, stop_apply_sig(pid, SIGINT));
}

/*
 * A parent that ignores SIGCHLD passes that on: the workload's children are
 * then reaped by the kernel unless `pin capture` takes SIGCHLD back.  The
 * workload's exit status must still decide capture's.
 */
static int capture_sigchld_ignored(const char *file, const char *dir, const char *cmd,
				   const char *log)
{
	pid_t pid;
	int st, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		signal(SIGCHLD, SIG_IGN);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(97);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(pin_bin(), pin_bin(), "pin", "capture", "--file", file, "-o", dir, "--",
		      cmd, (char *)NULL);
		_exit(98);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

TEST_F(pin, capture_with_sigchld_ignored)
{
	char cap[160], log[160], out[200];

	ASSERT_EQ(0, pin_make_evicted(self->file, 4, 0644));
	snprintf(cap, sizeof(cap), "%s/cap", self->dir);
	snprintf(log, sizeof(log), "%s/log", self->dir);
	snprintf(out, sizeof(out), "%s/data.pinlist", cap);

	EXPECT_EQ(0, capture_sigchld_ignored(self->file, cap, "/bin/true", log));
	EXPECT_EQ(0, access(out, F_OK));
	EXPECT_EQ(0, pin_run("! grep -q 'waiting for the workload' %s", log));

	EXPECT_EQ(1, capture_sigchld_ignored(self->file, cap, "/bin/false", log));
	EXPECT_EQ(0, pin_run("grep -q 'workload exited with status 1' %s", log));
}

TEST_F(pin, apply_uses_the_pinlist_inside_the_apk)
{
	struct entry e[] = {
		{ .name = "lib/arm64-v8a/libone.so", .size = 8 * PS },
		{ .name = "classes.dex", .size = 3 * PS },
		{ .name = "res/after.bin", .size = 4 * PS },
	};
	char zip[160], log[2048];
	uint64_t ranges[4];
	uint8_t meta[16];
	long long pinned;
	pid_t pid;

	/* the pinlist names libone's pages 2..4 and all of classes.dex */
	snprintf(zip, sizeof(zip), "%s/app.apk", self->dir);
	ASSERT_NE(0, make_zip(zip, e, 3, NULL, 0));	/* learn the layout */
	ranges[0] = down(e[0].data) + 2 * PS;
	ranges[1] = 3 * PS;
	ranges[2] = down(e[1].data);
	ranges[3] = up(e[1].data + e[1].size) - ranges[2];
	pin_be_pair(meta, ranges[0], ranges[1]);
	pin_be_pair(meta + 8, ranges[2], ranges[3]);
	unlink(zip);
	ASSERT_NE(0, make_zip(zip, e, 3, meta, sizeof(meta)));

	pid = start_apply(zip, &pinned, log, sizeof(log));
	ASSERT_LT(0, pid);
	EXPECT_EQ(ranges[1] + ranges[3], pinned);
	EXPECT_EQ(ranges[1] + ranges[3], pin_vmlck(pid));
	EXPECT_EQ(0, stop_apply(pid));

	/* a plain file without --pinlist: a clear error */
	ASSERT_EQ(0, pin_make_evicted(self->file, 2, 0644));
	EXPECT_EQ(1, pin_run("%s pin apply %s > %s/log 2>&1", pin_bin(), self->file, self->dir));
	EXPECT_EQ(0, pin_run("grep -q 'no --pinlist given' %s/log", self->dir));
}

TEST_HARNESS_MAIN
