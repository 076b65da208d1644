// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin file over several paths and directories, as fincore and vmtouch:
 * every regular file under a directory in name order (links inside not
 * followed, a link given followed), a line each with its resident bytes,
 * pages and size and a total, sizes as people read them with -h, JSON with
 * --json, a path that cannot be read said and the others still listed
 * (status 1), and the pinlist options refused for more than one file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "base/base.h"

#define POWERPIN	"build/bin/powerpin"

FIXTURE(tree) {
	char dir[64];
	char out[16384];
	char cmd[1024];
};

static int write_file(const char *path, size_t size)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t n;

	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (; size; size -= n) {
		n = size < sizeof(buf) ? size : sizeof(buf);
		if (write(fd, buf, n) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	/* in the page cache: just written, and fsync'd so none is dirty */
	fsync(fd);
	return close(fd);
}

FIXTURE_SETUP(tree)
{
	char p[256];

	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-tree-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(p, sizeof(p), "%s/apps", self->dir);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/apps/lib", self->dir);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/apps/b.apk", self->dir);
	ASSERT_EQ(0, write_file(p, 8192));
	snprintf(p, sizeof(p), "%s/apps/a.odex", self->dir);
	ASSERT_EQ(0, write_file(p, 1572864));
	snprintf(p, sizeof(p), "%s/apps/lib/c.so", self->dir);
	ASSERT_EQ(0, write_file(p, 100));
	/* a link inside the walk is passed over; a FIFO too */
	snprintf(p, sizeof(p), "%s/apps/link.apk", self->dir);
	ASSERT_EQ(0, symlink("b.apk", p));
	snprintf(p, sizeof(p), "%s/apps/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(p, 0644));
}

FIXTURE_TEARDOWN(tree)
{
	if (self->dir[0] && sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int run(FIXTURE_DATA(tree) *self, const char *args)
{
	snprintf(self->cmd, sizeof(self->cmd), "cd %s && %s/%s file %s 2>/dev/null", self->dir,
		 getcwd((char[512]){ 0 }, 512), POWERPIN, args);
	return run_cmd(self->cmd, self->out, sizeof(self->out));
}

/* A line of the table, as the command prints it, appended to @buf (or alone: NULL). */
static const char *row(char *buf, const char *res, const char *pages, const char *size,
		       const char *file)
{
	static char line[256];

	snprintf(line, sizeof(line), "%12s %10s %12s  %s\n", res, pages, size, file);
	if (buf)
		strcat(buf, line);
	return line;
}

TEST_F(tree, directory_walked_in_name_order)
{
	char want[2048] = "";

	ASSERT_EQ(0, run(self, "apps"));
	row(want, "RES", "PAGES", "SIZE", "FILE");
	row(want, "1572864", "384", "1572864", "apps/a.odex");
	row(want, "8192", "2", "8192", "apps/b.apk");
	row(want, "100", "1", "100", "apps/lib/c.so");
	row(want, "1581156", "387", "1581156", "total");
	EXPECT_STREQ(want, self->out);
}

TEST_F(tree, human_sizes_and_several_paths)
{
	char want[2048] = "";

	/* a path given as a link is followed; the directory's slash is kept once */
	ASSERT_EQ(0, run(self, "-H apps/link.apk apps/lib/"));
	row(want, "RES", "PAGES", "SIZE", "FILE");
	row(want, "8K", "2", "8K", "apps/link.apk");
	row(want, "100", "1", "100", "apps/lib/c.so");
	row(want, "8.1K", "3", "8.1K", "total");
	EXPECT_STREQ(want, self->out);
	ASSERT_EQ(0, run(self, "--human-readable apps/a.odex apps/b.apk"));
	EXPECT_NE(NULL, strstr(self->out, row(NULL, "1.5M", "384", "1.5M", "apps/a.odex")));
	/* -h is help here too, as in every command */
	ASSERT_EQ(0, run(self, "-h apps/a.odex"));
	EXPECT_EQ(0, strncmp(self->out, "usage: powerpin file", 20));
}

TEST_F(tree, json)
{
	ASSERT_EQ(0, run(self, "apps/lib apps/b.apk --json"));
	EXPECT_STREQ("{\"files\": [\n"
		     "  {\"file\": \"apps/lib/c.so\", \"size\": 100, \"resident_bytes\": 100, \"resident_pages\": 1, \"pages\": 1, \"method\": ",
		     strndupa(self->out, strstr(self->out, "\"method\": ") + 10 - self->out));
	EXPECT_NE(NULL, strstr(self->out, "\n], \"total\": {\"files\": 2, \"size\": 8292, \"resident_bytes\": 8292, \"resident_pages\": 3}, \"errors\": 0}\n"));
	if (!system("command -v python3 >/dev/null")) {
		snprintf(self->cmd, sizeof(self->cmd),
			 "cd %s && %s/%s file --json - apps 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)'",
			 self->dir, getcwd((char[512]){ 0 }, 512), POWERPIN);
		EXPECT_EQ(0, system(self->cmd));
	}
}

/* What cannot be read is said; the rest is still listed; status 1 */
TEST_F(tree, unreadable_paths)
{
	char cmd[1024], err[2048];

	EXPECT_EQ(1, run(self, "apps/lib nothing apps/fifo"));
	EXPECT_NE(NULL, strstr(self->out, "apps/lib/c.so\n"));
	snprintf(cmd, sizeof(cmd), "cd %s && %s/%s file apps/lib nothing apps/fifo 2>&1 >/dev/null",
		 self->dir, getcwd((char[512]){ 0 }, 512), POWERPIN);
	EXPECT_EQ(1, run_cmd(cmd, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "powerpin file: nothing: No such file or directory\n"));
	EXPECT_NE(NULL, strstr(err, "powerpin file: apps/fifo: not a regular file or a directory\n"));
}

/*
 * One file keeps pintool's lines and options; more refuse a pinlist; one
 * file without a probe or a zip is a fincore line, as several are.
 */
TEST_F(tree, pinlist_options_take_one_file)
{
	EXPECT_EQ(2, run(self, "apps --zip"));
	EXPECT_EQ(2, run(self, "apps/a.odex apps/b.apk --use-probe x"));
	EXPECT_EQ(2, run(self, "apps/b.apk -o x.meta"));
	EXPECT_EQ(2, run(self, "apps/b.apk --dump"));
	EXPECT_EQ(0, run(self, "apps/b.apk --gen-probe"));
	EXPECT_NE(NULL, strstr(self->out, "apps/b.apk size(B)=8192 resident(B)=8192 resident(%)=100\n"));
}

TEST_F(tree, one_file_without_a_probe_is_its_line)
{
	char want[1024] = "";

	ASSERT_EQ(0, run(self, "apps/b.apk"));
	row(want, "RES", "PAGES", "SIZE", "FILE");
	row(want, "8192", "2", "8192", "apps/b.apk");
	EXPECT_STREQ(want, self->out);
}

/*
 * --json [FILE], as in every command: the JSON into FILE and the lines
 * still on stdout; "-" or nothing: the JSON instead of the lines; "" a
 * usage error; an output that cannot be written refused before the walk.
 */
TEST_F(tree, json_into_a_file)
{
	char path[512], want[1024] = "", *json;

	ASSERT_EQ(0, run(self, "apps/b.apk apps/lib --json out.json"));
	row(want, "RES", "PAGES", "SIZE", "FILE");
	row(want, "8192", "2", "8192", "apps/b.apk");
	row(want, "100", "1", "100", "apps/lib/c.so");
	row(want, "8292", "3", "8292", "total");
	EXPECT_STREQ(want, self->out);
	snprintf(path, sizeof(path), "%s/out.json", self->dir);
	json = slurp(path);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, strncmp(json, "{\"files\": [", 11));
	EXPECT_NE(NULL, strstr(json, "\"total\": {\"files\": 2, \"size\": 8292,"));
	free(json);
	ASSERT_EQ(0, run(self, "apps/b.apk --json - -H"));
	EXPECT_EQ(0, strncmp(self->out, "{\"files\": [", 11));
	EXPECT_EQ(2, run(self, "apps/b.apk --json ''"));
	EXPECT_EQ(1, run(self, "apps/b.apk --json nodir/out.json"));
	EXPECT_STREQ("", self->out);
	EXPECT_EQ(1, run(self, "apps/b.apk --json apps/b.apk"));
}

TEST(human_sizes)
{
	static const struct { unsigned long long v; const char *s; } t[] = {
		{ 0, "0" }, { 1023, "1023" }, { 1024, "1K" }, { 1536, "1.5K" }, { 1600, "1.6K" },
		{ 10240, "10K" }, { 10700, "10K" }, { 10800, "11K" }, { 1048064, "1M" },
		{ 1572864, "1.5M" }, { 5000000, "4.8M" }, { 1ULL << 30, "1G" },
		{ 1ULL << 40, "1T" }, { ~0ULL, "16E" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		EXPECT_STREQ(t[i].s, format_size_human(t[i].v, buf, sizeof(buf)))
			TH_LOG("%llu", t[i].v);
}

TEST_HARNESS_MAIN
