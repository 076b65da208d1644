// SPDX-License-Identifier: GPL-2.0
/*
 * Zip handling: archives built here with minizip's zip.h (stored entries,
 * raw-deflated entries whose compressed bytes the test made itself, ZIP64
 * local headers, zipalign-style padding), indexed through zipindex, then
 * run through `powerpin file --zip`.  Expected offsets come from the known
 * local header layout (30 bytes + name + local extra [+ 20 for ZIP64]), and
 * expected pinlists are built here by plain page arithmetic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unzip.h>
#include <zip.h>
#include <zlib.h>

/* the harness compares through int-typed temporaries: silence its noise */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "pin_helpers.h"
#include "pin/pin.h"

#define PS		4096ULL
#define LOCAL_HDR	30ULL
#define ZIP64_LOCAL	20ULL	/* minizip's ZIP64 local extra block: 4 + 16 */
#define NR		5

struct spec {
	const char *name;
	size_t size;		/* uncompressed */
	int deflate;
	int zip64;
	int align;		/* pad the local extra field to a page */
	/* filled in while building */
	uint8_t *data;
	uint8_t *stored;	/* bytes in the archive */
	size_t csize;
	uint64_t data_offset;
};

static const char *bin(void)
{
	return getenv("POWERPIN_BIN") ? getenv("POWERPIN_BIN") : "build/bin/powerpin";
}

static size_t raw_deflate(const uint8_t *in, size_t len, uint8_t **out)
{
	z_stream zs = { 0 };
	size_t cap = compressBound(len) + 64;

	*out = malloc(cap);
	if (deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (uint8_t *)in;
	zs.avail_in = len;
	zs.next_out = *out;
	zs.avail_out = cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		return 0;
	deflateEnd(&zs);
	return zs.total_out;
}

/* Build the archive; returns its size, or 0. */
static uint64_t build_zip(const char *path, struct spec *s, int n)
{
	uint64_t cursor = 0;
	zipFile zf;
	int i;

	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	if (!zf)
		return 0;
	for (i = 0; i < n; i++) {
		uint8_t extra[PS];
		unsigned int extra_len = 0;
		size_t namelen = strlen(s[i].name), j;
		zip_fileinfo zi = { 0 };
		uLong crc;

		s[i].data = malloc(s[i].size + 1);
		for (j = 0; j < s[i].size; j++)	/* compressible, not constant */
			s[i].data[j] = "powerpin"[(j / 7 + i) % 8];
		if (s[i].deflate) {
			s[i].csize = raw_deflate(s[i].data, s[i].size, &s[i].stored);
			if (!s[i].csize)
				return 0;
		} else {
			s[i].stored = s[i].data;
			s[i].csize = s[i].size;
		}
		if (s[i].align) {
			/* zipalign -p: an extra block sized so the data starts on a page */
			uint64_t hdr = cursor + LOCAL_HDR + namelen +
				       (s[i].zip64 ? ZIP64_LOCAL : 0);

			extra_len = (PS - (hdr + 4) % PS) % PS + 4;
			memset(extra, 0, sizeof(extra));
			extra[0] = 0x35; extra[1] = 0xd9;	/* Android's alignment block id */
			extra[2] = (extra_len - 4) & 0xff;
			extra[3] = (extra_len - 4) >> 8;
		}
		s[i].data_offset = cursor + LOCAL_HDR + namelen + extra_len +
				   (s[i].zip64 ? ZIP64_LOCAL : 0);
		crc = crc32(0, s[i].data, s[i].size);
		if (zipOpenNewFileInZip2_64(zf, s[i].name, &zi, extra_len ? extra : NULL,
					    extra_len, NULL, 0, NULL,
					    s[i].deflate ? Z_DEFLATED : 0, 9, 1,
					    s[i].zip64) != ZIP_OK)
			return 0;
		if (zipWriteInFileInZip(zf, s[i].stored, s[i].csize) != ZIP_OK)
			return 0;
		if (zipCloseFileInZipRaw64(zf, s[i].size, crc) != ZIP_OK)
			return 0;
		cursor = s[i].data_offset + s[i].csize;
	}
	if (zipClose(zf, NULL) != ZIP_OK)
		return 0;
	fuzz_seed_file("zipindex", path);
	{
		struct stat st;

		return stat(path, &st) ? 0 : st.st_size;
	}
}

/* Expected pinlist bytes for ranges given in offset order. */
struct expect {
	uint64_t off[16], len[16];
	int nr;
};

static void expect_add(struct expect *e, uint64_t s, uint64_t end, uint64_t fsize)
{
	s = s / PS * PS;
	end = (end + PS - 1) / PS * PS;
	if (end > fsize)
		end = fsize;
	if (e->nr && e->off[e->nr - 1] + e->len[e->nr - 1] >= s) {
		uint64_t last = e->off[e->nr - 1] + e->len[e->nr - 1];

		if (end > last)
			e->len[e->nr - 1] = end - e->off[e->nr - 1];
		return;
	}
	e->off[e->nr] = s;
	e->len[e->nr] = end - s;
	e->nr++;
}

static int file_equals_expect(const char *path, const struct expect *e)
{
	uint8_t buf[256], want[256];
	int fd, i;
	ssize_t n;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < e->nr; i++) {
		uint8_t *p = want + 8 * i;

		p[0] = e->off[i] >> 24; p[1] = e->off[i] >> 16;
		p[2] = e->off[i] >> 8;  p[3] = e->off[i];
		p[4] = e->len[i] >> 24; p[5] = e->len[i] >> 16;
		p[6] = e->len[i] >> 8;  p[7] = e->len[i];
	}
	if (n != 8 * e->nr) {
		fprintf(stderr, "# %s: %zd bytes, want %d\n", path, n, 8 * e->nr);
		return 0;
	}
	return !memcmp(buf, want, n);
}

