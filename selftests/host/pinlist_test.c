// SPDX-License-Identifier: GPL-2.0
/*
 * pinlist ranges and format: normalisation, quota, encoding, strict
 * decoding, files on disk (including a sparse file over 4 GiB) and the
 * `powerpin pinlist` command's exit status.  Expected bytes are written out
 * by hand from the pinlist.meta layout (big-endian offset, length pairs).
 */
#include <dirent.h>
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

#include "pin/pin.h"
#include "pin_helpers.h"

#define PS 4096ULL

static const char *powerpin_bin(void)
{
	const char *b = getenv("POWERPIN_BIN");

	return b ? b : "build/bin/powerpin";
}

/* Big-endian pair, spelled out independently of pinlist_encode. */
static void be_pair(uint8_t *p, uint32_t off, uint32_t len)
{
	p[0] = off >> 24; p[1] = off >> 16; p[2] = off >> 8; p[3] = off;
	p[4] = len >> 24; p[5] = len >> 16; p[6] = len >> 8; p[7] = len;
}

static int write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	close(fd);
	fuzz_seed("pinlist", buf, len);
	return n == (ssize_t)len ? 0 : -1;
}

static int read_bytes(const char *path, uint8_t *buf, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, max);
	close(fd);
	if (n < 0)
		return -1;
	*len = n;
	return 0;
}

/* Run a shell command, stdout and stderr to @out; returns the exit status. */
static int run(const char *out, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, " >%s 2>&1", out);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int file_contains(const char *path, const char *needle)
{
	char buf[65536];
	size_t len;

	if (read_bytes(path, (uint8_t *)buf, sizeof(buf) - 1, &len))
		return 0;
	buf[len] = '\0';
	return strstr(buf, needle) != NULL;
}

/* @dir holds exactly one entry, @name (besides . and ..). */
static int dir_holds_only(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0, found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (!strcmp(de->d_name, name))
			found = 1;
		else
			fprintf(stderr, "# unexpected %s/%s\n", dir, de->d_name);
	}
	closedir(d);
	return n == 1 && found;
}

FIXTURE(pinlist) {
	char dir[64];
	char path[128];
	char out[128];
};

FIXTURE_SETUP(pinlist)
{
	strcpy(self->dir, "/var/tmp/pinlist_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/p.meta", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out.txt", self->dir);
}

FIXTURE_TEARDOWN(pinlist)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	system(cmd);
}

TEST(normalize_rounds_clamps_merges)
{
	struct pin_ranges in = { 0 }, out = { 0 };

	/* unsorted; [5000,+100) and [4096,+1) share page 1; 8192 touches it */
	ASSERT_EQ(0, pin_ranges_add(&in, 5000, 100, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 8192, 10, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 4096, 1, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 40000, 0, 0));		/* empty: dropped */
	ASSERT_EQ(0, pin_ranges_add(&in, 20000, 100000, 0));	/* past EOF: clamped */
	ASSERT_EQ(0, pin_ranges_add(&in, 100, 1, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, 50000, false, &out));
	/* pages 0, 1 and 2 touch: one range; then the clamped tail */
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ(0, out.v[0].offset);
	EXPECT_EQ(12288, out.v[0].length);
	EXPECT_EQ(16384, out.v[1].offset);
	EXPECT_EQ(50000 - 16384, out.v[1].length);
	pin_ranges_free(&in);
	pin_ranges_free(&out);
}

TEST(normalize_page_zero_touches_one)
{
	struct pin_ranges in = { 0 }, out = { 0 };

	/* [0,4096) and [4096,8192) touch: one range */
	ASSERT_EQ(0, pin_ranges_add(&in, 0, 4096, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 4096, 4096, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, UINT64_MAX, false, &out));
	ASSERT_EQ(1, out.nr);
	EXPECT_EQ(0, out.v[0].offset);
	EXPECT_EQ(8192, out.v[0].length);
	pin_ranges_free(&in);
	pin_ranges_free(&out);
}

