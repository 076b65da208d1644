// SPDX-License-Identifier: GPL-2.0
/* The `perf script` text parser (perf_script.h); no I/O. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_script.h"

void perf_script_init(struct perf_script *p, perf_sample_fn fn, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->arg = arg;
}

void perf_script_free(struct perf_script *p)
{
	free(p->strings);
	p->strings = NULL;
	p->cap = p->len = 0;
}

/*
 * Strings of the open sample live in one buffer; pointers into it are
 * kept as offsets until the sample is handed out.
 */
static long keep(struct perf_script *p, const char *s, size_t n)
{
	size_t at = p->len;

	if (p->len + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *b;

		while (cap < p->len + n + 1)
			cap *= 2;
		b = realloc(p->strings, cap);
		if (!b)
			return -1;
		p->strings = b;
		p->cap = cap;
	}
	memcpy(p->strings + at, s, n);
	p->strings[at + n] = '\0';
	p->len += n + 1;
	return (long)at;
}

static int emit(struct perf_script *p)
{
	struct perf_sample *s = &p->cur;
	uint32_t i;
	int ret;

	if (!p->open)
		return 0;
	p->open = false;
	/* offsets become pointers now that the buffer no longer moves */
	s->comm = p->strings + (uintptr_t)s->comm;
	s->event = p->strings + (uintptr_t)s->event;
	for (i = 0; i < s->nr_frames; i++) {
		s->frames[i].sym = p->strings + (uintptr_t)s->frames[i].sym;
		s->frames[i].dso = p->strings + (uintptr_t)s->frames[i].dso;
	}
	p->samples++;
	ret = p->fn ? p->fn(s, p->arg) : 0;
	p->len = 0;
	return ret;
}

static int bad(struct perf_script *p, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "line %lu: %s", p->lineno, what);
	return -1;
}

/* The last whitespace-separated token of [s, *end): returned, *end moved before it. */
static const char *last_token(const char *s, const char **end, size_t *n)
{
	const char *e = *end, *b;

	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	b = e;
	while (b > s && !isspace((unsigned char)b[-1]))
		b--;
	*n = (size_t)(e - b);
	*end = b;
	return *n ? b : NULL;
}

/* "comm pid/tid time: period event:" */
static int parse_header(struct perf_script *p, const char *s, const char *end, char *err,
			size_t errlen)
{
	struct perf_sample *c = &p->cur;
	const char *t;
	char num[64], *q;
	unsigned long long sec, frac = 0;
	size_t n;
	long off;
	int digits;

	memset(c, 0, sizeof(*c));
	t = last_token(s, &end, &n);			/* event, ends with ':' */
	if (!t || t[n - 1] != ':')
		return bad(p, err, errlen, "no event name in the sample header");
	off = keep(p, t, n - 1);
	if (off < 0)
		return bad(p, err, errlen, "out of memory");
	c->event = (const char *)(uintptr_t)off;
	t = last_token(s, &end, &n);			/* period */
	if (!t || n >= sizeof(num))
		return bad(p, err, errlen, "no period in the sample header (perf script -F ...,period,...)");
	memcpy(num, t, n);
	num[n] = '\0';
	c->period = strtoull(num, &q, 10);
	if (*q)
		return bad(p, err, errlen, "no period in the sample header (perf script -F ...,period,...)");
	t = last_token(s, &end, &n);			/* seconds.nanoseconds: */
	if (!t || n >= sizeof(num) || t[n - 1] != ':')
		return bad(p, err, errlen, "no time in the sample header");
	/* the line need not end in a NUL: the number is read from a copy */
	memcpy(num, t, n - 1);
	num[n - 1] = '\0';
	if (!isdigit((unsigned char)num[0]) || sscanf(num, "%llu", &sec) != 1)
		return bad(p, err, errlen, "no time in the sample header");
	q = strchr(num, '.');
	for (digits = 0, q = q ? q + 1 : num + strlen(num); digits < 9; digits++)
		frac = frac * 10 + (isdigit((unsigned char)*q) ? (unsigned)(*q++ - '0') : 0);
	c->ts_ns = sec * 1000000000ULL + frac;
	t = last_token(s, &end, &n);			/* pid/tid */
	if (!t || n >= sizeof(num))
		return bad(p, err, errlen, "no pid/tid in the sample header");
	memcpy(num, t, n);
	num[n] = '\0';
	if (sscanf(num, "%d/%d", &c->pid, &c->tid) != 2)
		return bad(p, err, errlen, "no pid/tid in the sample header");
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	off = keep(p, s, (size_t)(end - s));
	if (off < 0)
		return bad(p, err, errlen, "out of memory");
	c->comm = (const char *)(uintptr_t)off;
	p->open = true;
	return 0;
}

