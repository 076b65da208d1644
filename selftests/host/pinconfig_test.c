// SPDX-License-Identifier: GPL-2.0
/*
 * pinconfig grammar: every accepted form, every error (with its file:line),
 * substring matching with first match winning, and the CLI's refusal to
 * fall back to unfiltered output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* the harness compares through int-typed temporaries: silence its noise */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <kselftest_harness.h>

#include <zip.h>

#include "fuzz_seed.h"
#include "pin/pin.h"

static int parse(const char *text, struct pinconfig *pc, char *err, size_t errlen)
{
	fuzz_seed("pinconfig", text, strlen(text));
	return pinconfig_parse(text, strlen(text), "pc.txt", pc, err, errlen);
}

TEST(readme_example)
{
	const char *text =
		"file lib/arm64-v8a/libcrashpad_handler_trampoline.so\n"
		"file libmonochrome_64.so\n"
		"offset 1000\n"
		"len 50000\n"
		"file libarcore_sdk_c.so\n";
	struct pinconfig pc;
	char err[256];

	ASSERT_EQ(0, parse(text, &pc, err, sizeof(err)));
	ASSERT_EQ(3, pc.nr);
	EXPECT_STREQ("lib/arm64-v8a/libcrashpad_handler_trampoline.so", pc.entries[0].pattern);
	EXPECT_EQ(0, pc.entries[0].nr_ranges);
	EXPECT_EQ(1, pc.entries[0].line);
	EXPECT_STREQ("libmonochrome_64.so", pc.entries[1].pattern);
	ASSERT_EQ(1, pc.entries[1].nr_ranges);
	EXPECT_EQ(1000, pc.entries[1].ranges[0].offset);
	EXPECT_EQ(50000, pc.entries[1].ranges[0].length);
	EXPECT_EQ(2, pc.entries[1].line);
	EXPECT_EQ(0, pc.entries[2].nr_ranges);
	EXPECT_EQ(5, pc.entries[2].line);
	pinconfig_free(&pc);
}

TEST(length_spelling_whitespace_and_numbers)
{
	const char *text = "  file\ta.so offset 0x1000 length 4K\n\n"
			   "offset 8192\tlen 1\r\nfile b";
	struct pinconfig pc;
	char err[256];

	ASSERT_EQ(0, parse(text, &pc, err, sizeof(err)));
	ASSERT_EQ(2, pc.nr);
	ASSERT_EQ(2, pc.entries[0].nr_ranges);
	EXPECT_EQ(4096, pc.entries[0].ranges[0].offset);
	EXPECT_EQ(4096, pc.entries[0].ranges[0].length);
	EXPECT_EQ(8192, pc.entries[0].ranges[1].offset);
	EXPECT_EQ(1, pc.entries[0].ranges[1].length);
	EXPECT_STREQ("b", pc.entries[1].pattern);
	EXPECT_EQ(4, pc.entries[1].line);
	pinconfig_free(&pc);
}

TEST(first_match_wins_by_substring)
{
	struct pinconfig pc;
	char err[256];

	ASSERT_EQ(0, parse("file libfoo\nfile lib/arm64\noffset 0 len 1\nfile .so", &pc,
			   err, sizeof(err)));
	EXPECT_EQ(&pc.entries[0], pinconfig_match(&pc, "lib/arm64/libfoo.so"));
	EXPECT_EQ(&pc.entries[1], pinconfig_match(&pc, "lib/arm64/libbar.so"));
	EXPECT_EQ(&pc.entries[2], pinconfig_match(&pc, "lib/x86/libbar.so"));
	EXPECT_EQ(NULL, pinconfig_match(&pc, "classes.dex"));
	pinconfig_free(&pc);
}

