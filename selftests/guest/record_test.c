// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin record as a wrapper and as a writer: `record -- CMD` exits with
 * CMD's status (its exit code, 128 + N for signal N, 127 not found, 126 not
 * executable) and still writes the capture; -o follows the output rules
 * (docs/output-files.md): "-" is standard output, a FIFO or device is
 * written through, a symlink's target is replaced and the link kept, and no
 * temporary file stays behind.  Runs as root in the guest, with the module.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "cmd_helpers.h"
#include "guest_harness.h"

#define TRACING		"/sys/kernel/tracing"
#define TRACEDAT_MAGIC	"\027\010\104tracing"

FIXTURE(rec) {
	char dir[64];
	char path[5][160];
	char tracing_on[8];	/* as found, put back at the end */
};

FIXTURE_SETUP(rec)
{
	if (access("/sys/module/powerpin", F_OK))
		SKIP(return, "powerpin.ko is not loaded");
	strcpy(self->dir, "/tmp/pprecord.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on, sizeof(self->tracing_on)));
	ASSERT_EQ(0, system("echo 0 > " TRACING "/tracing_on"));
}

FIXTURE_TEARDOWN(rec)
{
	char cmd[128];

	if (!self->dir[0])
		return;
	if (self->tracing_on[0]) {
		snprintf(cmd, sizeof(cmd), "echo %s > " TRACING "/tracing_on", self->tracing_on);
		system(cmd);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

static char *at(FIXTURE_DATA(rec) *self, int i, const char *name)
{
	snprintf(self->path[i], sizeof(self->path[i]), "%s/%s", self->dir, name);
	return self->path[i];
}

/*
 * A shell command in @dir, with TMPDIR there too (record's temporary files
 * for a stream must not stay behind); stderr to @dir/err.  Its exit status.
 */
static int sh_in(const char *dir, const char *fmt, ...)
{
	char cmd[2048], top[512];
	va_list ap;
	int n, st;

	if (!getcwd(top, sizeof(top)))
		return -1;
	n = snprintf(cmd, sizeof(cmd), "cd %s && export TMPDIR=%s && { ", dir, dir);
	va_start(ap, fmt);
	n += vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, "; } 2>%s/err", dir);
	setenv("PP", top, 1);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* @path is a trace.dat that trace-cmd reads through. */
static bool is_capture(const char *path)
{
	char magic[10], cmd[300];
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, magic, sizeof(magic)) == sizeof(magic) &&
	     !memcmp(magic, TRACEDAT_MAGIC, sizeof(magic));
	close(fd);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s >/dev/null 2>&1", path);
	return ok && !system(cmd);
}

static bool has(const char *path, const char *needle)
{
	char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, needle);
}

TEST_F_TIMEOUT(rec, command_status_is_returned, 300)
{
	char *dat = at(self, 0, "t.dat"), *err = at(self, 1, "err");

	/* an exit code */
	EXPECT_EQ(3, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- sh -c 'sleep 0.3; exit 3'"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_TRUE(has(err, "exited with status 3"));
	unlink(dat);
	/* a signal: 128 + N */
	EXPECT_EQ(128 + 10, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- sh -c 'sleep 0.3; kill -USR1 $$'"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_TRUE(has(err, "killed by signal 10"));
	unlink(dat);
	/* not found: 127 */
	EXPECT_EQ(127, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- ./no-such-command"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_TRUE(has(err, "cannot run './no-such-command': No such file or directory"));
	unlink(dat);
	/* found but not executable: 126 */
	EXPECT_EQ(0, sh_in(self->dir, "printf 'echo hi\\n' > plain; chmod 644 plain"));
	EXPECT_EQ(126, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- ./plain"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_TRUE(has(err, "Permission denied"));
	unlink(dat);
	/* success is 0 */
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- true"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_EQ(0, others_in(self->dir, "t.dat", "err", "plain", NULL));
	EXPECT_TRUE(has(TRACING "/tracing_on", "0"));
}

/* -o -: the capture on stdout, CMD's own output moved to stderr */
TEST_F_TIMEOUT(rec, output_to_stdout, 300)
{
	char *dat = at(self, 0, "out.dat"), *err = at(self, 1, "err");

	ASSERT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o - -- sh -c 'echo noise; sleep 0.5' > out.dat"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_FALSE(has(dat, "noise"));
	EXPECT_TRUE(has(err, "noise"));
	EXPECT_TRUE(has(err, "wrote <stdout>"));
	/* and the report reads it from a pipe (2 s: samples even in a starved guest) */
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o - -- sleep 2 | $PP/build/bin/powerpin report - --json - > r.json"));
	EXPECT_TRUE(has(at(self, 2, "r.json"), "\"samples\": "));
	EXPECT_EQ(0, others_in(self->dir, "out.dat", "err", "r.json", NULL));
}

TEST_F_TIMEOUT(rec, output_link_fifo_and_device, 300)
{
	char *real = at(self, 0, "real.dat"), *link = at(self, 1, "link.dat");
	char *copy = at(self, 2, "copy.dat"), *node = at(self, 3, "null");
	struct stat st;

	/* a symlink: its target replaced, the link kept */
	ASSERT_EQ(0, sh_in(self->dir, "echo old > real.dat && ln -s real.dat link.dat"));
	ASSERT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -d 0.5 -o link.dat"));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_TRUE(is_capture(real));

	/* a FIFO: its reader gets the capture, the FIFO stays */
	ASSERT_EQ(0, sh_in(self->dir, "mkfifo fifo && (cat fifo > copy.dat &) && $PP/build/bin/powerpin record -q -d 0.5 -o fifo"));
	for (int i = 0; i < 100 && !is_capture(copy); i++)
		usleep(50000);
	EXPECT_TRUE(is_capture(copy));
	ASSERT_EQ(0, lstat(at(self, 4, "fifo"), &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));

	/* a character device (a private /dev/null): written through, left a device */
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0666, makedev(1, 3)));
	ASSERT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -d 0.5 -o null"));
	ASSERT_EQ(0, lstat(node, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(makedev(1, 3), st.st_rdev);
	EXPECT_EQ(0, others_in(self->dir, "real.dat", "link.dat", "fifo", "copy.dat", "null", "err",
			       NULL));
}

/*
 * SIGHUP and SIGPIPE end a capture as the signal would, without leaving
 * its temporary files: the output's NAME.tmp.XXXXXX, the per-CPU data
 * beside it, and the trace.dat built in $TMPDIR for a stream.
 */
TEST_F_TIMEOUT(rec, signals_leave_no_temporary_files, 300)
{
	EXPECT_EQ(128 + 1, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat & p=$!; i=0; "
			      "while [ $i -lt 200 ] && ! ls t.dat.cpu0.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done; "
			      "ls t.dat.tmp.* >/dev/null && sleep 0.3 && kill -HUP $p; wait $p"));
	EXPECT_EQ(0, others_in(self->dir, "err", NULL));
	/* the reader of -o - is gone when the capture is copied out */
	sh_in(self->dir, "$PP/build/bin/powerpin record -q -d 0.5 -o - | true");
	EXPECT_EQ(0, others_in(self->dir, "err", NULL));
	/* a record killed did not put tracing back as it was: the boot state */
	EXPECT_EQ(0, sh_in(self->dir, "echo 0 > " TRACING "/tracing_on && echo 0 > " TRACING "/events/enable"));
}

static void spin(long seconds)
{
	time_t end = time(NULL) + seconds;

	while (time(NULL) < end)
		;
}

/* Spin for @arg seconds as "pp_render". */
static void *render_thread(void *arg)
{
	prctl(PR_SET_NAME, "pp_render");
	spin((long)arg);
	return NULL;
}

/*
 * A process of two busy threads ("pp_app" and its "pp_render"), recorded
 * with powerpin record: the report groups the thread into its process
 * from the thread groups the kernel recorded.
 */
TEST_F_TIMEOUT(rec, threads_grouped_into_their_process, 300)
{
	char want[160], cmd[512];
	pthread_t th;
	pid_t app;
	int st;

	app = fork();
	ASSERT_LE(0, app);
	if (!app) {
		/* once the capture runs (its command made "go") */
		for (st = 0; st < 600 && access(at(self, 1, "go"), F_OK); st++)
			usleep(100000);
		prctl(PR_SET_NAME, "pp_app");
		if (pthread_create(&th, NULL, render_thread, (void *)2L))
			_exit(1);
		spin(2);
		pthread_join(th, NULL);
		_exit(0);
	}
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -- sh -c 'touch go; sleep 4'"));
	ASSERT_EQ(app, waitpid(app, &st, 0));
	ASSERT_TRUE(is_capture(at(self, 0, "t.dat")));
	ASSERT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin report t.dat --json r.json > r.txt"));
	snprintf(want, sizeof(want), "\"tgid\": %d, \"comm\": \"pp_render\"", app);
	snprintf(cmd, sizeof(cmd), "grep -q '%s' %s/r.json", want, self->dir);
	EXPECT_EQ(0, system(cmd)) TH_LOG("no thread pp_render in process %d", app);
	snprintf(cmd, sizeof(cmd), "grep -q 'pp_app .* tgid %d, 2 threads' %s/r.txt", app, self->dir);
	EXPECT_EQ(0, system(cmd)) {
		snprintf(cmd, sizeof(cmd), "grep -e tgid %s/r.txt", self->dir);
		system(cmd);
	}
	/* the saved tgids went into the capture */
	snprintf(cmd, sizeof(cmd), "trace-cmd report --stat -i %s/t.dat | grep -q 'powerpin: tgids=.*:%d'",
		 self->dir, app);
	EXPECT_EQ(0, system(cmd)) {
		snprintf(cmd, sizeof(cmd), "trace-cmd report --stat -i %s/t.dat | grep -c tgids=",
			 self->dir);
		system(cmd);
	}
}

/*
 * -B NAME, as trace-cmd record -B: the events come from an ftrace instance,
 * made for the capture and removed after it; the top level is left as it
 * was (its tracing_on, which the sampler follows, and its events off).
 */
TEST_F_TIMEOUT(rec, into_an_instance, 300)
{
	char *dat = at(self, 0, "i.dat"), *json = at(self, 1, "r.json");

	ASSERT_EQ(0, system("echo 1 > " TRACING "/tracing_on"));
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -B pptest -o i.dat -- sleep 1"));
	EXPECT_TRUE(is_capture(dat));
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin report i.dat --json r.json > /dev/null"));
	EXPECT_TRUE(has(json, "\"samples\": "));
	EXPECT_FALSE(has(json, "\"samples\": 0,"));
	EXPECT_TRUE(has(json, "\"sched_switches\": "));
	EXPECT_FALSE(has(json, "\"sched_switches\": 0,"));
	EXPECT_NE(0, access(TRACING "/instances/pptest", F_OK));
	EXPECT_TRUE(has(TRACING "/tracing_on", "1"));
	EXPECT_TRUE(has(TRACING "/events/powerpin/enable", "0"));
	/* an instance that was there already stays */
	ASSERT_EQ(0, mkdir(TRACING "/instances/ppkeep", 0755));
	EXPECT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -B ppkeep -o i.dat -- sleep 0.3"));
	EXPECT_EQ(0, access(TRACING "/instances/ppkeep", F_OK));
	rmdir(TRACING "/instances/ppkeep");
	system("echo 0 > " TRACING "/tracing_on");
}

/*
 * Clock pairs during the capture, not only at its start: a 3 s capture
 * holds one at the start, one a second (at least two more) and one at the
 * end, each later than the one before in both clocks.
 */
TEST_F_TIMEOUT(rec, clock_pairs_during_the_capture, 300)
{
	unsigned long long t, b, w, t0 = 0, b0 = 0;
	char cmd[512], line[256], clock[16];
	int n = 0;
	FILE *f;

	ASSERT_EQ(0, sh_in(self->dir, "$PP/build/bin/powerpin record -q -o t.dat -d 3"));
	snprintf(cmd, sizeof(cmd), "trace-cmd report --stat -i %s/t.dat", self->dir);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "powerpin: clock=%15s trace_ns=%llu boottime_ns=%llu realtime_ns=%llu",
			   clock, &t, &b, &w) != 4)
			continue;
		if (n) {
			EXPECT_LT(t0, t);
			EXPECT_LT(b0, b);
		}
		t0 = t;
		b0 = b;
		n++;
	}
	pclose(f);
	EXPECT_LE(4, n);
}

/*
 * "puts all of it back": where neither tracefs nor debugfs is mounted,
 * libtracefs mounts one for the capture, and the capture unmounts it again.
 * Played in a mount namespace of its own, with every tracefs and debugfs
 * mount taken away there first; the guest's own mounts are not touched.
 */
TEST_F_TIMEOUT(rec, unmounts_the_tracefs_it_mounted, 300)
{
	static const char script[] =
		"pts() { sed -n 's/^[^ ]* \\([^ ]*\\) \\(tracefs\\|debugfs\\) .*/\\1/p' /proc/self/mounts; }\n"
		"[ -n \"$(pts)\" ] || { echo 'no tracefs or debugfs mount to take away'; exit 7; }\n"
		"for i in 1 2 3 4 5 6 7 8; do\n"
		"  p=$(pts | tail -n 1); [ -n \"$p\" ] || break; umount -l \"$p\" || exit 8\n"
		"done\n"
		"[ -z \"$(pts)\" ] || { echo \"cannot unmount: $(pts)\"; exit 9; }\n"
		"\"$PP/build/bin/powerpin\" record -q -o t.dat -d 1 || exit 10\n"
		"left=$(pts | tr '\\n' ' ')\n"
		"echo \"left mounted: [$left]\"\n"
		"[ -z \"$left\" ]\n";
	char *sc = at(self, 0, "mnt.sh"), *dat = at(self, 1, "t.dat");
	FILE *f = fopen(sc, "w");

	ASSERT_NE(NULL, f);
	fputs(script, f);
	ASSERT_EQ(0, fclose(f));
	if (sh_in(self->dir, "unshare -m --propagation private true"))
		SKIP(return, "no unshare -m here");
	EXPECT_EQ(0, sh_in(self->dir, "unshare -m --propagation private sh ./mnt.sh > out 2>&1")) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "cat %s/out", self->dir);
		system(cmd);
	}
	EXPECT_TRUE(is_capture(dat));
	/* the guest's own tracefs is still there */
	EXPECT_EQ(0, access(TRACING "/tracing_on", F_OK));
}

TEST_HARNESS_MAIN
