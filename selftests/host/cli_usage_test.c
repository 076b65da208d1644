// SPDX-License-Identifier: GPL-2.0
/*
 * The command line as a trace-cmd or perf user meets it: a usage error is
 * "powerpin CMD: what is wrong" and one line pointing at CMD's --help
 * (status 2), never the whole help; `powerpin help CMD` is `powerpin CMD
 * --help`; `powerpin report` with no input reads ./trace.dat, and -i names
 * the input as in `trace-cmd report -i` and `perf report -i`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_gen.h"

FIXTURE(cli) {
	char dir[64];
	char *powerpin, *powerpind;
	char out[65536], err[8192];
};

FIXTURE_SETUP(cli)
{
	self->powerpin = realpath("build/bin/powerpin", NULL);
	self->powerpind = realpath("build/bin/powerpind", NULL);
	if (!self->powerpin || !self->powerpind)
		SKIP(return, "build/bin not built (make userspace)");
	strcpy(self->dir, "/tmp/powerpin-cli-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(cli)
{
	free(self->powerpin);
	free(self->powerpind);
	if (!self->dir[0])
		return;
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* `@prog @args` in the test's directory; stdout and stderr kept apart. */
static int run(FIXTURE_DATA(cli) *self, const char *prog, const char *args)
{
	char o[128], e[128];
	int st;

	snprintf(o, sizeof(o), "%s/.stdout", self->dir);
	snprintf(e, sizeof(e), "%s/.stderr", self->dir);
	st = sh("cd %s && %s %s >%s 2>%s </dev/null", self->dir, prog, args, o, e);
	if (read_text(o, self->out, sizeof(self->out)))
		self->out[0] = '\0';
	if (read_text(e, self->err, sizeof(self->err)))
		self->err[0] = '\0';
	return st;
}

struct usage_case {
	const char *args;
	const char *cmd;	/* whose --help the hint names */
	const char *first;	/* the start of the first line */
};

static const struct usage_case usage_cases[] = {
	{ "status --bogus", "powerpin status", "powerpin status: unrecognized option '--bogus'" },
	{ "status extra", "powerpin status", "powerpin status: unexpected argument 'extra'" },
	{ "config", "powerpin config", "powerpin config: nothing to change" },
	{ "config --period-ms x", "powerpin config", "powerpin config: invalid --period-ms 'x'" },
	{ "record --bogus", "powerpin record", "powerpin record: unrecognized option '--bogus'" },
	{ "record -d -1", "powerpin record", "powerpin record: invalid --duration '-1'" },
	{ "report --bogus", "powerpin report", "powerpin report: unrecognized option '--bogus'" },
	{ "report a b", "powerpin report", "powerpin report: exactly one <input>, please" },
	{ "report a -i b", "powerpin report", "powerpin report: exactly one <input>, please" },
	{ "report a --sign up", "powerpin report", "powerpin report: --sign wants auto" },
	{ "report a --json - --html -", "powerpin report", "powerpin report: only one output" },
	{ "report a --flame f", "powerpin report", "powerpin report: --flame and --perf-map go with --perf" },
	{ "file", "powerpin file", "powerpin file: expected a <path>" },
	{ "file d1 d2 -o x", "powerpin file", "powerpin file: -o, --zip, --pinconfig, --use-probe and --quota take one file" },
	{ "file -z x", "powerpin file", "powerpin file: invalid option -- 'z'" },
	{ "file x -o y", "powerpin file", "powerpin file: -o, --dump, --quota and --pinconfig on a file that is not a zip need" },
	{ "pinlist", "powerpin pinlist", "powerpin pinlist: expected exactly one <file>" },
	{ "pin", "powerpin pin", "powerpin pin: missing subcommand (capture or apply)" },
	{ "pin hold", "powerpin pin", "powerpin pin: unknown subcommand 'hold'" },
	{ "pin capture --file a", "powerpin pin capture", "powerpin pin capture: needs --file PATH" },
	{ "pin capture --pinlist a", "powerpin pin capture", "powerpin pin capture: unrecognized option '--pinlist'" },
	{ "pin apply --file a x", "powerpin pin apply", "powerpin pin apply: unrecognized option '--file'" },
	{ "pin apply", "powerpin pin apply", "powerpin pin apply: expected exactly one <file>" },
	{ "flame", "powerpin flame", "powerpin flame: missing <log>" },
	{ "flame --weight kg x", "powerpin flame", "powerpin flame: --weight wants count or bytes" },
	{ "frobnicate", "powerpin", "powerpin: unknown command 'frobnicate'" },
	{ "help frobnicate", "powerpin", "powerpin help: unknown command 'frobnicate'" },
};

TEST_F(cli, usage_error_is_two_lines)
{
	char want[256], *nl;
	size_t i;

	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		const struct usage_case *u = &usage_cases[i];

		EXPECT_EQ(2, run(self, self->powerpin, u->args)) TH_LOG("%s", u->args);
		EXPECT_EQ(0, strncmp(self->err, u->first, strlen(u->first)))
			TH_LOG("%s: got \"%s\"", u->args, self->err);
		nl = strchr(self->err, '\n');
		snprintf(want, sizeof(want), "Try '%s --help' for more information.\n", u->cmd);
		EXPECT_STREQ(want, nl ? nl + 1 : "") TH_LOG("%s: got \"%s\"", u->args, self->err);
		EXPECT_STREQ("", self->out) TH_LOG("%s", u->args);
	}
	EXPECT_EQ(2, run(self, self->powerpind, "--bogus"));
	EXPECT_STREQ("powerpind: unrecognized option '--bogus'\nTry 'powerpind --help' for more information.\n",
		     self->err);
}

