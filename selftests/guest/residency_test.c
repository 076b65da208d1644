// SPDX-License-Identifier: GPL-2.0
/*
 * POWERPIN_IOC_RESIDENCY against mincore() and cachestat(), page for page,
 * plus the permission rule, every documented errno and a truncate race.
 * Runs in the guest as root with powerpin.ko loaded and /mnt/disk on ext4.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/powerpin.h>

#include "guest_harness.h"

#include "sampler_helpers.h"
#include "tiny_fuse.h"

#define DISK_DIR	"/mnt/disk"
#define NOBODY_UID	65534
#define NOBODY_GID	65534

/* cachestat(2): in Linux 6.5+, not in Debian 12's glibc. */
#define NR_CACHESTAT	451
struct cs_range {
	uint64_t off;
	uint64_t len;
};

struct cs_stat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

static long page_size;

static int cachestat(int fd, uint64_t off, uint64_t len, struct cs_stat *cs)
{
	struct cs_range r = { off, len };

	return syscall(NR_CACHESTAT, fd, &r, cs, 0);
}

/* One ioctl; 0 or -errno.  @r comes back filled in. */
static int query(int dev, int fd, unsigned int mode, uint64_t off, uint64_t len,
		 void *buf, uint64_t buf_len, struct powerpin_residency *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->mode = mode;
	r->fd = fd;
	r->offset = off;
	r->length = len;
	r->buf = (uintptr_t)buf;
	r->buf_len = buf_len;
	return ioctl(dev, POWERPIN_IOC_RESIDENCY, r) ? -errno : 0;
}

static int query_errno(int dev, int fd, unsigned int mode, uint64_t off,
		       uint64_t len, void *buf, uint64_t buf_len)
{
	struct powerpin_residency r;

	return query(dev, fd, mode, off, len, buf, buf_len, &r);
}

/* mincore() on a shared mapping of [off, off + len): one byte per page. */
static unsigned char *mincore_vec(int fd, uint64_t off, uint64_t len, size_t *npages)
{
	size_t n = (len + page_size - 1) / page_size;
	unsigned char *vec = calloc(n ? n : 1, 1);
	void *map;

	*npages = n;
	if (!vec || !n)
		return vec;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	if (map == MAP_FAILED) {
		free(vec);
		return NULL;
	}
	if (mincore(map, len, vec)) {
		free(vec);
		vec = NULL;
	}
	munmap(map, len);
	return vec;
}

static bool bit_is_set(const unsigned char *bits, size_t i)
{
	return bits[i / 8] & (1u << (i % 8));
}

static void fill_file(int fd, size_t bytes)
{
	char *chunk = malloc(1 << 20);
	size_t done = 0;

	memset(chunk, 0x5a, 1 << 20);
	while (done < bytes) {
		size_t n = bytes - done < (1u << 20) ? bytes - done : (1u << 20);
		ssize_t w = pwrite(fd, chunk, n, done);

		if (w <= 0)
			break;
		done += w;
	}
	free(chunk);
}

/* Residency as runs of whole pages, from a per-page truth vector. */
static size_t vec_to_runs(const unsigned char *vec, size_t n, uint64_t base,
			  struct powerpin_run *runs)
{
	size_t i, nr = 0;

	for (i = 0; i < n; i++) {
		if (!(vec[i] & 1))
			continue;
		if (nr && runs[nr - 1].offset + runs[nr - 1].length ==
			  base + i * page_size)
			runs[nr - 1].length += page_size;
		else
			runs[nr++] = (struct powerpin_run){ base + i * page_size, page_size };
	}
	return nr;
}

/* All runs of a range, resuming with the cursor, @per_call runs at a time. */
static ssize_t all_runs(int dev, int fd, uint64_t off, uint64_t len,
			size_t per_call, struct powerpin_run *out, size_t max,
			int *calls)
{
	struct powerpin_run *buf = calloc(per_call, sizeof(*buf));
	struct powerpin_residency r;
	uint64_t cursor = 0;
	size_t nr = 0;

	*calls = 0;
	do {
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.mode = POWERPIN_RES_RUNS;
		r.fd = fd;
		r.offset = off;
		r.length = len;
		r.buf = (uintptr_t)buf;
		r.buf_len = per_call * sizeof(*buf);
		r.cursor = cursor;
		if (ioctl(dev, POWERPIN_IOC_RESIDENCY, &r) || r.nr_runs > per_call ||
		    nr + r.nr_runs > max || ++*calls > 1000000) {
			free(buf);
			return -1;
		}
		memcpy(out + nr, buf, r.nr_runs * sizeof(*buf));
		nr += r.nr_runs;
		cursor = r.cursor;
	} while (cursor);
	free(buf);
	return nr;
}

/* ---- block-backed file on /mnt/disk ------------------------------------ */

#define DISK_PAGES	2048		/* 8 MiB with 4 KiB pages */
#define DISK_TAIL	100		/* the last page is partial */


/* Whether the kernel knows file system @type (/proc/filesystems). */
static int filesystem_known(const char *type)
{
	char line[128], *name;
	int found = 0;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, '\t');
		found = !strcmp(name ? name + 1 : line, type);
	}
	fclose(f);
	return found;
}

FIXTURE(disk) {
	int dev;
	int fd;
	char path[64];
	size_t size;
	size_t pages;
};

FIXTURE_SETUP(disk)
{
	unsigned int i;
	char *buf;

	page_size = sysconf(_SC_PAGESIZE);
	self->dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, self->dev) TH_LOG("open %s: %s", POWERPIN_DEVICE, strerror(errno));
	strcpy(self->path, DISK_DIR "/residency.XXXXXX");
	self->fd = mkstemp(self->path);
	ASSERT_LE(0, self->fd) TH_LOG("mkstemp in %s: %s", DISK_DIR, strerror(errno));
	self->size = DISK_PAGES * page_size + DISK_TAIL;
	self->pages = DISK_PAGES + 1;
	/*
	 * A sparse file with random ranges written: what was written is
	 * cached, the holes never were.  (Evicting random ranges of a cached
	 * file does not make holes on every kernel: a DONTNEED of part of a
	 * large folio evicts nothing, and ext4 has large folios since 6.16.)
	 * A fixed seed keeps failures reproducible.
	 */
	ASSERT_EQ(0, ftruncate(self->fd, self->size));
	buf = calloc(64, page_size);
	ASSERT_NE(NULL, buf);
	srandom(4);
	for (i = 0; i < 40; i++) {
		off_t first = random() % self->pages;
		off_t n = 1 + random() % 64;
		off_t len = n * page_size;

		if (len > (off_t)self->size - first * (off_t)page_size)
			len = self->size - first * page_size;
		memset(buf, i + 1, len);
		ASSERT_EQ(len, pwrite(self->fd, buf, len, first * page_size));
	}
	/*
	 * The partial last page is always written: 3.10's ext4 truncate zeroes
	 * the block tail at EOF through a page it adds to the cache and, over a
	 * hole, leaves it there unread.  Such a page is in the page cache (the
	 * ioctl counts it, as cachestat() does) but not up to date, which
	 * mincore() reports as absent.
	 */
	memset(buf, 0x55, DISK_TAIL);
	ASSERT_EQ(DISK_TAIL, pwrite(self->fd, buf, DISK_TAIL, DISK_PAGES * page_size));
	free(buf);
	ASSERT_EQ(0, fsync(self->fd));
}

FIXTURE_TEARDOWN(disk)
{
	unlink(self->path);
	close(self->fd);
	close(self->dev);
}

/* Ranges checked page for page: whole file, middles, tails, single pages. */
static const struct { uint64_t off_pages, len_bytes; } disk_ranges[] = {
	{ 0, 0 }, { 0, 1 }, { 3, 4096 * 5 + 1 }, { 100, 4096 * 1000 },
	{ 1500, 0 }, { DISK_PAGES, 0 }, { DISK_PAGES - 1, 1 << 30 },
};

