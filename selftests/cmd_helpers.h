/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the tests that run the command-line tools or read sysfs and
 * tracefs: a command's output and exit status, a small file's text, and
 * that text compared by its words or counted.
 */
#ifndef POWERPIN_CMD_HELPERS_H
#define POWERPIN_CMD_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A printf-made command through sh (system()); its exit status, or -1. */
__attribute__((format(printf, 1, 2)))
static inline int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run @cmd through sh; stdout and stderr into @out (NUL-ended).  Exit status or -1. */
static inline int run_cmd(const char *cmd, char *out, size_t outlen)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0, r;
	int st;

	if (!p)
		return -1;
	while (out && n + 1 < outlen && (r = fread(out + n, 1, outlen - 1 - n, p)) > 0)
		n += r;
	if (out)
		out[n] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The whole of @cmd's stdout, whatever its size, malloc'd and NUL-ended; its
 * exit status (or -1) in *@status when @status is not NULL.  Aborts when
 * memory or the pipe cannot be had.
 */
static inline char *output_of(const char *cmd, int *status)
{
	size_t len = 0, cap = 65536, n;
	char *buf = malloc(cap);
	FILE *p = popen(cmd, "r");
	int st;

	if (!buf || !p)
		abort();
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
	}
	buf[len] = '\0';
	st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* First line of @cmd's output into @buf, newline dropped ("" if none); exit status or -1. */
static inline int first_line(const char *cmd, char *buf, size_t len)
{
	int st;

	buf[0] = '\0';
	st = run_cmd(cmd, buf, len);
	buf[strcspn(buf, "\n")] = '\0';
	return st;
}

/* first_line() without the status: @buf. */
static inline char *line_of(const char *cmd, char *buf, size_t len)
{
	first_line(cmd, buf, len);
	return buf;
}

/* Entries of @dir besides the ones named (a NULL-terminated list); -1 if ls fails to say. */
static inline int others_in(const char *dir, ...)
{
	char cmd[512], *p = cmd;
	const char *name;
	va_list ap;
	FILE *f;
	int n = -1;

	p += sprintf(p, "ls -A %s", dir);
	va_start(ap, dir);
	while ((name = va_arg(ap, const char *)))
		p += sprintf(p, " | grep -vx -e '%s'", name);
	va_end(ap);
	sprintf(p, " | wc -l");
	f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

/* Every run of white space in @s as one space, none leading: text compared by its words; @s. */
static inline char *squeeze(char *s)
{
	char *o = s, *i = s;
	int space = 0;

	for (; *i; i++) {
		if (*i == ' ' || *i == '\n' || *i == '\t') {
			space = 1;
			continue;
		}
		if (space && o != s)
			*o++ = ' ';
		space = 0;
		*o++ = *i;
	}
	*o = '\0';
	return s;
}

/* How many times @needle starts in @hay, overlapping ones counted. */
static inline int count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/* Up to @len - 1 bytes of @path into @buf, NUL-ended; 0 or -1. */
/* Write @val to a sysfs, tracefs or debugfs file: 0, or -errno. */
static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* One read of @path into @buf, NUL-terminated: 0, or -errno. */
static inline int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	return 0;
}

/* read_text(), cut at the first newline: a sysfs or tracefs value; 0 or -1. */
static inline int read_line(const char *path, char *buf, size_t len)
{
	if (read_text(path, buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* @text as the whole of @path (created or truncated); aborts if it cannot be. */
static inline void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* The whole file (up to 64 KiB), or "" when it cannot be read (static: one at a time). */
static inline const char *file_text(const char *path)
{
	static char buf[1 << 16];
	size_t n;
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * The whole file, whatever its size, malloc'd and NUL-ended, its size in
 * *@len when @len is not NULL; NULL when it cannot be read.
 */
static inline char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	FILE *f = fopen(path, "r");

	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		return NULL;
	}
	buf = calloc(1, st.st_size + 1);
	if (buf && fread(buf, 1, st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
	}
	if (len)
		*len = st.st_size;
	fclose(f);
	return buf;
}

/* read_whole() without the size: the whole text file, malloc'd, or NULL. */
static inline char *slurp(const char *path)
{
	return read_whole(path, NULL);
}

#endif /* POWERPIN_CMD_HELPERS_H */
