// SPDX-License-Identifier: GPL-2.0
/*
 * guest_residency: POWERPIN_IOC_RESIDENCY (bitmap, runs, counts) against
 * mmap + mincore over the whole file, mincore one page per call (pintool's
 * default) and cachestat (counts only, Linux 6.5+), on a file on /mnt/disk
 * that is 100%, 10% (random pages) and 0% resident.
 *
 * Prints, per residency:
 *   bench residency_<pct>: speedup X (mincore/ioctl)
 *   bench residency_<pct>: speedup X (cachestat/ioctl)    where cachestat exists
 * where ioctl is the slower of the bitmap and runs modes (both give per-page
 * answers), plus lines with the raw times, and for each target
 *   bench residency_<pct>: target mincore/ioctl >= N: target met|target missed
 * (N = 5 at 100% resident, 50 at 10% and 0%) and cachestat/ioctl >= 0.8 at
 * 100% and 10% (a walk that answers per page, within a fifth of one that
 * only counts), 0.5 at 0% (where both take microseconds and the bitmap mode
 * clears its whole buffer).  A missed target is reported, not an
 * error: the exit status says only whether the measurements ran.  Each method runs REPEAT batches,
 * interleaved with the others; the speedups use the fastest batch of each
 * (the least disturbed by other load on a shared machine), and the medians
 * are printed alongside.
 *
 *   guest_residency [SIZE_MB]   default 1024, reduced to fit in memory
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/powerpin.h>

#define BENCH_PATH	"/mnt/disk/bench-residency"
#define REPEAT		7
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

struct bench {
	int dev;
	int fd;
	size_t size;
	size_t pages;
	long page_size;
	unsigned char *bits;
	struct powerpin_run *runs;
	size_t runs_len;
	unsigned char *vec;
	uint64_t resident;	/* from the last method, checked against mincore */
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int ioctl_mode(struct bench *b, unsigned int mode)
{
	struct powerpin_residency r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.mode = mode;
	r.fd = b->fd;
	if (mode == POWERPIN_RES_BITMAP) {
		r.buf = (uintptr_t)b->bits;
		r.buf_len = (b->pages + 7) / 8;
	} else if (mode == POWERPIN_RES_RUNS) {
		r.buf = (uintptr_t)b->runs;
		r.buf_len = b->runs_len;
	}
	if (ioctl(b->dev, POWERPIN_IOC_RESIDENCY, &r))
		return -1;
	if (mode == POWERPIN_RES_RUNS && r.cursor) {
		errno = ENOBUFS;
		return -1;
	}
	b->resident = r.nr_resident;
	return 0;
}

static int m_bitmap(struct bench *b)
{
	return ioctl_mode(b, POWERPIN_RES_BITMAP);
}

static int m_runs(struct bench *b)
{
	return ioctl_mode(b, POWERPIN_RES_RUNS);
}

static int m_counts(struct bench *b)
{
	return ioctl_mode(b, POWERPIN_RES_COUNTS);
}

static uint64_t count_vec(struct bench *b)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < b->pages; i++)
		n += b->vec[i] & 1;
	return n;
}

/* What vmtouch/fincore do: map the whole file, one mincore() call. */
static int m_mincore(struct bench *b)
{
	void *map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, b->fd, 0);
	int ret;

	if (map == MAP_FAILED)
		return -1;
	ret = mincore(map, b->size, b->vec);
	munmap(map, b->size);
	b->resident = count_vec(b);
	return ret;
}

/* pintool's default: mincore() one page per call. */
static int m_mincore_page(struct bench *b)
{
	char *map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, b->fd, 0);
	size_t i;

	if (map == MAP_FAILED)
		return -1;
	for (i = 0; i < b->pages; i++) {
		if (mincore(map + i * b->page_size, b->page_size, b->vec + i)) {
			munmap(map, b->size);
			return -1;
		}
	}
	munmap(map, b->size);
	b->resident = count_vec(b);
	return 0;
}

static int m_cachestat(struct bench *b)
{
	struct cs_range range = { 0, 0 };
	struct cs_stat cs;

	if (syscall(NR_CACHESTAT, b->fd, &range, &cs, 0))
		return -1;
	b->resident = cs.nr_cache;
	return 0;
}