TEST_F(disk, bitmap_equals_mincore)
{
	unsigned char *bits = malloc(self->pages / 8 + 1);
	unsigned int k;

	for (k = 0; k < sizeof(disk_ranges) / sizeof(disk_ranges[0]); k++) {
		uint64_t off = disk_ranges[k].off_pages * page_size;
		uint64_t len = disk_ranges[k].len_bytes;
		uint64_t end = len && off + len < self->size ? off + len : self->size;
		struct powerpin_residency r;
		size_t n, i, resident = 0;
		unsigned char *vec;

		memset(bits, 0xff, self->pages / 8 + 1);
		ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_BITMAP, off,
				   len, bits, self->pages / 8 + 1, &r));
		vec = mincore_vec(self->fd, off, end - off, &n);
		ASSERT_NE(NULL, vec);
		ASSERT_EQ(n, r.nr_pages) TH_LOG("range %u", k);
		ASSERT_EQ(self->size, r.file_size);
		for (i = 0; i < n; i++) {
			ASSERT_EQ(vec[i] & 1, bit_is_set(bits, i))
				TH_LOG("range %u page %zu", k, i);
			resident += vec[i] & 1;
		}
		/* bits past the range are cleared */
		for (; i % 8; i++)
			ASSERT_FALSE(bit_is_set(bits, i));
		ASSERT_EQ(resident, r.nr_resident);
		ASSERT_EQ(0U, r.nr_dirty);
		free(vec);
	}
	free(bits);
}

TEST_F(disk, runs_equal_mincore)
{
	static const size_t per_call[] = { 1, 3, 4096 };
	struct powerpin_run *want = calloc(self->pages, sizeof(*want));
	struct powerpin_run *got = calloc(self->pages, sizeof(*got));
	unsigned int k, p;
	size_t n;
	unsigned char *vec = mincore_vec(self->fd, 0, self->size, &n);

	/* the fixture's random writes must leave several runs to compare */
	ASSERT_NE(NULL, vec);
	ASSERT_LT(3U, vec_to_runs(vec, n, 0, want));
	free(vec);
	for (k = 0; k < sizeof(disk_ranges) / sizeof(disk_ranges[0]); k++) {
		uint64_t off = disk_ranges[k].off_pages * page_size;
		uint64_t len = disk_ranges[k].len_bytes;
		uint64_t end = len && off + len < self->size ? off + len : self->size;
		ssize_t nwant;

		vec = mincore_vec(self->fd, off, end - off, &n);
		ASSERT_NE(NULL, vec);
		nwant = vec_to_runs(vec, n, off, want);
		free(vec);
		for (p = 0; p < 3; p++) {
			int calls;
			ssize_t ngot = all_runs(self->dev, self->fd, off, len,
						per_call[p], got, self->pages, &calls);

			ASSERT_EQ(nwant, ngot) TH_LOG("range %u, %zu per call", k, per_call[p]);
			ASSERT_EQ(0, memcmp(want, got, nwant * sizeof(*got)));
			if (per_call[p] == 1 && nwant > 1)
				ASSERT_EQ(nwant, calls);
		}
	}
	free(want);
	free(got);
}

/* Counts of a runs call that stops early describe the part it walked. */
TEST_F(disk, runs_cursor_counts)
{
	struct powerpin_run run;
	struct powerpin_residency r, whole;
	uint64_t resident = 0, pages = 0, cursor = 0;

	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &whole));
	do {
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.mode = POWERPIN_RES_RUNS;
		r.fd = self->fd;
		r.buf = (uintptr_t)&run;
		r.buf_len = sizeof(run);
		r.cursor = cursor;
		ASSERT_EQ(0, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &r));
		ASSERT_GE(1U, r.nr_runs);
		if (r.cursor)
			ASSERT_EQ(0U, r.cursor % page_size);
		if (r.nr_runs)
			ASSERT_EQ(run.length / page_size, r.nr_resident);
		resident += r.nr_resident;
		pages += r.nr_pages;
		cursor = r.cursor;
	} while (cursor);
	ASSERT_EQ(whole.nr_resident, resident);
	ASSERT_EQ(self->pages, pages);
}

TEST_F(disk, counts_equal_cachestat)
{
	static const struct { uint64_t off, len; } ranges[] = {
		{ 0, 0 }, { 4096, 4096 * 300 }, { 4096 * 1024, 0 }, { 4096 * 7, 1 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++) {
		struct powerpin_residency r;
		struct cs_stat cs;

		if (cachestat(self->fd, ranges[k].off, ranges[k].len, &cs)) {
			ASSERT_EQ(ENOSYS, errno);
			SKIP(return, "cachestat() is not in this kernel (6.5+)");
		}
		ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS,
				   ranges[k].off, ranges[k].len, NULL, 0, &r));
		ASSERT_EQ(cs.nr_cache, r.nr_resident) TH_LOG("range %u", k);
		ASSERT_EQ(cs.nr_dirty, r.nr_dirty);
		ASSERT_EQ(cs.nr_writeback, r.nr_writeback);
		ASSERT_EQ(cs.nr_evicted, r.nr_evicted);
	}
}

/* A query over a file with nothing cached and an empty file. */
TEST_F(disk, empty_and_evicted)
{
	struct powerpin_residency r;
	unsigned char bits[8];

	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	ASSERT_EQ(self->pages, r.nr_pages);
	ASSERT_EQ(0U, r.nr_resident);

	ASSERT_EQ(0, ftruncate(self->fd, 0));
	memset(bits, 0xff, sizeof(bits));
	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_BITMAP, 0, 0, bits, 1, &r));
	ASSERT_EQ(0U, r.nr_pages);
	ASSERT_EQ(0U, r.file_size);
	ASSERT_EQ(0xff, bits[0]);	/* nothing written for an empty range */
}

struct page_span {
	size_t first, nr;
};

/*
 * Map @pages pages of @fd, fault each in once, and reclaim the @n spans
 * with MADV_PAGEOUT.  Reclaim (unlike fadvise(DONTNEED) or truncate) leaves
 * a workingset shadow entry where each clean page was.
 */
