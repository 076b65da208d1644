// SPDX-License-Identifier: GPL-2.0
/*
 * Man pages and bash completion against the programs themselves: each page
 * renders with `man -l` without a warning; powerpin(1) has a section for
 * every command of `powerpin --help` and names every option of every
 * `powerpin CMD --help`, powerpind(8) every option of powerpind, powerpin(4)
 * every netlink command, event flag and the device; the completion offers
 * every command and option and completes files, directories and choices
 * where the options want them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define POWERPIN	"build/bin/powerpin"
#define POWERPIND	"build/bin/powerpind"
#define COMPLETION	"daemon/completion/powerpin"

/* The page as a reader sees it: plain ASCII, one paragraph per line. */
static char *render(const char *page, int *status)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "LC_ALL=C MANWIDTH=1000 MAN_KEEP_FORMATTING= man --nh --nj -l %s 2>&1 | col -b", page);
	return output_of(cmd, status);
}

/* Whitespace-separated words of @list, each run through @check. */
#define EACH_WORD(list, w, save) \
	for (char *w = strtok_r(list, " \n", &save); w; w = strtok_r(NULL, " \n", &save))

static const char opts_of[] =
	"sed -n -E 's/^ {1,6}(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\\2/p' | sort -u";

TEST(pages_render_without_warnings)
{
	static const char *const pages[] = {
		"docs/man/powerpin.1", "docs/man/powerpind.8", "docs/man/powerpin.4",
	};
	char cmd[512], *out;
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(cmd, sizeof(cmd), "LC_ALL=C man --warnings=all -l %s 2>&1 >/dev/null", pages[i]);
		out = output_of(cmd, &st);
		EXPECT_EQ(0, st);
		EXPECT_STREQ("", out);
		free(out);
		out = render(pages[i], &st);
		EXPECT_EQ(0, st);
		EXPECT_NE(NULL, strstr(out, "NAME"));
		EXPECT_NE(NULL, strstr(out, "SEE ALSO"));
		free(out);
	}
}

/*
 * The pages name documents where they are installed (@DOCDIR@, filled in
 * by scripts/install): each is one scripts/install installs, docs/NAME or
 * kmod/README*.md as kmod/NAME, and the module's events are among them.
 */
TEST(pages_name_installed_documents)
{
	char *out, *save;
	int st, n = 0;

	out = output_of("grep -ho '@DOCDIR@/[a-zA-Z/\\.-]*[a-z]' docs/man/*.[148] | "
		 "sed 's/\\\\//g; s|@DOCDIR@/||' | sort -u", &st);
	ASSERT_EQ(0, st);
	EXPECT_NE(NULL, strstr(out, "kmod/README.md"));
	EACH_WORD(out, doc, save) {
		char src[512];

		snprintf(src, sizeof(src), "%s%s", strncmp(doc, "kmod/", 5) ? "docs/" : "", doc);
		if (access(src, R_OK))
			TH_LOG("a page names %s, which is no %s", doc, src);
		EXPECT_EQ(0, access(src, R_OK));
		n++;
	}
	EXPECT_LE(5, n);
	free(out);
	/* no page names a path of the source tree */
	free(output_of("grep -l 'docs/[^ ]*md' docs/man/*.[148]", &st));
	EXPECT_NE(0, st);
}

TEST(powerpin_1_documents_every_command_and_option)
{
	char cmd[512], *page, *cmds, *opts, *s1, *s2, want[128];
	int st;

	if (access(POWERPIN, X_OK))
		SKIP(return, "powerpin not built");
	page = render("docs/man/powerpin.1", &st);
	ASSERT_EQ(0, st);
	EXPECT_NE(NULL, strstr(page, "--version"));
	cmds = output_of(POWERPIN " --help | sed -n '/^commands:/,/^$/s/^  \\([a-z][a-z0-9-]*\\) .*/\\1/p'", &st);
	ASSERT_NE('\0', cmds[0]);
	EACH_WORD(cmds, c, s1) {
		/* a section per command: "   status" as a subheading */
		snprintf(want, sizeof(want), "\n   %s\n", c);
		if (!strstr(page, want))
			TH_LOG("powerpin(1) has no section for '%s'", c);
		EXPECT_NE(NULL, strstr(page, want));
		snprintf(cmd, sizeof(cmd), POWERPIN " %s%s --help | %s", c,
			 strcmp(c, "pin") ? "" : " capture", opts_of);
		opts = output_of(cmd, &st);
		EACH_WORD(opts, o, s2) {
			snprintf(want, sizeof(want), "%s", o);
			if (!strstr(page, want))
				TH_LOG("powerpin(1) does not name '%s %s'", c, o);
			EXPECT_NE(NULL, strstr(page, want));
		}
		free(opts);
	}
	free(cmds);
	free(page);
}

