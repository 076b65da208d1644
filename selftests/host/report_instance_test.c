// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report --instance (-B), as trace-cmd report -B: a trace.dat
 * whose ftrace instance "app" holds other samples than its top buffer is
 * read from the buffer named; a name it does not have is refused with the
 * names it has; ftrace text has one buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_tracedat.h"

#define POWERPIN	"build/bin/powerpin"
#define MS		1000000ULL
#define SEC		1000000000ULL

FIXTURE(inst) {
	char dir[64];
	char dat[128];
	char out[8192];
	char cmd[1024];
};

FIXTURE_SETUP(inst)
{
	struct tdat top, app;
	int k;

	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-inst-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->dat, sizeof(self->dat), "%s/trace.dat", self->dir);
	ASSERT_EQ(0, tdat_open(&top, 2));
	ASSERT_EQ(0, tdat_open(&app, 2));
	/* top: 1 s of 4 V, 0.5 A (2 J); app: 2 s of 3 V, 1 A (6 J) */
	for (k = 0; k <= 100; k++)
		tdat_battery(&top, 0, 100 * SEC + k * 10 * MS, 77, k + 1, 4000000, 500000,
			     1000000, 0);
	for (k = 0; k <= 200; k++)
		tdat_battery(&app, 1, 100 * SEC + k * 10 * MS, 78, k + 1, 3000000, 1000000,
			     1000000, 0);
	tdat_instance(&top, "app", &app);
	ASSERT_EQ(0, tdat_close(&top, self->dat));
}

FIXTURE_TEARDOWN(inst)
{
	if (self->dir[0] && sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int run(FIXTURE_DATA(inst) *self, const char *args)
{
	snprintf(self->cmd, sizeof(self->cmd), "%s report %s %s 2>&1", POWERPIN, self->dat,
		 args);
	return run_cmd(self->cmd, self->out, sizeof(self->out));
}

TEST_F(inst, top_buffer_by_default)
{
	ASSERT_EQ(0, run(self, "")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "duration       1.000 s, 101 samples"));
	EXPECT_NE(NULL, strstr(self->out, "energy         2.0000 J"));
}

TEST_F(inst, instance_named)
{
	ASSERT_EQ(0, run(self, "--instance app")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "duration       2.000 s, 201 samples"));
	EXPECT_NE(NULL, strstr(self->out, "energy         6.0000 J"));
	/* trace-cmd's spelling, and the filters on top of it */
	ASSERT_EQ(0, run(self, "-B app --to 1 --stat")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "powerpin:powerpin_battery                 101\n"));
}

TEST_F(inst, unknown_instance)
{
	char want[512];

	EXPECT_EQ(1, run(self, "--instance nosuch"));
	snprintf(want, sizeof(want), "powerpin report: %s: no instance nosuch in it (it has: app)\n",
		 self->dat);
	EXPECT_STREQ(want, self->out);
}

TEST_F(inst, text_has_one_buffer)
{
	char path[160], want[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace.txt", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("        powerpin-77      (     77) [000] ..... 100.000000000: battery: seq=1 voltage_uv=4000000 current_ua=500000 charge_uah=1 flags=0x0\n",
	      f);
	fclose(f);
	snprintf(self->cmd, sizeof(self->cmd), "%s report %s -B app 2>&1", POWERPIN, path);
	EXPECT_EQ(1, run_cmd(self->cmd, self->out, sizeof(self->out)));
	snprintf(want, sizeof(want), "powerpin report: %s: ftrace text has one buffer, not instance app (a trace.dat from trace-cmd record -B has several)\n",
		 path);
	EXPECT_STREQ(want, self->out);
}

TEST_HARNESS_MAIN