/* Every error, with the exact message prefix (file and line). */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "", "pc.txt:1: no 'file' entries" },
	{ "\n\n  \n", "pc.txt:4: no 'file' entries" },
	{ "file", "pc.txt:1: expected a pattern after 'file', got end of file" },
	{ "offset 1 len 2", "pc.txt:1: 'offset' before any 'file'" },
	{ "file a\nlen 5", "pc.txt:2: 'len' without a preceding 'offset'" },
	{ "file a\nlength 5", "pc.txt:2: 'length' without a preceding 'offset'" },
	{ "file a\noffset", "pc.txt:2: expected a number after 'offset', got end of file" },
	{ "file a\noffset x len 5", "pc.txt:2: expected a number after 'offset', got 'x'" },
	{ "file a\noffset -1 len 5", "pc.txt:2: expected a number after 'offset', got '-1'" },
	{ "file a\noffset 99999999999999999999 len 5",
	  "pc.txt:2: expected a number after 'offset', got '99999999999999999999' (out of range)" },
	{ "file a\noffset 10\n", "pc.txt:2: expected 'len' or 'length' after 'offset 10', got end of file" },
	{ "file a\noffset 10\nfile b", "pc.txt:3: expected 'len' or 'length' after 'offset 10', got 'file'" },
	{ "file a\noffset 10 size 4", "pc.txt:2: expected 'len' or 'length' after 'offset 10', got 'size'" },
	{ "file a\noffset 10 len", "pc.txt:2: expected a number after 'len', got end of file" },
	{ "file a\noffset 10 len\n\nzz", "pc.txt:4: expected a number after 'len', got 'zz'" },
	{ "file a\noffset 10 len 0", "pc.txt:2: zero length" },
	{ "file a\noffset 0xffffffffffffffff len 2", "pc.txt:2: offset + length overflows 64 bits" },
	{ "file a\nfiles b", "pc.txt:2: unexpected token 'files'" },
	{ "file a\n# comment", "pc.txt:2: unexpected token '#'" },
	{ "file a offset 1 len 2 3", "pc.txt:1: unexpected token '3'" },
};

TEST(every_error_names_file_and_line)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pinconfig pc = { (void *)1, 1 };
		char err[256] = "";

		errno = 0;
		EXPECT_EQ(-1, parse(bad[i].text, &pc, err, sizeof(err)))
			TH_LOG("case %zu parsed: %s", i, bad[i].text);
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			TH_LOG("case %zu: got '%s', want '%s'", i, err, bad[i].msg);
		/* nothing half-parsed is left behind */
		EXPECT_EQ(0, pc.nr);
		EXPECT_EQ(NULL, pc.entries);
	}
}

TEST(nul_byte_is_an_error)
{
	struct pinconfig pc;
	char err[256];

	EXPECT_EQ(-1, pinconfig_parse("file a\n\0", 8, "pc.txt", &pc, err, sizeof(err)));
	EXPECT_STREQ("pc.txt:2: NUL byte in pinconfig", err);
}

