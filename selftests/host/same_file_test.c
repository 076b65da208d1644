// SPDX-License-Identifier: GPL-2.0
/*
 * An output is never one of the command's inputs: `file g.jar --gen-probe
 * -o g.jar`, `report c.txt --json c.txt`, `flame a.log -o a.log` and the
 * like are refused with one message and status 1, the input untouched,
 * whether the output names it directly, through a symlink, a hard link, a
 * descriptor or standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "base/base.h"
#include "report_gen.h"

#define REFUSAL	"the same file as an input: refusing to write over it"

static const char *powerpin(void)
{
	static char *abs;

	if (!abs)
		abs = realpath("build/bin/powerpin", NULL);
	return abs ? abs : "build/bin/powerpin";
}

FIXTURE(same) {
	char dir[64];
	char path[4][160];
	char err[4096];
};

FIXTURE_SETUP(same)
{
	strcpy(self->dir, "/tmp/powerpin-same-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(same)
{
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static char *at(FIXTURE_DATA(same) *self, int i, const char *name)
{
	snprintf(self->path[i], sizeof(self->path[i]), "%s/%s", self->dir, name);
	return self->path[i];
}

/* Run a shell command in the test's directory; stderr in self->err. */
static int sh_in(FIXTURE_DATA(same) *self, const char *fmt, ...)
{
	char cmd[2048], errpath[200];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = snprintf(cmd, sizeof(cmd), "cd %s && ", self->dir);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	snprintf(errpath, sizeof(errpath), "%s.err", self->dir);
	n = strlen(cmd);
	snprintf(cmd + n, sizeof(cmd) - n, " 2>%s", errpath);
	st = system(cmd);
	snprintf(self->err, sizeof(self->err), "%s", file_text(errpath));
	unlink(errpath);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One line on stderr, with the refusal in it. */
static int refused_once(FIXTURE_DATA(same) *self)
{
	char *nl = strchr(self->err, '\n');

	return strstr(self->err, REFUSAL) && nl && !nl[1];
}

/* ---- the library --------------------------------------------------------- */

TEST_F(same, library_refuses_an_input_by_any_name)
{
	char *in = at(self, 0, "in.txt"), *sym = at(self, 1, "link.txt");
	char *hard = at(self, 2, "hard.txt"), *other = at(self, 3, "other.txt");
	struct output_file o;
	char byfd[64];
	int fd;

	put_file(in, "input\n");
	ASSERT_EQ(0, symlink("in.txt", sym));
	ASSERT_EQ(0, link(in, hard));
	/* nothing registered yet: allowed, and then abandoned */
	ASSERT_EQ(0, output_open(&o, in));
	output_abort(&o);
	ASSERT_EQ(0, output_add_input(sym));
	/* a path that is not there, and a directory, are not inputs */
	ASSERT_EQ(0, output_add_input(other));
	ASSERT_EQ(0, output_add_input(self->dir));

	EXPECT_EQ(-1, output_check(in));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, output_open(&o, in));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, output_open(&o, sym));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, output_open(&o, hard));
	EXPECT_EQ(EEXIST, errno);
	fd = open(in, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	snprintf(byfd, sizeof(byfd), "/dev/fd/%d", fd);
	EXPECT_EQ(-1, output_open(&o, byfd));
	EXPECT_EQ(EEXIST, errno);
	close(fd);
	EXPECT_STREQ("input\n", file_text(in));
	EXPECT_STREQ(REFUSAL, output_strerror(EEXIST));

	/* another file, and a device, are still outputs */
	EXPECT_EQ(0, output_check(other));
	ASSERT_EQ(0, output_open(&o, other));
	fputs("out\n", o.fp);
	ASSERT_EQ(0, output_commit(&o));
	EXPECT_STREQ("out\n", file_text(other));
	ASSERT_EQ(0, output_open(&o, "/dev/null"));
	ASSERT_EQ(0, output_commit(&o));
}

/* ---- every command -------------------------------------------------------- */

