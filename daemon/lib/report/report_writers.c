// SPDX-License-Identifier: GPL-2.0
/*
 * Every report writer in one table, so that whatever wants all of them (the
 * report fuzzer, a front end writing a full set) reaches a new writer as soon
 * as it has its line here.
 */
#include <stdio.h>

#include "report.h"

static int write_text(const struct report *r, const char *path, const char *name,
		      FILE *out, char *err, size_t errlen)
{
	return report_write_text(r, out);
}

static int write_json(const struct report *r, const char *path, const char *name,
		      FILE *out, char *err, size_t errlen)
{
	return report_write_json(r, out);
}

static int write_html(const struct report *r, const char *path, const char *name,
		      FILE *out, char *err, size_t errlen)
{
	const struct report_outputs o = { .html = out, .title = name };

	return report_write_outputs(r, path, &o, err, errlen);
}

static int write_processes_csv(const struct report *r, const char *path, const char *name,
			       FILE *out, char *err, size_t errlen)
{
	return report_write_processes_csv(r, out);
}

static int write_threads_csv(const struct report *r, const char *path, const char *name,
			     FILE *out, char *err, size_t errlen)
{
	return report_write_threads_csv(r, out);
}

static int write_slices_csv(const struct report *r, const char *path, const char *name,
			    FILE *out, char *err, size_t errlen)
{
	return report_write_slices_csv(r, out);
}

static int write_samples_csv(const struct report *r, const char *path, const char *name,
			     FILE *out, char *err, size_t errlen)
{
	const struct report_outputs o = { .csv = out };

	return report_write_outputs(r, path, &o, err, errlen);
}

static int write_chrome_json(const struct report *r, const char *path, const char *name,
			     FILE *out, char *err, size_t errlen)
{
	const struct report_outputs o = { .chrome_json = out };

	return report_write_outputs(r, path, &o, err, errlen);
}

static int write_perfetto(const struct report *r, const char *path, const char *name,
			  FILE *out, char *err, size_t errlen)
{
	const struct report_outputs o = { .perfetto = out };

	return report_write_outputs(r, path, &o, err, errlen);
}

const struct report_writer report_writers[] = {
	{ "text", write_text },
	{ "json", write_json },
	{ "html", write_html },
	{ "processes-csv", write_processes_csv },
	{ "threads-csv", write_threads_csv },
	{ "slices-csv", write_slices_csv },
	{ "samples-csv", write_samples_csv },
	{ "chrome-json", write_chrome_json },
	{ "perfetto", write_perfetto },
	{ NULL, NULL },
};