TEST(powerpind_8_documents_every_option)
{
	char cmd[512], *page, *opts, *s;
	int st;

	if (access(POWERPIND, X_OK))
		SKIP(return, "powerpind not built");
	page = render("docs/man/powerpind.8", &st);
	ASSERT_EQ(0, st);
	snprintf(cmd, sizeof(cmd), POWERPIND " --help | %s", opts_of);
	opts = output_of(cmd, &st);
	ASSERT_NE('\0', opts[0]);
	EACH_WORD(opts, o, s) {
		if (!strstr(page, o))
			TH_LOG("powerpind(8) does not name '%s'", o);
		EXPECT_NE(NULL, strstr(page, o));
	}
	/* and every configuration key of the example */
	free(opts);
	opts = output_of("sed -n -E 's/^#?([a-z_]+) = .*/\\1/p' daemon/powerpind.conf.example | sort -u", &st);
	ASSERT_NE('\0', opts[0]);
	EACH_WORD(opts, k, s) {
		if (!strstr(page, k))
			TH_LOG("powerpind(8) does not name the key '%s'", k);
		EXPECT_NE(NULL, strstr(page, k));
	}
	free(opts);
	free(page);
}

TEST(powerpin_4_documents_the_kernel_interfaces)
{
	char *page, *names, *s;
	int st;

	page = render("docs/man/powerpin.4", &st);
	ASSERT_EQ(0, st);
	EXPECT_NE(NULL, strstr(page, "/dev/powerpin"));
	EXPECT_NE(NULL, strstr(page, "POWERPIN_IOC_RESIDENCY"));
	EXPECT_NE(NULL, strstr(page, "powerpin:powerpin_battery"));
	EXPECT_NE(NULL, strstr(page, "powerpin:powerpin_counter"));
	/* every netlink command, mode and sample flag of the uapi header */
	names = output_of("grep -oE '\\b(POWERPIN_CMD_[A-Z_]+|POWERPIN_SAMPLE_[A-Z_]+|POWERPIN_RES_[A-Z]+)\\b' uapi/linux/powerpin.h"
		   " | grep -vE 'UNSPEC|_MAX$' | sort -u", &st);
	ASSERT_NE('\0', names[0]);
	EACH_WORD(names, n, s) {
		if (!strstr(page, n))
			TH_LOG("powerpin(4) does not name %s", n);
		EXPECT_NE(NULL, strstr(page, n));
	}
	free(names);
	/* every field of the battery event */
	names = output_of("sed -n '/TRACE_EVENT[A-Z_]*(powerpin_battery/,/TP_fast_assign/s/.*__field([^,]*, *\\([a-z_]*\\)).*/\\1/p' kmod/trace.h", &st);
	ASSERT_NE('\0', names[0]);
	EACH_WORD(names, n, s) {
		if (!strstr(page, n))
			TH_LOG("powerpin(4) does not name the field %s", n);
		EXPECT_NE(NULL, strstr(page, n));
	}
	free(names);
	free(page);
}

/* COMPREPLY for the words of @line (the last one being completed), one a line. */
static char *complete(const char *line)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd),
		 "cd /tmp/ppcomp.d && bash -c '. %s/" COMPLETION "; "
		 "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
		 "f=$(complete -p \"${COMP_WORDS[0]##*/}\" | sed \"s/.*-F \\([^ ]*\\).*/\\1/\"); "
		 "$f \"${COMP_WORDS[0]}\" \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"; "
		 "printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort'",
		 getenv("PWD"), line);
	return output_of(cmd, NULL);
}