TEST_F(cli, help_command)
{
	static const char *const cmds[] = {
		"status", "config", "record", "report", "file", "pinlist", "pin", "flame",
		"pin capture", "pin apply",
	};
	char args[64], *want;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "%s --help", cmds[i]);
		ASSERT_EQ(0, run(self, self->powerpin, args)) TH_LOG("%s", args);
		want = strdup(self->out);
		ASSERT_NE(NULL, want);
		EXPECT_NE(NULL, strstr(want, "usage: powerpin ")) TH_LOG("%s", args);
		snprintf(args, sizeof(args), "help %s", cmds[i]);
		EXPECT_EQ(0, run(self, self->powerpin, args)) TH_LOG("%s", args);
		EXPECT_STREQ(want, self->out) TH_LOG("%s", args);
		EXPECT_STREQ("", self->err);
		free(want);
	}
	/* a subcommand's help is its own */
	ASSERT_EQ(0, run(self, self->powerpin, "help pin apply"));
	EXPECT_NE(NULL, strstr(self->out, "--pinlist FILE"));
	EXPECT_EQ(NULL, strstr(self->out, "--evict"));
	ASSERT_EQ(0, run(self, self->powerpin, "help pin capture"));
	EXPECT_NE(NULL, strstr(self->out, "--evict"));
	EXPECT_EQ(NULL, strstr(self->out, "--pinlist FILE"));
	/* with no command, the list of commands */
	ASSERT_EQ(0, run(self, self->powerpin, "help"));
	EXPECT_NE(NULL, strstr(self->out, "commands:"));
}

/* report reads ./trace.dat when no input is named, and -i FILE */
TEST_F(cli, report_default_input)
{
	struct gen g = { .nr_cpus = 1 };
	char path[128];
	int k;

	EXPECT_EQ(1, run(self, self->powerpin, "report"));
	EXPECT_STREQ("powerpin report: no <input> given and no trace.dat here: No such file or directory\n",
		     self->err);
	for (k = 0; k <= 100; k++)
		gen_battery(&g, 5000000000ULL + k * 10000000ULL, k, 4000000, -250000, 0, 0);
	snprintf(path, sizeof(path), "%s/trace.dat", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	ASSERT_EQ(0, run(self, self->powerpin, "report")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->out, "101 samples"));
	EXPECT_EQ(0, run(self, self->powerpin, "report --json one.json"));
	snprintf(path, sizeof(path), "%s/one.json", self->dir);
	EXPECT_EQ(0, access(path, F_OK));

	for (k = 0; k <= 50; k++)
		gen_battery(&g, 5000000000ULL + k * 10000000ULL, k, 4000000, -250000, 0, 0);
	snprintf(path, sizeof(path), "%s/other.txt", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	ASSERT_EQ(0, run(self, self->powerpin, "report -i other.txt")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->out, "51 samples"));
	ASSERT_EQ(0, run(self, self->powerpin, "report --input=other.txt --json -"));
	EXPECT_NE(NULL, strstr(self->out, "\"samples\": 51,"));
}

/*
 * --json [FILE] is one rule in every command: a FILE after it ("-" is
 * stdout), and with nothing after it, or another option, standard output.
 */
TEST_F(cli, json_option_is_one_rule)
{
	struct gen g = { .nr_cpus = 1 };
	char path[128];
	int k;

	for (k = 0; k <= 20; k++)
		gen_battery(&g, 5000000000ULL + k * 10000000ULL, k, 4000000, -250000, 0, 0);
	snprintf(path, sizeof(path), "%s/c.txt", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	/* report: bare, before another option, and before the input's "--" */
	ASSERT_EQ(0, run(self, self->powerpin, "report c.txt --json")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, strncmp(self->out, "{", 1));
	EXPECT_NE(NULL, strstr(self->out, "\"samples\": 21,"));
	ASSERT_EQ(0, run(self, self->powerpin, "report --json --sign auto c.txt"));
	EXPECT_NE(NULL, strstr(self->out, "\"samples\": 21,"));
	ASSERT_EQ(0, run(self, self->powerpin, "report --json c.json c.txt"));
	EXPECT_NE(NULL, strstr(self->out, "21 samples"));
	snprintf(path, sizeof(path), "%s/c.json", self->dir);
	EXPECT_EQ(0, access(path, F_OK));
	/* every command's help says it the same way */
	ASSERT_EQ(0, run(self, self->powerpin, "report --help"));
	EXPECT_NE(NULL, strstr(self->out, "--json [FILE]"));
	ASSERT_EQ(0, run(self, self->powerpin, "status --help"));
	EXPECT_NE(NULL, strstr(self->out, "--json [FILE]"));
	ASSERT_EQ(0, run(self, self->powerpin, "file --help"));
	EXPECT_NE(NULL, strstr(self->out, "--json [FILE]"));
	ASSERT_EQ(0, run(self, self->powerpin, "pinlist --help"));
	EXPECT_NE(NULL, strstr(self->out, "--json [FILE]"));
	ASSERT_EQ(0, run(self, self->powerpin, "profile --help"));
	EXPECT_NE(NULL, strstr(self->out, "--json [FILE]"));
	/* and -h is help in every one */
	ASSERT_EQ(0, run(self, self->powerpin, "file -h"));
	EXPECT_EQ(0, strncmp(self->out, "usage: powerpin file", 20));
}

TEST_HARNESS_MAIN