static int page_out(int fd, size_t pages, const struct page_span *span, size_t n)
{
	volatile char *map;
	size_t i;
	int ret = 0;

	map = mmap(NULL, pages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	for (i = 0; i < pages; i++)
		(void)map[i * page_size];
	for (i = 0; i < n && !ret; i++)
		ret = madvise((void *)(map + span[i].first * page_size),
			      span[i].nr * page_size, MADV_PAGEOUT);
	munmap((void *)map, pages * page_size);
	return ret;
}

/*
 * Evicted pages (shadow entries) are counted in nr_evicted, never as
 * resident: not in the bits, not in the runs; cachestat agrees where it
 * exists.  A 256-page file covers the leaf-node scan; a one-page file keeps
 * its only entry in the xarray's head, the other path through the walk.
 */
TEST_F(disk, shadow_entries_are_evicted_not_resident)
{
	static const struct page_span out[] = {
		{ 0, 3 }, { 16, 32 }, { 100, 1 }, { 130, 60 }, { 250, 6 },
	};
	static const struct page_span one_page = { 0, 1 };
	const size_t pages = 256;
	struct powerpin_run *want = calloc(pages, sizeof(*want));
	struct powerpin_run *got = calloc(pages, sizeof(*got));
	unsigned char bits[pages / 8];
	struct powerpin_residency r;
	size_t n, i, resident = 0, nwant;
	unsigned char *vec;
	struct cs_stat cs;
	int calls, one;
	char path[64];

	ASSERT_EQ(0, ftruncate(self->fd, 0));
	fill_file(self->fd, pages * page_size);
	ASSERT_EQ(0, fsync(self->fd));
	if (page_out(self->fd, pages, out, sizeof(out) / sizeof(out[0])) && errno == EINVAL)
		SKIP(return, "no MADV_PAGEOUT in this kernel (5.4+)");
	ASSERT_EQ(0, page_out(self->fd, pages, out, sizeof(out) / sizeof(out[0])))
		TH_LOG("madvise(MADV_PAGEOUT): %s", strerror(errno));

	vec = mincore_vec(self->fd, 0, pages * page_size, &n);
	ASSERT_NE(NULL, vec);
	for (i = 0; i < n; i++)
		resident += vec[i] & 1;
	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	TH_LOG("%zu pages: %llu resident, %llu evicted (shadow entries)", pages,
	       (unsigned long long)r.nr_resident, (unsigned long long)r.nr_evicted);
	if (!r.nr_evicted && resident == pages)
		SKIP(free(vec); return, "MADV_PAGEOUT reclaimed nothing on this kernel");
	ASSERT_LT(0U, r.nr_evicted);
	EXPECT_EQ(resident, r.nr_resident);
	/* every page is either cached or a shadow of one that was */
	EXPECT_EQ(pages, r.nr_resident + r.nr_evicted);
	EXPECT_EQ(0U, r.nr_dirty);
	if (!cachestat(self->fd, 0, 0, &cs)) {
		EXPECT_EQ(cs.nr_cache, r.nr_resident);
		EXPECT_EQ(cs.nr_evicted, r.nr_evicted);
	} else {
		EXPECT_EQ(ENOSYS, errno);
	}

	/* bits and runs show the resident pages only */
	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_BITMAP, 0, 0, bits,
			   sizeof(bits), &r));
	for (i = 0; i < n; i++)
		EXPECT_EQ(vec[i] & 1, bit_is_set(bits, i)) TH_LOG("page %zu", i);
	EXPECT_LT(0U, r.nr_evicted);
	nwant = vec_to_runs(vec, n, 0, want);
	EXPECT_EQ((ssize_t)nwant, all_runs(self->dev, self->fd, 0, 0, 2, got, pages, &calls));
	EXPECT_EQ(0, memcmp(want, got, nwant * sizeof(*got)));
	free(vec);

	/* a one-page file, paged out */
	strcpy(path, DISK_DIR "/residency-one.XXXXXX");
	one = mkstemp(path);
	ASSERT_LE(0, one);
	unlink(path);
	fill_file(one, page_size);
	ASSERT_EQ(0, fsync(one));
	ASSERT_EQ(0, page_out(one, 1, &one_page, 1));
	vec = mincore_vec(one, 0, page_size, &n);
	ASSERT_NE(NULL, vec);
	ASSERT_EQ(0, query(self->dev, one, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(1U, r.nr_pages);
	EXPECT_EQ((uint64_t)(vec[0] & 1), r.nr_resident);
	EXPECT_EQ(1U, r.nr_resident + r.nr_evicted);
	if (!cachestat(one, 0, 0, &cs))
		EXPECT_EQ(cs.nr_evicted, r.nr_evicted);
	ASSERT_EQ(0, query(self->dev, one, POWERPIN_RES_RUNS, 0, 0, got,
			   pages * sizeof(*got), &r));
	EXPECT_EQ((uint64_t)(vec[0] & 1), r.nr_runs);
	free(vec);
	close(one);
	free(want);
	free(got);
}

/* A 1 TiB sparse file with three pages: exact answers, in one call each. */
TEST_F(disk, sparse_1tib)
{
	const uint64_t tib = 1ULL << 40, mid = tib / 2;
	char *page = malloc(page_size);
	unsigned char *bits = calloc(1, 32768);
	struct powerpin_run runs[4];
	struct powerpin_residency r;
	size_t i, set = 0;

	ASSERT_EQ(0, ftruncate(self->fd, 0));
	ASSERT_EQ(0, ftruncate(self->fd, tib));
	memset(page, 1, page_size);
	ASSERT_EQ(page_size, pwrite(self->fd, page, page_size, 0));
	ASSERT_EQ(page_size, pwrite(self->fd, page, page_size, mid));
	ASSERT_EQ(page_size, pwrite(self->fd, page, page_size, tib - page_size));

	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	ASSERT_EQ(tib / page_size, r.nr_pages);
	ASSERT_EQ(3U, r.nr_resident);
	ASSERT_EQ(3U, r.nr_dirty + r.nr_writeback);

	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_RUNS, 0, 0, runs,
			   sizeof(runs), &r));
	ASSERT_EQ(3U, r.nr_runs);
	ASSERT_EQ(0U, r.cursor);
	ASSERT_EQ(0U, runs[0].offset);
	ASSERT_EQ(mid, runs[1].offset);
	ASSERT_EQ(tib - page_size, runs[2].offset);
	for (i = 0; i < 3; i++)
		ASSERT_EQ((uint64_t)page_size, runs[i].length);

	/* a 1 GiB window around the middle page: one bit, in the right place */
	ASSERT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_BITMAP, mid - (1 << 29),
			   1 << 30, bits, 32768, &r));
	ASSERT_EQ((uint64_t)(1U << 30) / page_size, r.nr_pages);
	ASSERT_EQ(1U, r.nr_resident);
	for (i = 0; i < r.nr_pages; i++)
		set += bit_is_set(bits, i);
	ASSERT_EQ(1U, set);
	ASSERT_TRUE(bit_is_set(bits, (1 << 29) / page_size));
	free(bits);
	free(page);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Grow @fd to the largest size ftruncate() accepts (found by bisection:
 * 2^63 - 1 on 64-bit kernels, MAX_LFS_FILESIZE, (2^32 - 1) pages, on
 * 32-bit ones) and return it, or 0 if a refusal was not EFBIG.
 */
static uint64_t grow_to_largest(int fd)
{
	uint64_t ok = 0, refused = INT64_MAX, mid;

	if (!ftruncate(fd, INT64_MAX))
		return INT64_MAX;
	while (refused - ok > 1) {
		mid = ok + (refused - ok) / 2;
		if (!ftruncate(fd, mid))
			ok = mid;
		else if (errno == EFBIG)
			refused = mid;
		else
			return 0;
	}
	return ftruncate(fd, ok) ? 0 : ok;
}

/*
 * A tmpfs file as large as tmpfs allows (2^63 - 1 bytes, 2^51 pages; on a
 * 32-bit kernel 2^32 - 1 pages, the last at the top of its page index)
 * with three pages written: the walk goes from entry to entry, so the
 * empty space costs nothing and every mode answers at once.  The times are
 * only logged; what is asserted is the answer.
 */
TEST(sparse_tmpfs_largest_file)
{
	char dir[] = "/tmp/residency-sparse.XXXXXX", path[64];
	struct powerpin_run runs[4];
	struct powerpin_residency r;
	unsigned char bits[4096];
	uint64_t size, last, mid, pages, cursor;
	int dev, fd, calls;
	double t0;
	char c = 1;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", 0, "size=64m"));
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	size = grow_to_largest(fd);
	ASSERT_NE((uint64_t)0, size);
	pages = (size + page_size - 1) / page_size;
	last = (pages - 1) * page_size;
	mid = (pages / 3) * page_size;
	TH_LOG("largest tmpfs file: %llu bytes, %llu pages", (unsigned long long)size,
	       (unsigned long long)pages);
	ASSERT_EQ(1, pwrite(fd, &c, 1, 0));
	ASSERT_EQ(1, pwrite(fd, &c, 1, mid));
	ASSERT_EQ(1, pwrite(fd, &c, 1, size - 1));

	t0 = now_s();
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	TH_LOG("counts over %llu pages: %.3f s", (unsigned long long)pages, now_s() - t0);
	EXPECT_EQ(pages, r.nr_pages);
	EXPECT_EQ(3U, r.nr_resident);
	EXPECT_EQ(0U, r.nr_evicted);
	EXPECT_EQ(size, r.file_size);

	t0 = now_s();
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_RUNS, 0, 0, runs, sizeof(runs), &r));
	TH_LOG("runs over %llu pages: %.3f s", (unsigned long long)pages, now_s() - t0);
	ASSERT_EQ(3U, r.nr_runs);
	EXPECT_EQ(0U, r.cursor);
	EXPECT_EQ(pages, r.nr_pages);
	EXPECT_EQ(0U, runs[0].offset);
	EXPECT_EQ(mid, runs[1].offset);
	EXPECT_EQ(last, runs[2].offset);

	/* one run per call: the cursor jumps over the empty space too */
	t0 = now_s();
	ASSERT_EQ(3, all_runs(dev, fd, 0, 0, 1, runs, 4, &calls));
	TH_LOG("runs one per call: %d calls, %.3f s", calls, now_s() - t0);
	EXPECT_EQ(3, calls);
	EXPECT_EQ(last, runs[2].offset);

	/* from just past the middle page: only the last one */
	cursor = mid + page_size;
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, cursor, 0, NULL, 0, &r));
	EXPECT_EQ(pages - cursor / page_size, r.nr_pages);
	EXPECT_EQ(1U, r.nr_resident);

	/* bitmap: the last 32768 pages, the last bit set */
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_BITMAP, (pages - 32768) * page_size, 0,
			   bits, sizeof(bits), &r));
	EXPECT_EQ(32768U, r.nr_pages);
	EXPECT_EQ(1U, r.nr_resident);
	EXPECT_TRUE(bit_is_set(bits, 32767));

	close(fd);
	EXPECT_EQ(0, umount(dir));
	rmdir(dir);
	close(dev);
}