TEST(load_missing_file)
{
	struct pinconfig pc;
	char err[256];

	EXPECT_EQ(-1, pinconfig_load("/nonexistent/pc.txt", &pc, err, sizeof(err)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_STREQ("/nonexistent/pc.txt: No such file or directory", err);
}

/* Tokens up to 4095 bytes are read whole; a longer one is an error. */
TEST(long_tokens)
{
	const size_t max = 4095;
	char *text = malloc(max + 64), err[256];
	struct pinconfig pc;

	strcpy(text, "file ");
	memset(text + 5, 'a', max);
	strcpy(text + 5 + max, "\n");
	ASSERT_EQ(0, parse(text, &pc, err, sizeof(err)));
	ASSERT_EQ(1, pc.nr);
	EXPECT_EQ(max, strlen(pc.entries[0].pattern));
	pinconfig_free(&pc);

	/* one byte more, on line 2: refused, never cut to 4095 */
	strcpy(text, "file a\nfile ");
	memset(text + 12, 'b', max + 1);
	strcpy(text + 12 + max + 1, "\n");
	EXPECT_EQ(-1, parse(text, &pc, err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STREQ("pc.txt:2: token of 4096 bytes starting 'bbbbbbbbbbbbbbbbbbbb...' is longer than 4095 bytes",
		     err);
	EXPECT_EQ(0, pc.nr);
	free(text);
}

/* Only a regular file of bounded size is read: never /dev/zero or a FIFO. */
TEST(load_only_bounded_regular_files)
{
	char dir[] = "/var/tmp/pinconfig_test.XXXXXX", path[128], err[256];
	struct pinconfig pc;
	int fd;

	ASSERT_NE(NULL, mkdtemp(dir));
	EXPECT_EQ(-1, pinconfig_load("/dev/zero", &pc, err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STREQ("/dev/zero: not a regular file", err);
	EXPECT_EQ(-1, pinconfig_load(dir, &pc, err, sizeof(err)));
	EXPECT_EQ(EISDIR, errno);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_EQ(0, mkfifo(path, 0600));
	EXPECT_EQ(-1, pinconfig_load(path, &pc, err, sizeof(err)));	/* no writer: no wait */
	EXPECT_EQ(EINVAL, errno);
	snprintf(path, sizeof(path), "%s/big", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, PINCONFIG_FILE_MAX + 1));
	close(fd);
	EXPECT_EQ(-1, pinconfig_load(path, &pc, err, sizeof(err)));
	EXPECT_EQ(EFBIG, errno);
	EXPECT_NE(NULL, strstr(err, "larger than 16777216 bytes: not a pinconfig"));
	EXPECT_EQ(0, pc.nr);
	/* and a real one still loads */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(10, write(fd, "file a.so\n", 10));
	close(fd);
	ASSERT_EQ(0, pinconfig_load(path, &pc, err, sizeof(err)));
	EXPECT_EQ(1, pc.nr);
	pinconfig_free(&pc);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	system(path);
}

/*
 * Filtering synthetic coverages: two entries matching the same pattern each
 * get their own range (pintool shared one list, so the second entry got the
 * first one's size); ranges are clipped to the entry; first match wins.
 */
TEST(filter_gives_each_match_its_own_ranges)
{
	struct zip_entry ents[] = {
		{ .name = "lib/a.so", .data_offset = 100, .compressed_size = 5000 },
		{ .name = "lib/b.so", .data_offset = 10000, .compressed_size = 300 },
		{ .name = "res/c.png", .data_offset = 20000, .compressed_size = 4000 },
		{ .name = "classes.dex", .data_offset = 30000, .compressed_size = 8000 },
	};
	struct zip_index zi = { .entries = ents, .nr = 4, .file_size = 40000 };
	struct pin_ranges probe = { 0 };
	struct zip_coverage *cov, *f;
	struct pinconfig pc;
	char err[256];
	size_t nr = 99;

	/* resident: a.so wholly, b.so's first 100 bytes, dex 31000..33000 */
	ASSERT_EQ(0, pin_ranges_add(&probe, 100, 5000, 0));
	ASSERT_EQ(0, pin_ranges_add(&probe, 10000, 100, 0));
	ASSERT_EQ(0, pin_ranges_add(&probe, 31000, 2000, 0));
	cov = zip_coverages(&zi, &probe);
	ASSERT_NE(NULL, cov);
	EXPECT_EQ(1, cov[1].ranges.nr);
	EXPECT_EQ(0, cov[2].ranges.nr);

	ASSERT_EQ(0, parse("file .so\n"		/* a.so and b.so: whole */
			   "file lib/b.so offset 0 len 10\n"	/* never reached */
			   "file dex offset 500 len 1000 offset 2500 len 100000\n",
			   &pc, err, sizeof(err)));
	f = pinconfig_filter(&pc, cov, 4, &nr);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(3, nr);
	EXPECT_STREQ("lib/a.so", f[0].entry->name);
	ASSERT_EQ(1, f[0].ranges.nr);
	EXPECT_EQ(100, f[0].ranges.v[0].offset);
	EXPECT_EQ(5000, f[0].ranges.v[0].length);
	/* b.so: its own whole-entry range, intersected with what is resident */
	EXPECT_STREQ("lib/b.so", f[1].entry->name);
	ASSERT_EQ(1, f[1].ranges.nr);
	EXPECT_EQ(10000, f[1].ranges.v[0].offset);
	EXPECT_EQ(100, f[1].ranges.v[0].length);
	/* dex: [30500,31500) and [32500,38000) against resident [31000,33000) */
	EXPECT_STREQ("classes.dex", f[2].entry->name);
	ASSERT_EQ(2, f[2].ranges.nr);
	EXPECT_EQ(31000, f[2].ranges.v[0].offset);
	EXPECT_EQ(500, f[2].ranges.v[0].length);
	EXPECT_EQ(32500, f[2].ranges.v[1].offset);
	EXPECT_EQ(500, f[2].ranges.v[1].length);
	zip_coverages_free(f, nr);
	zip_coverages_free(cov, 4);

	/* no probe (pinconfig-only pinlists): ranges as configured */
	cov = zip_coverages(&zi, NULL);
	ASSERT_NE(NULL, cov);
	f = pinconfig_filter(&pc, cov, 4, &nr);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(3, nr);
	EXPECT_EQ(300, f[1].ranges.v[0].length);
	ASSERT_EQ(2, f[2].ranges.nr);
	EXPECT_EQ(30500, f[2].ranges.v[0].offset);
	EXPECT_EQ(1000, f[2].ranges.v[0].length);
	EXPECT_EQ(32500, f[2].ranges.v[1].offset);
	EXPECT_EQ(38000 - 32500, f[2].ranges.v[1].length);	/* clipped */
	zip_coverages_free(f, nr);
	zip_coverages_free(cov, 4);
	pinconfig_free(&pc);
	pin_ranges_free(&probe);
}

/* The CLI exits non-zero on a bad pinconfig and writes nothing. */
TEST(cli_never_falls_back_to_unfiltered)
{
	const char *bin = getenv("POWERPIN_BIN") ? getenv("POWERPIN_BIN") : "build/bin/powerpin";
	char dir[] = "/var/tmp/pinconfig_test.XXXXXX", cmd[1024];
	zipFile zf;
	FILE *fp;
	int st;

	ASSERT_NE(NULL, mkdtemp(dir));
	/* a zip with one stored entry that the pinconfig does not name */
	snprintf(cmd, sizeof(cmd), "%s/e.zip", dir);
	zf = zipOpen64(cmd, APPEND_STATUS_CREATE);
	ASSERT_NE(NULL, zf);
	ASSERT_EQ(ZIP_OK, zipOpenNewFileInZip64(zf, "b.txt", NULL, NULL, 0, NULL, 0, NULL,
						0, 0, 0));
	ASSERT_EQ(ZIP_OK, zipWriteInFileInZip(zf, "hello", 5));
	ASSERT_EQ(ZIP_OK, zipCloseFileInZip(zf));
	ASSERT_EQ(ZIP_OK, zipClose(zf, NULL));
	snprintf(cmd, sizeof(cmd), "%s/pc.txt", dir);
	fp = fopen(cmd, "w");
	ASSERT_NE(NULL, fp);
	fputs("file a.so\noffset 4096 lenght 100\n", fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "%s file %s/e.zip --zip --pinconfig %s/pc.txt --dump -o %s/out >%s/log 2>&1",
		 bin, dir, dir, dir, dir);
	st = system(cmd);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));
	snprintf(cmd, sizeof(cmd),
		 "grep -q \"pc.txt:2: expected 'len' or 'length' after 'offset 4096', got 'lenght'\" %s/log && test ! -e %s/out && ! grep -q coverages %s/log",
		 dir, dir, dir);
	EXPECT_EQ(0, system(cmd));
	/* and the same zip with a good pinconfig is fine */
	snprintf(cmd, sizeof(cmd), "echo 'file a.so offset 4096 length 100' > %s/pc.txt && %s file %s/e.zip --zip --pinconfig %s/pc.txt -o %s/out >%s/log 2>&1 && test -e %s/out && ! test -s %s/out",
		 dir, bin, dir, dir, dir, dir, dir, dir);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

TEST_HARNESS_MAIN
