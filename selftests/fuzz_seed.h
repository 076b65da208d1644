/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seed corpora for the fuzzers (selftests/fuzz/), made by the tests: with
 * POWERPIN_FUZZ_SEEDS=DIR in the environment, every input a test hands to a
 * parser is also stored as DIR/HARNESS/<hash of its bytes>, so the fuzzers
 * start from the same well-formed and broken inputs the tests check.
 * Without the variable nothing is written; DIR's parent must exist.
 */
#ifndef POWERPIN_FUZZ_SEED_H
#define POWERPIN_FUZZ_SEED_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* Larger inputs slow every fuzzing iteration down more than they teach. */
#define FUZZ_SEED_MAX_BYTES	(512 << 10)

static inline void fuzz_seed(const char *harness, const void *buf, size_t len)
{
	const char *dir = getenv("POWERPIN_FUZZ_SEEDS");
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	char path[4096], tmp[4200];
	ssize_t w;
	size_t i;
	int fd;

	if (!dir || !*dir || len > FUZZ_SEED_MAX_BYTES)
		return;
	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	snprintf(path, sizeof(path), "%s/%s", dir, harness);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return;
	if (mkdir(path, 0755) && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), "%s/%s/%016llx", dir, harness, (unsigned long long)h);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	w = len ? write(fd, buf, len) : 0;
	close(fd);
	if (w == (ssize_t)len)
		rename(tmp, path);
	else
		unlink(tmp);
}

static inline void fuzz_seed_file(const char *harness, const char *file)
{
	char *buf;
	ssize_t n;
	int fd;

	if (!getenv("POWERPIN_FUZZ_SEEDS"))
		return;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(FUZZ_SEED_MAX_BYTES + 1);
	n = buf ? read(fd, buf, FUZZ_SEED_MAX_BYTES + 1) : -1;
	close(fd);
	if (n >= 0 && n <= FUZZ_SEED_MAX_BYTES)
		fuzz_seed(harness, buf, n);
	free(buf);
}

#endif