TEST(normalize_by_rank_orders_by_first_touch)
{
	struct pin_ranges in = { 0 }, out = { 0 };

	ASSERT_EQ(0, pin_ranges_add(&in, 0, 4096, 2));
	ASSERT_EQ(0, pin_ranges_add(&in, 4096, 4096, 2));	/* merges: same rank */
	ASSERT_EQ(0, pin_ranges_add(&in, 8192, 4096, 1));	/* touches, kept apart */
	ASSERT_EQ(0, pin_ranges_add(&in, 65536, 4096, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, UINT64_MAX, true, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(65536, out.v[0].offset);
	EXPECT_EQ(8192, out.v[1].offset);
	EXPECT_EQ(0, out.v[2].offset);
	EXPECT_EQ(8192, out.v[2].length);
	pin_ranges_free(&in);
	pin_ranges_free(&out);
}

TEST(normalize_by_rank_joins_a_range_seen_over_two_samples)
{
	struct pin_ranges in = { 0 }, out = { 0 };

	/* one range read across a sampling tick: halves at ranks 3 and 4 */
	ASSERT_EQ(0, pin_ranges_add(&in, 65536, 8192, 3));
	ASSERT_EQ(0, pin_ranges_add(&in, 73728, 8192, 4));
	ASSERT_EQ(0, pin_ranges_add(&in, 0, 4096, 9));
	/* continues the range above in the file, but comes later in order */
	ASSERT_EQ(0, pin_ranges_add(&in, 4096, 4096, 5));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, UINT64_MAX, true, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(65536, out.v[0].offset);
	EXPECT_EQ(16384, out.v[0].length);
	EXPECT_EQ(4096, out.v[1].offset);
	EXPECT_EQ(0, out.v[2].offset);
	pin_ranges_free(&in);
	pin_ranges_free(&out);
}

TEST(clip_and_subtract)
{
	struct pin_ranges a = { 0 }, b = { 0 }, out = { 0 };

	ASSERT_EQ(0, pin_ranges_add(&a, 0, 100, 7));
	ASSERT_EQ(0, pin_ranges_add(&a, 200, 100, 8));
	ASSERT_EQ(0, pin_ranges_add(&a, 1000, 1000, 9));
	/* clip to [50, 1500): three pieces, ranks kept */
	ASSERT_EQ(0, pin_ranges_clip(&a, 50, 1500, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(50, out.v[0].offset);
	EXPECT_EQ(50, out.v[0].length);
	EXPECT_EQ(7, out.v[0].rank);
	EXPECT_EQ(200, out.v[1].offset);
	EXPECT_EQ(1000, out.v[2].offset);
	EXPECT_EQ(500, out.v[2].length);
	EXPECT_EQ(9, out.v[2].rank);
	pin_ranges_free(&out);
	/* a window between ranges: nothing */
	ASSERT_EQ(0, pin_ranges_clip(&a, 300, 1000, &out));
	EXPECT_EQ(0, out.nr);

	/* a - b: holes punched in the middle, at the ends, and whole ranges */
	ASSERT_EQ(0, pin_ranges_add(&b, 10, 20, 0));
	ASSERT_EQ(0, pin_ranges_add(&b, 90, 150, 0));	/* end of a0, start of a1 */
	ASSERT_EQ(0, pin_ranges_add(&b, 250, 50, 0));	/* end of a1 */
	ASSERT_EQ(0, pin_ranges_add(&b, 1000, 1000, 0));	/* all of a2 */
	ASSERT_EQ(0, pin_ranges_subtract(&a, &b, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(0, out.v[0].offset);
	EXPECT_EQ(10, out.v[0].length);
	EXPECT_EQ(30, out.v[1].offset);
	EXPECT_EQ(60, out.v[1].length);
	EXPECT_EQ(240, out.v[2].offset);
	EXPECT_EQ(10, out.v[2].length);
	EXPECT_EQ(8, out.v[2].rank);
	pin_ranges_free(&a);
	pin_ranges_free(&b);
	pin_ranges_free(&out);
}

TEST(quota_exact_without_empty_tail)
{
	struct pin_ranges r = { 0 };

	ASSERT_EQ(0, pin_ranges_add(&r, 0, 8192, 0));
	ASSERT_EQ(0, pin_ranges_add(&r, 16384, 8192, 0));
	ASSERT_EQ(0, pin_ranges_add(&r, 65536, 4096, 0));
	/* quota landing exactly on a range end: no zero-length pair after it */
	pinlist_apply_quota(&r, 16384);
	ASSERT_EQ(2, r.nr);
	EXPECT_EQ(16384, pin_ranges_bytes(&r));
	/* quota inside a range: that range is cut to the byte */
	pinlist_apply_quota(&r, 10000);
	ASSERT_EQ(2, r.nr);
	EXPECT_EQ(1808, r.v[1].length);
	EXPECT_EQ(10000, pin_ranges_bytes(&r));
	/* quota inside the first range */
	pinlist_apply_quota(&r, 1);
	ASSERT_EQ(1, r.nr);
	EXPECT_EQ(1, r.v[0].length);
	/* no quota keeps everything */
	pinlist_apply_quota(&r, PINLIST_NO_QUOTA);
	EXPECT_EQ(1, r.nr);
	pin_ranges_free(&r);
}

/* PinnerService's arithmetic, case by case (file of 10 pages - 1000). */
TEST(pinner_plan_matches_pinnerservice)
{
	const uint64_t size = 10 * PS - 1000;
	struct pin_ranges in = { 0 }, out = { 0 };

	ASSERT_EQ(0, pin_ranges_add(&in, PS + 10, 100, 0));	/* rounded out */
	ASSERT_EQ(0, pin_ranges_add(&in, PS, PS, 0));		/* overlap: charged again */
	/* past EOF: clamped to EOF, then rounded out to the last page */
	ASSERT_EQ(0, pin_ranges_add(&in, 100 * PS, PS, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 9 * PS, 10 * PS, 0));	/* clamped, rounded */
	EXPECT_EQ(4 * PS, pinlist_pinner_plan(&in, size, PS, PINLIST_NO_QUOTA, &out));
	ASSERT_EQ(4, out.nr);
	EXPECT_EQ(PS, out.v[0].offset);
	EXPECT_EQ(PS, out.v[0].length);
	EXPECT_EQ(PS, out.v[1].offset);
	EXPECT_EQ(9 * PS, out.v[2].offset);
	EXPECT_EQ(PS, out.v[2].length);
	EXPECT_EQ(9 * PS, out.v[3].offset);
	EXPECT_EQ(PS, out.v[3].length);
	pin_ranges_free(&out);

	/* quota 5000: one page, then 904 bytes, then stop */
	EXPECT_EQ(5000, pinlist_pinner_plan(&in, size, PS, 5000, &out));
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ(PS, out.v[1].offset);
	EXPECT_EQ(904, out.v[1].length);
	pin_ranges_free(&out);
	/* quota exactly one page: one range */
	EXPECT_EQ(PS, pinlist_pinner_plan(&in, size, PS, PS, &out));
	EXPECT_EQ(1, out.nr);
	pin_ranges_free(&out);
	/* a page-aligned file: past EOF locks nothing */
	EXPECT_EQ(0, pinlist_pinner_plan(&in, 0, PS, PINLIST_NO_QUOTA, &out));
	EXPECT_EQ(0, out.nr);
	pin_ranges_free(&out);
	pin_ranges_free(&in);
}

TEST(encode_exact_bytes)
{
	struct pin_ranges r = { 0 };
	uint8_t want[24], *buf;
	size_t len, bad;

	ASSERT_EQ(0, pin_ranges_add(&r, 0, 4096, 0));
	ASSERT_EQ(0, pin_ranges_add(&r, 0x12345000, 0x3000, 0));
	ASSERT_EQ(0, pin_ranges_add(&r, 0x7ffff000, 0x7fffffff, 0));
	be_pair(want, 0, 4096);
	be_pair(want + 8, 0x12345000, 0x3000);
	be_pair(want + 16, 0x7ffff000, 0x7fffffff);
	ASSERT_EQ(0, pinlist_encode(&r, &buf, &len, &bad));
	ASSERT_EQ(24, len);
	EXPECT_EQ(0, memcmp(buf, want, 24));
	/* an explicit spot check of the byte order */
	EXPECT_EQ(0x12, buf[8]);
	EXPECT_EQ(0x50, buf[10]);
	free(buf);
	pin_ranges_free(&r);
}

TEST(encode_refuses_fields_pinnerservice_reads_negative)
{
	struct pin_ranges r = { 0 };
	size_t len, bad = 99;
	uint8_t *buf = NULL;

	ASSERT_EQ(0, pin_ranges_add(&r, 0, 4096, 0));
	ASSERT_EQ(0, pin_ranges_add(&r, 0x80000000ULL, 4096, 0));
	EXPECT_EQ(-1, pinlist_encode(&r, &buf, &len, &bad));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(1, bad);
	r.v[1].offset = 5ULL << 30;	/* beyond 32 bits altogether */
	EXPECT_EQ(-1, pinlist_encode(&r, &buf, &len, &bad));
	r.v[1].offset = 0;
	r.v[1].length = 0x80000000ULL;
	EXPECT_EQ(-1, pinlist_encode(&r, &buf, &len, &bad));
	EXPECT_EQ(ERANGE, errno);
	pin_ranges_free(&r);
}

TEST(decode_strict)
{
	struct pin_ranges r = { 0 };
	uint8_t buf[20];
	size_t trailing = 99;

	be_pair(buf, 4096, 8192);
	be_pair(buf + 8, 0xdeadb000, 1);
	buf[16] = buf[17] = buf[18] = buf[19] = 0xff;
	/* two whole pairs and 4 stray bytes */
	EXPECT_EQ(-1, pinlist_decode(buf, 20, &r, &trailing));
	EXPECT_EQ(EBADMSG, errno);
	EXPECT_EQ(4, trailing);
	ASSERT_EQ(2, r.nr);
	EXPECT_EQ(4096, r.v[0].offset);
	EXPECT_EQ(8192, r.v[0].length);
	EXPECT_EQ(0xdeadb000, r.v[1].offset);
	EXPECT_EQ(1, r.v[1].length);
	pin_ranges_free(&r);
	/* empty is valid and empty */
	EXPECT_EQ(0, pinlist_decode(buf, 0, &r, &trailing));
	EXPECT_EQ(0, trailing);
	EXPECT_EQ(0, r.nr);
	/* fewer bytes than one pair */
	EXPECT_EQ(-1, pinlist_decode(buf, 7, &r, &trailing));
	EXPECT_EQ(7, trailing);
	EXPECT_EQ(0, r.nr);
	pin_ranges_free(&r);
}

TEST_F(pinlist, write_read_round_trip)
{
	struct pin_ranges in = { 0 }, back = { 0 }, norm = { 0 };
	uint8_t want[16], got[64];
	size_t len, trailing, bad;
	mode_t old_mask = umask(022);	/* the file's mode is checked below */
	struct stat st;

	ASSERT_EQ(0, pin_ranges_add(&in, 12288, 100, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, 100, 5000, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, 1 << 20, false, &norm));
	ASSERT_EQ(0, pinlist_write_file(self->path, &norm, &bad));
	be_pair(want, 0, 8192);
	be_pair(want + 8, 12288, 4096);
	ASSERT_EQ(0, read_bytes(self->path, got, sizeof(got), &len));
	ASSERT_EQ(16, len);
	EXPECT_EQ(0, memcmp(got, want, 16));
	ASSERT_EQ(0, pinlist_read_file(self->path, &back, &trailing));
	ASSERT_EQ(2, back.nr);
	EXPECT_EQ(12288, back.v[1].offset);
	EXPECT_EQ(4096, back.v[1].length);
	/* a new file's mode (0666 less the umask), and no temporary file left */
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	EXPECT_TRUE(dir_holds_only(self->dir, "p.meta"));
	/* a file replaced keeps its mode, as a shell's > would; a new one gets the umask's */
	umask(027);
	ASSERT_EQ(0, pinlist_write_file(self->path, &norm, &bad));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	ASSERT_EQ(0, unlink(self->path));
	ASSERT_EQ(0, pinlist_write_file(self->path, &norm, &bad));
	umask(old_mask);
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	EXPECT_TRUE(dir_holds_only(self->dir, "p.meta"));

	/* the CLI dumps the same pairs in pintool's shapes */
	ASSERT_EQ(0, run(self->out, "%s pinlist %s --dump --summary", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "--pinlist memory ranges--\nstart=0 bytes=8192\nstart=12288 bytes=4096\n--pinlist summary--\ntotal_bytes_to_pin=12288\n"));
	EXPECT_FALSE(file_contains(self->out, "Failed"));
	/* no flag: the summary, not nothing */
	ASSERT_EQ(0, run(self->out, "%s pinlist %s", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "--pinlist summary--\ntotal_bytes_to_pin=12288\n"));
	EXPECT_FALSE(file_contains(self->out, "start="));
	pin_ranges_free(&in);
	pin_ranges_free(&norm);
	pin_ranges_free(&back);
}

TEST_F(pinlist, cli_odd_length_and_empty)
{
	uint8_t buf[11];

	be_pair(buf, 4096, 4096);
	buf[8] = buf[9] = buf[10] = 1;
	ASSERT_EQ(0, write_bytes(self->path, buf, 11));
	/* valid pair dumped, then an error and exit 1 */
	EXPECT_EQ(1, run(self->out, "%s pinlist %s --dump", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "start=4096 bytes=4096\n"));
	EXPECT_TRUE(file_contains(self->out, "3 trailing bytes after 1 pairs"));
	EXPECT_EQ(1, run(self->out, "%s pinlist %s --json", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "\"pairs\":1,\"trailing_bytes\":3,\"total_bytes_to_pin\":4096,\"ranges\":[{\"offset\":4096,\"length\":4096}]}"));

	ASSERT_EQ(0, write_bytes(self->path, buf, 0));
	EXPECT_EQ(0, run(self->out, "%s pinlist %s --dump --summary", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "total_bytes_to_pin=0\n"));

	EXPECT_EQ(1, run(self->out, "%s pinlist %s/missing --dump", powerpin_bin(), self->dir));
	EXPECT_TRUE(file_contains(self->out, "No such file"));
	EXPECT_EQ(2, run(self->out, "%s pinlist --bogus %s", powerpin_bin(), self->path));
}

/*
 * --json [FILE], the rule of every command: into FILE with the text still
 * on stdout; "-", or nothing after it, instead of the text; "" a usage
 * error; an output that is the input, or cannot be written, refused
 * before the input is read.
 */
TEST_F(pinlist, json_file_or_stdout)
{
	char json[160];
	uint8_t buf[8];

	be_pair(buf, 8192, 4096);
	ASSERT_EQ(0, write_bytes(self->path, buf, 8));
	snprintf(json, sizeof(json), "%s/p.json", self->dir);
	EXPECT_EQ(0, run(self->out, "%s pinlist %s --json %s", powerpin_bin(), self->path, json));
	EXPECT_TRUE(file_contains(self->out, "total_bytes_to_pin=4096\n"));
	EXPECT_FALSE(file_contains(self->out, "{"));
	EXPECT_TRUE(file_contains(json, "\"pairs\":1,\"trailing_bytes\":0,\"total_bytes_to_pin\":4096"));
	EXPECT_EQ(0, run(self->out, "%s pinlist %s --json -", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "\"total_bytes_to_pin\":4096"));
	EXPECT_FALSE(file_contains(self->out, "total_bytes_to_pin="));
	EXPECT_EQ(0, run(self->out, "%s pinlist %s --json --dump", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "\"total_bytes_to_pin\":4096"));
	EXPECT_EQ(2, run(self->out, "%s pinlist %s --json ''", powerpin_bin(), self->path));
	EXPECT_TRUE(file_contains(self->out, "--json wants a file name"));
	EXPECT_EQ(1, run(self->out, "%s pinlist %s --json %s", powerpin_bin(), self->path, self->path));
	EXPECT_TRUE(file_contains(self->out, "the same file as an input"));
	EXPECT_EQ(1, run(self->out, "%s pinlist %s --json %s/no/p.json", powerpin_bin(), self->path,
			 self->dir));
	EXPECT_FALSE(file_contains(self->out, "total_bytes_to_pin"));
}

/* A sparse file over 4 GiB: 64-bit offsets through probe and normalise. */
TEST_F(pinlist, sparse_file_over_4g)
{
	const uint64_t size = (5ULL << 30) + 123;
	struct pin_ranges in = { 0 }, out = { 0 };
	struct probe_result pr;
	char big[128], err[512];
	size_t bad;
	int fd;

	PIN_NEED_4K_PAGES();

	snprintf(big, sizeof(big), "%s/sparse", self->dir);
	fd = open(big, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, size));
	/* one written page below 4 GiB, one above, one in the last partial page */
	ASSERT_EQ(4096, pwrite(fd, memset(malloc(4096), 'x', 4096), 4096, 1ULL << 20));
	ASSERT_EQ(4096, pwrite(fd, memset(malloc(4096), 'y', 4096), 4096, (4ULL << 30) + 8192));
	ASSERT_EQ(1, pwrite(fd, "z", 1, size - 1));

	/* written pages are in the page cache: the probe sees exactly those */
	if (probe_residency(fd, big, PROBE_AUTO, "/nonexistent", &pr, err, sizeof(err)))
		SKIP(close(fd); return, "probe failed: %s", err);
	EXPECT_EQ(PROBE_MINCORE, pr.method);
	EXPECT_EQ(size, pr.file_size);
	EXPECT_EQ((size + 4095) / 4096, pr.nr_pages);
	ASSERT_EQ(3, pr.resident.nr);
	EXPECT_EQ(1ULL << 20, pr.resident.v[0].offset);
	EXPECT_EQ((4ULL << 30) + 8192, pr.resident.v[1].offset);
	EXPECT_EQ(size & ~4095ULL, pr.resident.v[2].offset);
	EXPECT_EQ(123, pr.resident.v[2].length);	/* clamped at EOF */
	probe_result_free(&pr);
	close(fd);

	/* ranges above 4 GiB normalise with 64-bit arithmetic ... */
	ASSERT_EQ(0, pin_ranges_add(&in, (4ULL << 30) + 8193, 10, 0));
	ASSERT_EQ(0, pin_ranges_add(&in, size - 5, 100, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, false, &out));
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ((4ULL << 30) + 8192, out.v[0].offset);
	EXPECT_EQ(4096, out.v[0].length);
	EXPECT_EQ(size & ~4095ULL, out.v[1].offset);
	EXPECT_EQ(123, out.v[1].length);
	/* ... and are refused by the 32-bit format instead of wrapping */
	EXPECT_EQ(-1, pinlist_write_file(self->path, &out, &bad));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(-1, access(self->path, F_OK));

	/* the CLI says so and exits 1 */
	EXPECT_EQ(1, run(self->out, "%s file %s --gen-probe -o %s", powerpin_bin(), big, self->path));
	EXPECT_TRUE(file_contains(self->out, "does not fit pinlist.meta"));
	EXPECT_EQ(-1, access(self->path, F_OK));
	pin_ranges_free(&in);
	pin_ranges_free(&out);
}

TEST_F(pinlist, cli_plain_file_output_and_quota)
{
	uint8_t probe[24], want[24], got[64];
	char data[128];
	size_t len;
	int fd;

	PIN_NEED_4K_PAGES();

	/* a 10-page file and a probe (synthetic residency) in pinlist form */
	snprintf(data, sizeof(data), "%s/data", self->dir);
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 10 * 4096 - 1000));
	close(fd);
	be_pair(probe, 4096, 4096);
	be_pair(probe + 8, 8192, 100);		/* touches: merges */
	be_pair(probe + 16, 9 * 4096, 4096);	/* last page, clamped */
	ASSERT_EQ(0, write_bytes(self->path, probe, 24));

	ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s.out", powerpin_bin(),
			 data, self->path, self->path));
	be_pair(want, 4096, 8192);
	be_pair(want + 8, 9 * 4096, 4096 - 1000);
	{
		char o[160];

		snprintf(o, sizeof(o), "%s.out", self->path);
		ASSERT_EQ(0, read_bytes(o, got, sizeof(got), &len));
		ASSERT_EQ(16, len);
		EXPECT_EQ(0, memcmp(got, want, 16));
		/* quota 10000: first range whole (8192), second cut to 1808 */
		ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s --quota 10000",
				 powerpin_bin(), data, self->path, o));
		be_pair(want + 8, 9 * 4096, 1808);
		ASSERT_EQ(0, read_bytes(o, got, sizeof(got), &len));
		ASSERT_EQ(16, len);
		EXPECT_EQ(0, memcmp(got, want, 16));
		/* quota exactly the first range: one pair, no empty second */
		ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s --quota 8192",
				 powerpin_bin(), data, self->path, o));
		ASSERT_EQ(0, read_bytes(o, got, sizeof(got), &len));
		ASSERT_EQ(8, len);
		EXPECT_EQ(0, memcmp(got, want, 8));
		/* decimal: 010 is ten bytes, not eight; 8K is 8192 */
		ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s --quota 010",
				 powerpin_bin(), data, self->path, o));
		be_pair(want + 16, 4096, 10);
		ASSERT_EQ(0, read_bytes(o, got, sizeof(got), &len));
		ASSERT_EQ(8, len);
		EXPECT_EQ(0, memcmp(got, want + 16, 8));
		ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s --quota 8K",
				 powerpin_bin(), data, self->path, o));
		ASSERT_EQ(0, read_bytes(o, got, sizeof(got), &len));
		ASSERT_EQ(8, len);
		EXPECT_EQ(0, memcmp(got, want, 8));
		EXPECT_EQ(2, run(self->out, "%s file %s --use-probe %s -o %s --quota 0x10",
				 powerpin_bin(), data, self->path, o));
		EXPECT_TRUE(file_contains(self->out, "'0x10' is not a positive decimal byte count"));
		EXPECT_EQ(2, run(self->out, "%s file %s --use-probe %s -o %s --quota 0",
				 powerpin_bin(), data, self->path, o));
		EXPECT_EQ(2, run(self->out, "%s file %s --use-probe %s -o %s --quota 12Q",
				 powerpin_bin(), data, self->path, o));
	}
	/* a probe with a trailing half pair is not a pinlist */
	ASSERT_EQ(0, write_bytes(self->path, probe, 20));
	EXPECT_EQ(1, run(self->out, "%s file %s --use-probe %s", powerpin_bin(), data, self->path));
	EXPECT_TRUE(file_contains(self->out, "trailing"));
	/* plain files need a probe */
	EXPECT_EQ(2, run(self->out, "%s file %s --dump", powerpin_bin(), data));
}