static int has_line(const char *out, const char *line)
{
	size_t n = strlen(line);
	const char *p = out;

	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

FIXTURE(comp) {
	char top[4096];
};

FIXTURE_SETUP(comp)
{
	if (access(POWERPIN, X_OK) || access(POWERPIND, X_OK))
		SKIP(return, "binaries not built");
	ASSERT_NE(NULL, getcwd(self->top, sizeof(self->top)));
	ASSERT_EQ(0, system("rm -rf /tmp/ppcomp.d && mkdir -p /tmp/ppcomp.d/capdir && "
			    "touch /tmp/ppcomp.d/cap.dat /tmp/ppcomp.d/cfg.txt"));
	setenv("PWD", self->top, 1);
}

FIXTURE_TEARDOWN(comp)
{
	system("rm -rf /tmp/ppcomp.d");
}

TEST_F(comp, every_command_and_option)
{
	char line[8192], *cmds, *opts, *out, *top, *s1, *s2;
	int st;

	snprintf(line, sizeof(line), "%s/" POWERPIN " \"\"", self->top);
	top = complete(line);
	cmds = output_of(POWERPIN " --help | sed -n '/^commands:/,/^$/s/^  \\([a-z][a-z0-9-]*\\) .*/\\1/p'", &st);
	ASSERT_NE('\0', cmds[0]);
	EXPECT_TRUE(has_line(top, "--version"));
	EACH_WORD(cmds, c, s1) {
		char cmd[512];

		if (!has_line(top, c))
			TH_LOG("no completion of the command '%s'", c);
		EXPECT_TRUE(has_line(top, c));
		snprintf(line, sizeof(line), "%s/" POWERPIN " %s %s--", self->top, c,
			 strcmp(c, "pin") ? "" : "capture ");
		out = complete(line);
		snprintf(cmd, sizeof(cmd), POWERPIN " %s%s --help | %s", c,
			 strcmp(c, "pin") ? "" : " capture", opts_of);
		opts = output_of(cmd, &st);
		EACH_WORD(opts, o, s2) {
			if (!has_line(out, o))
				TH_LOG("no completion of '%s %s'", c, o);
			EXPECT_TRUE(has_line(out, o));
		}
		free(opts);
		free(out);
	}
	free(cmds);
	free(top);

	snprintf(line, sizeof(line), "%s/" POWERPIND " --", self->top);
	out = complete(line);
	opts = output_of(POWERPIND " --help | sed -n -E 's/^ {1,6}(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\\2/p'", &st);
	EACH_WORD(opts, o, s2) {
		if (!has_line(out, o))
			TH_LOG("no completion of 'powerpind %s'", o);
		EXPECT_TRUE(has_line(out, o));
	}
	free(opts);
	free(out);
}

/*
 * A subcommand's own options only: pin capture's are not offered after
 * pin apply, nor the other way round; `powerpin help` completes commands.
 */
TEST_F(comp, subcommand_options_apart)
{
	char line[8192], *out;

	snprintf(line, sizeof(line), "%s/" POWERPIN " pin apply x.apk --", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "--pinlist"));
	EXPECT_TRUE(has_line(out, "--quota"));
	EXPECT_FALSE(has_line(out, "--file"));
	EXPECT_FALSE(has_line(out, "--evict"));
	EXPECT_FALSE(has_line(out, "--interval"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " pin capture --", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "--file"));
	EXPECT_TRUE(has_line(out, "--evict"));
	EXPECT_TRUE(has_line(out, "--quota"));
	EXPECT_FALSE(has_line(out, "--pinlist"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " help \"\"", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "report"));
	EXPECT_TRUE(has_line(out, "pin"));
	EXPECT_FALSE(has_line(out, "--version"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " help pin \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("apply\ncapture\n", out);
	free(out);
}

TEST_F(comp, arguments_by_kind)
{
	char line[8192], *out;

	/* files where a file goes */
	snprintf(line, sizeof(line), "%s/" POWERPIN " report \"\"", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "cap.dat"));
	EXPECT_TRUE(has_line(out, "capdir"));	/* a powerpind capture directory */
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " report cap.dat --json c", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "cap.dat"));
	EXPECT_TRUE(has_line(out, "cfg.txt"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " file x.apk --zip --pinconfig cf", self->top);
	out = complete(line);
	EXPECT_STREQ("cfg.txt\n", out);
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIND " --config c", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "cfg.txt"));
	free(out);
	/* directories only where a directory goes */
	snprintf(line, sizeof(line), "%s/" POWERPIN " pin capture --file a -o c", self->top);
	out = complete(line);
	EXPECT_STREQ("capdir\n", out);
	free(out);
	/* choices */
	snprintf(line, sizeof(line), "%s/" POWERPIN " report cap.dat --sign \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("auto\ndischarge-negative\ndischarge-positive\n", out);
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " report cap.dat --sort \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("cpu\nenergy\nname\n", out);
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " report cap.dat --units \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("J\nmAh\nmWh\n", out);
	free(out);
	/* report's filters, and file's -h, are offered; not another command's */
	snprintf(line, sizeof(line), "%s/" POWERPIN " report cap.dat --", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "--from"));
	EXPECT_TRUE(has_line(out, "--to"));
	EXPECT_TRUE(has_line(out, "--comm"));
	EXPECT_TRUE(has_line(out, "--stat"));
	EXPECT_FALSE(has_line(out, "--human-readable"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " file apps --h", self->top);
	out = complete(line);
	EXPECT_STREQ("--help\n--human-readable\n", out);
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " profile --format \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("14\n5\n6\n9\nauto\n", out);
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " file f --probe-method \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("auto\nbitmap\nmincore\nruns\n", out);
	free(out);
	/* nothing made up for a number */
	snprintf(line, sizeof(line), "%s/" POWERPIN " config --period-ms \"\"", self->top);
	out = complete(line);
	EXPECT_STREQ("\n", out);
	free(out);
	/* after --, a command, then its files */
	snprintf(line, sizeof(line), "%s/" POWERPIN " record -o x -- bas", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "bash"));
	free(out);
	snprintf(line, sizeof(line), "%s/" POWERPIN " record -- ls cf", self->top);
	out = complete(line);
	EXPECT_STREQ("cfg.txt\n", out);
	free(out);
	/* pin's own commands */
	snprintf(line, sizeof(line), "%s/" POWERPIN " pin \"\"", self->top);
	out = complete(line);
	EXPECT_TRUE(has_line(out, "capture"));
	EXPECT_TRUE(has_line(out, "apply"));
	free(out);
}

TEST_HARNESS_MAIN
