// SPDX-License-Identifier: GPL-2.0
/* The allocation log parser (format in alloc_log.h); no I/O. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_log.h"

/* Indices beyond this many definitions are damage, not a big log. */
#define MAX_INDEX	(1U << 31)

struct parse {
	struct alloc_log *log;
	unsigned long lineno;
	char *err;
	size_t errlen;
};

static int fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parse *p, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "line %lu: %s", p->lineno, msg);
	return -1;
}

/* A decimal index at *s (advanced past it); -1 if none or too large. */
static int64_t read_index(const char **s, const char *end)
{
	uint64_t v = 0;
	const char *q = *s;

	if (q == end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (uint64_t)(*q - '0');
		if (v >= MAX_INDEX)
			return -1;
	}
	*s = q;
	return (int64_t)v;
}

/*
 * The size is the line's last field: a thread name or a source file name
 * before it may hold "size[" too.
 */
uint64_t alloc_log_tts_size(const char *tts)
{
	const char *s, *last = NULL;

	for (s = tts; (s = strstr(s, "size[")); s++)
		last = s;
	return last ? strtoull(last + 5, NULL, 10) : 0;
}

static struct alloc_def *def_new(struct parse *p, int64_t idx)
{
	struct alloc_log *log = p->log;

	/* a definition takes a line: an index past the line count is damage */
	if (idx < 0 || (uint64_t)idx >= p->lineno) {
		fail(p, "index %" PRIu64 " out of range", idx < 0 ? 0 : (uint64_t)idx);
		return NULL;
	}
	if ((uint64_t)idx >= log->nr_defs) {
		uint32_t n = log->nr_defs ? log->nr_defs : 64;
		struct alloc_def *d;

		while (n <= (uint64_t)idx)
			n *= 2;
		d = realloc(log->defs, n * sizeof(*d));
		if (!d) {
			fail(p, "out of memory");
			return NULL;
		}
		memset(d + log->nr_defs, 0, (n - log->nr_defs) * sizeof(*d));
		log->defs = d;
		log->nr_defs = n;
	}
	if (log->defs[idx].kind != ALLOC_DEF_NONE) {
		fail(p, "index %" PRIu64 " defined twice", (uint64_t)idx);
		return NULL;
	}
	return &log->defs[idx];
}

static int pool_add(struct parse *p, uint32_t v)
{
	struct alloc_log *log = p->log;

	if (log->nr_pool == log->cap_pool) {
		size_t cap = log->cap_pool ? log->cap_pool * 2 : 1024;
		uint32_t *n = realloc(log->pool, cap * sizeof(*n));

		if (!n)
			return fail(p, "out of memory");
		log->pool = n;
		log->cap_pool = cap;
	}
	log->pool[log->nr_pool++] = v;
	return 0;
}

/* "=N,t;f;f": the stack's elements must be defined "+" lines */
static int parse_stack(struct parse *p, const char *s, const char *end)
{
	struct alloc_log *log = p->log;
	struct alloc_def *d;
	int64_t idx = read_index(&s, end), e;
	size_t first = log->nr_pool;

	if (idx < 0 || s == end || *s != ',')
		return fail(p, "a stack definition is \"=N,i;j;k\"");
	s++;
	for (;;) {
		e = read_index(&s, end);
		if (e < 0)
			return fail(p, "a stack holds indices separated by ';'");
		if ((uint64_t)e >= log->nr_defs || log->defs[e].kind != ALLOC_DEF_TEXT)
			return fail(p, "the stack refers to %" PRIu64 ", not a \"+\" definition before it",
				    (uint64_t)e);
		if (pool_add(p, (uint32_t)e))
			return -1;
		if (s == end)
			break;
		if (*s++ != ';')
			return fail(p, "a stack holds indices separated by ';'");
	}
	d = def_new(p, idx);
	if (!d)
		return -1;
	d->kind = ALLOC_DEF_STACK;
	d->first = (uint32_t)first;
	d->nr = (uint32_t)(log->nr_pool - first);
	d->size_bytes = alloc_log_tts_size(log->defs[log->pool[first]].text);
	return 0;
}

static int parse_text(struct parse *p, const char *s, const char *end)
{
	int64_t idx = read_index(&s, end);
	struct alloc_def *d;

	if (idx < 0 || s == end || *s != ',')
		return fail(p, "a definition is \"+N,text\"");
	s++;
	d = def_new(p, idx);
	if (!d)
		return -1;
	d->text = strndup(s, (size_t)(end - s));
	if (!d->text)
		return fail(p, "out of memory");
	d->kind = ALLOC_DEF_TEXT;
	return 0;
}

static int parse_sample(struct parse *p, const char *s, const char *end)
{
	struct alloc_log *log = p->log;
	int64_t idx = read_index(&s, end);

	if (idx < 0 || s != end)
		return fail(p, "not a definition (+ or =) nor a sample number");
	if ((uint64_t)idx >= log->nr_defs || log->defs[idx].kind != ALLOC_DEF_STACK)
		return fail(p, "a sample of %" PRIu64 ", which is not a stack defined before it",
			    (uint64_t)idx);
	log->defs[idx].samples++;
	log->samples++;
	return 0;
}

static int parse_line(struct parse *p, const char *s, const char *end)
{
	if (end > s && end[-1] == '\r')
		end--;
	if (s == end)
		return fail(p, "empty line");
	if (memchr(s, '\0', (size_t)(end - s)))
		return fail(p, "a NUL byte: not a text log");
	if (*s == '+')
		return parse_text(p, s + 1, end);
	if (*s == '=')
		return parse_stack(p, s + 1, end);
	return parse_sample(p, s, end);
}

int alloc_log_parse(const char *buf, size_t len, struct alloc_log *log, char *err,
		    size_t errlen)
{
	struct parse p = { .log = log, .err = err, .errlen = errlen };
	const char *s = buf, *end = buf + len, *nl;

	memset(log, 0, sizeof(*log));
	while (s < end) {
		p.lineno++;
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl) {
			/* the writer was stopped inside its last record */
			log->cut_line = p.lineno;
			break;
		}
		if (parse_line(&p, s, nl)) {
			alloc_log_free(log);
			return -1;
		}
		log->lines++;
		s = nl + 1;
	}
	if (!log->lines && !log->cut_line) {
		snprintf(err, errlen, "line 1: empty log");
		alloc_log_free(log);
		return -1;
	}
	return 0;
}

void alloc_log_free(struct alloc_log *log)
{
	uint32_t i;

	for (i = 0; i < log->nr_defs; i++)
		free(log->defs[i].text);
	free(log->defs);
	free(log->pool);
	memset(log, 0, sizeof(*log));
}
