// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util.h"

int parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!isxdigit((unsigned char)s[2])) {
			errno = EINVAL;
			return -1;
		}
		v = strtoull(s + 2, &end, 16);
	} else {
		v = strtoull(s, &end, 10);
	}
	if (errno)
		return -1;
	if (end == s) {
		errno = EINVAL;
		return -1;
	}
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (v && mul > ~0ULL / v) {
		errno = ERANGE;
		return -1;
	}
	*out = v * mul;
	return 0;
}

/*
 * The UTF-8 sequence at @s, of at most @n bytes: its length if it is well
 * formed (no overlong forms, surrogates or code points past U+10FFFF),
 * else minus the length of its longest valid-looking start (at least 1),
 * which is what one U+FFFD replaces.
 */
static long utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return -1;
	}
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return -(long)i;
		lo = 0x80;
		hi = 0xbf;
	}
	return (long)len;
}

void json_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	long n;

	fputc('"', out);
	while (i < len && u[i]) {
		if (u[i] == '"' || u[i] == '\\') {
			fprintf(out, "\\%c", u[i++]);
			continue;
		}
		if (u[i] < 0x20) {
			fprintf(out, "\\u%04x", u[i++]);
			continue;
		}
		n = utf8_seq(u + i, len - i);
		if (n < 0) {
			/* a name cut inside a character (comm is 16 bytes), or not UTF-8 */
			fputs("\\ufffd", out);
			i += -n;
		} else {
			fwrite(u + i, 1, n, out);
			i += n;
		}
	}
	fputc('"', out);
}