/*
 * A range longer than a length field holds is written as page-aligned
 * pieces: the bytes, the quota and what PinnerService charges stay exact.
 */
TEST(long_ranges_split_into_pairs)
{
	const uint64_t piece = 0x7ffff000;	/* INT32_MAX rounded down to 4 KiB */
	const uint64_t gib = 1ULL << 30, size = 5 * gib;
	struct pin_ranges in = { 0 }, out = { 0 }, plan = { 0 };
	uint8_t want[24], *buf;
	size_t len, bad = 99;

	/* [0, 3 GiB): two pairs */
	ASSERT_EQ(0, pin_ranges_add(&in, 0, 3 * gib, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, false, &out));
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ(0, out.v[0].offset);
	EXPECT_EQ(piece, out.v[0].length);
	EXPECT_EQ(piece, out.v[1].offset);
	EXPECT_EQ(3 * gib - piece, out.v[1].length);
	EXPECT_EQ(3 * gib, pin_ranges_bytes(&out));
	ASSERT_EQ(0, pinlist_encode(&out, &buf, &len, &bad));
	be_pair(want, 0, piece);
	be_pair(want + 8, piece, 3 * gib - piece);
	ASSERT_EQ(16, len);
	EXPECT_EQ(0, memcmp(buf, want, 16));
	free(buf);
	/* PinnerService charges each page once: exactly the bytes */
	EXPECT_EQ(3 * gib, pinlist_pinner_plan(&out, size, PS, PINLIST_NO_QUOTA, &plan));
	pin_ranges_free(&plan);
	/* a quota just past the first piece: the second is cut to the byte */
	pinlist_apply_quota(&out, piece + 5000);
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ(5000, out.v[1].length);
	EXPECT_EQ(piece + 5000, pin_ranges_bytes(&out));
	pin_ranges_free(&out);

	/* the largest describable: ends at 2 * piece; a page more needs an
	 * offset past INT32_MAX, which is an error, not a wrapped value */
	in.v[0].length = 2 * piece;
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, false, &out));
	ASSERT_EQ(2, out.nr);
	ASSERT_EQ(0, pinlist_encode(&out, &buf, &len, &bad));
	free(buf);
	pin_ranges_free(&out);
	in.v[0].length = 2 * piece + PS;
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, false, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(2 * piece, out.v[2].offset);
	EXPECT_EQ(PS, out.v[2].length);
	EXPECT_EQ(-1, pinlist_encode(&out, &buf, &len, &bad));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(2, bad);
	pin_ranges_free(&out);
	/* starting a page in, the second piece already starts at 2 GiB */
	in.v[0].offset = PS;
	in.v[0].length = 2 * piece;
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, false, &out));
	ASSERT_EQ(2, out.nr);
	EXPECT_EQ(1ULL << 31, out.v[1].offset);
	EXPECT_EQ(-1, pinlist_encode(&out, &buf, &len, &bad));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(1, bad);
	pin_ranges_free(&out);

	/* by rank: the pieces keep their rank and their order */
	in.v[0].offset = 0;
	in.v[0].length = 3 * gib;
	in.v[0].rank = 1;
	ASSERT_EQ(0, pin_ranges_add(&in, 4 * gib, PS, 0));
	ASSERT_EQ(0, pinlist_normalize(&in, PS, size, true, &out));
	ASSERT_EQ(3, out.nr);
	EXPECT_EQ(4 * gib, out.v[0].offset);
	EXPECT_EQ(0, out.v[1].offset);
	EXPECT_EQ(piece, out.v[2].offset);
	EXPECT_EQ(1, out.v[2].rank);
	pin_ranges_free(&out);
	pin_ranges_free(&in);
}