/* Read a /proc/sys value into @buf (trailing newline kept); 0 or -1. */
static int sysctl_get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int sysctl_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

#define VM_WB_CENTISECS		"/proc/sys/vm/dirty_writeback_centisecs"
#define VM_EXPIRE_CENTISECS	"/proc/sys/vm/dirty_expire_centisecs"

/*
 * Dirty pages stay dirty until something writes them back.  The flusher's
 * periodic pass (dirty_writeback_centisecs) is switched off and the expiry
 * pushed out for the test, so the counts right after the writes are exact;
 * the old values are put back at the end.
 */
TEST_F(disk, dirty_then_clean)
{
	const size_t n = 64;
	char wb_old[32], expire_old[32];
	struct powerpin_residency r;
	struct cs_stat cs;
	char *page = malloc(page_size);
	bool have_cs;
	size_t i;

	ASSERT_EQ(0, sysctl_get(VM_WB_CENTISECS, wb_old, sizeof(wb_old)));
	ASSERT_EQ(0, sysctl_get(VM_EXPIRE_CENTISECS, expire_old, sizeof(expire_old)));
	ASSERT_EQ(0, sysctl_set(VM_WB_CENTISECS, "0"));
	ASSERT_EQ(0, sysctl_set(VM_EXPIRE_CENTISECS, "360000"));

	/* from here on EXPECT, so the settings are always put back */
	EXPECT_EQ(0, ftruncate(self->fd, 0));
	memset(page, 0xa5, page_size);
	for (i = 0; i < n; i++)
		EXPECT_EQ(page_size, pwrite(self->fd, page, page_size, (i * 2) * page_size));
	/* 64 dirty pages with holes between them; nothing is written back yet */
	EXPECT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	have_cs = !cachestat(self->fd, 0, 0, &cs);
	EXPECT_EQ(2 * n - 1, r.nr_pages);
	EXPECT_EQ(n, r.nr_resident);
	EXPECT_EQ(n, r.nr_dirty);
	EXPECT_EQ(0U, r.nr_writeback);
	if (have_cs) {
		EXPECT_EQ(cs.nr_cache, r.nr_resident);
		EXPECT_EQ(cs.nr_dirty, r.nr_dirty);
		EXPECT_EQ(cs.nr_writeback, r.nr_writeback);
	}

	/*
	 * Start writeback without waiting: every dirty page is either under
	 * writeback or already clean when the call returns.
	 */
	EXPECT_EQ(0, sync_file_range(self->fd, 0, 0, SYNC_FILE_RANGE_WRITE));
	EXPECT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(n, r.nr_resident);
	EXPECT_EQ(0U, r.nr_dirty);
	EXPECT_GE(n, r.nr_writeback);
	TH_LOG("after sync_file_range: dirty %llu writeback %llu",
	       (unsigned long long)r.nr_dirty, (unsigned long long)r.nr_writeback);

	EXPECT_EQ(0, fsync(self->fd));
	EXPECT_EQ(0, query(self->dev, self->fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(n, r.nr_resident);
	EXPECT_EQ(0U, r.nr_dirty);
	EXPECT_EQ(0U, r.nr_writeback);

	EXPECT_EQ(0, sysctl_set(VM_WB_CENTISECS, wb_old));
	EXPECT_EQ(0, sysctl_set(VM_EXPIRE_CENTISECS, expire_old));
	free(page);
}

/* ---- tmpfs with huge pages ---------------------------------------------- */

/* A /proc/vmstat counter, or -1 */
static long vmstat_count(const char *key)
{
	char name[64];
	long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			found = v;
	fclose(f);
	return found;
}

static long meminfo_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

TEST(huge_tmpfs_counts_per_page)
{
	char dir[] = "/tmp/residency-huge.XXXXXX", path[64];
	const size_t huge = 2 << 20, size = 4 * huge;
	long before, after, alloc_before, alloc_after;
	int dev, fd;
	size_t n, i;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	ASSERT_NE(NULL, mkdtemp(dir));
	if (mount("tmpfs", dir, "tmpfs", 0, "huge=always,size=64m")) {
		rmdir(dir);
		SKIP(return, "tmpfs huge=always: %s", strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	before = meminfo_kb("ShmemHugePages");
	alloc_before = vmstat_count("thp_file_alloc");
	fill_file(fd, size);
	/*
	 * Where the kernel counts ShmemHugePages in huge pages (5.4; later
	 * ones count their pages), these few stay in the per-CPU deltas
	 * until vmstat folds them (vm.stat_interval, 1 s): give it that long.
	 */
	for (i = 0; i < 30; i++) {
		after = meminfo_kb("ShmemHugePages");
		if (after - before >= (long)(size / 2 / 1024))
			break;
		usleep(100000);
	}
	alloc_after = vmstat_count("thp_file_alloc");
	/*
	 * Huge pages came when ShmemHugePages grew, or where it stays at 0
	 * (5.10), when thp_file_alloc counted them.
	 */
	if (after - before < (long)(size / 2 / 1024) &&
	    alloc_after - alloc_before < (long)(size / huge)) {
		bool thp = !access("/sys/kernel/mm/transparent_hugepage/shmem_enabled", F_OK);

		close(fd);
		umount(dir);
		rmdir(dir);
		/* every guest kernel has THP for shmem: not getting it is a bug */
		ASSERT_FALSE(thp) TH_LOG("huge=always tmpfs got no huge pages (ShmemHugePages %ld -> %ld kB)",
					 before, after);
		SKIP(return, "kernel without transparent huge pages (ShmemHugePages %ld -> %ld kB)",
		     before, after);
	}

	/* ranges that start and end inside huge folios count only their pages */
	{
		static const struct { size_t off, len; } ranges[] = {
			{ 0, 0 }, { 4096, 4096 }, { (1 << 20) + 4096, 3 << 20 },
			{ (2 << 20) - 4096, 8192 }, { (6 << 20) + 8192, 0 },
		};
		unsigned char bits[1024];

		for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
			size_t off = ranges[i].off, len = ranges[i].len;
			size_t want = ((len ? off + len : size) - off) / page_size;
			struct powerpin_residency r;
			unsigned char *vec;
			size_t p;

			ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_BITMAP, off, len,
					   bits, sizeof(bits), &r));
			ASSERT_EQ(want, r.nr_pages) TH_LOG("range %zu", i);
			ASSERT_EQ(want, r.nr_resident) TH_LOG("range %zu", i);
			vec = mincore_vec(fd, off, want * page_size, &n);
			ASSERT_NE(NULL, vec);
			for (p = 0; p < n; p++)
				ASSERT_EQ(vec[p] & 1, bit_is_set(bits, p));
			free(vec);
		}
	}

	/* a hole punched into one huge folio shows up page for page */
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       huge + 4 * page_size, 2 * page_size));
	{
		struct powerpin_run runs[8], want[8];
		struct powerpin_residency r;
		unsigned char *vec = mincore_vec(fd, 0, size, &n);
		size_t nwant;

		ASSERT_NE(NULL, vec);
		nwant = vec_to_runs(vec, n, 0, want);
		free(vec);
		ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_RUNS, 0, 0, runs,
				   sizeof(runs), &r));
		ASSERT_EQ(nwant, r.nr_runs);
		ASSERT_EQ(0, memcmp(want, runs, nwant * sizeof(runs[0])));
		/* the folio is split when it can be; it may also stay whole */
		TH_LOG("after punching 2 pages: %zu runs, %llu resident", nwant,
		       (unsigned long long)r.nr_resident);
	}
	close(fd);
	umount(dir);
	rmdir(dir);
	close(dev);
}

/*
 * hugetlbfs indexes its cache in huge pages: the ioctl refuses it, empty or
 * with a huge page cached (one is reserved through nr_hugepages for that).
 */