struct method {
	const char *name;
	int (*fn)(struct bench *b);
	int repeat;		/* timed batches */
	int batch;		/* calls per batch, so each batch lasts ~20 ms */
	double t[REPEAT];	/* microseconds per call */
	double best;		/* -1 when the method failed */
	double median;
	int err;
};

static void check_resident(struct bench *b, const struct method *m, uint64_t want)
{
	if (b->resident == want)
		return;
	fprintf(stderr, "guest_residency: %s saw %llu resident pages, mincore %llu\n",
		m->name, (unsigned long long)b->resident, (unsigned long long)want);
	exit(1);
}

/*
 * Time every method, interleaved so that load from the rest of the machine
 * falls on all of them alike.  Fast calls are timed in batches: one call of a
 * few microseconds is below what the clock resolves under emulation.
 */
static void measure(struct bench *b, struct method *ms, int n, uint64_t want)
{
	int i, k, rep;

	for (i = 0; i < n; i++) {
		struct method *m = &ms[i];
		double t0 = now_us(), t;

		m->best = -1;
		if (m->fn(b)) {
			m->err = errno;
			m->repeat = 0;
			continue;
		}
		t = now_us() - t0;
		check_resident(b, m, want);
		m->batch = t >= 20000 ? 1 : t < 20 ? 1000 : (int)(20000 / t);
	}
	for (rep = 0; rep < REPEAT; rep++) {
		for (i = 0; i < n; i++) {
			struct method *m = &ms[i];
			double t0;

			if (rep >= m->repeat)
				continue;
			t0 = now_us();
			for (k = 0; k < m->batch; k++) {
				if (m->fn(b)) {
					m->err = errno;
					m->repeat = 0;
					break;
				}
			}
			m->t[rep] = (now_us() - t0) / m->batch;
			check_resident(b, m, want);
		}
	}
	for (i = 0; i < n; i++) {
		if (!ms[i].repeat)
			continue;
		qsort(ms[i].t, ms[i].repeat, sizeof(double), cmp_double);
		ms[i].best = ms[i].t[0];
		ms[i].median = ms[i].t[ms[i].repeat / 2];
	}
}

static size_t mem_available_mb(void)
{
	char line[256];
	size_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb / 1024;
}

static int make_file(struct bench *b)
{
	size_t chunk = 4 << 20, done = 0;
	char *buf = malloc(chunk);

	if (!buf)
		return -1;
	memset(buf, 0x6b, chunk);
	while (done < b->size) {
		ssize_t n = pwrite(b->fd, buf, chunk, done);

		if (n <= 0) {
			free(buf);
			return -1;
		}
		done += n;
	}
	free(buf);
	return fsync(b->fd);
}

/* Leave 1 page in 10 resident, chosen at random. */
static int evict_90(struct bench *b)
{
	size_t i = 0;

	srandom(10);
	for (i = 0; i < b->pages; i++)
		b->vec[i] = random() % 10 == 0;
	i = 0;
	while (i < b->pages) {
		size_t first;

		while (i < b->pages && b->vec[i])
			i++;
		first = i;
		while (i < b->pages && !b->vec[i])
			i++;
		if (i > first && posix_fadvise(b->fd, first * b->page_size,
					       (i - first) * b->page_size,
					       POSIX_FADV_DONTNEED))
			return -1;
	}
	return 0;
}

/* Say whether a speedup reached its target; never a failure of the bench. */
static void target(int pct, const char *what, double speedup, double want)
{
	printf("bench residency_%d: target %s >= %g: %s (%.2f)\n", pct, what, want,
	       speedup >= want ? "target met" : "target missed", speedup);
}