/* "ip sym (dso)" */
static int parse_frame(struct perf_script *p, const char *s, const char *end, char *err,
		       size_t errlen)
{
	struct perf_sample *c = &p->cur;
	const char *sym, *sym_end, *dso, *q;
	char ip[20];
	long so, dof;
	size_t n;

	if (!p->open)
		return bad(p, err, errlen, "a stack frame outside a sample");
	if (c->nr_frames == PERF_SCRIPT_MAX_FRAMES) {
		c->frames_dropped++;
		return 0;
	}
	/* the address, read from a copy (the line need not end in a NUL) */
	for (n = 0; s + n < end && n < sizeof(ip) - 1 && isxdigit((unsigned char)s[n]); n++)
		ip[n] = s[n];
	ip[n] = '\0';
	if (!n || (s + n < end && !isspace((unsigned char)s[n])))
		return bad(p, err, errlen, "a stack frame without an address");
	c->frames[c->nr_frames].ip = strtoull(ip, NULL, 16);
	sym = s + n;
	while (sym < end && isspace((unsigned char)*sym))
		sym++;
	while (end > sym && isspace((unsigned char)end[-1]))
		end--;
	sym_end = end;
	dso = NULL;
	if (end > sym && end[-1] == ')') {
		/*
		 * The dso is the last parenthesised group, which may hold
		 * parentheses of its own: "(/usr/bin/app (deleted))".
		 */
		int depth = 0;

		for (q = end; q > sym; q--) {
			if (q[-1] == ')') {
				depth++;
			} else if (q[-1] == '(' && !--depth) {
				if (q - 1 == sym || isspace((unsigned char)q[-2]))
					dso = q - 1;
				break;
			}
		}
	}
	if (dso) {
		sym_end = dso;
		while (sym_end > sym && isspace((unsigned char)sym_end[-1]))
			sym_end--;
	}
	so = keep(p, sym, (size_t)(sym_end - sym));
	dof = dso ? keep(p, dso + 1, (size_t)(end - dso - 2)) : keep(p, "[unknown]", 9);
	if (so < 0 || dof < 0)
		return bad(p, err, errlen, "out of memory");
	if (!p->strings[so])
		so = keep(p, "[unknown]", 9);
	c->frames[c->nr_frames].sym = (const char *)(uintptr_t)so;
	c->frames[c->nr_frames].dso = (const char *)(uintptr_t)dof;
	c->nr_frames++;
	return 0;
}

/* The next whitespace-separated token of [*s, end), or NULL; *s moved past it. */
static const char *next_token(const char **s, const char *end, size_t *n)
{
	const char *b = *s;

	while (b < end && isspace((unsigned char)*b))
		b++;
	*s = b;
	while (*s < end && !isspace((unsigned char)**s))
		(*s)++;
	*n = (size_t)(*s - b);
	return *n ? b : NULL;
}

static bool all_digits(const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)t[i]))
			return false;
	return n > 0;
}

/*
 * Where a sample header's "pid/tid time: period event:" ends in [s, end),
 * or NULL when the line has none.  Without -g, perf script prints the
 * sampled ip, sym and dso after it on the same line, and the task name
 * right-aligned, so that the line starts with spaces like a frame does.
 */
static const char *header_end(const char *s, const char *end)
{
	const char *t, *slash, *q;
	size_t n;

	while ((t = next_token(&s, end, &n))) {
		slash = memchr(t, '/', n);
		if (!slash || !all_digits(t, (size_t)(slash - t)) ||
		    !all_digits(slash + 1, n - (size_t)(slash - t) - 1))
			continue;
		/* a task named "1/2" is not a pid/tid: look further */
		q = s;
		t = next_token(&q, end, &n);		/* seconds.nanoseconds: */
		if (!t || n < 2 || t[n - 1] != ':' || !isdigit((unsigned char)t[0]))
			continue;
		t = next_token(&q, end, &n);		/* period */
		if (!t || !all_digits(t, n))
			continue;
		t = next_token(&q, end, &n);		/* event: */
		if (t && t[n - 1] == ':')
			return q;
	}
	return NULL;
}

/* A header and, without -g, its one frame on the same line. */
static int parse_sample_line(struct perf_script *p, const char *line, const char *hend,
			     const char *end, char *err, size_t errlen)
{
	int ret = emit(p);

	if (ret)
		return ret;
	while (isspace((unsigned char)*line))
		line++;
	ret = parse_header(p, line, hend, err, errlen);
	while (!ret && hend < end && isspace((unsigned char)*hend))
		hend++;
	if (ret || hend == end)
		return ret;
	p->flat++;
	return parse_frame(p, hend, end, err, errlen);
}

int perf_script_line(struct perf_script *p, const char *line, size_t len, char *err,
		     size_t errlen)
{
	const char *end = line + len, *hend;

	p->lineno++;
	if (len > PERF_SCRIPT_MAX_LINE)
		return bad(p, err, errlen, "line too long");
	if (len && line[len - 1] == '\r')
		end--;
	if (memchr(line, '\0', len))
		return bad(p, err, errlen, "a NUL byte: not perf script text");
	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	if (end == line)
		return emit(p);
	hend = header_end(line, end);
	if (!hend && isspace((unsigned char)line[0])) {
		while (isspace((unsigned char)*line))
			line++;
		return parse_frame(p, line, end, err, errlen);
	}
	return parse_sample_line(p, line, hend ? hend : end, end, err, errlen);
}

int perf_script_finish(struct perf_script *p)
{
	return emit(p);
}