TEST(hugetlbfs_is_refused)
{
	const long huge = meminfo_kb("Hugepagesize") * 1024;
	struct powerpin_run run;
	char nr_old[32];
	int dev, fd, ret;

	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	fd = memfd_create("residency-huge", MFD_HUGETLB);
	if (fd < 0) {
		close(dev);
		SKIP(return, "memfd_create(MFD_HUGETLB): %s: no hugetlbfs in this kernel",
		     strerror(errno));
	}
	EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));

	ASSERT_LT(0, huge);
	ASSERT_EQ(0, sysctl_get("/proc/sys/vm/nr_hugepages", nr_old, sizeof(nr_old)));
	ASSERT_EQ(0, sysctl_set("/proc/sys/vm/nr_hugepages", "1"));
	ret = fallocate(fd, 0, 0, huge) ? -errno : 0;
	EXPECT_EQ(0, ret) TH_LOG("fallocate of one %ld kB huge page: %s", huge / 1024,
				 strerror(-ret));
	if (!ret) {
		EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, fd, POWERPIN_RES_COUNTS, 0, 0,
						   NULL, 0));
		EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, fd, POWERPIN_RES_RUNS, 0, 0,
						   &run, sizeof(run)));
	}
	close(fd);
	EXPECT_EQ(0, sysctl_set("/proc/sys/vm/nr_hugepages", nr_old));
	close(dev);
}

/* ---- permissions --------------------------------------------------------- */

/*
 * As nobody (device opened up to 0666 for the test): the ioctl on a file
 * nobody owns, on root's 0644 file read-only, on root's 0666 file read-only,
 * and on root's 0600 file through an O_RDWR fd inherited from root.
 */
TEST(permissions_as_nobody)
{
	static const char *const names[] = { "own", "root0644", "root0666", "rdwr" };
	char paths[4][64];
	int fds[4], results[4], pipefd[2], status, i;
	struct stat st;
	pid_t pid;

	page_size = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, stat(POWERPIN_DEVICE, &st));
	ASSERT_EQ(0600U, st.st_mode & 0777);	/* the default mode */
	for (i = 0; i < 4; i++) {
		int fd;

		snprintf(paths[i], sizeof(paths[i]), DISK_DIR "/perm-%s.XXXXXX", names[i]);
		fd = mkstemp(paths[i]);
		ASSERT_LE(0, fd);
		fill_file(fd, 4 * page_size);
		close(fd);
	}
	ASSERT_EQ(0, chown(paths[0], NOBODY_UID, NOBODY_GID));
	ASSERT_EQ(0, chmod(paths[0], 0644));
	ASSERT_EQ(0, chmod(paths[1], 0644));
	ASSERT_EQ(0, chmod(paths[2], 0666));
	ASSERT_EQ(0, chmod(paths[3], 0600));
	fds[3] = open(paths[3], O_RDWR);
	ASSERT_LE(0, fds[3]);
	ASSERT_EQ(0, chmod(POWERPIN_DEVICE, 0666));
	ASSERT_EQ(0, pipe(pipefd));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int dev;

		if (setgroups(0, NULL) || setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
		    setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID))
			_exit(2);
		dev = open(POWERPIN_DEVICE, O_RDONLY);
		if (dev < 0)
			_exit(3);
		for (i = 0; i < 3; i++) {
			fds[i] = open(paths[i], O_RDONLY);
			if (fds[i] < 0)
				_exit(4);
		}
		for (i = 0; i < 4; i++)
			results[i] = query_errno(dev, fds[i], POWERPIN_RES_COUNTS, 0, 0, NULL, 0);
		if (write(pipefd[1], results, sizeof(results)) != sizeof(results))
			_exit(5);
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(POWERPIN_DEVICE, 0600);
	close(fds[3]);
	for (i = 0; i < 4; i++)
		unlink(paths[i]);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ((ssize_t)sizeof(results), read(pipefd[0], results, sizeof(results)));
	close(pipefd[0]);
	EXPECT_EQ(0, results[0]) TH_LOG("own file");
	EXPECT_EQ(-EPERM, results[1]) TH_LOG("root's 0644 file, read-only");
	EXPECT_EQ(0, results[2]) TH_LOG("root's 0666 file, read-only");
	EXPECT_EQ(0, results[3]) TH_LOG("root's 0600 file, O_RDWR fd");
}