static int run_case(struct bench *b, int pct)
{
	struct method ms[] = {
		{ .name = "ioctl bitmap", .fn = m_bitmap, .repeat = REPEAT },
		{ .name = "ioctl runs", .fn = m_runs, .repeat = REPEAT },
		{ .name = "ioctl counts", .fn = m_counts, .repeat = REPEAT },
		{ .name = "mincore", .fn = m_mincore, .repeat = REPEAT },
		{ .name = "mincore per page", .fn = m_mincore_page, .repeat = 1 },
		{ .name = "cachestat", .fn = m_cachestat, .repeat = REPEAT },
	};
	double bitmap, runs, ioctl_us, mc, cs, cs_want;
	uint64_t resident;
	unsigned int i;

	if (m_mincore(b))
		return -1;
	resident = b->resident;
	printf("bench residency_%d: %zu MiB file, %zu pages, %llu resident (%.1f%%)\n",
	       pct, b->size >> 20, b->pages, (unsigned long long)resident,
	       100.0 * resident / b->pages);

	measure(b, ms, sizeof(ms) / sizeof(ms[0]), resident);
	for (i = 0; i < 5; i++) {
		if (ms[i].best < 0) {
			errno = ms[i].err;
			fprintf(stderr, "guest_residency: %s failed\n", ms[i].name);
			return -1;
		}
	}
	printf("bench residency_%d:", pct);
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		if (ms[i].best >= 0)
			printf("%s %s %.1f us (median %.1f)", i ? "," : "", ms[i].name,
			       ms[i].best, ms[i].median);
		else
			printf("%s %s: %s", i ? "," : "", ms[i].name, strerror(ms[i].err));
	}
	printf("\n");

	bitmap = ms[0].best;
	runs = ms[1].best;
	mc = ms[3].best;
	cs = ms[5].best;
	ioctl_us = bitmap > runs ? bitmap : runs;
	printf("bench residency_%d: speedup %.1f (mincore/ioctl)\n", pct, mc / ioctl_us);
	printf("bench residency_%d: speedup %.1f (mincore-per-page/ioctl)\n", pct,
	       ms[4].best / ioctl_us);
	if (cs >= 0)
		printf("bench residency_%d: speedup %.2f (cachestat/ioctl)\n", pct,
		       cs / ioctl_us);
	/* the targets: 5x mincore when all is cached, 50x when little is */
	cs_want = pct ? 0.8 : 0.5;
	target(pct, "mincore/ioctl", mc / ioctl_us, pct == 100 ? 5 : 50);
	if (cs >= 0)
		target(pct, "cachestat/ioctl", cs / ioctl_us, cs_want);
	else
		printf("bench residency_%d: target cachestat/ioctl >= %g: not measured (no cachestat)\n",
		       pct, cs_want);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .page_size = sysconf(_SC_PAGESIZE) };
	size_t want_mb = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	size_t avail_mb = mem_available_mb();
	int ret = 1;

	if (!want_mb) {
		fprintf(stderr, "usage: guest_residency [SIZE_MB]\n");
		return 2;
	}
	/* the whole file must fit in the page cache, with room to spare */
	if (avail_mb && want_mb + 512 > avail_mb) {
		size_t fit = avail_mb > 576 ? (avail_mb - 512) & ~(size_t)63 : 64;

		printf("bench residency: %zu MiB available, %zu MiB file does not fit; using %zu MiB\n",
		       avail_mb, want_mb, fit);
		want_mb = fit;
	}
	b.size = want_mb << 20;
	b.pages = b.size / b.page_size;
	b.bits = malloc((b.pages + 7) / 8);
	b.vec = malloc(b.pages);
	b.runs_len = (b.pages / 2 + 1) * sizeof(*b.runs);
	b.runs = malloc(b.runs_len);
	if (!b.bits || !b.vec || !b.runs) {
		fprintf(stderr, "guest_residency: out of memory\n");
		return 1;
	}

	b.dev = open(POWERPIN_DEVICE, O_RDONLY);
	if (b.dev < 0) {
		fprintf(stderr, "guest_residency: %s: %s\n", POWERPIN_DEVICE, strerror(errno));
		return 1;
	}
	b.fd = open(BENCH_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (b.fd < 0 || make_file(&b)) {
		fprintf(stderr, "guest_residency: %s: %s\n", BENCH_PATH, strerror(errno));
		goto out;
	}
	if (run_case(&b, 100))
		goto fail;
	if (evict_90(&b) || run_case(&b, 10))
		goto fail;
	if (posix_fadvise(b.fd, 0, 0, POSIX_FADV_DONTNEED) || run_case(&b, 0))
		goto fail;
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "guest_residency: %s\n", strerror(errno));
out:
	if (b.fd >= 0)
		close(b.fd);
	unlink(BENCH_PATH);
	close(b.dev);
	return ret;
}
