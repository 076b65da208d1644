/* SPDX-License-Identifier: GPL-2.0 */
/* powerpind's configuration file and spool helpers (no I/O policy). */
#ifndef POWERPIN_DAEMON_H
#define POWERPIN_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Linux's defaults; pp_default_config() and pp_default_spool() choose */
#define PPD_DEFAULT_CONFIG "/etc/powerpin/powerpind.conf"
#define PPD_DEFAULT_SPOOL "/var/lib/powerpin/spool"

struct ppd_config {
	char *spool;		/* NULL: default or --spool */
	bool have_period;
	uint32_t period_us;
	char *supply;		/* NULL: leave the module's choice */
	bool report;		/* run `powerpin report` on each capture */
	char **pin_files;	/* pinlists for these at each capture stop */
	int nr_pin_files;
};

/*
 * Parse @len bytes of @text (named @name in messages).  Format: one
 * `key = value` per line, `#` comments, blank lines ignored.  Keys: spool,
 * period_ms, supply, report (yes/no), pin_file (repeatable).  On error
 * returns -1 with a "NAME:LINE: message" in @err and @cfg untouched.
 */
int ppd_config_parse_text(const char *text, size_t len, const char *name,
			  struct ppd_config *cfg, char *err, size_t errlen);
/* The same from @fp, read to its end (at most PPD_CONFIG_MAX bytes). */
int ppd_config_parse(FILE *fp, const char *name, struct ppd_config *cfg,
		     char *err, size_t errlen);
/*
 * Read @path, a regular file of at most PPD_CONFIG_MAX bytes: a FIFO, a
 * device (/dev/zero) or a directory is refused at once, never read or
 * waited on (at start and on SIGHUP alike).  A missing file is the
 * defaults unless @must_exist.
 */
#define PPD_CONFIG_MAX		(1 << 20)
#define PPD_CONFIG_MAX_TEXT	"1 MiB"
int ppd_config_load(const char *path, bool must_exist, struct ppd_config *cfg,
		    char *err, size_t errlen);
void ppd_config_free(struct ppd_config *cfg);

struct ppd_summary {
	uint64_t start_ns;
	uint64_t stop_ns;
	int64_t samples;	/* -1 unknown */
	uint64_t lost_events;
	uint64_t bytes;
	bool complete;
	const char *error;	/* NULL, or why the capture failed (no trace.dat) */
};

/* Create SPOOL/capture-YYYYMMDD-HHMMSS[-N]; returns a malloc'ed path. */
char *ppd_new_capture_dir(const char *spool);
/*
 * Write DIR/summary.txt atomically (docs/capture-format.md).  A failed
 * capture (@s->error set) gets an empty trace= and an error= line.
 */
int ppd_write_summary(const char *dir, const struct ppd_summary *s);

#endif
