// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report: energy, statistics, attribution and plots from a capture,
 * a trace.dat or ftrace text.  The work is in daemon/lib/report*.c; this file
 * parses options and writes each output atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "util.h"

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin report <input> [options]\n"
		"\n"
		"<input> is a powerpin capture (trace.dat, or a powerpind capture directory),\n"
		"a trace.dat from `trace-cmd record -e powerpin ...`\n"
		"or ftrace text (trace, trace_pipe, systrace; the seed's write_power_ringbuffer\n"
		"lines too); \"-\" is standard input.  A pipe, FIFO or device is copied to\n"
		"a temporary file first (in $TMPDIR, else /tmp), as it is read more than once.\n"
		"A text summary always goes to stdout.\n"
		"\n"
		"  --json FILE       everything, as JSON\n"
		"  --csv FILE        one row per sample; the per-process table goes to\n"
		"                    FILE with \"-processes\" before its extension\n"
		"  --html FILE       one self-contained page: plots, bar chart, tables\n"
		"  --perfetto FILE   Chrome/Perfetto JSON trace (opens in ui.perfetto.dev)\n"
		"  --baseline SECONDS  subtract the mean power of the first SECONDS\n"
		"  --sign auto|discharge-negative|discharge-positive\n"
		"                    sign of discharge current in the input (default auto:\n"
		"                    from the charge counter, else the mean current)\n"
		"  -h, --help        this help\n");
}

/* "foo.csv" -> "foo-processes.csv"; "foo" -> "foo-processes" */
static char *processes_path(const char *csv)
{
	const char *dot = strrchr(csv, '.');
	const char *slash = strrchr(csv, '/');
	char *out;

	if (!dot || (slash && dot < slash))
		dot = csv + strlen(csv);
	if (asprintf(&out, "%.*s-processes%s", (int)(dot - csv), csv, dot) < 0)
		return NULL;
	return out;
}

/* A message from the library, naming the spooled copy as the input. */
static void report_error(const char *err, const char *path, const char *name)
{
	size_t len = strlen(path);

	if (strcmp(path, name) && !strncmp(err, path, len))
		fprintf(stderr, "powerpin report: %s%s\n", name, err + len);
	else
		fprintf(stderr, "powerpin report: %s\n", err);
}

