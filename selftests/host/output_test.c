// SPDX-License-Identifier: GPL-2.0
/*
 * Output files (daemon/lib/base/output.c) and every command option that writes
 * one: "-" is standard output, streams (FIFO, device, socket, a descriptor
 * such as /dev/stdout or >(...)) are written through and never replaced,
 * regular files are replaced whole (a symlink's target, the link kept), and
 * a failed run leaves every file as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wsign-compare"
#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "base/base.h"
#include "pin/pin.h"
#include "report_gen.h"

/* the binary under test; POWERPIN_BIN runs the same checks on another build */
static const char *powerpin(void)
{
	static char *abs;
	const char *b = getenv("POWERPIN_BIN");

	if (!b)
		b = "build/bin/powerpin";
	/* absolute: the commands run in the test's directory */
	if (!abs)
		abs = realpath(b, NULL);
	return abs ? abs : b;
}

FIXTURE(out) {
	char dir[64];
	char path[4][160];
};

FIXTURE_SETUP(out)
{
	strcpy(self->dir, "/tmp/powerpin-output-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(out)
{
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static char *at(FIXTURE_DATA(out) *self, int i, const char *name)
{
	snprintf(self->path[i], sizeof(self->path[i]), "%s/%s", self->dir, name);
	return self->path[i];
}

/* A reader still blocked on @fifo (nothing was written to it) is let go. */
static void release_reader(const char *fifo)
{
	int fd = open(fifo, O_WRONLY | O_NONBLOCK);

	if (fd >= 0)
		close(fd);
}

static int write_text(const char *name, const char *text)
{
	struct output_file o;

	if (output_open(&o, name))
		return -1;
	if (fputs(text, o.fp) < 0) {
		output_abort(&o);
		return -1;
	}
	return output_commit(&o);
}

/* ---- the library --------------------------------------------------------- */

TEST_F(out, new_file_whole_or_nothing)
{
	struct output_file o;
	struct stat st;
	mode_t mask = umask(022);

	ASSERT_EQ(0, output_open(&o, at(self, 0, "new.json")));
	EXPECT_EQ((int)OUTPUT_REPLACE, (int)o.kind);
	EXPECT_FALSE(o.is_stdout);
	fputs("{}\n", o.fp);
	/* nothing under the name until the commit */
	EXPECT_NE(0, access(self->path[0], F_OK));
	ASSERT_EQ(0, output_commit(&o));
	EXPECT_STREQ("{}\n", file_text(self->path[0]));
	ASSERT_EQ(0, stat(self->path[0], &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	EXPECT_EQ(0, others_in(self->dir, "new.json", NULL));

	/* given up: the old content stays, the temporary goes */
	ASSERT_EQ(0, output_open(&o, self->path[0]));
	fputs("half", o.fp);
	output_abort(&o);
	EXPECT_STREQ("{}\n", file_text(self->path[0]));
	EXPECT_EQ(0, others_in(self->dir, "new.json", NULL));
	umask(mask);
}

TEST_F(out, replaced_file_keeps_its_mode)
{
	struct stat before, after;

	put_file(at(self, 0, "private.json"), "old\n");
	ASSERT_EQ(0, chmod(self->path[0], 0600));
	ASSERT_EQ(0, stat(self->path[0], &before));
	ASSERT_EQ(0, write_text(self->path[0], "new\n"));
	ASSERT_EQ(0, stat(self->path[0], &after));
	EXPECT_STREQ("new\n", file_text(self->path[0]));
	EXPECT_EQ(0600, after.st_mode & 07777);
	/* replaced by rename, not rewritten in place */
	EXPECT_NE(before.st_ino, after.st_ino);
}

TEST_F(out, symlink_target_replaced_link_kept)
{
	char *link = at(self, 0, "link.json"), *sub = at(self, 1, "sub");
	char *target = at(self, 2, "sub/real.json"), buf[64];
	struct stat st;
	ssize_t n;

	ASSERT_EQ(0, mkdir(sub, 0755));
	put_file(target, "old\n");
	/* relative to the link's directory */
	ASSERT_EQ(0, symlink("sub/real.json", link));
	ASSERT_EQ(0, write_text(link, "new\n"));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	n = readlink(link, buf, sizeof(buf) - 1);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_STREQ("sub/real.json", buf);
	EXPECT_STREQ("new\n", file_text(target));
	EXPECT_EQ(0, others_in(self->dir, "link.json", "sub", NULL));
	EXPECT_EQ(0, others_in(sub, "real.json", NULL));

	/* a chain of links, and a link to a file yet to be made */
	ASSERT_EQ(0, symlink("link.json", at(self, 3, "link2")));
	ASSERT_EQ(0, write_text(self->path[3], "newer\n"));
	EXPECT_STREQ("newer\n", file_text(target));
	ASSERT_EQ(0, symlink("sub/made.json", at(self, 3, "dangling")));
	ASSERT_EQ(0, write_text(self->path[3], "made\n"));
	EXPECT_STREQ("made\n", file_text(at(self, 2, "sub/made.json")));
	ASSERT_EQ(0, lstat(self->path[3], &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(out, refuses_directories_and_loops)
{
	struct output_file o;

	EXPECT_EQ(-1, output_open(&o, self->dir));
	EXPECT_EQ(EISDIR, errno);
	ASSERT_EQ(0, symlink("loop-b", at(self, 0, "loop-a")));
	ASSERT_EQ(0, symlink("loop-a", at(self, 1, "loop-b")));
	EXPECT_EQ(-1, output_open(&o, self->path[0]));
	EXPECT_EQ(ELOOP, errno);
	EXPECT_EQ(-1, output_open(&o, ""));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, output_open(&o, at(self, 2, "no/such/dir/x")));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(out, fifo_written_through)
{
	char *fifo = at(self, 0, "fifo"), *copy = at(self, 1, "copy"), cmd[400];
	struct stat st;

	ASSERT_EQ(0, mkfifo(fifo, 0600));
	snprintf(cmd, sizeof(cmd), "cat %s > %s &", fifo, copy);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, write_text(fifo, "through a fifo\n"));
	for (int i = 0; i < 200 && strcmp(file_text(copy), "through a fifo\n"); i++)
		usleep(10000);
	EXPECT_STREQ("through a fifo\n", file_text(copy));
	release_reader(fifo);
	ASSERT_EQ(0, lstat(fifo, &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_EQ(0, others_in(self->dir, "fifo", "copy", NULL));
}

TEST_F(out, character_device_written_through)
{
	char *node = at(self, 0, "null");
	struct output_file o;
	struct stat st;

	if (mknod(node, S_IFCHR | 0666, makedev(1, 3)))
		SKIP(return, "mknod: %s (needs CAP_MKNOD)", strerror(errno));
	ASSERT_EQ(0, output_open(&o, node));
	EXPECT_EQ((int)OUTPUT_THROUGH, (int)o.kind);
	fputs("into the void\n", o.fp);
	ASSERT_EQ(0, output_commit(&o));
	ASSERT_EQ(0, lstat(node, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(makedev(1, 3), st.st_rdev);
	EXPECT_EQ(0, others_in(self->dir, "null", NULL));

	/* a full device (our own node, never the system's): the commit says so */
	ASSERT_EQ(0, mknod(at(self, 1, "full"), S_IFCHR | 0666, makedev(1, 7)));
	ASSERT_EQ(0, output_open(&o, self->path[1]));
	fputs("no room\n", o.fp);
	EXPECT_EQ(-1, output_commit(&o));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, lstat(self->path[1], &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(out, socket_connected_and_written)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *sock = at(self, 0, "sock"), buf[64];
	int lfd, cfd, n = 0, r;
	struct stat st;

	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	strcpy(sun.sun_path, sock);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, write_text(sock, "over a socket\n"));
	cfd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, cfd);
	while ((r = read(cfd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
	EXPECT_STREQ("over a socket\n", buf);
	close(cfd);
	close(lfd);
	ASSERT_EQ(0, lstat(sock, &st));
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
}

TEST_F(out, own_descriptors_written_through)
{
	char name[64], buf[64];
	struct output_file o;
	struct stat before, after;
	int p[2], fd, n;

	/* a pipe, as >(...) gives one: by /dev/fd/N and /proc/self/fd/N */
	ASSERT_EQ(0, pipe(p));
	snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
	ASSERT_EQ(0, write_text(name, "one "));
	snprintf(name, sizeof(name), "/proc/self/fd/%d", p[1]);
	ASSERT_EQ(0, write_text(name, "two"));
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	ASSERT_EQ(7, n);
	buf[n] = '\0';
	EXPECT_STREQ("one two", buf);
	close(p[0]);

	/* a redirection to a file: appended through the descriptor, not replaced */
	put_file(at(self, 0, "log"), "before\n");
	ASSERT_EQ(0, stat(self->path[0], &before));
	fd = open(self->path[0], O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	ASSERT_EQ(0, write_text(name, "after\n"));
	close(fd);
	EXPECT_STREQ("before\nafter\n", file_text(self->path[0]));
	ASSERT_EQ(0, stat(self->path[0], &after));
	EXPECT_EQ(before.st_ino, after.st_ino);

	/* a descriptor that is not open, or not for writing */
	EXPECT_EQ(-1, output_open(&o, "/dev/fd/987"));
	EXPECT_EQ(EBADF, errno);
	fd = open(self->path[0], O_RDONLY);
	ASSERT_LE(0, fd);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	EXPECT_EQ(-1, output_open(&o, name));
	EXPECT_EQ(EBADF, errno);
	close(fd);
}

TEST(dash_is_stdout)
{
	struct output_file o;

	ASSERT_EQ(0, output_open(&o, "-"));
	EXPECT_TRUE(o.is_stdout);
	EXPECT_EQ(stdout, o.fp);
	EXPECT_EQ((int)OUTPUT_THROUGH, (int)o.kind);
	ASSERT_EQ(0, output_commit(&o));
	/* still open for the rest of the program */
	EXPECT_LE(0, fcntl(STDOUT_FILENO, F_GETFL));
	EXPECT_TRUE(output_is_stdout("-"));
	EXPECT_TRUE(output_is_stdout("/dev/stdout"));
	EXPECT_TRUE(output_is_stdout("/dev/fd/1"));
	EXPECT_TRUE(output_is_stdout("/proc/self/fd/1"));
	EXPECT_FALSE(output_is_stdout("/dev/stderr"));
	EXPECT_FALSE(output_is_stdout("./-"));
}

/* A write that fails (past RLIMIT_FSIZE) leaves the old file and no temporary */
TEST_F(out, failed_write_leaves_old_file)
{
	struct rlimit old, small = { 4096, 4096 };
	char big[16384];
	int status;
	pid_t pid;

	put_file(at(self, 0, "kept.json"), "old\n");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct output_file o;
		int ret;

		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		setrlimit(RLIMIT_FSIZE, &small);
		if (output_open(&o, self->path[0]))
			_exit(10);
		memset(big, 'x', sizeof(big));
		fwrite(big, 1, sizeof(big), o.fp);
		ret = output_commit(&o);
		_exit(ret == -1 && errno == EFBIG ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_STREQ("old\n", file_text(self->path[0]));
	EXPECT_EQ(0, others_in(self->dir, "kept.json", NULL));
}

/* ---- the commands -------------------------------------------------------- */

/* A shell command run in @dir, stdout and stderr to files there; its status. */
static int sh_in(const char *dir, const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	/* in @dir: a build that takes "-" for a name writes it there */
	n = snprintf(cmd, sizeof(cmd), "cd %s && { ", dir);
	n += vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, "; } >%s/stdout 2>%s/stderr", dir, dir);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void make_trace(const char *path)
{
	struct gen g = { .nr_cpus = 1 };
	int k;

	for (k = 0; k <= 20; k++)
		gen_battery(&g, 5000000000ULL + k * 100000000ULL, k + 1, 4000000, -250000,
			    2000000 - 100 * k, 0);
	if (gen_write(&g, path))
		abort();
}

TEST_F(out, report_json_dash_is_json_only)
{
	char *in = at(self, 0, "in.txt"), *o = at(self, 1, "stdout");
	const char *text;

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	make_trace(in);
	ASSERT_EQ(0, sh_in(self->dir, "%s report %s --json -", powerpin(), in));
	text = file_text(o);
	/* like status --json: the JSON object and nothing else */
	EXPECT_EQ('{', text[0]);
	EXPECT_EQ(0, strcmp(text + strlen(text) - 2, "}\n"));
	EXPECT_NE(NULL, strstr(text, "\"samples\": 21,"));
	EXPECT_EQ(NULL, strstr(text, "duration "));
	EXPECT_EQ(0, others_in(self->dir, "in.txt", "stdout", "stderr", NULL));
	if (!system("command -v python3 >/dev/null")) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", o);
		EXPECT_EQ(0, system(cmd));
	}
	/*
	 * The same through /dev/fd/1 (as /dev/stdout: /dev/stdout itself is
	 * not named here, where a build that renames outputs into place would
	 * replace the system's link), and --csv -
	 */
	ASSERT_EQ(0, sh_in(self->dir, "%s report %s --json /dev/fd/1", powerpin(), in));
	EXPECT_EQ('{', file_text(o)[0]);
	ASSERT_EQ(0, sh_in(self->dir, "%s report %s --csv -", powerpin(), in));
	EXPECT_EQ(0, strncmp(file_text(o), "time_s,voltage_v,", 17));
	EXPECT_EQ(0, others_in(self->dir, "in.txt", "stdout", "stderr", NULL));
	/* two outputs cannot share stdout */
	EXPECT_EQ(2, sh_in(self->dir, "%s report %s --json - --html /proc/self/fd/1", powerpin(), in));
	EXPECT_NE(NULL, strstr(file_text(at(self, 1, "stderr")),
			       "only one output can go to standard output"));
}

TEST_F(out, report_outputs_follow_links_and_streams)
{
	char *in = at(self, 0, "in.txt"), *real = at(self, 1, "real.json");
	char *link = at(self, 2, "link.json"), *fifo = at(self, 3, "fifo");
	const char *text;
	struct stat st;

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	make_trace(in);
	put_file(real, "old\n");
	ASSERT_EQ(0, symlink("real.json", link));
	ASSERT_EQ(0, sh_in(self->dir, "%s report %s --json %s", powerpin(), in, link));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_NE(NULL, strstr(file_text(real), "\"samples\": 21,"));

	/* a FIFO keeps being a FIFO, its reader gets the page */
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	ASSERT_EQ(0, sh_in(self->dir, "(cat %s > %s/html.copy &); %s report %s --html %s",
			fifo, self->dir, powerpin(), in, fifo));
	for (int i = 0; i < 200 && !strstr(file_text(at(self, 1, "html.copy")), "</html>"); i++)
		usleep(10000);
	EXPECT_NE(NULL, strstr(file_text(self->path[1]), "</html>"));
	release_reader(fifo);
	ASSERT_EQ(0, lstat(fifo, &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));

	/* bash's >(...) */
	ASSERT_EQ(0, sh_in(self->dir, "bash -c '%s report %s --chrome-json >(cat > %s/pf.copy)'; sleep 0.3",
			powerpin(), in, self->dir));
	text = file_text(at(self, 1, "pf.copy"));
	EXPECT_EQ(0, strncmp(text, "{\"displayTimeUnit\"", 18));
	EXPECT_EQ(0, others_in(self->dir, "in.txt", "real.json", "link.json", "fifo", "html.copy",
			       "pf.copy", "stdout", "stderr", NULL));
}

/*
 * Every output is checked before the input is read: a directory that is
 * not there, a directory for a name, an empty name.  Nothing is printed
 * (the summary came first before), and the corrupt input is never reached.
 */
TEST_F(out, report_outputs_checked_before_reading)
{
	char *in = at(self, 0, "in.txt"), *bad = at(self, 1, "bad.txt");
	char *err = at(self, 2, "stderr"), *o = at(self, 3, "stdout");

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	make_trace(in);
	put_file(bad, "not a capture\n");
	EXPECT_EQ(1, sh_in(self->dir, "%s report %s --json %s/no/such/dir/x.json", powerpin(),
			   in, self->dir));
	EXPECT_STREQ("", file_text(o));
	EXPECT_NE(NULL, strstr(file_text(err), "no/such/dir/x.json: No such file or directory"))
		TH_LOG("%s", file_text(err));
	/* the output is named, not the input's own fault */
	EXPECT_EQ(1, sh_in(self->dir, "%s report %s --csv x.csv --html %s/no/x.html", powerpin(),
			   bad, self->dir));
	EXPECT_NE(NULL, strstr(file_text(err), "no/x.html: No such file or directory"))
		TH_LOG("%s", file_text(err));
	EXPECT_EQ(1, sh_in(self->dir, "mkdir -p d && %s report %s --perfetto d", powerpin(), in));
	EXPECT_STREQ("", file_text(o));
	EXPECT_NE(NULL, strstr(file_text(err), "d: Is a directory")) TH_LOG("%s", file_text(err));
	EXPECT_EQ(1, sh_in(self->dir, "%s report %s --csv x.csv --chrome-json %s/stdout/x.json",
			   powerpin(), in, self->dir));
	EXPECT_NE(NULL, strstr(file_text(err), "Not a directory")) TH_LOG("%s", file_text(err));
	if (geteuid()) {
		EXPECT_EQ(1, sh_in(self->dir, "mkdir -p ro && chmod 555 ro && %s report %s --json ro/x.json",
				   powerpin(), in));
		EXPECT_STREQ("", file_text(o));
		EXPECT_NE(NULL, strstr(file_text(err), "ro/x.json: Permission denied"))
			TH_LOG("%s", file_text(err));
	}
	/* an empty name is a usage error, status 2 */
	EXPECT_EQ(2, sh_in(self->dir, "%s report %s --json ''", powerpin(), in));
	EXPECT_NE(NULL, strstr(file_text(err), "--json wants a file name")) TH_LOG("%s", file_text(err));
	EXPECT_EQ(2, sh_in(self->dir, "%s report %s --html=", powerpin(), in));
	EXPECT_NE(NULL, strstr(file_text(err), "--html wants a file name")) TH_LOG("%s", file_text(err));
	EXPECT_EQ(0, others_in(self->dir, "in.txt", "bad.txt", "stdout", "stderr", "d", "ro",
			       NULL));
}

/* flame and profile check their outputs before reading or measuring too */
TEST_F(out, flame_and_profile_outputs_checked_first)
{
	char *log = at(self, 0, "bad.log"), *err = at(self, 2, "stderr");

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	put_file(log, "not an allocation log\n");
	EXPECT_EQ(1, sh_in(self->dir, "%s flame %s -o %s/no/f.html", powerpin(), log, self->dir));
	EXPECT_NE(NULL, strstr(file_text(err), "no/f.html: No such file or directory"))
		TH_LOG("%s", file_text(err));
	EXPECT_EQ(2, sh_in(self->dir, "%s flame %s -o ''", powerpin(), log));
	EXPECT_NE(NULL, strstr(file_text(err), "--output wants a file name")) TH_LOG("%s", file_text(err));
	/* profile: before the minutes of measuring (here: no gauge to measure) */
	EXPECT_EQ(1, sh_in(self->dir, "%s profile -o p.xml --json %s/no/p.json", powerpin(),
			   self->dir));
	EXPECT_NE(NULL, strstr(file_text(err), "no/p.json: No such file or directory"))
		TH_LOG("%s", file_text(err));
	EXPECT_EQ(0, others_in(self->dir, "bad.log", "stdout", "stderr", NULL));
}

/*
 * Several outputs: all written first, then renamed; one that fails leaves
 * every file as it was.  (Never a system device as the failing output: a
 * build that replaces outputs by rename would replace it.)
 */
TEST_F(out, report_failure_halfway_changes_no_file)
{
	char *in = at(self, 0, "in.txt"), *json = at(self, 1, "out.json");

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	make_trace(in);
	put_file(json, "old\n");
	/* 4 KiB per file: the JSON fits, the Perfetto trace does not */
	EXPECT_EQ(1, sh_in(self->dir, "trap '' XFSZ; ulimit -f 4; %s report %s --json %s --perfetto %s/pf.json",
			powerpin(), in, json, self->dir));
	EXPECT_NE(NULL, strstr(file_text(at(self, 2, "stderr")), "File too large"));
	EXPECT_STREQ("old\n", file_text(json));
	EXPECT_EQ(0, others_in(self->dir, "in.txt", "out.json", "stdout", "stderr", NULL));
}

TEST_F(out, pinlist_writers)
{
	struct pin_ranges r = { 0 };
	char *real = at(self, 0, "real.meta"), *link = at(self, 1, "link.meta");
	char *blob = at(self, 2, "blob");
	const char *text;
	struct stat st;
	uint8_t want[8] = { 0, 0, 0x10, 0, 0, 0, 0x20, 0 };

	ASSERT_EQ(0, pin_ranges_add(&r, 4096, 8192, 0));
	put_file(real, "old");
	ASSERT_EQ(0, symlink("real.meta", link));
	ASSERT_EQ(0, pinlist_write_file(link, &r, NULL));
	pin_ranges_free(&r);
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_EQ(0, stat(real, &st));
	EXPECT_EQ(8, st.st_size);
	EXPECT_EQ(0, memcmp(want, file_text(real), 8));

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	/* file -o -: the pinlist on stdout, the lines about it on stderr */
	put_file(blob, "0123456789");
	ASSERT_EQ(0, sh_in(self->dir, "%s file %s --gen-probe --probe-method mincore -o -", powerpin(), blob));
	ASSERT_EQ(0, stat(at(self, 3, "stdout"), &st));
	EXPECT_EQ(8, st.st_size);
	EXPECT_NE(NULL, strstr(file_text(at(self, 3, "stderr")), "Pinlist Writing start=0 bytes=10"));
	EXPECT_EQ(2, sh_in(self->dir, "%s file %s --gen-probe --json -o -", powerpin(), blob));
	/* pin capture -o -: one pinlist on stdout, the workload's output on stderr */
	ASSERT_EQ(0, sh_in(self->dir, "%s pin capture --file %s --probe-method mincore -o - -- sh -c 'cat %s; echo workload'",
			powerpin(), blob, blob));
	ASSERT_EQ(0, stat(at(self, 3, "stdout"), &st));
	EXPECT_EQ(8, st.st_size);
	text = file_text(at(self, 3, "stderr"));
	EXPECT_NE(NULL, strstr(text, "workload\n"));
	EXPECT_NE(NULL, strstr(text, "pinlist=- total_bytes_to_pin=10"));
	EXPECT_EQ(2, sh_in(self->dir, "%s pin capture --file %s --file %s -o - -- true", powerpin(), blob, real));
	EXPECT_EQ(0, others_in(self->dir, "real.meta", "link.meta", "blob", "stdout", "stderr", NULL));
}

TEST_HARNESS_MAIN
