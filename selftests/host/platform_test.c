// SPDX-License-Identifier: GPL-2.0
/* Default paths on Linux and Android, and logd's datagrams, on the host. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <kselftest_harness.h>

#include "base/base.h"

FIXTURE(env) {
	char dir[64];
};

FIXTURE_SETUP(env)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/pp-platform.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	unsetenv("ANDROID_ROOT");
	unsetenv("TMPDIR");
}

FIXTURE_TEARDOWN(env)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

static int nr_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

TEST_F(env, linux_defaults)
{
	if (!access("/system/build.prop", F_OK))
		SKIP(return, "this host looks like Android");
	EXPECT_FALSE(pp_on_android());
	EXPECT_STREQ("/etc/powerpin/powerpind.conf", pp_default_config());
	EXPECT_STREQ("/var/lib/powerpin/spool", pp_default_spool());
	EXPECT_STREQ("/run/powerpin", pp_run_dir());
	EXPECT_STREQ("/tmp", pp_tmp_dir());
	EXPECT_STREQ("/tmp", pp_perf_map_dir());
	setenv("ANDROID_ROOT", "", 1);
	EXPECT_FALSE(pp_on_android());
	setenv("TMPDIR", "", 1);
	EXPECT_STREQ("/tmp", pp_tmp_dir());
	setenv("TMPDIR", self->dir, 1);
	EXPECT_STREQ(self->dir, pp_tmp_dir());
}

TEST_F(env, android_defaults)
{
	setenv("ANDROID_ROOT", "/system", 1);
	EXPECT_TRUE(pp_on_android());
	if (!access(PP_ANDROID_DIR, F_OK))
		SKIP(return, "this host has " PP_ANDROID_DIR);
	EXPECT_STREQ("/data/local/tmp/powerpin", pp_android_dir());
	EXPECT_STREQ("/data/local/tmp/powerpin/powerpind.conf", pp_default_config());
	EXPECT_STREQ("/data/local/tmp/powerpin/spool", pp_default_spool());
	EXPECT_STREQ("/data/local/tmp/powerpin/run", pp_run_dir());
	EXPECT_STREQ("/data/local/tmp", pp_perf_map_dir());
	/* $TMPDIR still wins (without it, the phone's directory is made) */
	setenv("TMPDIR", self->dir, 1);
	EXPECT_STREQ(self->dir, pp_tmp_dir());
}

