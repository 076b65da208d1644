/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pin tests (host and guest): files with known
 * cached pages, expected pinlist bytes spelled out by hand, running the CLI.
 */
#ifndef POWERPIN_PIN_HELPERS_H
#define POWERPIN_PIN_HELPERS_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_seed.h"

/* Expected values in the pin tests are written for 4 KiB pages. */
#define PIN_NEED_4K_PAGES() do { \
	if (sysconf(_SC_PAGESIZE) != 4096) \
		SKIP(return, "expected values are written for 4 KiB pages"); \
} while (0)

static inline const char *pin_bin(void)
{
	const char *b = getenv("POWERPIN_BIN");

	return b ? b : "build/bin/powerpin";
}

/* A scratch directory on a disk file system (the guest's /mnt/disk). */
static inline int pin_mkdtemp(char *buf, size_t len, const char *name)
{
	struct stat st;
	const char *base = "/var/tmp";

	if (!stat("/mnt/disk", &st) && S_ISDIR(st.st_mode) && getenv("POWERPIN_GUEST"))
		base = "/mnt/disk";
	snprintf(buf, len, "%s/%s.XXXXXX", base, name);
	return mkdtemp(buf) ? 0 : -1;
}

static inline int pin_run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* How many pages of the first @bytes of @fd are in the page cache (-1: error). */
static inline long pin_resident(int fd, off_t bytes)
{
	long ps = sysconf(_SC_PAGESIZE), n = 0;
	unsigned long i, pages = (bytes + ps - 1) / ps;
	unsigned char *vec;
	void *map;

	if (!pages)
		return 0;
	map = mmap(NULL, pages * ps, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (map == MAP_FAILED || !vec || mincore(map, pages * ps, vec))
		n = -1;
	for (i = 0; n >= 0 && i < pages; i++)
		n += vec[i] & 1;
	if (map != MAP_FAILED)
		munmap(map, pages * ps);
	free(vec);
	return n;
}

/*
 * Flush the first @bytes of @fd and drop them from the cache, and see that they
 * are gone: POSIX_FADV_DONTNEED skips a page another CPU still holds (in its
 * LRU batch, or under a reader that has not let go yet), so a busy machine
 * can leave a few behind; ask again, for up to a second.
 */
static inline int pin_drop(int fd, off_t bytes)
{
	long left = -1;

	for (int i = 0; i < 50 && left; i++) {
		if (i)
			usleep(20000);
		if (fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			return -1;
		left = pin_resident(fd, bytes);
		if (left < 0)
			return -1;
	}
	if (left)
		fprintf(stderr, "# %ld pages stay in the cache after POSIX_FADV_DONTNEED\n", left);
	return left ? -1 : 0;
}

/* Write @pages pages of data, flush them and drop them from the cache. */
static inline int pin_make_evicted(const char *path, unsigned long pages, mode_t mode)
{
	char buf[4096];
	unsigned long i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		return -1;
	for (i = 0; i < pages; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			goto err;
	}
	if (pin_drop(fd, (off_t)pages * sizeof(buf)))
		goto err;
	close(fd);
	return 0;
err:
	close(fd);
	return -1;
}

/* Drop a file's clean pages. */
static inline int pin_evict(const char *path)
{
	int fd = open(path, O_RDONLY), ret;
	struct stat st;

	if (fd < 0)
		return -1;
	ret = fstat(fd, &st) ? -1 : pin_drop(fd, st.st_size);
	close(fd);
	return ret;
}

/* Bring [off, off + len) into the cache and nothing else (no readahead). */
static inline int pin_read_range(const char *path, uint64_t off, uint64_t len)
{
	char *buf = malloc(len ? len : 1);
	int fd = open(path, O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0 && buf && !posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		n = pread(fd, buf, len, off);
	if (fd >= 0)
		close(fd);
	free(buf);
	return n == (ssize_t)len ? 0 : -1;
}

/* Big-endian pinlist pairs, spelled out independently of the encoder. */
static inline void pin_be_pair(uint8_t *p, uint32_t off, uint32_t len)
{
	p[0] = off >> 24; p[1] = off >> 16; p[2] = off >> 8; p[3] = off;
	p[4] = len >> 24; p[5] = len >> 16; p[6] = len >> 8; p[7] = len;
}

/* Compare a file with @n pairs (offset, length) given as a flat array. */
static inline int pin_file_is(const char *path, const uint64_t *pairs, int n)
{
	uint8_t want[8 * 64], got[8 * 64 + 1];
	ssize_t len;
	int fd, i;

	if (n > 64)
		return 0;
	for (i = 0; i < n; i++)
		pin_be_pair(want + 8 * i, pairs[2 * i], pairs[2 * i + 1]);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, got, sizeof(got));
	close(fd);
	if (len == 8 * n && !memcmp(got, want, len))
		return 1;
	/* say both lists: a failure in a busy guest must show what came out */
	fprintf(stderr, "# %s: %zd bytes, want %d\n", path, len, 8 * n);
	for (i = 0; i + 8 <= len && i < 8 * 64; i += 8)
		fprintf(stderr, "#   got  start=%u bytes=%u\n",
			(unsigned)got[i] << 24 | got[i + 1] << 16 | got[i + 2] << 8 | got[i + 3],
			(unsigned)got[i + 4] << 24 | got[i + 5] << 16 | got[i + 6] << 8 | got[i + 7]);
	for (i = 0; i < n; i++)
		fprintf(stderr, "#   want start=%llu bytes=%llu\n",
			(unsigned long long)pairs[2 * i], (unsigned long long)pairs[2 * i + 1]);
	return 0;
}

static inline int pin_write_pairs(const char *path, const uint64_t *pairs, int n)
{
	uint8_t buf[8 * 64];
	int fd, i;
	ssize_t w;

	for (i = 0; i < n && i < 64; i++)
		pin_be_pair(buf + 8 * i, pairs[2 * i], pairs[2 * i + 1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	w = write(fd, buf, 8 * n);
	close(fd);
	if (w > 0)
		fuzz_seed("pinlist", buf, w);
	return w == 8 * n ? 0 : -1;
}

/* The number after "@key:" in /proc/@pid/status (VmLck in kB, ...), or -1. */
static inline long long pin_status_field(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, key, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%lld", &v) == 1)
			break;
	fclose(fp);
	return v;
}

/* VmLck of a process, in bytes, or -1. */
static inline long long pin_vmlck(pid_t pid)
{
	long long kb = pin_status_field(pid, "VmLck");

	return kb < 0 ? -1 : kb * 1024;
}

#endif
