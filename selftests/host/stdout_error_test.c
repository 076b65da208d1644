// SPDX-License-Identifier: GPL-2.0
/*
 * A write error on standard output is never silent and never said twice:
 * every command, --version and --help included, run with its standard
 * output on /dev/full exits 1 with exactly one message giving the reason,
 * as coreutils' close_stdout() does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_gen.h"

FIXTURE(full) {
	char dir[64];
	char err[8192];
	char *powerpin, *powerpind;
};

static void put(const char *dir, const char *name, const void *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

FIXTURE_SETUP(full)
{
	static const char pinlist[] = { 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 0x10, 0 };
	static const char log[] =
		"+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
		"+1,LMain;::main([Ljava/lang/String;)V\n"
		"=2,0;1\n"
		"2\n";
	struct gen g = { .nr_cpus = 1 };
	char path[128];
	int k;

	self->powerpin = realpath("build/bin/powerpin", NULL);
	self->powerpind = realpath("build/bin/powerpind", NULL);
	if (!self->powerpin || !self->powerpind)
		SKIP(return, "build/bin not built (make userspace)");
	if (access("/dev/full", W_OK))
		SKIP(return, "no writable /dev/full");
	strcpy(self->dir, "/tmp/powerpin-full-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	for (k = 0; k <= 200; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	snprintf(path, sizeof(path), "%s/cap.txt", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	put(self->dir, "x.meta", pinlist, sizeof(pinlist));
	put(self->dir, "alloc.log", log, strlen(log));
	put(self->dir, "blob", "0123456789", 10);
}

FIXTURE_TEARDOWN(full)
{
	free(self->powerpin);
	free(self->powerpind);
	if (!self->dir[0])
		return;
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* `@prog @args` in the test's directory, stdout per @redirect; stderr in self->err. */
static int run(FIXTURE_DATA(full) *self, const char *prog, const char *args,
	       const char *redirect)
{
	char cmd[1024], errpath[128];
	FILE *f;
	size_t n = 0;
	int st;

	snprintf(errpath, sizeof(errpath), "%s/stderr", self->dir);
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s %s 2>%s", self->dir, prog, args, redirect,
		 errpath);
	st = system(cmd);
	self->err[0] = '\0';
	f = fopen(errpath, "r");
	if (f) {
		n = fread(self->err, 1, sizeof(self->err) - 1, f);
		fclose(f);
	}
	self->err[n] = '\0';
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

static const char *const commands[] = {
	"--version",
	"--help",
	"help",
	"report --help",
	"pinlist --help",
	"pinlist x.meta --dump",
	"pinlist x.meta --summary",
	"pinlist x.meta --json",
	"report cap.txt",
	"report cap.txt --json -",
	"report cap.txt --csv -",
	"report cap.txt --html -",
	"flame alloc.log",
	"flame alloc.log --folded",
	"file blob --gen-probe --probe-method mincore",
	"file blob --gen-probe --probe-method mincore --json",
	"file blob --gen-probe --probe-method mincore -o -",
	"pin capture --file blob --probe-method mincore -o - -- true",
};

TEST_F(full, every_command_on_a_full_device)
{
	const char *enospc = strerror(ENOSPC);
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		EXPECT_EQ(1, run(self, self->powerpin, commands[i], ">/dev/full"))
			TH_LOG("%s: %s", commands[i], self->err);
		EXPECT_EQ(1, count(self->err, enospc)) TH_LOG("%s: \"%s\"", commands[i], self->err);
	}
	EXPECT_EQ(1, run(self, self->powerpind, "--version", ">/dev/full"));
	EXPECT_EQ(1, count(self->err, enospc)) TH_LOG("\"%s\"", self->err);
	EXPECT_EQ(1, run(self, self->powerpind, "--help", ">/dev/full"));
	EXPECT_EQ(1, count(self->err, enospc)) TH_LOG("\"%s\"", self->err);
}

/* The message names the command and the reason */
TEST_F(full, message)
{
	EXPECT_EQ(1, run(self, self->powerpin, "pinlist x.meta --dump", ">/dev/full"));
	EXPECT_STREQ("powerpin pinlist: write error on standard output: No space left on device\n",
		     self->err);
	EXPECT_EQ(1, run(self, self->powerpin, "--version", ">/dev/full"));
	EXPECT_STREQ("powerpin: write error on standard output: No space left on device\n",
		     self->err);
}

/* Standard output closed from the start: fine when nothing goes there */
TEST_F(full, closed_stdout)
{
	/* (pinlist with no flag prints its summary now: flame to a file prints nothing) */
	EXPECT_EQ(0, run(self, self->powerpin, "flame alloc.log -o f.html", ">&-")) TH_LOG("%s", self->err);
	EXPECT_STREQ("", self->err);
	EXPECT_EQ(1, run(self, self->powerpin, "pinlist x.meta", ">&-"));
	EXPECT_EQ(1, count(self->err, strerror(EBADF))) TH_LOG("\"%s\"", self->err);
	EXPECT_EQ(1, run(self, self->powerpin, "pinlist x.meta --dump", ">&-"));
	EXPECT_EQ(1, count(self->err, strerror(EBADF))) TH_LOG("\"%s\"", self->err);
	/* and a working one is no error */
	EXPECT_EQ(0, run(self, self->powerpin, "pinlist x.meta --dump", ">/dev/null"));
	EXPECT_STREQ("", self->err);
}

TEST_HARNESS_MAIN
