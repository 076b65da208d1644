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

/* tiallocsample's "N,D,PATH"; returns 1 if @opts has that form. */
static int parse_positional(const char *opts, struct agent_options *o, char *err, size_t errlen)
{
	const char *c1 = strchr(opts, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	char num[32];

	if (!c2 || !all_digits(opts, c1 - opts) || !all_digits(c1 + 1, c2 - c1 - 1))
		return 0;
	if ((size_t)(c1 - opts) >= sizeof(num) || (size_t)(c2 - c1 - 1) >= sizeof(num)) {
		snprintf(err, errlen, "bad option '%s': numbers out of range", opts);
		return -1;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(c1 - opts), opts);
	if (set_alloc(o, num, "sample_rate ", err, errlen))
		return -1;
	snprintf(num, sizeof(num), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
	if (set_depth(o, num, "stack_depth_limit ", err, errlen))
		return -1;
	if (set_path(&o->log_path, c2 + 1, "log_path", err, errlen))
		return -1;
	return 1;
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
	char *copy, *tok, *save = NULL;
	int ret;

	memset(o, 0, sizeof(*o));
	o->alloc = AGENT_DEFAULT_ALLOC;
	o->depth = AGENT_DEFAULT_DEPTH;
	o->perfmap = AGENT_PERFMAP_AUTO;
	o->markers = true;
	if (!opts || !*opts)
		return 0;
	ret = parse_positional(opts, o, err, errlen);
	if (ret)
		goto out;
	copy = strdup(opts);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		goto out;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = parse_named(tok, o, err, errlen);
		if (ret)
			break;
	}
	if (!ret && opts[strlen(opts) - 1] == ',') {
		snprintf(err, errlen, "bad option string '%s': ends with a comma", opts);
		ret = -1;
	}
	if (!ret && (strstr(opts, ",,") || opts[0] == ',')) {
		snprintf(err, errlen, "bad option string '%s': an empty option", opts);
		ret = -1;
	}
	free(copy);
out:
	if (ret < 0) {
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
