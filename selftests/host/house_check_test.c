// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/house-check's rooms of daemon/lib/: in a small tree of its own,
 * a call or an include down to a lower floor passes, and a call up, an
 * include up, a call to a room of the same floor and a folder that is no
 * room each fail the "one way down" check, naming the file and the room
 * it reaches.  The objects are compiled here.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define HOUSE_CHECK	"scripts/house-check"
#define ONE_WAY		"one way down between the rooms of daemon/lib/"

FIXTURE(rooms) {
	char top[PATH_MAX];
	char dir[64];
	char out[16384];
};

/* @text as daemon/lib/@room/@name.c of the tree, and its object */
static int put_source(FIXTURE_DATA(rooms) *self, const char *room,
		      const char *name, const char *text)
{
	char path[256];

	if (sh("mkdir -p %s/daemon/lib/%s %s/build/daemon/lib/%s",
	       self->dir, room, self->dir, room))
		return -1;
	snprintf(path, sizeof(path), "%s/daemon/lib/%s/%s.c", self->dir, room, name);
	put_file(path, text);
	return sh("cd %s && cc -c -I daemon/lib -o build/daemon/lib/%s/%s.o daemon/lib/%s/%s.c",
		  self->dir, room, name, room, name);
}

FIXTURE_SETUP(rooms)
{
	char path[256];

	if (sh("command -v nm >/dev/null && command -v cc >/dev/null && command -v ctags >/dev/null"))
		SKIP(return, "nm, cc or ctags missing");
	ASSERT_NE(NULL, getcwd(self->top, sizeof(self->top)));
	strcpy(self->dir, "/tmp/pp-house-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* the rooms' faces; report (top floor) calls down into trace, trace into base */
	ASSERT_EQ(0, sh("mkdir -p %s/daemon/lib/base %s/daemon/lib/report", self->dir, self->dir));
	snprintf(path, sizeof(path), "%s/daemon/lib/base/base.h", self->dir);
	put_file(path, "int low(void);\n");
	snprintf(path, sizeof(path), "%s/daemon/lib/report/report.h", self->dir);
	put_file(path, "int high(void);\n");
	ASSERT_EQ(0, put_source(self, "base", "low",
				"int low(void);\nint low(void)\n{\n\treturn 1;\n}\n"));
	ASSERT_EQ(0, put_source(self, "trace", "middle",
				"#include \"base/base.h\"\nint middle(void);\n"
				"int middle(void)\n{\n\treturn low();\n}\n"));
	ASSERT_EQ(0, put_source(self, "report", "high",
				"int middle(void);\nint high(void);\n"
				"int high(void)\n{\n\treturn middle();\n}\n"));
}

FIXTURE_TEARDOWN(rooms)
{
	sh("rm -rf %s", self->dir);
}

/* house-check on the tree's daemon/lib; its status */
static int house_check(FIXTURE_DATA(rooms) *self)
{
	char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "cd %s && %s/" HOUSE_CHECK " daemon/lib 2>&1",
		 self->dir, self->top);
	return run_cmd(cmd, self->out, sizeof(self->out));
}

TEST_F(rooms, downward_edges_pass)
{
	EXPECT_EQ(0, house_check(self));
	EXPECT_NE(NULL, strstr(self->out, "\nok - " ONE_WAY)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "# Totals: pass:3 fail:0")) TH_LOG("%s", self->out);
}

TEST_F(rooms, upward_call_fails)
{
	ASSERT_EQ(0, put_source(self, "base", "up",
				"int high(void);\nint up(void);\n"
				"int up(void)\n{\n\treturn high();\n}\n"));
	EXPECT_EQ(0, house_check(self));
	EXPECT_NE(NULL, strstr(self->out, "\nnot ok - " ONE_WAY)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out,
			       "daemon/lib/base/up.c (base) -> report (a higher floor): "
			       "daemon/lib/report/high.c (high)")) TH_LOG("%s", self->out);
}

TEST_F(rooms, upward_include_fails)
{
	ASSERT_EQ(0, put_source(self, "trace", "peek",
				"#include \"report/report.h\"\nint peek(void);\n"
				"int peek(void)\n{\n\treturn 0;\n}\n"));
	EXPECT_EQ(0, house_check(self));
	EXPECT_NE(NULL, strstr(self->out, "\nnot ok - " ONE_WAY)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out,
			       "daemon/lib/trace/peek.c (trace) -> report (a higher floor): "
			       "#include \"report/report.h\"")) TH_LOG("%s", self->out);
}

TEST_F(rooms, same_floor_call_fails)
{
	ASSERT_EQ(0, put_source(self, "pin", "side",
				"int middle(void);\nint side(void);\n"
				"int side(void)\n{\n\treturn middle();\n}\n"));
	EXPECT_EQ(0, house_check(self));
	EXPECT_NE(NULL, strstr(self->out, "\nnot ok - " ONE_WAY)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out,
			       "daemon/lib/pin/side.c (pin) -> trace (its own floor): "
			       "daemon/lib/trace/middle.c (middle)")) TH_LOG("%s", self->out);
}

TEST_F(rooms, folder_that_is_no_room_fails)
{
	ASSERT_EQ(0, put_source(self, "misc", "stray",
				"int stray(void);\nint stray(void)\n{\n\treturn 0;\n}\n"));
	EXPECT_EQ(0, house_check(self));
	EXPECT_NE(NULL, strstr(self->out, "\nnot ok - " ONE_WAY)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out,
			       "daemon/lib/misc/: a folder that is no room")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
