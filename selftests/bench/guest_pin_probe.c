// SPDX-License-Identifier: GPL-2.0
/*
 * bench pin_probe: per-entry residency of a ~1 GiB zip with 10,000 entries,
 * half of them resident, computed two ways in the same run:
 *   ioctl    `powerpin file Z --zip --gen-probe --dump` (the residency ioctl)
 *   mincore  pintool's method: mmap the file and call mincore one page at a
 *            time, then the same per-entry breakdown
 * Before each measurement the page cache is reset to the same state (evict
 * everything, read every other entry); each side's best of
 * POWERPIN_BENCH_REPEAT runs is reported.  Peak memory is each child's
 * ru_maxrss.  The probes alone are timed as well, with a speedup of their
 * own.  Speed is reported, never asserted: there is no fixed target, and
 * the exit status is non-zero only when a run fails or the two sides
 * disagree on the resident bytes.
 *
 *   POWERPIN_BENCH_ZIP_MB   archive size (default 1024)
 *   POWERPIN_BENCH_ENTRIES  entries (default 10000)
 *   POWERPIN_BENCH_DIR      where to build it (default /mnt/disk, else /var/tmp)
 *   POWERPIN_BENCH_REPEAT   runs per side (default 3)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zip.h>

#include "pin/pin.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Stored entries written raw with a zero CRC: the archive is only ever
 * indexed, never extracted, and computing CRC-32 over a gigabyte under
 * emulation would dominate the set-up time.
 */
static int build_zip(const char *path, long entries, size_t entry_bytes)
{
	char *buf = malloc(entry_bytes), name[64];
	zipFile zf;
	long i;

	if (!buf)
		return -1;
	memset(buf, 0x5a, entry_bytes);
	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	if (!zf)
		return -1;
	for (i = 0; i < entries; i++) {
		snprintf(name, sizeof(name), "assets/blob%05ld.bin", i);
		if (zipOpenNewFileInZip2_64(zf, name, NULL, NULL, 0, NULL, 0, NULL, 0, 0, 1,
					    0) != ZIP_OK ||
		    zipWriteInFileInZip(zf, buf, entry_bytes) != ZIP_OK ||
		    zipCloseFileInZipRaw64(zf, entry_bytes, 0) != ZIP_OK)
			return -1;
	}
	free(buf);
	return zipClose(zf, NULL) == ZIP_OK ? 0 : -1;
}

/* Evict the archive, then read every other entry's data (no readahead). */
static int reset_cache(const char *path, const struct zip_index *zi)
{
	size_t max = 0, i;
	char *buf;
	int fd;

	for (i = 0; i < zi->nr; i++)
		if (zi->entries[i].compressed_size > max)
			max = zi->entries[i].compressed_size;
	buf = malloc(max + 1);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf)
		return -1;
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		return -1;
	for (i = 0; i < zi->nr; i += 2)
		if (pread(fd, buf, zi->entries[i].compressed_size,
			  zi->entries[i].data_offset) < 0)
			return -1;
	close(fd);
	free(buf);
	return 0;
}

/* pintool's probe: one mincore call per page, then per-entry coverage. */
static int mincore_per_page(const char *path, uint64_t *resident)
{
	struct pin_ranges probe = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	struct zip_index zi;
	char err[512];
	uint64_t off, total = 0;
	struct stat st;
	unsigned char v;
	uint8_t *map;
	FILE *out;
	size_t i, j;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return 1;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	for (off = 0; off < (uint64_t)st.st_size; off += ps) {
		if (mincore(map + off, ps, &v))
			return 1;
		if (!(v & 1))
			continue;
		if (probe.nr && probe.v[probe.nr - 1].offset + probe.v[probe.nr - 1].length == off)
			probe.v[probe.nr - 1].length += ps;
		else if (pin_ranges_add(&probe, off, ps, 0))
			return 1;
	}
	munmap(map, st.st_size);
	close(fd);
	if (zip_index_open(path, &zi, err, sizeof(err)))
		return 1;
	out = fopen("/dev/null", "w");
	for (i = 0; i < zi.nr; i++) {
		const struct zip_entry *e = &zi.entries[i];
		struct pin_ranges cov = { 0 };
		uint64_t bytes;

		if (pin_ranges_clip(&probe, e->data_offset, e->data_offset + e->compressed_size,
				    &cov))
			return 1;
		bytes = pin_ranges_bytes(&cov);
		total += bytes;
		fprintf(out, "%s size(B)=%llu resident(B)=%llu resident(%%)=%g\nfile resident ranges\n",
			e->name, (unsigned long long)e->compressed_size,
			(unsigned long long)bytes, 100.0 * bytes / e->compressed_size);
		for (j = 0; j < cov.nr; j++)
			fprintf(out, "zip_offset=%llu file_offset=%llu total_bytes=%llu\n",
				(unsigned long long)cov.v[j].offset,
				(unsigned long long)(cov.v[j].offset - e->data_offset),
				(unsigned long long)cov.v[j].length);
		pin_ranges_free(&cov);
	}
	fclose(out);
	*resident = total;
	return 0;
}

