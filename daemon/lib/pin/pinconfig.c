// SPDX-License-Identifier: GPL-2.0
/* pinconfig parser: a token stream with line numbers, and a small grammar. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinconfig.h"
#include "base/base.h"

struct lexer {
	const char *p, *end;
	unsigned int line;
	/* the current token */
	char tok[4096];
	unsigned int tok_line;
	int have;
	const char *name;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int syntax(struct lexer *lx, unsigned int line, const char *fmt, ...);

/* 1 with the next token in lx->tok, 0 at the end, -1 for a token too long. */
static int next_token(struct lexer *lx)
{
	const char *start;

	while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
	lx->have = lx->p < lx->end;
	lx->tok_line = lx->line;
	start = lx->p;
	while (lx->p < lx->end && !isspace((unsigned char)*lx->p))
		lx->p++;
	if ((size_t)(lx->p - start) >= sizeof(lx->tok)) {
		lx->have = 0;
		return syntax(lx, lx->tok_line, "token of %zu bytes starting '%.20s...' is longer than %zu bytes",
			      (size_t)(lx->p - start), start, sizeof(lx->tok) - 1);
	}
	memcpy(lx->tok, start, lx->p - start);
	lx->tok[lx->p - start] = '\0';
	return lx->have;
}

static int syntax(struct lexer *lx, unsigned int line, const char *fmt, ...)
{
	int n = snprintf(lx->err, lx->errlen, "%s:%u: ", lx->name, line);
	va_list ap;

	if (n >= 0 && (size_t)n < lx->errlen) {
		va_start(ap, fmt);
		vsnprintf(lx->err + n, lx->errlen - n, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

/* Read the number that must follow @what. */
static int number_after(struct lexer *lx, const char *what, uint64_t *out)
{
	unsigned int line = lx->tok_line;
	unsigned long long v;
	int ret;

	ret = next_token(lx);
	if (ret < 0)
		return -1;
	if (!ret)
		return syntax(lx, line, "expected a number after '%s', got end of file", what);
	if (parse_size(lx->tok, &v))
		return syntax(lx, lx->tok_line, "expected a number after '%s', got '%s'%s",
			      what, lx->tok, errno == ERANGE ? " (out of range)" : "");
	*out = v;
	return 0;
}

static int add_entry(struct pinconfig *pc, const char *pattern,
		     unsigned int line)
{
	struct pinconfig_entry *v;

	v = reallocarray(pc->entries, pc->nr + 1, sizeof(*v));
	if (!v)
		return -1;
	pc->entries = v;
	memset(&v[pc->nr], 0, sizeof(*v));
	v[pc->nr].pattern = strdup(pattern);
	if (!v[pc->nr].pattern)
		return -1;
	v[pc->nr].line = line;
	pc->nr++;
	return 0;
}

static int add_range(struct pinconfig_entry *e, uint64_t offset,
		     uint64_t length)
{
	struct pinconfig_range *v;

	v = reallocarray(e->ranges, e->nr_ranges + 1, sizeof(*v));
	if (!v)
		return -1;
	e->ranges = v;
	v[e->nr_ranges].offset = offset;
	v[e->nr_ranges].length = length;
	e->nr_ranges++;
	return 0;
}

static int parse(struct lexer *lx, struct pinconfig *pc)
{
	int ret;

	if (next_token(lx) < 0)
		return -1;
	while (lx->have) {
		unsigned int line = lx->tok_line;
		uint64_t offset, length;

		if (!strcmp(lx->tok, "file")) {
			ret = next_token(lx);
			if (ret < 0)
				return -1;
			if (!ret)
				return syntax(lx, line, "expected a pattern after 'file', got end of file");
			if (add_entry(pc, lx->tok, line))
				return -1;
			if (next_token(lx) < 0)
				return -1;
			continue;
		}
		if (!strcmp(lx->tok, "offset")) {
			if (!pc->nr)
				return syntax(lx, line, "'offset' before any 'file'");
			if (number_after(lx, "offset", &offset))
				return -1;
			ret = next_token(lx);
			if (ret < 0)
				return -1;
			if (!ret)
				return syntax(lx, line,
					      "expected 'len' or 'length' after 'offset %llu', got end of file",
					      (unsigned long long)offset);
			if (strcmp(lx->tok, "len") && strcmp(lx->tok, "length"))
				return syntax(lx, lx->tok_line,
					      "expected 'len' or 'length' after 'offset %llu', got '%s'",
					      (unsigned long long)offset, lx->tok);
			if (number_after(lx, lx->tok[3] ? "length" : "len", &length))
				return -1;
			if (!length)
				return syntax(lx, lx->tok_line, "zero length");
			if (length > UINT64_MAX - offset)
				return syntax(lx, lx->tok_line, "offset + length overflows 64 bits");
			if (add_range(&pc->entries[pc->nr - 1], offset, length))
				return -1;
			if (next_token(lx) < 0)
				return -1;
			continue;
		}
		if (!strcmp(lx->tok, "len") || !strcmp(lx->tok, "length"))
			return syntax(lx, line, "'%s' without a preceding 'offset'", lx->tok);
		return syntax(lx, line, "unexpected token '%s' (expected 'file', 'offset', 'len' or 'length')",
			      lx->tok);
	}
	if (!pc->nr)
		return syntax(lx, lx->line, "no 'file' entries");
	return 0;
}

int pinconfig_parse(const char *text, size_t len, const char *name,
		    struct pinconfig *pc, char *err, size_t errlen)
{
	struct lexer *lx;
	int ret, e;

	memset(pc, 0, sizeof(*pc));
	lx = calloc(1, sizeof(*lx));
	if (!lx)
		return -1;
	lx->p = text;
	lx->end = text + len;
	lx->line = 1;
	lx->name = name;
	lx->err = err;
	lx->errlen = errlen;
	if (errlen)
		err[0] = '\0';
	if (memchr(text, '\0', len)) {
		const char *nul = memchr(text, '\0', len);
		unsigned int line = 1;

		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		ret = syntax(lx, line, "NUL byte in pinconfig");
	} else {
		ret = parse(lx, pc);
	}
	e = errno;
	if (ret) {
		if (errlen && !err[0])
			snprintf(err, errlen, "%s: %s", name, strerror(e));
		pinconfig_free(pc);
	}
	free(lx);
	errno = e;
	return ret;
}

int pinconfig_load(const char *path, struct pinconfig *pc, char *err,
		   size_t errlen)
{
	size_t len;
	void *text;
	int ret, e;

	memset(pc, 0, sizeof(*pc));
	if (read_bounded_file(path, PINCONFIG_FILE_MAX, &text, &len)) {
		e = errno;
		if (e == EINVAL)
			snprintf(err, errlen, "%s: not a regular file", path);
		else if (e == EFBIG)
			snprintf(err, errlen, "%s: larger than %d bytes: not a pinconfig",
				 path, PINCONFIG_FILE_MAX);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	ret = pinconfig_parse(text, len, path, pc, err, errlen);
	e = errno;
	free(text);
	errno = e;
	return ret;
}

void pinconfig_free(struct pinconfig *pc)
{
	size_t i;

	for (i = 0; i < pc->nr; i++) {
		free(pc->entries[i].pattern);
		free(pc->entries[i].ranges);
	}
	free(pc->entries);
	memset(pc, 0, sizeof(*pc));
}

const struct pinconfig_entry *pinconfig_match(const struct pinconfig *pc,
					      const char *name)
{
	size_t i;

	for (i = 0; i < pc->nr; i++)
		if (strstr(name, pc->entries[i].pattern))
			return &pc->entries[i];
	return NULL;
}

struct zip_coverage *pinconfig_filter(const struct pinconfig *pc,
				      const struct zip_coverage *cov, size_t nr,
				      size_t *nr_out)
{
	struct zip_coverage *out = calloc(nr ? nr : 1, sizeof(*out));
	size_t i, j, n = 0;

	if (!out)
		return NULL;
	for (i = 0; i < nr; i++) {
		const struct zip_entry *e = cov[i].entry;
		const struct pinconfig_entry *pe = pinconfig_match(pc, e->name);
		struct pin_ranges want = { 0 };
		int ret = 0;

		if (!pe)
			continue;
		if (!pe->nr_ranges && e->compressed_size)
			ret = pin_ranges_add(&want, e->data_offset, e->compressed_size, 0);
		for (j = 0; !ret && j < pe->nr_ranges; j++) {
			uint64_t s = pe->ranges[j].offset, l = pe->ranges[j].length;

			if (s >= e->compressed_size)
				continue;
			if (l > e->compressed_size - s)
				l = e->compressed_size - s;
			ret = pin_ranges_add(&want, e->data_offset + s, l, 0);
		}
		if (!ret) {
			pin_ranges_merge(&want);
			out[n].entry = e;
			for (j = 0; !ret && j < want.nr; j++)
				ret = pin_ranges_clip(&cov[i].ranges, want.v[j].offset,
						      want.v[j].offset + want.v[j].length,
						      &out[n].ranges);
			n++;
		}
		pin_ranges_free(&want);
		if (ret) {
			zip_coverages_free(out, n);
			errno = ENOMEM;
			return NULL;
		}
	}
	*nr_out = n;
	return out;
}