TEST_F(same, file_refuses_its_inputs)
{
	char *blob = at(self, 0, "g.jar");
	char probe[] = { 0, 0, 0, 0, 0, 0, 0x10, 0 };
	FILE *f;

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	put_file(blob, "a jar of 29 bytes, not a zip\n");
	ASSERT_EQ(0, symlink("g.jar", at(self, 1, "link.jar")));
	ASSERT_EQ(0, link(blob, at(self, 2, "hard.jar")));
	EXPECT_EQ(1, sh_in(self, "%s file g.jar --gen-probe --probe-method mincore -o g.jar", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "powerpin file: g.jar: "));
	EXPECT_EQ(1, sh_in(self, "%s file g.jar --gen-probe --probe-method mincore -o link.jar", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, sh_in(self, "%s file link.jar --gen-probe --probe-method mincore -o hard.jar", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	/* standard output appended to the input */
	EXPECT_EQ(1, sh_in(self, "%s file g.jar --gen-probe --probe-method mincore -o - >>g.jar", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_STREQ("a jar of 29 bytes, not a zip\n", file_text(blob));

	/* --use-probe's pinlist is an input too */
	f = fopen(at(self, 3, "p.meta"), "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1U, fwrite(probe, sizeof(probe), 1, f));
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(1, sh_in(self, "%s file g.jar --use-probe p.meta -o p.meta", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(0, memcmp(probe, file_text(self->path[3]), sizeof(probe)));
	/* and a pinlist elsewhere is written */
	EXPECT_EQ(0, sh_in(self, "%s file g.jar --use-probe p.meta -o new.meta >/dev/null", powerpin()))
		TH_LOG("%s", self->err);
}

TEST_F(same, report_refuses_its_inputs)
{
	char *in = at(self, 0, "c.txt"), *procs = at(self, 1, "c-processes.txt");
	struct gen g = { .nr_cpus = 1 };
	char *want;
	int k;

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	for (k = 0; k <= 20; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, in));
	want = strdup(file_text(in));
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, symlink("c.txt", at(self, 2, "link.txt")));
	EXPECT_EQ(1, sh_in(self, "%s report c.txt --json c.txt", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "powerpin report: c.txt: "));
	EXPECT_EQ(1, sh_in(self, "%s report c.txt --html /tmp/../%s/link.txt", powerpin(), self->dir));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, sh_in(self, "%s report - --perfetto c.txt <c.txt", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, sh_in(self, "%s report c.txt --json - >>c.txt", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_STREQ(want, file_text(in));

	/* the process table beside a CSV is an output too */
	ASSERT_EQ(0, rename(in, procs));
	EXPECT_EQ(1, sh_in(self, "%s report c-processes.txt --csv c.txt", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_STREQ(want, file_text(procs));
	/* --perf's data is an input */
	EXPECT_EQ(1, sh_in(self, "touch perf.data && %s report c-processes.txt --perf perf.data --json perf.data",
			powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(0, sh_in(self, "%s report c-processes.txt --json out.json >/dev/null", powerpin()))
		TH_LOG("%s", self->err);
	free(want);
}

TEST_F(same, flame_refuses_its_input)
{
	static const char log[] =
		"+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
		"+1,LMain;::main([Ljava/lang/String;)V\n"
		"=2,0;1\n"
		"2\n";

	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	put_file(at(self, 0, "a.log"), log);
	ASSERT_EQ(0, link(self->path[0], at(self, 1, "b.log")));
	EXPECT_EQ(1, sh_in(self, "%s flame a.log --folded -o a.log", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, sh_in(self, "%s flame a.log -o b.log", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, sh_in(self, "%s flame - -o /dev/stdout <a.log >>a.log", powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_STREQ(log, file_text(self->path[0]));
	EXPECT_EQ(0, sh_in(self, "%s flame a.log --folded -o c.folded", powerpin())) TH_LOG("%s", self->err);
}

/* pin capture: refused before the workload runs */
TEST_F(same, pin_capture_refuses_its_inputs)
{
	if (access(powerpin(), X_OK))
		SKIP(return, "powerpin not built (make userspace)");
	put_file(at(self, 0, "blob"), "0123456789");
	ASSERT_EQ(0, mkdir(at(self, 1, "out"), 0755));
	ASSERT_EQ(0, link(self->path[0], at(self, 2, "out/blob.pinlist")));
	EXPECT_EQ(1, sh_in(self, "%s pin capture --file blob --probe-method mincore -o out -- touch ran",
			powerpin()));
	EXPECT_TRUE(refused_once(self)) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "out/blob.pinlist: "));
	EXPECT_NE(0, access(at(self, 3, "ran"), F_OK));
	EXPECT_STREQ("0123456789", file_text(self->path[0]));
	/* one --file's pinlist over another --file */
	ASSERT_EQ(0, unlink(self->path[2]));
	put_file(self->path[2], "pinlist as input");
	EXPECT_EQ(1, sh_in(self, "%s pin capture --file blob --file out/blob.pinlist --probe-method mincore -o out -- touch ran",
			powerpin()));
	EXPECT_NE(NULL, strstr(self->err, "out/blob.pinlist: " REFUSAL)) TH_LOG("%s", self->err);
	EXPECT_NE(0, access(self->path[3], F_OK));
	EXPECT_STREQ("pinlist as input", file_text(self->path[2]));
}

TEST_HARNESS_MAIN
