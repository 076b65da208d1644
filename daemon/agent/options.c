// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's option string.  tiallocsample's positional form
 * "sample_rate,stack_depth_limit,log_path" is taken exactly as that agent
 * takes it (the path is everything after the second comma); otherwise the
 * string is a comma-separated list of alloc=N, depth=N, log=PATH,
 * perfmap=auto|off|PATH and markers=on|off.  No I/O here.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#define KNOWN "alloc=N, depth=N, log=PATH, perfmap=auto|off|PATH, markers=on|off"

static bool all_digits(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A decimal in [min, max], the whole of @s. */
static int parse_count(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;

	if (!all_digits(s, strlen(s)))
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out < min || *out > max)
		return -1;
	return 0;
}

static int set_alloc(struct agent_options *o, const char *v, const char *what, char *err,
		     size_t errlen)
{
	if (parse_count(v, 1, AGENT_MAX_ALLOC, &o->alloc)) {
		snprintf(err, errlen, "bad option '%s%s': sample 1 in N allocations, N from 1 to %lu",
			 what, v, AGENT_MAX_ALLOC);
		return -1;
	}
	o->alloc_given = true;
	return 0;
}

static int set_depth(struct agent_options *o, const char *v, const char *what, char *err,
		     size_t errlen)
{
	unsigned long d;

	if (parse_count(v, 1, AGENT_MAX_DEPTH, &d)) {
		snprintf(err, errlen, "bad option '%s%s': stack depth from 1 to %d frames",
			 what, v, AGENT_MAX_DEPTH);
		return -1;
	}
	o->depth = (unsigned int)d;
	return 0;
}

static int set_path(char **dst, const char *v, const char *what, char *err, size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "bad option '%s': empty path", what);
		return -1;
	}
	free(*dst);
	*dst = strdup(v);
	if (!*dst) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Messages about the option string, one line each, into a caller's buffer. */
struct bad_options {
	char *err;
	size_t errlen, used;
	int nr;
};

/* Add the message in @one as a line of its own. */
static void bad(struct bad_options *b, const char *one)
{
	int n;

	b->nr++;
	if (b->used >= b->errlen)
		return;
	n = snprintf(b->err + b->used, b->errlen - b->used, "%s%s", b->used ? "\n" : "", one);
	b->used = n < 0 ? b->errlen : b->used + (size_t)n;
}

/* tiallocsample's "N,D,PATH"; false if @opts does not have that form. */
static bool parse_positional(const char *opts, struct agent_options *o, struct bad_options *b)
{
	const char *c1 = strchr(opts, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	char *rate, *depth, one[PATH_MAX + 128];

	if (!c2 || !all_digits(opts, c1 - opts) || !all_digits(c1 + 1, c2 - c1 - 1))
		return false;
	rate = strndup(opts, (size_t)(c1 - opts));
	depth = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	/* each of the three is checked, and each that is wrong is named */
	if (!rate || !depth)
		bad(b, "out of memory");
	else if (set_alloc(o, rate, "sample_rate ", one, sizeof(one)))
		bad(b, one);
	if (rate && depth && set_depth(o, depth, "stack_depth_limit ", one, sizeof(one)))
		bad(b, one);
	if (set_path(&o->log_path, c2 + 1, "log_path", one, sizeof(one)))
		bad(b, one);
	free(rate);
	free(depth);
	return true;
}

static int parse_named(char *opt, struct agent_options *o, char *err, size_t errlen)
{
	char *eq = strchr(opt, '='), *v;

	if (!eq) {
		snprintf(err, errlen, "bad option '%s' (options: %s; or sample_rate,stack_depth_limit,log_path)",
			 opt, KNOWN);
		return -1;
	}
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(opt, "alloc"))
		return set_alloc(o, v, "alloc=", err, errlen);
	if (!strcmp(opt, "depth"))
		return set_depth(o, v, "depth=", err, errlen);
	if (!strcmp(opt, "log"))
		return set_path(&o->log_path, v, "log=", err, errlen);
	if (!strcmp(opt, "perfmap")) {
		if (!strcmp(v, "auto")) {
			o->perfmap = AGENT_PERFMAP_AUTO;
		} else if (!strcmp(v, "off")) {
			o->perfmap = AGENT_PERFMAP_OFF;
		} else {
			if (set_path(&o->perfmap_path, v, "perfmap=", err, errlen))
				return -1;
			o->perfmap = AGENT_PERFMAP_PATH;
		}
		return 0;
	}
	if (!strcmp(opt, "markers")) {
		if (strcmp(v, "on") && strcmp(v, "off")) {
			snprintf(err, errlen, "bad option 'markers=%s': on or off", v);
			return -1;
		}
		o->markers = !strcmp(v, "on");
		return 0;
	}
	*eq = '=';
	snprintf(err, errlen, "bad option '%s' (options: %s)", opt, KNOWN);
	return -1;
}

int agent_options_parse(const char *opts, struct agent_options *o, char *err, size_t errlen)
{
	struct bad_options b = { .err = err, .errlen = errlen };
	char *copy, *tok, *save = NULL, one[PATH_MAX + 256];
	size_t len;

	memset(o, 0, sizeof(*o));
	o->alloc = AGENT_DEFAULT_ALLOC;
	o->depth = AGENT_DEFAULT_DEPTH;
	o->perfmap = AGENT_PERFMAP_AUTO;
	o->markers = true;
	if (errlen)
		err[0] = '\0';
	if (!opts || !*opts)
		return 0;
	if (parse_positional(opts, o, &b))
		goto out;
	len = strlen(opts);
	if (opts[0] == ',' || opts[len - 1] == ',' || strstr(opts, ",,")) {
		snprintf(one, sizeof(one), "bad option string '%s': an empty option", opts);
		bad(&b, one);
	}
	copy = strdup(opts);
	if (!copy) {
		bad(&b, "out of memory");
		goto out;
	}
	/* every option is looked at, so that every bad one is named */
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_named(tok, o, one, sizeof(one)))
			bad(&b, one);
	free(copy);
out:
	if (b.nr) {
		agent_options_free(o);
		return -1;
	}
	return 0;
}

void agent_options_free(struct agent_options *o)
{
	free(o->log_path);
	free(o->perfmap_path);
	o->log_path = o->perfmap_path = NULL;
}