char *utf8_sanitize(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, n = 0;
	char *out;
	long k;

	while (n < len && u[n])
		n++;
	/* each bad byte becomes at most 3 bytes */
	out = malloc(3 * n + 1);
	if (!out)
		return NULL;
	while (i < n) {
		k = utf8_seq(u + i, n - i);
		if (k < 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += -k;
		} else {
			memcpy(out + o, u + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = '\0';
	return out;
}

static void b64_quantum(struct b64_stream *b, const unsigned char *in, int n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t v = (uint32_t)in[0] << 16 | (n > 1 ? in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
	char q[4];

	q[0] = abc[v >> 18];
	q[1] = abc[(v >> 12) & 63];
	q[2] = n > 1 ? abc[(v >> 6) & 63] : '=';
	q[3] = n > 2 ? abc[v & 63] : '=';
	fwrite(q, 1, 4, b->out);
	b->column += 4;
	if (b->column >= 4096) {
		fputc('\n', b->out);
		b->column = 0;
	}
}

void b64_put(struct b64_stream *b, const void *data, size_t len)
{
	const unsigned char *in = data;

	while (len && b->npending) {
		b->pending[b->npending++] = *in++;
		len--;
		if (b->npending == 3) {
			b64_quantum(b, b->pending, 3);
			b->npending = 0;
		}
	}
	for (; len >= 3; in += 3, len -= 3)
		b64_quantum(b, in, 3);
	while (len--)
		b->pending[b->npending++] = *in++;
}

void b64_end(struct b64_stream *b)
{
	if (b->npending)
		b64_quantum(b, b->pending, b->npending);
	b->npending = 0;
}

int read_bounded_file(const char *path, size_t max, void **buf, size_t *len)
{
	size_t got = 0, cap;
	struct stat st;
	char *b = NULL;
	int fd, e;

	*buf = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto err;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto err;
	}
	if ((uint64_t)st.st_size > max) {
		errno = EFBIG;
		goto err;
	}
	cap = st.st_size + 1;
	b = malloc(cap);
	if (!b)
		goto err;
	for (;;) {
		ssize_t n;

		if (got == cap) {
			char *nb;

			/* it grew while being read */
			if (cap > max) {
				errno = EFBIG;
				goto err;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nb = realloc(b, cap);
			if (!nb)
				goto err;
			b = nb;
		}
		n = read(fd, b + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto err;
		if (!n)
			break;
		got += n;
	}
	close(fd);
	*buf = b;
	*len = got;
	return 0;
err:
	e = errno;
	close(fd);
	free(b);
	errno = e;
	return -1;
}

int wait_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

void exec_command(const char *who, char *const argv[])
{
	int e;

	execvp(argv[0], argv);
	e = errno;
	fprintf(stderr, "%s: cannot run '%s': %s\n", who, argv[0], strerror(e));
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE);
}

int usage_error(const char *cmd)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", cmd);
	return 2;
}

void json_option_normalize(int argc, char **argv, bool short_j)
{
	static char stdout_form[] = "--json=-";
	int i;

	for (i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--"))
			break;
		if (strcmp(argv[i], "--json") && !(short_j && !strcmp(argv[i], "-j")))
			continue;
		if (!next || (next[0] == '-' && next[1]))
			argv[i] = stdout_form;
		else
			i++;	/* its FILE, whatever it looks like */
	}
}

int json_output_check(const char *cmd, const char *name)
{
	if (!*name) {
		fprintf(stderr, "%s: --json wants a file name (or - for standard output), not ''\n", cmd);
		return usage_error(cmd);
	}
	if (output_check(name)) {
		fprintf(stderr, "%s: --json %s: %s\n", cmd, name, output_strerror(errno));
		return 1;
	}
	return 0;
}

int json_output_open(const char *cmd, const char *name, struct output_file *out)
{
	if (output_open(out, name)) {
		fprintf(stderr, "%s: --json %s: %s\n", cmd, name, output_strerror(errno));
		return 1;
	}
	return 0;
}

int json_output_commit(const char *cmd, struct output_file *out)
{
	char *name = out->name ? strdup(out->name) : NULL;
	bool is_stdout = out->is_stdout;
	int ret = 0;

	if (output_commit(out)) {
		if (is_stdout)
			fprintf(stderr, "%s: write error on standard output: %s\n", cmd,
				strerror(errno));
		else
			fprintf(stderr, "%s: --json %s: %s\n", cmd, name ? name : "", strerror(errno));
		ret = 1;
	}
	free(name);
	return ret;
}

/* Why a write to standard output failed, if it did (stdio keeps no errno). */
static int stdout_errno;

void stdout_error(int e)
{
	if (!stdout_errno)
		stdout_errno = e;
}

int flush_stdout(void)
{
	if (!fflush(stdout))
		return 0;
	stdout_error(errno);
	return EOF;
}

int close_stdout(const char *who, int status)
{
	bool pending = __fpending(stdout) != 0;
	bool failed = ferror(stdout) != 0;
	int e;

	errno = 0;
	if (fclose(stdout)) {
		e = errno;
		if (!failed && !pending && e == EBADF)
			return status;
		failed = true;
	} else {
		e = failed ? stdout_errno : 0;
	}
	if (!failed)
		return status;
	if (e)
		fprintf(stderr, "%s: write error on standard output: %s\n", who, strerror(e));
	else
		fprintf(stderr, "%s: write error on standard output\n", who);
	return status ? status : 1;
}

char *format_size_human(unsigned long long bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	unsigned long long whole, tenths;
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	tenths = (unsigned long long)(v * 10 + 0.5);
	whole = (unsigned long long)(v + 0.5);
	/* 1023.6K rounds to 1024K: that is 1M */
	if (whole >= 1024 && u < 5) {
		whole = 1;
		tenths = 10;
		u++;
	}
	if (tenths < 100 && tenths % 10)
		snprintf(buf, len, "%llu.%llu%c", tenths / 10, tenths % 10, units[u]);
	else
		snprintf(buf, len, "%llu%c", tenths < 100 ? tenths / 10 : whole, units[u]);
	return buf;
}

void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else
			fputc(*s, out);
	}
}