/* nobody cannot open the device at its default mode */
TEST(device_mode_0600)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
		    setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID))
			_exit(2);
		_exit(open(POWERPIN_DEVICE, O_RDONLY) < 0 && errno == EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* ---- every documented errno ---------------------------------------------- */

TEST_F(disk, errnos)
{
	unsigned char bits[1024];
	struct powerpin_run runs[4];
	struct powerpin_residency r;
	int dev = self->dev, fd = self->fd, other, sv[2], p[2];
	uint64_t size = self->size;

	/* descriptors */
	EXPECT_EQ(-EBADF, query_errno(dev, -1, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	other = dup(fd);
	close(other);
	EXPECT_EQ(-EBADF, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	other = open(self->path, O_PATH);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EBADF, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);

	/* file types */
	other = open(DISK_DIR, O_RDONLY | O_DIRECTORY);
	EXPECT_EQ(-EISDIR, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);
	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(-ESPIPE, query_errno(dev, p[1], POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(p[0]);
	close(p[1]);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	EXPECT_EQ(-ESPIPE, query_errno(dev, sv[0], POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(sv[0]);
	close(sv[1]);
	other = open("/dev/null", O_RDWR);
	EXPECT_EQ(-ENODEV, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);
	EXPECT_EQ(-ENODEV, query_errno(dev, dev, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	other = open("/proc/self/status", O_RDONLY);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);
	other = open("/proc/sys/kernel/hostname", O_RDWR);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);
	/* sysfs: any attribute (a kernel may have no transparent huge pages) */
	other = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);
	if (other < 0)
		other = open("/sys/kernel/uevent_seqnum", O_RDONLY);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EOPNOTSUPP, query_errno(dev, other, POWERPIN_RES_COUNTS, 0, 0, NULL, 0));
	close(other);

	/* range */
	EXPECT_EQ(-ENXIO, query_errno(dev, fd, POWERPIN_RES_COUNTS,
				      self->pages * page_size, 0, NULL, 0));
	EXPECT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, DISK_PAGES * page_size,
			   0, NULL, 0, &r));
	EXPECT_EQ(1U, r.nr_pages);	/* the partial last page */
	EXPECT_EQ(size, r.file_size);
	EXPECT_EQ(-EOVERFLOW, query_errno(dev, fd, POWERPIN_RES_COUNTS, page_size,
					  UINT64_MAX - 10, NULL, 0));
	EXPECT_EQ(-EOVERFLOW, query_errno(dev, fd, POWERPIN_RES_COUNTS,
					  (uint64_t)INT64_MAX + 1, 0, NULL, 0));
	EXPECT_EQ(-EINVAL, query_errno(dev, fd, POWERPIN_RES_COUNTS, 1, 0, NULL, 0));
	EXPECT_EQ(-EINVAL, query_errno(dev, fd, POWERPIN_RES_COUNTS, page_size / 2,
				       page_size, NULL, 0));

	/* buffers */
	EXPECT_EQ(-ENOBUFS, query(dev, fd, POWERPIN_RES_BITMAP, 0, 0, bits,
				  self->pages / 8, &r));
	EXPECT_EQ(self->pages, r.nr_pages);	/* tells the size needed */
	EXPECT_EQ(0, query_errno(dev, fd, POWERPIN_RES_BITMAP, 0, 0, bits,
				 (self->pages + 7) / 8));
	EXPECT_EQ(-ENOBUFS, query_errno(dev, fd, POWERPIN_RES_RUNS, 0, 0, runs,
					sizeof(runs[0]) - 1));
	EXPECT_EQ(-EFAULT, query_errno(dev, fd, POWERPIN_RES_BITMAP, 0, 0, NULL,
				       sizeof(bits)));
	EXPECT_EQ(-EFAULT, query_errno(dev, fd, POWERPIN_RES_RUNS, 0, 0, NULL,
				       sizeof(runs)));
	EXPECT_EQ(-EFAULT, query_errno(dev, fd, POWERPIN_RES_BITMAP, 0, 0,
				       (void *)(uintptr_t)page_size, sizeof(bits)));
	EXPECT_EQ(-EFAULT, ioctl(dev, POWERPIN_IOC_RESIDENCY, NULL) ? -errno : 0);

	/* mode, flags, cursor */
	EXPECT_EQ(-EINVAL, query_errno(dev, fd, 3, 0, 0, bits, sizeof(bits)));
	EXPECT_EQ(-EINVAL, query_errno(dev, fd, 0xffffffff, 0, 0, bits, sizeof(bits)));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.fd = fd;
	r.flags = 1;
	EXPECT_EQ(-EINVAL, ioctl(dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.fd = fd;
	r.mode = POWERPIN_RES_RUNS;
	r.buf = (uintptr_t)runs;
	r.buf_len = sizeof(runs);
	r.offset = 2 * page_size;
	r.cursor = page_size;		/* below offset */
	EXPECT_EQ(-EINVAL, ioctl(dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);
	r.cursor = 3 * page_size + 1;	/* unaligned */
	EXPECT_EQ(-EINVAL, ioctl(dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);
	r.cursor = 1ULL << 50;		/* past the end: nothing more */
	EXPECT_EQ(0, ioctl(dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);
	EXPECT_EQ(0U, r.nr_runs);
	EXPECT_EQ(0U, r.cursor);
}

/* Older and newer callers: the struct is sized by its first field. */
TEST_F(disk, struct_size)
{
	struct {
		struct powerpin_residency r;
		uint64_t future[4];
	} big;
	struct powerpin_residency r;

	memset(&r, 0, sizeof(r));
	r.fd = self->fd;
	r.size = POWERPIN_RESIDENCY_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);
	r.size = 0;
	EXPECT_EQ(-EINVAL, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &r) ? -errno : 0);

	memset(&big, 0, sizeof(big));
	big.r.size = sizeof(big);
	big.r.fd = self->fd;
	ASSERT_EQ(0, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &big));
	EXPECT_EQ((__u32)POWERPIN_RESIDENCY_SIZE_VER0, big.r.size);	/* what the kernel filled */
	EXPECT_EQ(self->pages, big.r.nr_pages);
	EXPECT_EQ(0U, big.future[0]);
	big.r.size = sizeof(big);
	big.future[3] = 1;
	EXPECT_EQ(-E2BIG, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &big) ? -errno : 0);
	big.r.size = 2 * 4096 * 8;
	EXPECT_EQ(-E2BIG, ioctl(self->dev, POWERPIN_IOC_RESIDENCY, &big) ? -errno : 0);
}

/* ---- races ------------------------------------------------------------- */

struct race {
	char path[64];
	int fd;			/* the number other threads close and reopen */
	int dev;
	volatile bool stop;
	unsigned long queries, ok, ebadf, bad;
	char first_bad[256];	/* what the first wrong answer was */
};

static void *race_truncate(void *arg)
{
	struct race *rc = arg;
	int fd = open(rc->path, O_RDWR);
	unsigned int i = 0;

	while (!rc->stop) {
		off_t len = (off_t)(random() % 512) * page_size + random() % 4096;

		if (ftruncate(fd, len) == 0)
			fill_file(fd, len);
		if (++i % 4 == 0)
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	close(fd);
	return NULL;
}

static void *race_reopen(void *arg)
{
	struct race *rc = arg;

	while (!rc->stop) {
		int fd = open(rc->path, O_RDONLY);

		close(rc->fd);
		sched_yield();
		if (fd >= 0) {
			dup2(fd, rc->fd);
			close(fd);
		}
		usleep(100);
	}
	return NULL;
}

/*
 * Whether one answer is whole in itself, however the file changed under
 * it: every page is counted once (resident, dirty and writeback within the
 * pages walked), the bitmap has exactly nr_resident bits set, and the runs
 * are ascending, apart, inside the range and add up to nr_resident.
 */
static bool race_answer_whole(const struct powerpin_residency *r, const void *buf)
{
	const struct powerpin_run *run = buf;
	uint64_t i, bits = 0, end = 0;

	if (r->nr_resident > r->nr_pages || r->nr_dirty > r->nr_resident ||
	    r->nr_writeback > r->nr_resident)
		return false;
	if (r->mode == POWERPIN_RES_BITMAP) {
		for (i = 0; i < r->nr_pages; i++)
			bits += bit_is_set(buf, i);
		return bits == r->nr_resident;
	}
	if (r->mode != POWERPIN_RES_RUNS)
		return true;
	for (i = 0; i < r->nr_runs; i++) {
		if (!run[i].length || run[i].offset % page_size ||
		    run[i].length % page_size || (i && run[i].offset <= end) ||
		    run[i].offset + run[i].length > r->nr_pages * page_size)
			return false;
		end = run[i].offset + run[i].length;
		bits += run[i].length / page_size;
	}
	return bits == r->nr_resident;
}

static void *race_query(void *arg)
{
	static const unsigned int modes[] = {
		POWERPIN_RES_COUNTS, POWERPIN_RES_BITMAP, POWERPIN_RES_RUNS,
	};
	struct race *rc = arg;
	size_t buf_len = 64 * 1024;
	void *buf = malloc(buf_len);
	unsigned int i = 0;

	while (!rc->stop) {
		struct powerpin_residency r;
		int ret = query(rc->dev, rc->fd, modes[i++ % 3], 0, 0, buf, buf_len, &r);

		rc->queries++;
		if (ret == 0 && race_answer_whole(&r, buf)) {
			rc->ok++;
			continue;
		}
		if (ret == -EBADF) {
			rc->ebadf++;
			continue;
		}
		if (!rc->bad++)
			snprintf(rc->first_bad, sizeof(rc->first_bad),
				 "mode %u: %s, %llu pages, %llu resident, %llu dirty, %llu writeback, %llu runs, size %llu",
				 r.mode, ret ? strerror(-ret) : "answered",
				 (unsigned long long)r.nr_pages,
				 (unsigned long long)r.nr_resident,
				 (unsigned long long)r.nr_dirty,
				 (unsigned long long)r.nr_writeback,
				 (unsigned long long)r.nr_runs,
				 (unsigned long long)r.file_size);
	}
	free(buf);
	return NULL;
}

TEST(concurrent_truncate_fadvise_close)
{
	pthread_t writer, reopener, reader;
	struct race rc = { .path = DISK_DIR "/race.XXXXXX" };
	int fd;

	page_size = sysconf(_SC_PAGESIZE);
	rc.dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, rc.dev);
	fd = mkstemp(rc.path);
	ASSERT_LE(0, fd);
	fill_file(fd, 256 * page_size);
	rc.fd = fd;
	ASSERT_EQ(0, pthread_create(&writer, NULL, race_truncate, &rc));
	ASSERT_EQ(0, pthread_create(&reopener, NULL, race_reopen, &rc));
	ASSERT_EQ(0, pthread_create(&reader, NULL, race_query, &rc));
	sleep(5);
	rc.stop = true;
	pthread_join(reader, NULL);
	pthread_join(reopener, NULL);
	pthread_join(writer, NULL);
	close(rc.fd);
	unlink(rc.path);
	close(rc.dev);
	TH_LOG("%lu queries: %lu answered, %lu EBADF, %lu wrong",
	       rc.queries, rc.ok, rc.ebadf, rc.bad);
	ASSERT_EQ(0U, rc.bad) TH_LOG("first wrong answer: %s", rc.first_bad);
	ASSERT_LT(0U, rc.ok);
}

/*
 * The ioctl number moved off magic 0xB7 (nsfs, remoteproc): the old number
 * is not an ioctl of /dev/powerpin.
 */
TEST(old_ioctl_number_is_refused)
{
	struct powerpin_residency r = { .size = sizeof(r) };
	int dev = open(POWERPIN_DEVICE, O_RDONLY);

	ASSERT_LE(0, dev);
	EXPECT_NE(0xb7, POWERPIN_IOC_MAGIC);
	EXPECT_EQ((unsigned int)POWERPIN_IOC_MAGIC, _IOC_TYPE(POWERPIN_IOC_RESIDENCY));
	EXPECT_EQ(-1, ioctl(dev, _IOC(_IOC_READ | _IOC_WRITE, 0xb7, 1,
				      POWERPIN_RESIDENCY_SIZE_VER0), &r));
	EXPECT_EQ(ENOTTY, errno);
	close(dev);
}

/* Resident pages of @fd by mincore(), or -1. */
static long mincore_count(int fd, uint64_t len)
{
	unsigned char *vec;
	size_t n, i;
	long count = 0;

	vec = mincore_vec(fd, 0, len, &n);
	if (!vec)
		return -1;
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

/*
 * Wait, up to 10 s, for the reads in flight on @fd's pages to end: a
 * readahead page is in the page cache (the ioctl counts it, as cachestat
 * does) before it is up to date (mincore counts it only then), and an
 * asynchronous readahead can still be reading when the read that started
 * it returns.  Nothing is asserted here: the caller compares afterwards.
 */
static void wait_reads_done(int dev, int fd, size_t pages)
{
	struct powerpin_residency r;
	int i;

	for (i = 0; i < 100; i++) {
		if (query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r) ||
		    mincore_count(fd, pages * page_size) == (long)r.nr_resident)
			return;
		usleep(100000);
	}
}

static void drain_fd(int fd)
{
	char buf[65536];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* The ioctl's bitmap of @fd equals mincore() page for page. */
static void expect_bitmap_is_mincore(struct __test_metadata *_metadata, int dev,
				     int fd, size_t pages)
{
	unsigned char *bits = calloc(pages / 8 + 1, 1);
	struct powerpin_residency r;
	size_t n, i, differ = 0, first = 0;
	unsigned char *vec;

	ASSERT_NE(NULL, bits);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_BITMAP, 0, 0, bits, pages / 8 + 1, &r));
	vec = mincore_vec(fd, 0, pages * page_size, &n);
	ASSERT_NE(NULL, vec);
	ASSERT_EQ(pages, n);
	ASSERT_EQ(pages, r.nr_pages);
	for (i = 0; i < n; i++) {
		if ((vec[i] & 1) == bit_is_set(bits, i))
			continue;
		if (!differ++)
			first = i;
	}
	EXPECT_EQ(0U, differ) TH_LOG("pages differing from mincore, the first %zu", first);
	free(vec);
	free(bits);
}

/* An overlayfs mount on /mnt/disk whose lower layer holds one file. */
struct overlay {
	char base[64], merged[96], lower_file[128], merged_file[128];
	int lfd;			/* the lower file, read-write */
};

/* Whether overlayfs is there, its module loaded if need be. */
static bool overlay_available(void)
{
	if (!guest_module_builtin("overlay"))
		guest_modprobe("overlay");
	return filesystem_known("overlay");
}

/* Mount @o with a cold lower file of @pages pages. */
static void overlay_mount(struct __test_metadata *_metadata, struct overlay *o,
			  size_t pages)
{
	char lower[96], upper[96], work[96], opts[400];

	strcpy(o->base, DISK_DIR "/ovl.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(o->base));
	ASSERT_EQ(0, chmod(o->base, 0755));
	snprintf(lower, sizeof(lower), "%s/lower", o->base);
	snprintf(upper, sizeof(upper), "%s/upper", o->base);
	snprintf(work, sizeof(work), "%s/work", o->base);
	snprintf(o->merged, sizeof(o->merged), "%s/merged", o->base);
	ASSERT_EQ(0, mkdir(lower, 0755));
	ASSERT_EQ(0, mkdir(upper, 0755));
	ASSERT_EQ(0, mkdir(work, 0755));
	ASSERT_EQ(0, mkdir(o->merged, 0755));
	snprintf(o->lower_file, sizeof(o->lower_file), "%s/data", lower);
	snprintf(o->merged_file, sizeof(o->merged_file), "%s/data", o->merged);
	o->lfd = open(o->lower_file, O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, o->lfd);
	fill_file(o->lfd, pages * page_size);
	ASSERT_EQ(0, fsync(o->lfd));
	ASSERT_EQ(0, posix_fadvise(o->lfd, 0, 0, POSIX_FADV_DONTNEED));
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	ASSERT_EQ(0, mount("overlay", o->merged, "overlay", 0, opts))
		TH_LOG("mount overlay: %s", strerror(errno));
}

static void overlay_unmount(struct overlay *o)
{
	char cmd[100];

	close(o->lfd);
	umount(o->merged);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", o->base);
	system(cmd);
}

/* As nobody, a read-only fd of root's 0644 file is refused. */
static void expect_nobody_refused(struct __test_metadata *_metadata,
				  const char *path)
{
	int status, res;
	pid_t pid;

	ASSERT_EQ(0, chmod(POWERPIN_DEVICE, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ndev, nfd;

		if (setgroups(0, NULL) || setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
		    setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID))
			_exit(2);
		ndev = open(POWERPIN_DEVICE, O_RDONLY);
		nfd = open(path, O_RDONLY);
		if (ndev < 0 || nfd < 0)
			_exit(3);
		res = query_errno(ndev, nfd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0);
		_exit(res == -EPERM ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(POWERPIN_DEVICE, 0600);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Copy-up (an open for writing), then the lower and the upper file cached
 * differently: the lower file's second half, a few pages of the upper one.
 * @old, opened before the copy-up, still maps the lower file, a new fd the
 * upper one; the ioctl answers for the file each fd maps, page for page
 * what mincore() of that fd's mapping says.
 */
static void expect_copy_up_answers(struct __test_metadata *_metadata, int dev,
				   struct overlay *o, int old, size_t pages)
{
	struct powerpin_residency r, lr;
	uint64_t upper_nr;
	int fd, wfd;
	char byte;

	fd = open(o->merged_file, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pwrite(fd, "x", 1, 0));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(1, pread(fd, &byte, 1, 5 * page_size));
	ASSERT_EQ(0, posix_fadvise(o->lfd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ((off_t)(pages / 2 * page_size),
		  lseek(o->lfd, pages / 2 * page_size, SEEK_SET));
	drain_fd(o->lfd);
	ASSERT_EQ(0, query(dev, o->lfd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &lr));
	ASSERT_EQ(pages / 2, lr.nr_resident) TH_LOG("the lower file's cache");

	wait_reads_done(dev, fd, pages);
	expect_bitmap_is_mincore(_metadata, dev, fd, pages);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(mincore_count(fd, pages * page_size), (long)r.nr_resident);
	EXPECT_GE(r.nr_resident, 1U);
	EXPECT_LT(r.nr_resident, pages / 2) TH_LOG("the upper file's cache");
	upper_nr = r.nr_resident;
	/* a write-only fd cannot be mapped: answered for the real file */
	wfd = open(o->merged_file, O_WRONLY);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, query(dev, wfd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(upper_nr, r.nr_resident);
	close(wfd);

	expect_bitmap_is_mincore(_metadata, dev, old, pages);
	ASSERT_EQ(0, query(dev, old, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(mincore_count(old, pages * page_size), (long)r.nr_resident);
	EXPECT_EQ(lr.nr_resident, r.nr_resident)
		TH_LOG("the upper file has %llu", (unsigned long long)upper_nr);
	close(fd);
}

/*
 * A 4 MiB file read through an overlayfs mount: its pages are cached in
 * the real (lower, then after copy-up the upper) file, which is what reads
 * and mmap use.  The ioctl answers for that file, equal to mincore(), and
 * the permission rule still applies to the file the caller opened.  After
 * a copy-up, an fd opened before it maps the lower file and one opened
 * after it the upper file: each answer is mincore() of the fd's mapping.
 */
TEST(overlayfs_answers_for_the_real_file)
{
	const size_t pages = 1024;
	struct powerpin_residency r;
	struct overlay o;
	int dev, fd;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	if (!overlay_available())
		SKIP(close(dev); return, "no overlayfs in this kernel (3.18+)");
	overlay_mount(_metadata, &o, pages);

	/* cold, then read whole through the overlay: 1024 of 1024 */
	fd = open(o.merged_file, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(0U, r.nr_resident);
	drain_fd(fd);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(pages, r.nr_pages);
	EXPECT_EQ(pages, r.nr_resident);
	EXPECT_EQ((long)pages, mincore_count(fd, pages * page_size));
	EXPECT_EQ(pages * page_size, r.file_size);

	/* half of it dropped: page for page what mincore says */
	ASSERT_EQ(0, posix_fadvise(fd, 0, pages / 2 * page_size, POSIX_FADV_DONTNEED));
	expect_bitmap_is_mincore(_metadata, dev, fd, pages);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(pages / 2, r.nr_resident);

	expect_nobody_refused(_metadata, o.merged_file);
	expect_copy_up_answers(_metadata, dev, &o, fd, pages);

	close(fd);
	overlay_unmount(&o);
	close(dev);
}

/*
 * @fd's answer in a child that locks every future mapping
 * (mlockall(MCL_FUTURE)): as root, or as nobody with RLIMIT_MEMLOCK one
 * page that an anonymous page already uses.  *@ret gets the ioctl's 0 or
 * -errno, *@resident its nr_resident.
 */
static void query_under_mlockall(struct __test_metadata *_metadata, int dev, int fd,
				 bool nobody, int *ret, uint64_t *resident)
{
	struct rlimit one = { .rlim_cur = page_size, .rlim_max = page_size };
	struct powerpin_residency r;
	int p[2], status, got[2] = { 1, -1 };
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (nobody && (setrlimit(RLIMIT_MEMLOCK, &one) || setgroups(0, NULL) ||
			       setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
			       setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID)))
			_exit(2);
		if (mlockall(MCL_FUTURE))
			_exit(3);
		if (nobody && mmap(NULL, page_size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			_exit(4);
		got[0] = query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r);
		got[1] = (int)r.nr_resident;
		_exit(write(p[1], got, sizeof(got)) == sizeof(got) ? 0 : 5);
	}
	close(p[1]);
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_EQ((ssize_t)sizeof(got), read(p[0], got, sizeof(got)));
	close(p[0]);
	*ret = got[0];
	*resident = got[1];
}

/*
 * The stacked-file probe maps the file to learn which file holds its pages,
 * and must not bring in the page it asks about: a caller that locks every
 * future mapping gets 0 for a cold overlay file, and the file is still
 * cold after.  Where that caller's RLIMIT_MEMLOCK refuses the mapping, the
 * file behind the overlay is unknown: EAGAIN, not the overlay's own answer.
 */
TEST(overlayfs_probe_brings_nothing_in)
{
	const size_t pages = 64;
	struct powerpin_residency r;
	uint64_t resident;
	struct overlay o;
	int dev, fd, ret;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	if (!overlay_available())
		SKIP(close(dev); return, "no overlayfs in this kernel (3.18+)");
	overlay_mount(_metadata, &o, pages);
	ASSERT_EQ(0, chmod(o.lower_file, 0666));
	fd = open(o.merged_file, O_RDONLY);
	ASSERT_LE(0, fd);

	query_under_mlockall(_metadata, dev, fd, false, &ret, &resident);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0U, resident) TH_LOG("the probe's mapping faulted pages in");
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(0U, r.nr_resident);
	EXPECT_EQ(0L, mincore_count(fd, pages * page_size));

	ASSERT_EQ(0, chmod(POWERPIN_DEVICE, 0666));
	query_under_mlockall(_metadata, dev, fd, true, &ret, &resident);
	EXPECT_EQ(-EAGAIN, ret) TH_LOG("%s", strerror(-ret));
	chmod(POWERPIN_DEVICE, 0600);

	close(fd);
	overlay_unmount(&o);
	close(dev);
}

/*
 * A file larger than a 32-bit page cache can index: FUSE takes the size
 * its server gives (32 TiB here, selftests/tiny_fuse.h).  The pages past
 * the last index (16 TiB of 4 KiB pages on a 32-bit kernel) are walked and
 * not resident, never looked up with a truncated index: with page 0
 * cached, the page at 16 TiB (index 2^32, 0 once truncated) is not, the
 * whole file has 2^33 pages and one resident, a bitmap across 16 TiB has
 * no bit set, and the runs are page 0 alone.
 */
TEST(beyond_16tib_fuse)
{
	const uint64_t tib16 = 1ULL << 44;
	struct powerpin_residency r;
	struct powerpin_run runs[4] = { { 0 } };
	unsigned char bits[2];
	char dir[64], file[80];
	int dev, fd;
	char *page;
	pid_t pid;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	if (!guest_module_builtin("fuse"))
		guest_modprobe("fuse");
	strcpy(dir, "/tmp/fuse.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	pid = tiny_fuse_mount(dir);
	if (pid < 0 && (errno == ENODEV || errno == ENOENT)) {
		rmdir(dir);
		close(dev);
		SKIP(return, "no FUSE in this kernel (%s)", strerror(errno));
	}
	ASSERT_LE(0, pid) TH_LOG("mount fuse: %s", strerror(errno));
	snprintf(file, sizeof(file), "%s/big", dir);
	fd = open(file, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", file, strerror(errno));
	page = malloc(page_size);
	ASSERT_NE(NULL, page);
	ASSERT_EQ((ssize_t)page_size, pread(fd, page, page_size, 0));
	free(page);

	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, page_size, NULL, 0, &r));
	EXPECT_EQ(1U, r.nr_resident);
	EXPECT_EQ(TINY_FUSE_SIZE, r.file_size);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, tib16, page_size, NULL, 0, &r));
	EXPECT_EQ(1U, r.nr_pages);
	EXPECT_EQ(0U, r.nr_resident);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(TINY_FUSE_SIZE / page_size, r.nr_pages);
	EXPECT_EQ(1U, r.nr_resident);
	memset(bits, 0xff, sizeof(bits));
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_BITMAP, tib16 - 8 * page_size,
			   16 * page_size, bits, sizeof(bits), &r));
	EXPECT_EQ(16U, r.nr_pages);
	EXPECT_EQ(0, bits[0]);
	EXPECT_EQ(0, bits[1]);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_RUNS, 0, 0, runs, sizeof(runs), &r));
	EXPECT_EQ(1U, r.nr_runs);
	EXPECT_EQ(0U, runs[0].offset);
	EXPECT_EQ((uint64_t)page_size, runs[0].length);
	EXPECT_EQ(0U, r.cursor);
	EXPECT_EQ(TINY_FUSE_SIZE / page_size, r.nr_pages);

	close(fd);
	tiny_fuse_unmount(dir, pid);
	rmdir(dir);
	close(dev);
}

/*
 * FUSE passthrough (6.9): the reads and mappings of a FUSE file go to the
 * backing file its server named, whose page cache holds the pages; the
 * FUSE inode's own stays empty.  With part of the file read through FUSE,
 * the ioctl answers what mincore() of a mapping of the FUSE fd says, page
 * for page, and not 0.
 */
TEST(fuse_passthrough_answers_for_the_backing_file)
{
	const size_t pages = 1024;
	struct powerpin_residency r;
	char dir[64], file[80], backing[64], *buf;
	int dev, fd, bfd;
	pid_t pid;

	page_size = sysconf(_SC_PAGESIZE);
	dev = open(POWERPIN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	if (!guest_module_builtin("fuse"))
		guest_modprobe("fuse");
	strcpy(backing, DISK_DIR "/backing.XXXXXX");
	bfd = mkstemp(backing);
	ASSERT_LE(0, bfd);
	fill_file(bfd, pages * page_size);
	ASSERT_EQ(0, fsync(bfd));
	ASSERT_EQ(0, posix_fadvise(bfd, 0, 0, POSIX_FADV_DONTNEED));
	strcpy(dir, "/tmp/fuse.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	pid = tiny_fuse_mount_backed(dir, backing);
	if (pid < 0 && (errno == ENODEV || errno == ENOENT)) {
		rmdir(dir);
		unlink(backing);
		close(dev);
		SKIP(return, "no FUSE in this kernel (%s)", strerror(errno));
	}
	ASSERT_LE(0, pid) TH_LOG("mount fuse: %s", strerror(errno));
	snprintf(file, sizeof(file), "%s/big", dir);
	fd = open(file, O_RDONLY);
	if (fd < 0 && (errno == ENOTTY || errno == EOPNOTSUPP)) {
		tiny_fuse_unmount(dir, pid);
		rmdir(dir);
		unlink(backing);
		close(dev);
		SKIP(return, "no FUSE passthrough in this kernel (6.9+, CONFIG_FUSE_PASSTHROUGH): %s",
		     strerror(errno));
	}
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", file, strerror(errno));

	/* the first 100 pages (and what readahead adds) through FUSE */
	buf = malloc(100 * page_size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ((ssize_t)(100 * page_size), pread(fd, buf, 100 * page_size, 0));
	free(buf);
	wait_reads_done(dev, fd, pages);
	ASSERT_EQ(0, query(dev, fd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(pages * page_size, r.file_size);
	EXPECT_EQ(pages, r.nr_pages);
	EXPECT_GE(r.nr_resident, 100U);
	EXPECT_EQ(mincore_count(fd, pages * page_size), (long)r.nr_resident);
	expect_bitmap_is_mincore(_metadata, dev, fd, pages);
	/* the backing file's own fd: the same pages */
	ASSERT_EQ(0, query(dev, bfd, POWERPIN_RES_COUNTS, 0, 0, NULL, 0, &r));
	EXPECT_EQ(mincore_count(fd, pages * page_size), (long)r.nr_resident);

	close(fd);
	tiny_fuse_unmount(dir, pid);
	rmdir(dir);
	close(bfd);
	unlink(backing);
	close(dev);
}

TEST_HARNESS_MAIN
