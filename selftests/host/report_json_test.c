// SPDX-License-Identifier: GPL-2.0
/*
 * JSON strings in the report outputs: escapes, and names that are not
 * well-formed UTF-8 (the kernel cuts a task name at 15 bytes, inside a
 * character if it falls there) replaced by U+FFFD, so that strict parsers
 * (python's json, Perfetto's importer) accept every file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "fuzz_seed.h"
#include "report_gen.h"
#include "base/base.h"

#define POWERPIN	"build/bin/powerpin"

static char *json_of(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	fuzz_seed("json_string", s, len == SIZE_MAX ? strlen(s) : len);
	json_string(f, s, len);
	fclose(f);
	return buf;
}

struct json_case {
	const char *what;
	const char *in;
	size_t len;		/* 0: strlen */
	const char *out;
};

static const struct json_case json_cases[] = {
	{ "plain", "surfaceflinger", 0, "\"surfaceflinger\"" },
	{ "quote and backslash", "a\"b\\c", 0, "\"a\\\"b\\\\c\"" },
	{ "control characters", "tab\there\n\x1f", 0, "\"tab\\u0009here\\u000a\\u001f\"" },
	{ "DEL is allowed as is", "x\x7fy", 0, "\"x\x7fy\"" },
	{ "well-formed UTF-8", "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 0,
	  "\"\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"" },
	{ "cut inside a 3-byte character", "ab\xe6\x97\xa5\xe6\x9c", 0,
	  "\"ab\xe6\x97\xa5\\ufffd\"" },
	{ "cut by the length, not a NUL", "\xe6\x97\xa5\xe6\x9c\xac", 4, "\"\xe6\x97\xa5\\ufffd\"" },
	{ "NUL inside a character", "\xe6\x97\0\xa5", 4, "\"\\ufffd\"" },
	{ "cut 4-byte character, then ASCII", "\xf0\x9f\x98x", 0, "\"\\ufffdx\"" },
	{ "stray continuation and bad lead bytes", "\x80\xff\xc1", 0,
	  "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "overlong slash", "\xc0\xaf/", 0, "\"\\ufffd\\ufffd/\"" },
	{ "surrogate", "\xed\xa0\x80", 0, "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "past U+10FFFF", "\xf4\x90\x80\x80", 0, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ "Latin-1, not UTF-8", "caf\xe9!", 0, "\"caf\\ufffd!\"" },
};

TEST(json_string_table)
{
	size_t i;

	for (i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		const struct json_case *c = &json_cases[i];
		char *got = json_of(c->in, c->len ? c->len : strlen(c->in));

		ASSERT_NE(NULL, got);
		EXPECT_STREQ(c->out, got) TH_LOG("%s", c->what);
		free(got);
	}
}

/* Well-formed UTF-8 (the same rules as the writer, written out again) */
static int utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, k, len;

	while (i < n) {
		unsigned char c = s[i];
		unsigned int cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		cp = c & (0x7f >> len);
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/*
 * "ab" and four Japanese characters then the first byte of a fifth: the
 * 15 bytes the kernel keeps of a longer name.  Through the CLI, the JSON
 * and Chrome JSON outputs are valid UTF-8 and strict JSON.
 */
TEST(cut_task_name_in_outputs)
{
	static const char comm[] = "ab\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3";
	char dir[] = "/tmp/powerpin-json-XXXXXX", in[96], json[96], pf[96], cmd[600];
	struct gen g = { .nr_cpus = 1 };
	const char *outs[2] = { json, pf };
	size_t len;
	char *text;
	int k, i;

	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	ASSERT_EQ(15U, strlen(comm));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/trace.txt", dir);
	snprintf(json, sizeof(json), "%s/report.json", dir);
	snprintf(pf, sizeof(pf), "%s/trace.json", dir);
	gen_switch(&g, 99000000000ULL, 0, "swapper/0", 0, 0, comm, 42);
	for (k = 0; k <= 100; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 0, 0);
	gen_mark(&g, 100200000000ULL, 0, comm, 42, 42, "B|42|\xe6\x97\xa5\xe6\x9c");
	gen_mark(&g, 100400000000ULL, 0, comm, 42, 42, "E|42");
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --json %s --chrome-json %s >/dev/null", POWERPIN,
		 in, json, pf);
	ASSERT_EQ(0, system(cmd));

	for (i = 0; i < 2; i++) {
		text = read_whole(outs[i], &len);
		ASSERT_NE(NULL, text);
		EXPECT_TRUE(utf8_valid((const unsigned char *)text, len)) TH_LOG("%s", outs[i]);
		EXPECT_NE(NULL, strstr(text, "ab\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\\ufffd"))
			TH_LOG("%s: the name's whole characters are kept", outs[i]);
		EXPECT_NE(NULL, strstr(text, "\"\xe6\x97\xa5\\ufffd\"")) TH_LOG("%s: slice", outs[i]);
		free(text);
	}
	if (!system("command -v python3 >/dev/null")) {
		snprintf(cmd, sizeof(cmd),
			 "python3 -c 'import json, sys; [json.load(open(f, encoding=\"utf-8\")) for f in sys.argv[1:]]' %s %s",
			 json, pf);
		EXPECT_EQ(0, system(cmd));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
