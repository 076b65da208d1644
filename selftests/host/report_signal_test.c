// SPDX-License-Identifier: GPL-2.0
/*
 * A report stopped half-way leaves no NAME.tmp.XXXXXX behind and every
 * output file as it was: SIGTERM, SIGINT and SIGHUP while it writes, and
 * every other signal whose default action ends a process (SIGQUIT, the
 * user signals, the timers' and the limits', a real-time one), SIGPIPE
 * when its standard output's reader goes away, EPIPE when SIGPIPE is
 * ignored, and SIGXFSZ when an output grows past `ulimit -f`.  The report is held half-way deterministically: its
 * CSV goes to a pipe the test does not read, so it blocks once the pipe
 * is full, with every other output open in its temporary file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_gen.h"
#include "trace_clock.h"

static const char *const outputs[] = { "a.json", "a.html", "a.pftrace", "a.trace.json" };
#define NR_OUTPUTS	(sizeof(outputs) / sizeof(outputs[0]))

FIXTURE(sig) {
	char dir[64];
	char *powerpin;
	int rd;			/* the read end of the report's stdout */
	pid_t pid;
};

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

FIXTURE_SETUP(sig)
{
	struct gen g = { .nr_cpus = 2 };
	char path[128];
	size_t i;
	int k;

	self->pid = -1;
	self->rd = -1;
	self->powerpin = realpath("build/bin/powerpin", NULL);
	if (!self->powerpin)
		SKIP(return, "build/bin/powerpin not built (make userspace)");
	strcpy(self->dir, "/tmp/powerpin-signal-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* 20000 samples: a CSV of about 1.4 MB, far more than a pipe holds */
	for (k = 0; k < 20000; k++) {
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000 - k % 7,
			    5000, 0);
		if (k % 10 == 0)
			gen_switch(&g, 100000000000ULL + k * 10000000ULL + 5000, k % 20 ? 0 : 1,
				   "spin", 40 + k % 3, 40, "work", 50 + k % 5);
	}
	snprintf(path, sizeof(path), "%s/in.txt", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	for (i = 0; i < NR_OUTPUTS; i++)
		put(self->dir, outputs[i], "old\n");
}

FIXTURE_TEARDOWN(sig)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->rd >= 0)
		close(self->rd);
	free(self->powerpin);
	if (!self->dir[0])
		return;
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Names holding ".tmp." in @dir, or -1. */
static int temps_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/*
 * Start the report, its CSV on a pipe, the other outputs to files; wait
 * until it is blocked on the full pipe with all its temporary files made.
 * With @ignore_pipe, SIGPIPE is ignored in it (as under some shells).
 */