static int pin_run_quiet(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

FIXTURE(zip) {
	char dir[64];
	char zip[128];
	uint64_t size;
	struct spec s[NR];
};

FIXTURE_SETUP(zip)
{
	const struct spec init[NR] = {
		{ .name = "lib/arm64-v8a/libfoo.so", .size = 3 * PS + 100, .align = 1 },
		{ .name = "classes.dex", .size = 20000, .deflate = 1 },
		{ .name = "res/raw/big.bin", .size = 9000, .zip64 = 1 },
		{ .name = "assets/config.json", .size = 30000, .deflate = 1, .zip64 = 1 },
		{ .name = "lib/arm64-v8a/libbar.so", .size = 2 * PS, .zip64 = 1, .align = 1 },
	};

	memcpy(self->s, init, sizeof(init));
	strcpy(self->dir, "/var/tmp/zip_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->zip, sizeof(self->zip), "%s/app.apk", self->dir);
	self->size = build_zip(self->zip, self->s, NR);
	ASSERT_NE(0, self->size);
}

FIXTURE_TEARDOWN(zip)
{
	if (!getenv("POWERPIN_KEEP"))
		sh("rm -rf %s", self->dir);
}

TEST_F(zip, index_offsets_sizes_methods)
{
	struct zip_index zi;
	char err[512] = "";
	uint8_t buf[64];
	int i, fd;

	if (zip_index_open(self->zip, &zi, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(NULL, strchr(err, ':'));
	ASSERT_EQ(NR, zi.nr);
	EXPECT_EQ(self->size, zi.file_size);
	for (i = 0; i < NR; i++) {
		EXPECT_STREQ(self->s[i].name, zi.entries[i].name);
		EXPECT_EQ(self->s[i].data_offset, zi.entries[i].data_offset);
		EXPECT_EQ(self->s[i].csize, zi.entries[i].compressed_size);
		EXPECT_EQ(self->s[i].size, zi.entries[i].uncompressed_size);
		EXPECT_EQ(self->s[i].deflate ? 8 : 0, zi.entries[i].method);
	}
	/* the aligned entries start on a page, as zipalign -p would leave them */
	EXPECT_EQ(4096, zi.entries[0].data_offset);
	EXPECT_EQ(0, zi.entries[4].data_offset % PS);
	/* the bytes at data_offset are the entry's stored bytes */
	fd = open(self->zip, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(64, pread(fd, buf, 64, zi.entries[i].data_offset));
		EXPECT_EQ(0, memcmp(buf, self->s[i].stored, 64));
	}
	close(fd);
	EXPECT_EQ(2, zip_index_find(&zi, "res/raw/big.bin"));
	EXPECT_EQ(-1, zip_index_find(&zi, "big.bin"));
	zip_index_free(&zi);
}

TEST_F(zip, read_entry_inflates)
{
	char err[512];
	size_t len;
	void *buf;

	err[0] = '\0';
	if (zip_read_entry(self->zip, "assets/config.json", 1 << 20, &buf, &len, err,
			   sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ('\0', err[0]);
	ASSERT_EQ(self->s[3].size, len);
	EXPECT_EQ(0, memcmp(buf, self->s[3].data, len));
	free(buf);
	EXPECT_EQ(-1, zip_read_entry(self->zip, "nope", 1 << 20, &buf, &len, err, sizeof(err)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, zip_read_entry(self->zip, "assets/config.json", 100, &buf, &len, err,
				     sizeof(err)));
	EXPECT_EQ(EFBIG, errno);
}

/*
 * An APK Signing Block sits between the last entry and the central
 * directory (the end record's offset points past it): offsets stay put.
 */
TEST_F(zip, signing_block_before_central_directory)
{
	const size_t block = 4096;
	struct zip_index zi;
	char err[512], p[160];
	uint8_t *buf, *out;
	uint32_t cd;
	FILE *fp;
	int i;

	buf = malloc(self->size);
	out = malloc(self->size + block);
	fp = fopen(self->zip, "rb");
	ASSERT_NE(NULL, fp);
	ASSERT_EQ(self->size, fread(buf, 1, self->size, fp));
	fclose(fp);
	/* no archive comment, no ZIP64 end record: the end record is last */
	ASSERT_EQ(0, memcmp(buf + self->size - 22, "PK\005\006", 4));
	cd = buf[self->size - 6] | buf[self->size - 5] << 8 | buf[self->size - 4] << 16 |
	     (uint32_t)buf[self->size - 3] << 24;
	memcpy(out, buf, cd);
	memset(out + cd, 0, block);
	memcpy(out + cd + block - 16, "APK Sig Block 42", 16);
	memcpy(out + cd + block, buf + cd, self->size - cd);
	cd += block;
	out[self->size + block - 6] = cd;
	out[self->size + block - 5] = cd >> 8;
	out[self->size + block - 4] = cd >> 16;
	out[self->size + block - 3] = cd >> 24;
	snprintf(p, sizeof(p), "%s/signed.apk", self->dir);
	fp = fopen(p, "wb");
	ASSERT_NE(NULL, fp);
	ASSERT_EQ(self->size + block, fwrite(out, 1, self->size + block, fp));
	fclose(fp);
	free(buf);
	free(out);

	ASSERT_EQ(0, zip_index_open(p, &zi, err, sizeof(err)));
	ASSERT_EQ(NR, zi.nr);
	for (i = 0; i < NR; i++)
		EXPECT_EQ(self->s[i].data_offset, zi.entries[i].data_offset);
	zip_index_free(&zi);
}

/* No probe, no pinconfig: every entry's data, whole. */
TEST_F(zip, pinlist_of_all_entries)
{
	struct expect e = { 0 };
	char out[160];
	int i;

	PIN_NEED_4K_PAGES();

	for (i = 0; i < NR; i++)
		expect_add(&e, self->s[i].data_offset, self->s[i].data_offset + self->s[i].csize,
			   self->size);
	snprintf(out, sizeof(out), "%s/out", self->dir);
	ASSERT_EQ(0, sh("%s file %s --zip -o %s >/dev/null", bin(), self->zip, out));
	EXPECT_TRUE(file_equals_expect(out, &e));
}

/* pinconfig ranges, relative to each entry's data start, page-rounded. */
TEST_F(zip, pinlist_filtered_by_pinconfig)
{
	const struct spec *s = self->s;
	struct expect e = { 0 };
	char out[160];

	PIN_NEED_4K_PAGES();

	/* libfoo: bytes 5000..5009; classes.dex: whole; lib*.so also matches
	 * libbar, which gets its own 10 bytes at 5000 (pintool shared one) */
	ASSERT_EQ(0, sh("printf 'file arm64-v8a/lib\\noffset 5000 len 10\\nfile dex\\n' > %s/pc.txt",
			 self->dir));
	expect_add(&e, s[0].data_offset + 5000, s[0].data_offset + 5010, self->size);
	expect_add(&e, s[1].data_offset, s[1].data_offset + s[1].csize, self->size);
	expect_add(&e, s[4].data_offset + 5000, s[4].data_offset + 5010, self->size);
	snprintf(out, sizeof(out), "%s/out", self->dir);
	ASSERT_EQ(0, sh("%s file %s --zip --pinconfig %s/pc.txt -o %s >/dev/null", bin(),
			 self->zip, self->dir, out));
	EXPECT_TRUE(file_equals_expect(out, &e));

	/* a range past the end of the entry is clipped to it */
	ASSERT_EQ(0, sh("printf 'file big.bin offset 8000 length 1M\\n' > %s/pc.txt", self->dir));
	memset(&e, 0, sizeof(e));
	expect_add(&e, s[2].data_offset + 8000, s[2].data_offset + s[2].csize, self->size);
	ASSERT_EQ(0, sh("%s file %s --zip --pinconfig %s/pc.txt -o %s >/dev/null", bin(),
			 self->zip, self->dir, out));
	EXPECT_TRUE(file_equals_expect(out, &e));
}

/* A probe given as a pinlist (synthetic residency) clipped per entry. */
TEST_F(zip, use_probe_dump_lines)
{
	const struct spec *s = self->s;
	uint64_t p_off = s[2].data_offset / PS * PS, p_end = p_off + PS;
	uint64_t r_off = s[2].data_offset, r_len = p_end - r_off;
	char out[160], line[256];
	uint8_t pair[8] = {
		p_off >> 24, p_off >> 16, p_off >> 8, p_off, 0, 0, PS >> 8, 0
	};
	int fd;

	PIN_NEED_4K_PAGES();

	if (r_len > s[2].csize)
		r_len = s[2].csize;
	snprintf(out, sizeof(out), "%s/probe.meta", self->dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, write(fd, pair, 8));
	close(fd);
	ASSERT_EQ(0, sh("%s file %s --zip --use-probe %s --dump > %s/dump 2>&1", bin(),
			 self->zip, out, self->dir));
	snprintf(line, sizeof(line),
		 "grep -qxF 'res/raw/big.bin size(B)=9000 resident(B)=%llu resident(%%)=%g' %s/dump",
		 (unsigned long long)r_len, (double)r_len / 9000 * 100.0, self->dir);
	EXPECT_EQ(0, sh("%s", line));
	snprintf(line, sizeof(line),
		 "grep -qxF 'zip_offset=%llu file_offset=0 total_bytes=%llu' %s/dump",
		 (unsigned long long)r_off, (unsigned long long)r_len, self->dir);
	EXPECT_EQ(0, sh("%s", line));
	EXPECT_EQ(0, sh("grep -qxF -- '----Unfiltered file coverages----' %s/dump", self->dir));
	/* libfoo's last 100 bytes share that page; config.json is not in it */
	snprintf(line, sizeof(line),
		 "grep -qxF 'lib/arm64-v8a/libfoo.so size(B)=12388 resident(B)=100 resident(%%)=%g' %s/dump",
		 100.0 / 12388 * 100.0, self->dir);
	EXPECT_EQ(0, sh("%s", line));
	EXPECT_EQ(0, sh("grep -qF 'assets/config.json size(B)=%zu resident(B)=0 resident(%%)=0' %s/dump",
			 s[3].csize, self->dir));
}

/* --json: one object with the entries, offsets and the pinlist written. */
TEST_F(zip, json_output)
{
	const struct spec *s = self->s;

	if (pin_run_quiet("python3 -c 'import json' 2>/dev/null"))
		SKIP(return, "python3 is needed to parse the JSON");
	ASSERT_EQ(0, sh("%s file %s --zip -o %s/out --json > %s/json", bin(), self->zip,
			 self->dir, self->dir));
	EXPECT_EQ(0, sh("python3 -c '\n"
			 "import json, sys\n"
			 "d = json.load(open(sys.argv[1]))\n"
			 "e = d[\"entries\"]\n"
			 "assert d[\"size\"] == %llu and d[\"probe\"] is None\n"
			 "assert [x[\"name\"] for x in e][1] == \"classes.dex\"\n"
			 "assert e[1][\"data_offset\"] == %llu and e[1][\"method\"] == 8\n"
			 "assert e[1][\"compressed_size\"] == %zu\n"
			 "assert d[\"pinlist\"][\"ranges\"][0][\"offset\"] == 4096\n"
			 "' %s/json", (unsigned long long)self->size,
			 (unsigned long long)s[1].data_offset, s[1].csize, self->dir));
}

TEST_F(zip, malformed_archives_are_errors)
{
	struct zip_index zi;
	char err[512], p[160];
	int fd;

	/* cut off the end of central directory record */
	ASSERT_EQ(0, sh("head -c %llu %s > %s/cut.zip", (unsigned long long)self->size - 10,
			 self->zip, self->dir));
	ASSERT_EQ(1, sh("%s file %s/cut.zip --zip --dump > %s/log 2>&1", bin(), self->dir,
			 self->dir));
	EXPECT_EQ(0, sh("grep -q '^powerpin file: %s/cut.zip: ' %s/log", self->dir, self->dir));
	/* not a zip at all */
	ASSERT_EQ(0, sh("head -c 5000 /dev/zero > %s/zero.zip", self->dir));
	EXPECT_EQ(1, sh("%s file %s/zero.zip --zip > /dev/null 2>&1", bin(), self->dir));
	/* a local header whose signature is damaged */
	snprintf(p, sizeof(p), "%s/bad.zip", self->dir);
	ASSERT_EQ(0, sh("cp %s %s", self->zip, p));
	fd = open(p, O_WRONLY);
	ASSERT_LE(0, fd);
	/* classes.dex's local header starts right after libfoo's data */
	ASSERT_EQ(2, pwrite(fd, "XX", 2, self->s[0].data_offset + self->s[0].csize));
	close(fd);
	EXPECT_EQ(-1, zip_index_open(p, &zi, err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NE(NULL, strstr(err, "entry 'classes.dex': bad local header"));
	EXPECT_EQ(1, sh("%s file %s/bad.zip --zip > /dev/null 2>&1", bin(), self->dir));
	/* an archive that is only its end record is valid and empty */
	ASSERT_EQ(0, sh("printf 'PK\\005\\006' > %s/empty.zip && head -c 18 /dev/zero >> %s/empty.zip",
			 self->dir, self->dir));
	snprintf(p, sizeof(p), "%s/empty.zip", self->dir);
	EXPECT_EQ(0, zip_index_open(p, &zi, err, sizeof(err)));
	EXPECT_EQ(0, zi.nr);
	EXPECT_EQ(0, sh("%s file %s --zip --dump > /dev/null", bin(), p));
	EXPECT_EQ(-1, zip_index_open("/nonexistent.zip", &zi, err, sizeof(err)));
	EXPECT_EQ(ENOENT, errno);
}

/* ---- archives written byte by byte ---------------------------------- */

/*
 * What minizip's writer cannot produce: any compression method, a local
 * header that disagrees with the central directory, a data descriptor with
 * zero local sizes, entries past 4 GiB (a hole before the first one) and a
 * ZIP64 end record.
 */
struct hand_entry {
	const char *name;
	uint16_t method;
	size_t size;
	uint32_t crc;		/* central directory's */
	uint32_t local_crc;	/* local header's */
	int descriptor;		/* flag bit 3: local CRC and sizes are 0 */
	/* filled in */
	uint64_t lho, data_offset;
};

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct bytes *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put16(struct bytes *b, uint16_t v)
{
	uint8_t x[2] = { v, v >> 8 };

	put(b, x, 2);
}

static void put32(struct bytes *b, uint32_t v)
{
	put16(b, v);
	put16(b, v >> 16);
}

static void put64(struct bytes *b, uint64_t v)
{
	put32(b, v);
	put32(b, v >> 32);
}

struct hand_zip {
	uint64_t cd_offset, cd_size, end64, size;
};

/*
 * Write @n entries after @hole bytes of hole; with @zip64 every central
 * record keeps its sizes and offset in a ZIP64 extra block and the archive
 * ends with a ZIP64 end record and locator.  Returns 0 or -1.
 */
static int hand_zip(const char *path, struct hand_entry *e, int n, uint64_t hole,
		    int zip64, struct hand_zip *hz)
{
	struct bytes b = { 0 };
	uint64_t at = hole;
	int i, fd, ret;
	size_t j;

	for (i = 0; i < n; i++) {
		e[i].lho = at + b.len;
		put32(&b, 0x04034b50);
		put16(&b, 20);
		put16(&b, e[i].descriptor ? 8 : 0);
		put16(&b, e[i].method);
		put32(&b, 0);				/* time, date */
		put32(&b, e[i].descriptor ? 0 : e[i].local_crc);
		put32(&b, e[i].descriptor ? 0 : e[i].size);
		put32(&b, e[i].descriptor ? 0 : e[i].size);
		put16(&b, strlen(e[i].name));
		put16(&b, 0);
		put(&b, e[i].name, strlen(e[i].name));
		e[i].data_offset = at + b.len;
		for (j = 0; j < e[i].size; j++) {
			uint8_t c = 'a' + (i + j) % 26;

			put(&b, &c, 1);
		}
		if (e[i].descriptor) {
			put32(&b, 0x08074b50);
			put32(&b, e[i].crc);
			put32(&b, e[i].size);
			put32(&b, e[i].size);
		}
	}
	hz->cd_offset = at + b.len;
	for (i = 0; i < n; i++) {
		put32(&b, 0x02014b50);
		put16(&b, 45);
		put16(&b, zip64 ? 45 : 20);
		put16(&b, e[i].descriptor ? 8 : 0);
		put16(&b, e[i].method);
		put32(&b, 0);
		put32(&b, e[i].crc);
		put32(&b, zip64 ? 0xffffffff : e[i].size);
		put32(&b, zip64 ? 0xffffffff : e[i].size);
		put16(&b, strlen(e[i].name));
		put16(&b, zip64 ? 28 : 0);
		put16(&b, 0);				/* comment */
		put16(&b, 0);				/* disk */
		put16(&b, 0);
		put32(&b, 0);
		put32(&b, zip64 ? 0xffffffff : e[i].lho);
		put(&b, e[i].name, strlen(e[i].name));
		if (zip64) {
			put16(&b, 0x0001);
			put16(&b, 24);
			put64(&b, e[i].size);		/* uncompressed */
			put64(&b, e[i].size);		/* compressed */
			put64(&b, e[i].lho);
		}
	}
	hz->cd_size = at + b.len - hz->cd_offset;
	hz->end64 = at + b.len;
	if (zip64) {
		put32(&b, 0x06064b50);
		put64(&b, 44);
		put16(&b, 45);
		put16(&b, 45);
		put32(&b, 0);
		put32(&b, 0);
		put64(&b, n);
		put64(&b, n);
		put64(&b, hz->cd_size);
		put64(&b, hz->cd_offset);
		put32(&b, 0x07064b50);
		put32(&b, 0);
		put64(&b, hz->end64);
		put32(&b, 1);
	}
	put32(&b, 0x06054b50);
	put16(&b, 0);
	put16(&b, 0);
	put16(&b, zip64 ? 0xffff : n);
	put16(&b, zip64 ? 0xffff : n);
	put32(&b, zip64 ? 0xffffffff : hz->cd_size);
	put32(&b, zip64 ? 0xffffffff : hz->cd_offset);
	put16(&b, 0);
	hz->size = at + b.len;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ret = ftruncate(fd, hole) || pwrite(fd, b.p, b.len, hole) != (ssize_t)b.len ? -1 : 0;
	close(fd);
	free(b.p);
	fuzz_seed_file("zipindex", path);
	return ret;
}

static int patch(const char *path, uint64_t off, const void *v, size_t n)
{
	int fd = open(path, O_WRONLY);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = pwrite(fd, v, n, off);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static int patch32(const char *path, uint64_t off, uint32_t v)
{
	uint8_t x[4] = { v, v >> 8, v >> 16, v >> 24 };

	return patch(path, off, x, 4);
}

static int patch64(const char *path, uint64_t off, uint64_t v)
{
	return patch32(path, off, v) || patch32(path, off + 4, v >> 32) ? -1 : 0;
}

/* `powerpin file --zip` fails with exit 1 and a message containing @what. */
static int cli_refuses(const char *dir, const char *zip, const char *what)
{
	char log[192], prefix[256], buf[4096];
	size_t n;
	FILE *fp;

	fuzz_seed_file("zipindex", zip);
	if (sh("%s file %s --zip --dump > %s/log 2>&1", bin(), zip, dir) != 1)
		return 0;
	snprintf(log, sizeof(log), "%s/log", dir);
	fp = fopen(log, "r");
	if (!fp)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	snprintf(prefix, sizeof(prefix), "powerpin file: %s: ", zip);
	if (strncmp(buf, prefix, strlen(prefix)) || !strstr(buf, what)) {
		fprintf(stderr, "# got: %s# want: %s...%s\n", buf, prefix, what);
		return 0;
	}
	return 1;
}

/*
 * Entries minizip refuses to open: an LZMA entry (method 14), an entry
 * whose local CRC differs from the central one, an unknown method 99 and
 * a data descriptor entry with zero local sizes.  All are indexed, at the
 * offsets their local headers give.
 */
TEST_F(zip, any_method_and_local_header_indexed)
{
	struct hand_entry e[] = {
		{ .name = "classes.dex", .size = 5000, .crc = 1, .local_crc = 1 },
		{ .name = "lib/x86/liblzma.so", .method = 14, .size = 7000, .crc = 2,
		  .local_crc = 2 },
		{ .name = "res/crc.bin", .size = 3000, .crc = 0x1234, .local_crc = 0x4321 },
		{ .name = "assets/aes.bin", .method = 99, .size = 100, .crc = 3, .local_crc = 3 },
		{ .name = "assets/desc.bin", .method = 8, .size = 4096, .crc = 4,
		  .descriptor = 1 },
	};
	const int n = sizeof(e) / sizeof(e[0]);
	struct zip_index zi;
	struct hand_zip hz;
	char err[512] = "", p[160];
	unzFile uf;
	int i, refused = 0;

	snprintf(p, sizeof(p), "%s/methods.apk", self->dir);
	ASSERT_EQ(0, hand_zip(p, e, n, 0, 0, &hz));

	/* the case this covers: minizip's local header check says no */
	uf = unzOpen64(p);
	ASSERT_NE(NULL, uf);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(UNZ_OK, i ? unzGoToNextFile(uf) : unzGoToFirstFile(uf));
		if (unzOpenCurrentFile2(uf, NULL, NULL, 1) == UNZ_OK)
			unzCloseCurrentFile(uf);
		else
			refused++;
	}
	unzClose(uf);
	EXPECT_EQ(3, refused);

	if (zip_index_open(p, &zi, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(n, zi.nr);
	for (i = 0; i < n; i++) {
		EXPECT_STREQ(e[i].name, zi.entries[i].name);
		EXPECT_EQ(e[i].lho + LOCAL_HDR + strlen(e[i].name), zi.entries[i].data_offset);
		EXPECT_EQ(e[i].data_offset, zi.entries[i].data_offset);
		EXPECT_EQ(e[i].size, zi.entries[i].compressed_size);
		EXPECT_EQ(e[i].method, zi.entries[i].method);
	}
	zip_index_free(&zi);
	EXPECT_EQ(0, sh("%s file %s --zip --dump > %s/log 2>&1", bin(), p, self->dir));
	EXPECT_EQ(0, sh("grep -qxF 'lib/x86/liblzma.so size(B)=7000 resident(B)=7000 resident(%%)=100' %s/log",
			 self->dir));
	EXPECT_EQ(0, sh("grep -qxF 'zip_offset=%llu file_offset=0 total_bytes=3000' %s/log",
			 (unsigned long long)e[2].data_offset, self->dir));
}

/*
 * A ZIP64 end record and locator, and ZIP64 central records whose local
 * header offsets lie past 4 GiB (a sparse hole in front of the entries):
 * 64-bit offsets all the way through.
 */
TEST_F(zip, zip64_end_record_and_offsets_past_4g)
{
	const uint64_t hole = 5ULL << 30;
	struct hand_entry e[] = {
		{ .name = "a.bin", .size = 10000, .crc = 1, .local_crc = 1 },
		{ .name = "lib/b.so", .method = 8, .size = 5000, .crc = 2, .local_crc = 2 },
	};
	struct zip_index zi;
	struct hand_zip hz;
	char err[512] = "", p[160];
	int i;

	snprintf(p, sizeof(p), "%s/zip64.apk", self->dir);
	ASSERT_EQ(0, hand_zip(p, e, 2, hole, 1, &hz));
	if (zip_index_open(p, &zi, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(2, zi.nr);
	EXPECT_EQ(hz.size, zi.file_size);
	for (i = 0; i < 2; i++) {
		EXPECT_STREQ(e[i].name, zi.entries[i].name);
		EXPECT_EQ(e[i].data_offset, zi.entries[i].data_offset);
		EXPECT_EQ(e[i].size, zi.entries[i].compressed_size);
		EXPECT_EQ(e[i].size, zi.entries[i].uncompressed_size);
	}
	EXPECT_EQ(hole + LOCAL_HDR + 5, zi.entries[0].data_offset);
	zip_index_free(&zi);
	EXPECT_EQ(0, sh("%s file %s --zip --dump > %s/log 2>&1", bin(), p, self->dir));
	EXPECT_EQ(0, sh("grep -qxF 'zip_offset=%llu file_offset=0 total_bytes=5000' %s/log",
			 (unsigned long long)e[1].data_offset, self->dir));

	/* the same archive without the hole: ZIP64 records, small offsets */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 1, &hz));
	ASSERT_EQ(0, zip_index_open(p, &zi, err, sizeof(err)));
	ASSERT_EQ(2, zi.nr);
	EXPECT_EQ(LOCAL_HDR + 5, zi.entries[0].data_offset);
	EXPECT_EQ(e[1].data_offset, zi.entries[1].data_offset);
	zip_index_free(&zi);

	/* ZIP64 central directory offset past the end of the file */
	ASSERT_EQ(0, hand_zip(p, e, 2, hole, 1, &hz));
	ASSERT_EQ(0, patch64(p, hz.end64 + 48, 1ULL << 40));
	EXPECT_TRUE(cli_refuses(self->dir, p, "central directory offset 1099511627776 is beyond the end of the file"));
	/* a locator that points at no ZIP64 end record */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 1, &hz));
	ASSERT_EQ(0, patch32(p, hz.end64, 0x12345678));
	EXPECT_TRUE(cli_refuses(self->dir, p, "no ZIP64 end of central directory record at"));
}

/* Archives generated by Python's zipfile (LZMA, bzip2, forced ZIP64 headers). */
TEST_F(zip, python_zipfile_offsets_agree)
{
	char p[160];

	if (sh("python3 -c 'import zipfile, lzma, bz2' 2>/dev/null"))
		SKIP(return, "python3 with zipfile, lzma and bz2 is needed");
	snprintf(p, sizeof(p), "%s/py.apk", self->dir);
	ASSERT_EQ(0, sh("python3 -c '\n"
			 "import sys, zipfile\n"
			 "with zipfile.ZipFile(sys.argv[1], \"w\", allowZip64=True) as z:\n"
			 "    with z.open(\"big.bin\", \"w\", force_zip64=True) as f:\n"
			 "        f.write(bytes(range(256)) * 40)\n"
			 "    z.writestr(\"lzma.txt\", \"powerpin \" * 3000, compress_type=zipfile.ZIP_LZMA)\n"
			 "    z.writestr(\"bz2.txt\", \"pinlist \" * 3000, compress_type=zipfile.ZIP_BZIP2)\n"
			 "    z.writestr(\"deflate.txt\", \"zip \" * 3000, compress_type=zipfile.ZIP_DEFLATED)\n"
			 "' %s", p));
	ASSERT_EQ(0, sh("%s file %s --zip --json > %s/json 2>%s/log", bin(), p, self->dir, self->dir));
	/* Python reads each local header itself for the data offset */
	EXPECT_EQ(0, sh("python3 -c '\n"
			 "import json, struct, sys, zipfile\n"
			 "d = json.load(open(sys.argv[2]))\n"
			 "raw = open(sys.argv[1], \"rb\").read()\n"
			 "got = {e[\"name\"]: e for e in d[\"entries\"]}\n"
			 "infos = zipfile.ZipFile(sys.argv[1]).infolist()\n"
			 "assert len(infos) == len(got) == 4, got\n"
			 "for i in infos:\n"
			 "    n, m = struct.unpack(\"<HH\", raw[i.header_offset + 26:i.header_offset + 30])\n"
			 "    e = got[i.filename]\n"
			 "    assert e[\"data_offset\"] == i.header_offset + 30 + n + m, (e, i)\n"
			 "    assert e[\"compressed_size\"] == i.compress_size, (e, i)\n"
			 "    assert e[\"uncompressed_size\"] == i.file_size, (e, i)\n"
			 "    assert e[\"method\"] == i.compress_type, (e, i)\n"
			 "' %s %s/json", p, self->dir));
}

/* Each damaged archive is a clear error and exit status 1. */
TEST_F(zip, damaged_directories_and_data_are_errors)
{
	struct hand_entry e[] = {
		{ .name = "one.bin", .size = 6000, .crc = 1, .local_crc = 1 },
		{ .name = "two.bin", .size = 9000, .crc = 2, .local_crc = 2 },
	};
	struct hand_zip hz;
	char p[160], q[160];
	uint8_t *buf;
	FILE *fp;
	int k;

	snprintf(p, sizeof(p), "%s/damaged.apk", self->dir);
	snprintf(q, sizeof(q), "%s/cut.apk", self->dir);

	/* the central directory offset points past the end of the file */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 0, &hz));
	ASSERT_EQ(0, patch32(p, hz.size - 6, hz.size + 1000));
	EXPECT_TRUE(cli_refuses(self->dir, p, "is beyond the end of the file"));

	/* an entry's data runs past the end of the file */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 0, &hz));
	ASSERT_EQ(0, patch32(p, hz.cd_offset + 46 + 7 + 20, 1U << 30));
	EXPECT_TRUE(cli_refuses(self->dir, p, "entry 'two.bin': data (1073741824 bytes at"));
	EXPECT_TRUE(cli_refuses(self->dir, p, "runs past the end of the file"));

	/*
	 * Truncated in the middle of the last entry's data, the directory and
	 * end record intact behind it (the end record's offset fixed up): the
	 * entry's data runs into the central directory, or past the end of
	 * the file when more was cut than the directory and end record hold.
	 */
	for (k = 0; k < 2; k++) {
		const uint64_t cut = k ? 1000 : 100;

		ASSERT_EQ(0, hand_zip(p, e, 2, 0, 0, &hz));
		ASSERT_GT(1000, hz.size - hz.cd_offset);
		ASSERT_LT(100, hz.size - hz.cd_offset);
		buf = malloc(hz.size);
		fp = fopen(p, "rb");
		ASSERT_NE(NULL, fp);
		ASSERT_EQ(hz.size, fread(buf, 1, hz.size, fp));
		fclose(fp);
		fp = fopen(q, "wb");
		ASSERT_NE(NULL, fp);
		ASSERT_EQ(hz.cd_offset - cut, fwrite(buf, 1, hz.cd_offset - cut, fp));
		ASSERT_EQ(hz.size - hz.cd_offset,
			  fwrite(buf + hz.cd_offset, 1, hz.size - hz.cd_offset, fp));
		fclose(fp);
		free(buf);
		ASSERT_EQ(0, patch32(q, hz.size - cut - 6, hz.cd_offset - cut));
		EXPECT_TRUE(cli_refuses(self->dir, q, "entry 'two.bin': data (9000 bytes at"));
		EXPECT_TRUE(cli_refuses(self->dir, q, k ? "runs past the end of the file" :
						       "runs into the central directory"));
		/* the same cut, the offset not fixed: no directory where it says */
		ASSERT_EQ(0, patch32(q, hz.size - cut - 6, hz.cd_offset));
		EXPECT_TRUE(cli_refuses(self->dir, q, k ? "is beyond the end of the file" :
						       "does not end before its end record"));
	}

	/* the end record lists more entries than the directory holds */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 0, &hz));
	ASSERT_EQ(0, patch(p, hz.size - 14, "\003\000\003\000", 4));
	EXPECT_TRUE(cli_refuses(self->dir, p, "central directory ends after 2 of its 3 entries"));

	/* a local header offset past the end of the file */
	ASSERT_EQ(0, hand_zip(p, e, 2, 0, 0, &hz));
	ASSERT_EQ(0, patch32(p, hz.cd_offset + 42, 0x7fffffff));
	EXPECT_TRUE(cli_refuses(self->dir, p, "entry 'one.bin': bad local header"));
}

TEST_HARNESS_MAIN
