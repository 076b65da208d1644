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
#include "base/base.h"

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
		/* 1.001 * 1000 is 1000.9999999999999 in binary: round, within 1 ns */
		us = round(ms * 1000.0);
		if (errno || end == val || *end || !isfinite(ms) ||
		    us < POWERPIN_PERIOD_US_MIN || us > POWERPIN_PERIOD_US_MAX ||
		    fabs(ms * 1000.0 - us) > 1e-3) {
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

/* One line (NUL-terminated, no newline); 0 or -1 with the message in @err. */
static int config_line(struct ppd_config *c, char *line, const char *name, unsigned int lineno,
		       char *err, size_t errlen)
{
	char *s, *eq, *hash, msg[200];

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	s = trim(line);
	if (!*s)
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		set_err(err, errlen, "%s:%u: expected 'key = value'", name, lineno);
		return -1;
	}
	*eq = '\0';
	if (parse_line(c, trim(s), trim(eq + 1), msg, sizeof(msg))) {
		set_err(err, errlen, "%s:%u: %s", name, lineno, msg);
		return -1;
	}
	return 0;
}

int ppd_config_parse_text(const char *text, size_t len, const char *name,
			  struct ppd_config *cfg, char *err, size_t errlen)
{
	struct ppd_config c = { .report = true };
	const char *p = text, *end = text + len, *nl;
	unsigned int lineno = 0;
	char *line;
	int ret;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		lineno++;
		if (memchr(p, '\0', nl - p)) {
			set_err(err, errlen, "%s:%u: NUL byte: not a configuration file", name,
				lineno);
			goto fail;
		}
		line = strndup(p, nl - p);
		if (!line) {
			set_err(err, errlen, "%s: out of memory", name);
			goto fail;
		}
		ret = config_line(&c, line, name, lineno, err, errlen);
		free(line);
		if (ret)
			goto fail;
		p = nl + 1;
	}
	ppd_config_free(cfg);
	*cfg = c;
	return 0;
fail:
	ppd_config_free(&c);
	errno = EINVAL;
	return -1;
}

int ppd_config_parse(FILE *fp, const char *name, struct ppd_config *cfg,
		     char *err, size_t errlen)
{
	char *text = malloc(PPD_CONFIG_MAX + 1);
	size_t len;
	int ret;

	if (!text) {
		set_err(err, errlen, "%s: out of memory", name);
		return -1;
	}
	len = fread(text, 1, PPD_CONFIG_MAX + 1, fp);
	if (ferror(fp) || len > PPD_CONFIG_MAX) {
		set_err(err, errlen, "%s: %s", name, ferror(fp) ? strerror(errno) :
			"larger than " PPD_CONFIG_MAX_TEXT ": not a configuration file");
		free(text);
		errno = ferror(fp) ? errno : EFBIG;
		return -1;
	}
	ret = ppd_config_parse_text(text, len, name, cfg, err, errlen);
	free(text);
	return ret;
}

int ppd_config_load(const char *path, bool must_exist, struct ppd_config *cfg,
		    char *err, size_t errlen)
{
	size_t len;
	void *text;
	int ret, e;

	/* a FIFO or /dev/zero is refused at once, never waited on or read */
	if (read_bounded_file(path, PPD_CONFIG_MAX, &text, &len)) {
		e = errno;
		if (e == ENOENT && !must_exist) {
			ppd_config_free(cfg);
			return 0;
		}
		if (e == EINVAL)
			set_err(err, errlen, "%s: not a regular file", path);
		else if (e == EFBIG)
			set_err(err, errlen, "%s: larger than " PPD_CONFIG_MAX_TEXT ": not a configuration file",
				path);
		else
			set_err(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	ret = ppd_config_parse_text(text, len, path, cfg, err, errlen);
	e = errno;
	free(text);
	errno = e;
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