static int start_report(FIXTURE_DATA(sig) *self, bool ignore_pipe)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	struct rlimit no_core = { 0, 0 };
	int p[2], queued = 0, size;
	char err[128];
	double end;

	if (pipe(p))
		return -1;
	size = fcntl(p[0], F_GETPIPE_SZ);
	snprintf(err, sizeof(err), "%s/stderr", self->dir);
	self->pid = fork();
	if (self->pid < 0)
		return -1;
	if (!self->pid) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0 || dup2(p[1], 1) < 0 || chdir(self->dir))
			_exit(125);
		close(p[0]);
		/*
		 * A shell starts a background job with SIGINT and SIGQUIT
		 * ignored (make check's lanes are such jobs), and powerpin
		 * keeps an ignored signal ignored (as nohup expects): the test
		 * is of the signals delivered as a terminal does, each with
		 * its default action.  (Signals that cannot be set, SIGKILL,
		 * SIGSTOP and the C library's own, refuse harmlessly.)
		 */
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		signal(SIGPIPE, ignore_pipe ? SIG_IGN : SIG_DFL);
		setrlimit(RLIMIT_CORE, &no_core);	/* SIGQUIT: no core file */
		execl(self->powerpin, "powerpin", "report", "in.txt", "--csv", "-",
		      "--json", outputs[0], "--html", outputs[1], "--perfetto", outputs[2],
		      "--chrome-json", outputs[3], (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	self->rd = p[0];
	/*
	 * The report reads the whole input first: wait for the full pipe
	 * itself, up to 240 s of wall time (each test's limit is 300 s), which
	 * only a hang reaches; a host busy with guests took over 30 s, and
	 * there a 5 ms nap lasts far longer, so the naps are not counted.
	 */
	end = trace_clock_now() + 240;
	while (trace_clock_now() < end) {
		if (ioctl(self->rd, FIONREAD, &queued))
			return -1;
		if (queued >= size && temps_in(self->dir) == (int)NR_OUTPUTS)
			return 0;
		if (waitpid(self->pid, NULL, WNOHANG) == self->pid) {
			self->pid = -1;
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	return -1;
}

/*
 * Wait for the report to end, up to 240 s of wall time (only a hang
 * reaches that: the test's limit is 300 s); a report that does not end is
 * shown (its state and where it sleeps) and killed, a failure with a
 * reason rather than the harness's timeout.
 */
static int wait_ended(FIXTURE_DATA(sig) *self, struct __test_metadata *_metadata, int *status)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	double end = trace_clock_now() + 240;
	char cmd[200];

	for (;;) {
		pid_t r = waitpid(self->pid, status, WNOHANG);

		if (r == self->pid)
			return 0;
		if (r < 0)
			return -1;
		if (trace_clock_now() >= end)
			break;
		nanosleep(&nap, NULL);
	}
	snprintf(cmd, sizeof(cmd), "grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' /proc/%d/status; "
		 "cat /proc/%d/wchan; echo; cat /proc/%d/stack 2>/dev/null", self->pid, self->pid,
		 self->pid);
	TH_LOG("the report did not end in 240 s after the signal:");
	if (system(cmd))
		TH_LOG("(its state could not be read)");
	kill(self->pid, SIGKILL);
	waitpid(self->pid, status, 0);
	return -1;
}

/* How the report ended; the outputs as they were and no temporary file left. */
static int finish(FIXTURE_DATA(sig) *self, struct __test_metadata *_metadata, int *status)
{
	char path[256], buf[16];
	size_t i;
	FILE *f;
	int bad = 0;

	if (wait_ended(self, _metadata, status))
		return -1;
	self->pid = -1;
	if (temps_in(self->dir)) {
		TH_LOG("%d temporary files left in %s", temps_in(self->dir), self->dir);
		bad = -1;
	}
	for (i = 0; i < NR_OUTPUTS; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, outputs[i]);
		f = fopen(path, "r");
		memset(buf, 0, sizeof(buf));
		if (!f || !fgets(buf, sizeof(buf), f) || strcmp(buf, "old\n")) {
			TH_LOG("%s was replaced", outputs[i]);
			bad = -1;
		}
		if (f)
			fclose(f);
	}
	return bad;
}

static void killed_by(FIXTURE_DATA(sig) *self, struct __test_metadata *_metadata, int signo)
{
	int status = 0;

	ASSERT_EQ(0, start_report(self, false));
	ASSERT_EQ(0, kill(self->pid, signo));
	EXPECT_EQ(0, finish(self, _metadata, &status));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status 0x%x", status);
	EXPECT_EQ(signo, WTERMSIG(status));
}

TEST_F_TIMEOUT(sig, sigterm, 300)
{
	killed_by(self, _metadata, SIGTERM);
}

TEST_F_TIMEOUT(sig, sigint, 300)
{
	killed_by(self, _metadata, SIGINT);
}

TEST_F_TIMEOUT(sig, sighup, 300)
{
	killed_by(self, _metadata, SIGHUP);
}

TEST_F_TIMEOUT(sig, sigquit, 300)
{
	killed_by(self, _metadata, SIGQUIT);
}

TEST_F_TIMEOUT(sig, sigusr1, 300)
{
	killed_by(self, _metadata, SIGUSR1);
}

TEST_F_TIMEOUT(sig, sigusr2, 300)
{
	killed_by(self, _metadata, SIGUSR2);
}

TEST_F_TIMEOUT(sig, sigalrm, 300)
{
	killed_by(self, _metadata, SIGALRM);
}

TEST_F_TIMEOUT(sig, sigxcpu, 300)
{
	killed_by(self, _metadata, SIGXCPU);
}

TEST_F_TIMEOUT(sig, sigvtalrm, 300)
{
	killed_by(self, _metadata, SIGVTALRM);
}

TEST_F_TIMEOUT(sig, sigprof, 300)
{
	killed_by(self, _metadata, SIGPROF);
}

TEST_F_TIMEOUT(sig, sigrtmin, 300)
{
	killed_by(self, _metadata, SIGRTMIN + 2);
}

/*
 * `ulimit -f 16` (16 KiB): the first output past it raises SIGXFSZ in the
 * report, which ends it with every temporary file removed
 */
TEST_F_TIMEOUT(sig, sigxfsz, 300)
{
	struct rlimit fsize = { 16384, 16384 }, no_core = { 0, 0 };
	int status = 0;

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(self->dir))
			_exit(125);
		signal(SIGXFSZ, SIG_DFL);
		setrlimit(RLIMIT_CORE, &no_core);
		setrlimit(RLIMIT_FSIZE, &fsize);
		execl(self->powerpin, "powerpin", "report", "in.txt", "--json", outputs[0],
		      "--html", outputs[1], "--perfetto", outputs[2], "--chrome-json",
		      outputs[3], (char *)NULL);
		_exit(127);
	}
	EXPECT_EQ(0, finish(self, _metadata, &status));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status 0x%x", status);
	EXPECT_EQ(SIGXFSZ, WTERMSIG(status));
}

/* The reader of standard output goes away: SIGPIPE */
TEST_F_TIMEOUT(sig, sigpipe, 300)
{
	int status = 0;

	ASSERT_EQ(0, start_report(self, false));
	close(self->rd);
	self->rd = -1;
	EXPECT_EQ(0, finish(self, _metadata, &status));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status 0x%x", status);
	EXPECT_EQ(SIGPIPE, WTERMSIG(status));
}

/* ... with SIGPIPE ignored: the write fails with EPIPE, status 1 */
TEST_F_TIMEOUT(sig, epipe, 300)
{
	char path[128];
	int status = 0;
	FILE *f;
	char line[512] = "";

	ASSERT_EQ(0, start_report(self, true));
	close(self->rd);
	self->rd = -1;
	EXPECT_EQ(0, finish(self, _metadata, &status));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
	EXPECT_EQ(1, WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/stderr", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	EXPECT_NE(NULL, strstr(line, strerror(EPIPE))) TH_LOG("%s", line);
	fclose(f);
}

TEST_HARNESS_MAIN