/* A sparse file of 4 GiB - 8 KiB, all of it in the pinlist: two pairs. */
TEST_F(pinlist, cli_whole_file_near_4g)
{
	const uint64_t piece = 0x7ffff000, size = 2 * piece;
	char big[128], probe[160];
	uint8_t pairs[16], got[64];
	size_t len;
	int fd;

	PIN_NEED_4K_PAGES();
	snprintf(big, sizeof(big), "%s/big", self->dir);
	fd = open(big, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, size));
	close(fd);
	snprintf(probe, sizeof(probe), "%s/probe", self->dir);
	be_pair(pairs, 0, piece);
	be_pair(pairs + 8, piece, piece);
	ASSERT_EQ(0, write_bytes(probe, pairs, 16));
	ASSERT_EQ(0, run(self->out, "%s file %s --use-probe %s -o %s", powerpin_bin(), big,
			 probe, self->path));
	EXPECT_TRUE(file_contains(self->out, "Pinlist Writing start=0 bytes=2147479552\nPinlist Writing start=2147479552 bytes=2147479552\n"));
	ASSERT_EQ(0, read_bytes(self->path, got, sizeof(got), &len));
	ASSERT_EQ(16, len);
	EXPECT_EQ(0, memcmp(got, pairs, 16));
	/* one page larger: the last page would need an offset past INT32_MAX */
	fd = open(big, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, size + PS));
	close(fd);
	be_pair(pairs + 8, piece, piece + 1);
	ASSERT_EQ(0, write_bytes(probe, pairs, 16));
	EXPECT_EQ(1, run(self->out, "%s file %s --use-probe %s -o %s.2", powerpin_bin(), big,
			 probe, self->path));
	EXPECT_TRUE(file_contains(self->out, "range start=4294959104 bytes=4096 does not fit pinlist.meta"));
}

