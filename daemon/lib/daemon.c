// SPDX-License-Identifier: GPL-2.0
/* powerpind's configuration file and spool helpers. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <linux/powerpin.h>

#include "daemon.h"
#include "util.h"

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void ppd_config_free(struct ppd_config *cfg)
{
	int i;

	free(cfg->spool);
	free(cfg->supply);
	for (i = 0; i < cfg->nr_pin_files; i++)
		free(cfg->pin_files[i]);
	free(cfg->pin_files);
	memset(cfg, 0, sizeof(*cfg));
	cfg->report = true;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_line(struct ppd_config *c, char *key, char *val,
		      char *msg, size_t msglen)
{
	if (!strcmp(key, "spool")) {
		if (val[0] != '/') {
			snprintf(msg, msglen, "spool must be an absolute path");
			return -1;
		}
		free(c->spool);
		c->spool = strdup(val);
	} else if (!strcmp(key, "period_ms")) {
		double ms, us;
		char *end;

		errno = 0;
		ms = strtod(val, &end);
		us = ms * 1000.0;
		if (errno || end == val || *end || !isfinite(ms) ||
		    us < POWERPIN_PERIOD_US_MIN || us > POWERPIN_PERIOD_US_MAX ||
		    us != floor(us)) {
			snprintf(msg, msglen,
				 "period_ms '%s': expected 1 to 60000 in steps of 0.001",
				 val);
			return -1;
		}
		c->have_period = true;
		c->period_us = (uint32_t)us;
	} else if (!strcmp(key, "supply")) {
		if (strlen(val) >= 64) {
			snprintf(msg, msglen, "supply name longer than 63 bytes");
			return -1;
		}
		free(c->supply);
		c->supply = strdup(val);
	} else if (!strcmp(key, "report")) {
		if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "1")) {
			c->report = true;
		} else if (!strcmp(val, "no") || !strcmp(val, "false") ||
			   !strcmp(val, "0")) {
			c->report = false;
		} else {
			snprintf(msg, msglen, "report '%s': expected yes or no", val);
			return -1;
		}
	} else if (!strcmp(key, "pin_file")) {
		char **n;

		if (val[0] != '/') {
			snprintf(msg, msglen, "pin_file must be an absolute path");
			return -1;
		}
		n = realloc(c->pin_files, (c->nr_pin_files + 1) * sizeof(*n));
		if (!n) {
			snprintf(msg, msglen, "out of memory");
			return -1;
		}
		c->pin_files = n;
		n[c->nr_pin_files] = strdup(val);
		if (!n[c->nr_pin_files]) {
			snprintf(msg, msglen, "out of memory");
			return -1;
		}
		c->nr_pin_files++;
	} else {
		snprintf(msg, msglen, "unknown key '%s'", key);
		return -1;
	}
	return 0;
}

int ppd_config_parse(FILE *fp, const char *name, struct ppd_config *cfg,
		     char *err, size_t errlen)
{
	struct ppd_config c = { .report = true };
	char *line = NULL, msg[200];
	size_t cap = 0;
	int lineno = 0;

	while (getline(&line, &cap, fp) >= 0) {
		char *s, *eq, *hash;

		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			set_err(err, errlen, "%s:%d: expected 'key = value'", name,
				lineno);
			goto fail;
		}
		*eq = '\0';
		if (parse_line(&c, trim(s), trim(eq + 1), msg, sizeof(msg))) {
			set_err(err, errlen, "%s:%d: %s", name, lineno, msg);
			goto fail;
		}
	}
	if (ferror(fp)) {
		set_err(err, errlen, "%s: %s", name, strerror(errno));
		goto fail;
	}
	free(line);
	ppd_config_free(cfg);
	*cfg = c;
	return 0;
fail:
	free(line);
	ppd_config_free(&c);
	errno = EINVAL;
	return -1;
}

int ppd_config_load(const char *path, bool must_exist, struct ppd_config *cfg,
		    char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int ret;

	if (!fp) {
		if (errno == ENOENT && !must_exist) {
			ppd_config_free(cfg);
			return 0;
		}
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = ppd_config_parse(fp, path, cfg, err, errlen);
	fclose(fp);
	return ret;
}

char *ppd_new_capture_dir(const char *spool)
{
	char stamp[32], *dir = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (n = 1; n < 1000; n++) {
		int r = n == 1 ? asprintf(&dir, "%s/capture-%s", spool, stamp) :
				 asprintf(&dir, "%s/capture-%s-%d", spool, stamp, n);

		if (r < 0)
			return NULL;
		if (!mkdir(dir, 0755))
			return dir;
		free(dir);
		dir = NULL;
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

int ppd_write_summary(const char *dir, const struct ppd_summary *s)
{
	struct output_file af;
	char *path;
	int ret;

	if (asprintf(&path, "%s/summary.txt", dir) < 0)
		return -1;
	ret = output_open(&af, path);
	free(path);
	if (ret)
		return -1;
	fprintf(af.fp, "start_ns=%llu\nstop_ns=%llu\nsamples=%lld\nlost_events=%llu\n"
		"bytes=%llu\ntrace=%s\ncomplete=%d\n",
		(unsigned long long)s->start_ns, (unsigned long long)s->stop_ns,
		(long long)s->samples, (unsigned long long)s->lost_events,
		(unsigned long long)s->bytes, s->error ? "" : "trace.dat",
		s->complete && !s->error ? 1 : 0);
	if (s->error) {
		const char *p;

		/* one line, whatever the message holds */
		fputs("error=", af.fp);
		for (p = s->error; *p; p++)
			fputc(*p == '\n' || *p == '\r' ? ' ' : *p, af.fp);
		fputc('\n', af.fp);
	}
	if (af.kind == OUTPUT_REPLACE)
		fchmod(fileno(af.fp), 0644);
	return output_commit(&af);
}