/* `adb push powerpin /data/local/tmp/` makes the directory's name a file: say so */
TEST_F(env, dir_that_is_a_file)
{
	char path[128], msg[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/powerpin", self->dir);
	EXPECT_EQ(0, pp_dir_check(path, msg, sizeof(msg)));	/* not there yet */
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fclose(f);
	EXPECT_EQ(-1, pp_dir_check(path, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "/powerpin is a file, not powerpin's directory: move it away"));
	EXPECT_NE(NULL, strstr(msg, "give --config and --spool elsewhere and TMPDIR"));
	unlink(path);
	ASSERT_EQ(0, mkdir(path, 0755));
	EXPECT_EQ(0, pp_dir_check(path, msg, sizeof(msg)));
	rmdir(path);
}

TEST_F(env, mkdirs)
{
	char path[128], file[128];
	struct stat st;
	mode_t old = umask(022);

	snprintf(path, sizeof(path), "%s/a//b/c/", self->dir);
	ASSERT_EQ(0, pp_mkdirs(path, 01777));
	snprintf(path, sizeof(path), "%s/a/b/c", self->dir);
	ASSERT_EQ(0, stat(path, &st));
	/* the umask does not take the sticky, group or other bits away */
	EXPECT_EQ(041777U, st.st_mode);
	snprintf(path, sizeof(path), "%s/a/b", self->dir);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(040755U, st.st_mode);
	/* what exists is fine, and keeps its mode */
	ASSERT_EQ(0, pp_mkdirs(path, 0700));
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(040755U, st.st_mode);
	snprintf(file, sizeof(file), "%s/f", self->dir);
	ASSERT_EQ(0, close(creat(file, 0644)));
	snprintf(path, sizeof(path), "%s/f/g", self->dir);
	EXPECT_EQ(-1, pp_mkdirs(path, 0755));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(-1, pp_mkdirs(file, 0755));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(-1, pp_mkdirs("", 0755));
	EXPECT_EQ(ENOENT, errno);
	umask(old);
}

TEST_F(env, tmpfile_in_tmpdir)
{
	char buf[8] = "";
	FILE *fp;

	setenv("TMPDIR", self->dir, 1);
	fp = pp_tmpfile();
	ASSERT_NE(NULL, fp);
	/* unlinked at once: nothing is left behind, even on a crash */
	EXPECT_EQ(0, nr_entries(self->dir));
	EXPECT_EQ(5, fprintf(fp, "slice"));
	rewind(fp);
	EXPECT_EQ(5U, fread(buf, 1, sizeof(buf), fp));
	EXPECT_STREQ("slice", buf);
	fclose(fp);
	setenv("TMPDIR", "/nonexistent-pp", 1);
	EXPECT_EQ(NULL, pp_tmpfile());
	EXPECT_EQ(ENOENT, errno);
}

TEST(logd_format_exact)
{
	static const unsigned char want[] = {
		0, 0x34, 0x12, 0x04, 0x03, 0x02, 0x01, 0x08, 0x07, 0x06, 0x05,
		4, 'p', 'p', 'd', 0, 'r', 'e', 'a', 'd', 'y', 0,
	};
	struct timespec ts = { 0x01020304, 0x05060708 };
	unsigned char buf[64];

	ASSERT_EQ(sizeof(want), pp_logd_format(buf, sizeof(buf), &ts, 0x1234,
					       PP_LOGD_INFO, "ppd", "ready"));
	EXPECT_EQ(0, memcmp(want, buf, sizeof(want)));
	/* room for the header, the tag and an empty message, no less */
	EXPECT_EQ(17U, pp_logd_format(buf, 17, &ts, 1, PP_LOGD_INFO, "ppd", "ready"));
	EXPECT_EQ(0, buf[16]);
	EXPECT_EQ(0U, pp_logd_format(buf, 16, &ts, 1, PP_LOGD_INFO, "ppd", "ready"));
}

TEST(logd_format_cut_to_logd_max)
{
	static char msg[8192], buf[8192];
	struct timespec ts = { 1, 2 };
	size_t n;

	memset(msg, 'x', sizeof(msg) - 1);
	n = pp_logd_format(buf, sizeof(buf), &ts, 1, PP_LOGD_WARN, "t", msg);
	EXPECT_EQ(PP_LOGD_HEADER_BYTES + PP_LOGD_MAX_BYTES + 0U, n);
	EXPECT_EQ(0, buf[n - 1]);
	EXPECT_EQ('x', buf[n - 2]);
	EXPECT_EQ(PP_LOGD_WARN, buf[PP_LOGD_HEADER_BYTES]);
}

TEST_F(env, logd_socket_roundtrip)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	unsigned char buf[256];
	struct timespec now;
	uint32_t sec;
	int srv, fd;
	ssize_t n;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/logdw", self->dir);
	EXPECT_EQ(-1, pp_logd_open(sun.sun_path));
	EXPECT_EQ(ENOENT, errno);
	srv = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_LE(0, srv);
	ASSERT_EQ(0, bind(srv, (struct sockaddr *)&sun, sizeof(sun)));
	fd = pp_logd_open(sun.sun_path);
	ASSERT_LE(0, fd);
	clock_gettime(CLOCK_REALTIME, &now);
	ASSERT_EQ(0, pp_logd_write(fd, PP_LOGD_ERROR, "powerpind", "capture lost"));
	n = recv(srv, buf, sizeof(buf), 0);
	ASSERT_EQ(PP_LOGD_HEADER_BYTES + 1 + 10 + 13, n);
	EXPECT_EQ(0, buf[0]);
	EXPECT_EQ((uint16_t)syscall(SYS_gettid), buf[1] | buf[2] << 8);
	sec = buf[3] | buf[4] << 8 | buf[5] << 16 | (uint32_t)buf[6] << 24;
	EXPECT_LE((uint32_t)now.tv_sec, sec);
	EXPECT_GE((uint32_t)now.tv_sec + 5, sec);
	EXPECT_EQ(PP_LOGD_ERROR, buf[11]);
	EXPECT_STREQ("powerpind", (char *)buf + 12);
	EXPECT_STREQ("capture lost", (char *)buf + 22);
	close(fd);
	close(srv);
}

/* A datagram socket bound at @path, standing in for logd; -1 on failure. */
static int fake_logd(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)))
		return -1;
	return fd;
}

/* The message of the next datagram on @fd into @msg; its length or -1. */
static ssize_t logd_recv(int fd, char *msg, size_t len)
{
	unsigned char buf[PP_LOGD_HEADER_BYTES + PP_LOGD_MAX_BYTES];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	size_t tag;

	if (n <= PP_LOGD_HEADER_BYTES + 1)
		return -1;
	tag = strlen((char *)buf + PP_LOGD_HEADER_BYTES + 1) + 1;
	snprintf(msg, len, "%s", (char *)buf + PP_LOGD_HEADER_BYTES + 1 + tag);
	return n;
}