/* Only a regular file is read, and only up to a size: never forever. */
TEST_F(pinlist, reads_only_bounded_regular_files)
{
	struct pin_ranges r = { 0 };
	char fifo[128], big[128];
	size_t trailing;
	int fd;

	EXPECT_EQ(-1, pinlist_read_file("/dev/zero", &r, &trailing));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pinlist_read_file(self->dir, &r, &trailing));
	EXPECT_EQ(EISDIR, errno);
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ(-1, pinlist_read_file(fifo, &r, &trailing));	/* no writer: no wait */
	EXPECT_EQ(EINVAL, errno);
	snprintf(big, sizeof(big), "%s/big", self->dir);
	fd = open(big, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, PINLIST_FILE_MAX + 8));
	close(fd);
	EXPECT_EQ(-1, pinlist_read_file(big, &r, &trailing));
	EXPECT_EQ(EFBIG, errno);
	EXPECT_EQ(0, r.nr);

	/* the CLI: a clear error and exit 1, well before any timeout */
	EXPECT_EQ(1, run(self->out, "timeout 20 %s pinlist /dev/zero --dump", powerpin_bin()));
	EXPECT_TRUE(file_contains(self->out, "powerpin pinlist: /dev/zero: not a regular file"));
	EXPECT_EQ(1, run(self->out, "timeout 20 %s pinlist %s --summary", powerpin_bin(), fifo));
	EXPECT_TRUE(file_contains(self->out, "not a regular file"));
	EXPECT_EQ(1, run(self->out, "timeout 20 %s pinlist %s", powerpin_bin(), big));
	EXPECT_TRUE(file_contains(self->out, "larger than 64 MiB: not a pinlist"));
	EXPECT_EQ(1, run(self->out, "timeout 20 %s file %s --use-probe /dev/zero",
			 powerpin_bin(), big));
	EXPECT_TRUE(file_contains(self->out, "--use-probe /dev/zero: not a regular file"));
}