/* Write @path atomically with @fn; @input is the report's input, as named. */
static int write_one(const char *path, const char *what, const struct report *r,
		     const char *input,
		     int (*fn)(const struct report *r, const char *input, FILE *out))
{
	struct atomic_file af;

	if (atomic_open(&af, path)) {
		fprintf(stderr, "powerpin report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fn(r, input, af.fp)) {
		fprintf(stderr, "powerpin report: writing %s %s: %s\n", what, path, strerror(errno));
		atomic_abort(&af);
		return -1;
	}
	if (atomic_commit(&af)) {
		fprintf(stderr, "powerpin report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_json(const struct report *r, const char *input, FILE *out)
{
	return report_write_json(r, out);
}

static int write_html(const struct report *r, const char *input, FILE *out)
{
	return report_write_html(r, input, out);
}

static int write_processes(const struct report *r, const char *input, FILE *out)
{
	return report_write_processes_csv(r, out);
}

static int write_samples(const struct report *r, const char *input, const char *name,
			 const char *csv, const char *perfetto)
{
	struct atomic_file a_csv = { 0 }, a_pf = { 0 };
	char err[512];
	int ret = -1;

	if (csv && atomic_open(&a_csv, csv)) {
		fprintf(stderr, "powerpin report: %s: %s\n", csv, strerror(errno));
		return -1;
	}
	if (perfetto && atomic_open(&a_pf, perfetto)) {
		fprintf(stderr, "powerpin report: %s: %s\n", perfetto, strerror(errno));
		goto out;
	}
	if (report_write_samples(r, input, a_csv.fp, a_pf.fp, err, sizeof(err))) {
		report_error(err, input, name);
		goto out;
	}
	if (csv && atomic_commit(&a_csv)) {
		fprintf(stderr, "powerpin report: %s: %s\n", csv, strerror(errno));
		goto out;
	}
	if (perfetto && atomic_commit(&a_pf)) {
		fprintf(stderr, "powerpin report: %s: %s\n", perfetto, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (a_csv.fp)
		atomic_abort(&a_csv);
	if (a_pf.fp)
		atomic_abort(&a_pf);
	return ret;
}

/*
 * The input is read more than once (format sniffing, the report, then the
 * per-sample outputs), so a pipe, FIFO or device is first copied to an
 * unlinked temporary file, which its /proc/self/fd link then names.
 * Returns the descriptor (the file lives as long as it is open), or -1
 * with a message on stderr.
 */
static int spool_input(const char *input, const char *name, char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char buf[65536], *tmpl = NULL;
	int in, out;
	ssize_t n, w, off;

	if (!dir || !*dir)
		dir = "/tmp";
	in = strcmp(input, "-") ? open(input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in < 0) {
		fprintf(stderr, "powerpin report: %s: %s\n", name, strerror(errno));
		return -1;
	}
	out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (out < 0 && asprintf(&tmpl, "%s/powerpin-report.XXXXXX", dir) >= 0) {
		/* a file system without O_TMPFILE */
		out = mkostemp(tmpl, O_CLOEXEC);
		if (out >= 0)
			unlink(tmpl);
		free(tmpl);
	}
	if (out < 0) {
		fprintf(stderr, "powerpin report: %s: cannot create a temporary file in %s: %s\n",
			name, dir, strerror(errno));
		goto err;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				break;
		}
		if (off < n) {
			fprintf(stderr, "powerpin report: %s: copying to a temporary file in %s: %s\n",
				name, dir, strerror(errno));
			goto err;
		}
	}
	if (n < 0) {
		fprintf(stderr, "powerpin report: %s: %s\n", name, strerror(errno));
		goto err;
	}
	if (in != STDIN_FILENO)
		close(in);
	snprintf(path, len, "/proc/self/fd/%d", out);
	return out;
err:
	if (out >= 0)
		close(out);
	if (in != STDIN_FILENO)
		close(in);
	return -1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "perfetto", required_argument, NULL, 'p' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "sign", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL, *csv = NULL, *html = NULL, *perfetto = NULL, *input, *name;
	struct report_options opt = { .sign = REPORT_SIGN_AUTO };
	char err[512], *end, *dir_input = NULL, spool_path[64];
	int c, ret = 1, spool_fd = -1;
	struct report r;
	struct stat st;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = optarg;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'p':
			perfetto = optarg;
			break;
		case 'b':
			errno = 0;
			opt.baseline_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(opt.baseline_s) ||
			    opt.baseline_s <= 0) {
				fprintf(stderr, "powerpin report: --baseline wants a positive number of seconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (!strcmp(optarg, "auto")) {
				opt.sign = REPORT_SIGN_AUTO;
			} else if (!strcmp(optarg, "discharge-negative")) {
				opt.sign = REPORT_SIGN_DISCHARGE_NEGATIVE;
			} else if (!strcmp(optarg, "discharge-positive")) {
				opt.sign = REPORT_SIGN_DISCHARGE_POSITIVE;
			} else {
				fprintf(stderr, "powerpin report: --sign wants auto, discharge-negative or discharge-positive, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "powerpin report: %s\n",
			optind == argc ? "missing <input>" : "exactly one <input>, please");
		report_usage(stderr);
		return 2;
	}
	input = argv[optind];
	/* a powerpind spool directory holds its capture as trace.dat */
	if (!stat(input, &st) && S_ISDIR(st.st_mode)) {
		if (asprintf(&dir_input, "%s/trace.dat", input) < 0) {
			fprintf(stderr, "powerpin report: %s\n", strerror(errno));
			return 1;
		}
		input = dir_input;
	}
	name = strcmp(input, "-") ? input : "<stdin>";
	if (!strcmp(input, "-") || (!stat(input, &st) && !S_ISREG(st.st_mode))) {
		spool_fd = spool_input(input, name, spool_path, sizeof(spool_path));
		if (spool_fd < 0) {
			free(dir_input);
			return 1;
		}
		input = spool_path;
	}

	if (report_init(&r, &opt)) {
		fprintf(stderr, "powerpin report: %s\n", strerror(errno));
		goto out_input;
	}
	if (report_run(&r, input, err, sizeof(err))) {
		report_error(err, input, name);
		goto out;
	}
	if (report_write_text(&r, stdout))
		goto out;
	if (json && write_one(json, "JSON", &r, name, write_json))
		goto out;
	if (html && write_one(html, "HTML", &r, name, write_html))
		goto out;
	if (csv) {
		char *pp = processes_path(csv);

		if (!pp || write_one(pp, "processes CSV", &r, input, write_processes)) {
			free(pp);
			goto out;
		}
		free(pp);
	}
	if ((csv || perfetto) && write_samples(&r, input, name, csv, perfetto))
		goto out;
	ret = 0;
out:
	report_free(&r);
out_input:
	if (spool_fd >= 0)
		close(spool_fd);
	free(dir_input);
	return ret;
}