/*
 * logd restarts (its socket made anew): the next line reconnects, as
 * liblog does, and reaches the new logd; logd gone: the lines go to the
 * keep file, moved aside when it is full.
 */
/* The kept log file @path into @text (NUL-terminated); 0, or -1 if it cannot be read. */
static int read_kept(const char *path, char *text, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	text[fread(text, 1, len - 1, f)] = '\0';
	return fclose(f) ? -1 : 0;
}

TEST_F(env, logd_reconnects_and_keeps_what_it_cannot_send)
{
	char path[128], keep[160], keep1[170], msg[256], text[4096];
	struct pp_logd l = { .fd = -1 };
	int srv;
	FILE *f;

	snprintf(path, sizeof(path), "%s/logdw", self->dir);
	snprintf(keep, sizeof(keep), "%s/powerpind.log", self->dir);
	snprintf(keep1, sizeof(keep1), "%s.1", keep);
	l.path = path;
	l.keep = keep;
	srv = fake_logd(path);
	ASSERT_LE(0, srv);
	l.fd = pp_logd_open(path);
	ASSERT_LE(0, l.fd);
	EXPECT_EQ(0, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "one"));
	ASSERT_LT(0, logd_recv(srv, msg, sizeof(msg)));
	EXPECT_STREQ("one", msg);
	/* logd restarts */
	close(srv);
	unlink(path);
	srv = fake_logd(path);
	ASSERT_LE(0, srv);
	EXPECT_EQ(0, pp_logd_send(&l, PP_LOGD_WARN, "powerpind", "two"));
	ASSERT_LT(0, logd_recv(srv, msg, sizeof(msg)));
	EXPECT_STREQ("two", msg);
	EXPECT_NE(0, access(keep, F_OK));
	/* logd gone */
	close(srv);
	unlink(path);
	EXPECT_EQ(1, pp_logd_send(&l, PP_LOGD_ERROR, "powerpind", "three"));
	EXPECT_EQ(1, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "four"));
	ASSERT_EQ(0, read_kept(keep, text, sizeof(text)));
	EXPECT_STREQ("E powerpind: three\nI powerpind: four\n", text);
	/* a full file is moved aside, the newest lines start a new one */
	f = fopen(keep, "a");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, ftruncate(fileno(f), PP_LOGD_KEEP_BYTES + 1));
	fclose(f);
	EXPECT_EQ(1, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "five"));
	EXPECT_EQ(0, access(keep1, F_OK));
	ASSERT_EQ(0, read_kept(keep, text, sizeof(text)));
	EXPECT_STREQ("I powerpind: five\n", text);
	/* nowhere to keep them: the caller is told */
	l.keep = NULL;
	EXPECT_EQ(-1, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "six"));
	l.keep = keep;
	/* logd back after it was gone (or was never there): found again */
	srv = fake_logd(path);
	ASSERT_LE(0, srv);
	EXPECT_EQ(0, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "seven"));
	ASSERT_LT(0, logd_recv(srv, msg, sizeof(msg)));
	EXPECT_STREQ("seven", msg);
	close(srv);
	unlink(path);
	if (l.fd >= 0)
		close(l.fd);
}

/*
 * A logd too busy to read (its socket full, EAGAIN): the line is kept in
 * the file, nothing waits, and the next one goes to logd once it reads.
 */
TEST_F(env, logd_full_keeps_the_line)
{
	char path[128], keep[160], msg[256], text[4096];
	struct pp_logd l = { .fd = -1 };
	int srv, i, r = 0;

	snprintf(path, sizeof(path), "%s/logdw", self->dir);
	snprintf(keep, sizeof(keep), "%s/powerpind.log", self->dir);
	l.path = path;
	l.keep = keep;
	srv = fake_logd(path);
	ASSERT_LE(0, srv);
	l.fd = pp_logd_open(path);
	ASSERT_LE(0, l.fd);
	for (i = 0; i < 100000 && r == 0; i++)
		r = pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "fill");
	ASSERT_EQ(1, r) TH_LOG("%d lines and the socket is not full", i);
	ASSERT_EQ(0, read_kept(keep, text, sizeof(text)));
	EXPECT_STREQ("I powerpind: fill\n", text);
	/* logd reads again */
	while (logd_recv(srv, msg, sizeof(msg)) > 0)
		;
	EXPECT_EQ(0, pp_logd_send(&l, PP_LOGD_INFO, "powerpind", "after"));
	ASSERT_LT(0, logd_recv(srv, msg, sizeof(msg)));
	EXPECT_STREQ("after", msg);
	close(l.fd);
	close(srv);
}

TEST_HARNESS_MAIN