/*
 * Without --pinlist, `pin apply` takes the APK's root pinlist.meta before
 * assets/pinlist.meta, the order current PinnerService tries them: a root
 * pinlist with a trailing half pair is the one it reports, and with only
 * the assets one that is the one used.
 */
TEST(apply_looks_at_the_root_pinlist_first)
{
	char dir[] = "/tmp/ppapply.XXXXXX", out[128];

	if (access(powerpin_bin(), X_OK) || system("command -v zip >/dev/null 2>&1"))
		SKIP(return, "powerpin or zip missing");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/log", dir);
	/* root: 12 bytes (a half pair at the end); assets: a bad 4-byte one */
	ASSERT_EQ(0, run(out, "cd %s && mkdir assets && head -c 12 /dev/zero > pinlist.meta && "
			 "head -c 4 /dev/zero > assets/pinlist.meta && head -c 65536 /dev/zero > blob && "
			 "zip -q -0 app.apk blob pinlist.meta assets/pinlist.meta && "
			 "zip -q -0 assets.apk blob assets/pinlist.meta", dir));
	EXPECT_EQ(1, run(out, "%s pin apply %s/app.apk", powerpin_bin(), dir));
	EXPECT_TRUE(file_contains(out, "app.apk!/pinlist.meta: trailing partial pair"));
	EXPECT_EQ(1, run(out, "%s pin apply %s/assets.apk", powerpin_bin(), dir));
	EXPECT_TRUE(file_contains(out, "assets.apk!/assets/pinlist.meta: trailing partial pair"));
	run(out, "rm -rf %s", dir);
}

TEST_HARNESS_MAIN