/*
 * The probes alone, in this process: the residency library (ioctl when the
 * module is loaded) against one mincore call per page, same cache state.
 */
static void probe_only(const char *path, double *probe_ms, double *page_ms)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct probe_result pr;
	char err[512];
	struct stat st;
	unsigned char v;
	uint64_t off, n = 0;
	uint8_t *map;
	double t0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return;
	t0 = now_ms();
	if (!probe_residency(fd, path, PROBE_AUTO, NULL, &pr, err, sizeof(err))) {
		*probe_ms = now_ms() - t0;
		probe_result_free(&pr);
	}
	t0 = now_ms();
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map != MAP_FAILED) {
		for (off = 0; off < (uint64_t)st.st_size; off += ps)
			if (!mincore(map + off, ps, &v) && (v & 1))
				n++;
		munmap(map, st.st_size);
		*page_ms = now_ms() - t0;
	}
	close(fd);
}

struct result {
	double ms;
	long maxrss_kb;
	int status;
};

/* Run the powerpin CLI; stdout to @dump. */
static struct result run_cli(const char *bin, const char *zip, const char *dump,
			     const char *errlog)
{
	struct result r = { 0 };
	struct rusage ru;
	double t0 = now_ms();
	pid_t pid;
	int st;

	pid = fork();
	if (!pid) {
		int fd = open(dump, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execl(bin, bin, "file", zip, "--zip", "--gen-probe", "--dump", (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid) {
		r.status = -1;
		return r;
	}
	r.ms = now_ms() - t0;
	r.maxrss_kb = ru.ru_maxrss;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return r;
}

/* Run the mincore baseline in a child, so its peak memory is its own. */
static struct result run_mincore(const char *zip, uint64_t *resident)
{
	struct result r = { 0 };
	struct rusage ru;
	double t0 = now_ms();
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return (struct result){ .status = -1 };
	pid = fork();
	if (!pid) {
		uint64_t total = 0;
		int ret = mincore_per_page(zip, &total);

		if (write(p[1], &total, sizeof(total)) != sizeof(total))
			ret = 1;
		_exit(ret);
	}
	close(p[1]);
	if (read(p[0], resident, sizeof(*resident)) != sizeof(*resident))
		*resident = 0;
	close(p[0]);
	if (wait4(pid, &st, 0, &ru) != pid) {
		r.status = -1;
		return r;
	}
	r.ms = now_ms() - t0;
	r.maxrss_kb = ru.ru_maxrss;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return r;
}

/* The probe method powerpin reported on stderr. */
static void probe_method(const char *errlog, char *method, size_t len)
{
	char line[512], *p;
	FILE *fp = fopen(errlog, "r");

	snprintf(method, len, "unknown");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		p = strstr(line, "residency via ");
		if (p) {
			snprintf(method, len, "%s", p + strlen("residency via "));
			method[strcspn(method, "\n")] = '\0';
		}
	}
	fclose(fp);
}

/* Sum resident(B)= over a dump. */
static uint64_t dump_resident(const char *dump)
{
	char line[512];
	uint64_t total = 0;
	unsigned long long b;
	FILE *fp = fopen(dump, "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, " resident(B)=");

		if (p && sscanf(p, " resident(B)=%llu", &b) == 1)
			total += b;
	}
	fclose(fp);
	return total;
}

int main(void)
{
	const char *bin = getenv("POWERPIN_BIN") ? getenv("POWERPIN_BIN") : "build/bin/powerpin";
	long mb = getenv("POWERPIN_BENCH_ZIP_MB") ? atol(getenv("POWERPIN_BENCH_ZIP_MB")) : 1024;
	long entries = getenv("POWERPIN_BENCH_ENTRIES") ?
		       atol(getenv("POWERPIN_BENCH_ENTRIES")) : 10000;
	const char *base = getenv("POWERPIN_BENCH_DIR");
	char dir[256], zip[300], dump[300], errlog[300], err[512], method[256];
	int repeat = getenv("POWERPIN_BENCH_REPEAT") ? atoi(getenv("POWERPIN_BENCH_REPEAT")) : 3;
	double probe_ms = 0, page_ms = 0;
	struct result a = { 0 }, b = { 0 };
	int r;
	uint64_t res_b = 0, res_a;
	struct zip_index zi;
	struct stat st;
	double t0;
	int fd;

	if (!base)
		base = !stat("/mnt/disk", &st) && S_ISDIR(st.st_mode) ? "/mnt/disk" : "/var/tmp";
	if (mb <= 0 || entries <= 0 || repeat <= 0) {
		fprintf(stderr, "bench pin_probe: bad POWERPIN_BENCH_ZIP_MB, _ENTRIES or _REPEAT\n");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/pin_probe.XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("bench pin_probe: mkdtemp");
		return 1;
	}
	snprintf(zip, sizeof(zip), "%s/big.apk", dir);
	snprintf(dump, sizeof(dump), "%s/dump", dir);
	snprintf(errlog, sizeof(errlog), "%s/stderr", dir);
	t0 = now_ms();
	if (build_zip(zip, entries, (size_t)mb * 1024 * 1024 / entries)) {
		fprintf(stderr, "bench pin_probe: cannot build %s\n", zip);
		return 1;
	}
	fd = open(zip, O_RDONLY);
	if (fd < 0 || fsync(fd) || fstat(fd, &st))
		return 1;
	close(fd);
	if (zip_index_open(zip, &zi, err, sizeof(err))) {
		fprintf(stderr, "bench pin_probe: %s\n", err);
		return 1;
	}
	printf("bench pin_probe: %zu entries, %.0f MiB archive, built in %.1f s\n", zi.nr,
	       st.st_size / 1048576.0, (now_ms() - t0) / 1e3);

	/* best of @repeat for each side, from the same cache state every time */
	for (r = 0; r < repeat; r++) {
		struct result ra, rb;

		if (reset_cache(zip, &zi))
			return 1;
		ra = run_cli(bin, zip, dump, errlog);
		res_a = dump_resident(dump);
		probe_method(errlog, method, sizeof(method));
		if (reset_cache(zip, &zi))
			return 1;
		rb = run_mincore(zip, &res_b);
		if (ra.status || rb.status) {
			fprintf(stderr, "bench pin_probe: run failed (ioctl exit %d, mincore exit %d)\n",
				ra.status, rb.status);
			return 1;
		}
		if (!r || ra.ms < a.ms)
			a = ra;
		if (!r || rb.ms < b.ms)
			b = rb;
	}
	probe_only(zip, &probe_ms, &page_ms);
	printf("bench pin_probe: powerpin file --zip --gen-probe --dump (probe: %s) %.1f ms, peak %ld KiB\n",
	       method, a.ms, a.maxrss_kb);
	printf("bench pin_probe: mmap + mincore one page per call %.1f ms, peak %ld KiB\n",
	       b.ms, b.maxrss_kb);
	printf("bench pin_probe: resident bytes in entries: ioctl %llu, mincore %llu (%s)\n",
	       (unsigned long long)res_a, (unsigned long long)res_b,
	       res_a == res_b ? "same" : "DIFFERENT");
	printf("bench pin_probe: probe alone (no zip index, no dump): residency library %.1f ms, mincore one page per call %.1f ms\n",
	       probe_ms, page_ms);
	printf("bench pin_probe: best of %d runs each\n", repeat);
	printf("bench pin_probe: speedup %.2f (mincore/ioctl)\n", b.ms / a.ms);
	if (probe_ms > 0 && page_ms > 0)
		printf("bench pin_probe: speedup %.2f (probe alone, mincore-per-page/residency library)\n",
		       page_ms / probe_ms);
	else
		printf("bench pin_probe: speedup n/a (probe alone: a probe failed)\n");
	printf("bench pin_probe: no fixed target for these speedups\n");
	zip_index_free(&zi);
	unlink(zip);
	unlink(dump);
	unlink(errlog);
	rmdir(dir);
	return res_a == res_b ? 0 : 1;
}
