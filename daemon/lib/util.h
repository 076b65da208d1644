/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the powerpin library and its front ends. */
#ifndef POWERPIN_UTIL_H
#define POWERPIN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Atomic output: open a temporary file beside @path; commit renames it over
 * @path (after fsync), abort unlinks it.  A killed writer leaves @path as it
 * was and a stray "<path>.tmp.XXXXXX" at worst.
 */
struct atomic_file {
	FILE *fp;
	char *path;
	char *tmp;
};

int atomic_open(struct atomic_file *af, const char *path);
int atomic_commit(struct atomic_file *af);
void atomic_abort(struct atomic_file *af);

/*
 * Read all of @path, a regular file of at most @max bytes, into a new
 * buffer (*@buf, always allocated, *@len bytes; free() it).  Returns 0, or
 * -1 with errno: EISDIR, EINVAL (a device, FIFO or socket: opened without
 * blocking and not read), EFBIG (larger than @max, also when it grows past
 * @max while being read), or what open/read/malloc said.
 */
int read_bounded_file(const char *path, size_t max, void **buf, size_t *len);

/* Parse an unsigned decimal/hex/octal number with optional K/M/G suffix
 * (powers of 1024).  Returns 0, or -1 with errno = EINVAL/ERANGE. */
int parse_size(const char *s, unsigned long long *out);

/*
 * Write @s as a JSON string literal: at most @len bytes, stopping at a NUL
 * (pass SIZE_MAX for a plain C string).  Control characters are escaped,
 * and bytes that are not well-formed UTF-8 (a task name the kernel cut at
 * 16 bytes inside a character, say) become U+FFFD, so strict parsers
 * accept the output.  The outputs are flat objects, so escaping is the
 * only part of JSON the project needs; no library for it.
 */
void json_string(FILE *out, const char *s, size_t len);

#endif
