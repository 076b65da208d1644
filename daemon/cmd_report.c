// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report: energy, statistics, attribution and plots from a capture,
 * a trace.dat or ftrace text.  The work is in daemon/lib/report*.c; this file
 * parses options and writes the outputs (output.h): all of them first, then
 * each regular file renamed into place.
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
#include "trace_input.h"
#include "platform.h"
#include "report.h"
#include "report_perf.h"
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
		"a temporary file first (in $TMPDIR, else /tmp; on Android " PP_ANDROID_DIR "/tmp),\n"
		"as it is read more than once; "
		"binary data that is not a trace.dat is refused at its first\n"
		"block.\n"
		"A text summary goes to stdout, unless an output does.\n"
		"\n"
		"Each FILE may be \"-\" (stdout, for one of them), a FIFO, device or /dev/fd/N\n"
		"(written through), or a file (written whole or not at all; a symlink's\n"
		"target is replaced, the link kept).\n"
		"\n"
		"  --json FILE       everything, as JSON\n"
		"  --csv FILE        one row per sample; the per-process table goes to\n"
		"                    FILE with \"-processes\" before its extension\n"
		"                    (only when FILE is a regular file)\n"
		"  --html FILE       one self-contained page: interactive plots (zoom, pan,\n"
		"                    hover, selections priced in joules), energy by process\n"
		"                    over time, tables\n"
		"  --perfetto FILE   Perfetto trace (protobuf): battery, energy and per-process\n"
		"                    energy counters beside CPU scheduling and atrace slices\n"
		"  --chrome-json FILE  the same as Chrome JSON trace events (counters, slices),\n"
		"                    for tools that read only that\n"
		"  --perf PERFDATA   energy per function from `perf record -e cpu-clock -g`\n"
		"                    taken during the capture (read with `perf script`)\n"
		"  --perf-map PATH   perf-<pid>.map files for JIT frames perf left unnamed:\n"
		"                    a directory of them or one map (default /tmp; on\n"
		"                    Android /data/local/tmp)\n"
		"  --flame FILE      with --perf: an energy flame graph page, in joules\n"
		"  --baseline SECONDS  subtract the mean power of the first SECONDS\n"
		"  --sign auto|discharge-negative|discharge-positive\n"
		"                    sign of discharge current in the input (default auto:\n"
		"                    from the charge counter, else the mean current)\n"
		"  --spool-max SIZE  copy at most SIZE bytes of a pipe, FIFO or device (default\n"
		"                    1G; K, M, G suffixes; 0 for no limit)\n"
		"  -h, --help        this help\n");
}

/* What a pipe, FIFO or device may put in $TMPDIR at most (--spool-max). */
#define REPORT_SPOOL_MAX	(1ULL << 30)

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

/*
 * The outputs of one run.  All are written first, then committed together,
 * so a failure before the commits leaves every regular file as it was
 * (docs/report.md says what a stream output keeps).
 */
enum report_output {
	OUT_JSON, OUT_HTML, OUT_PROCESSES, OUT_CSV, OUT_PERFETTO, OUT_CHROME, OUT_FLAME,
	OUT_COUNT
};

static const char *const output_what[OUT_COUNT] = {
	"JSON", "HTML", "processes CSV", "CSV", "Perfetto trace", "Chrome JSON", "flame graph",
};

struct report_files {
	const char *name[OUT_COUNT];
	char *processes;		/* the name beside the CSV */
	struct output_file f[OUT_COUNT];
	bool open[OUT_COUNT];
};

static void outputs_abort(struct report_files *o)
{
	int i;

	for (i = 0; i < OUT_COUNT; i++)
		if (o->open[i])
			output_abort(&o->f[i]);
	memset(o->open, 0, sizeof(o->open));
}

static int outputs_open(struct report_files *o)
{
	int i;

	for (i = 0; i < OUT_COUNT; i++) {
		if (i == OUT_PROCESSES)
			continue;
		if (!o->name[i])
			continue;
		if (output_open(&o->f[i], o->name[i])) {
			fprintf(stderr, "powerpin report: %s: %s\n", o->name[i], strerror(errno));
			goto err;
		}
		o->open[i] = true;
	}
	/* the process table goes beside a CSV file; a stream has no "beside" */
	if (o->open[OUT_CSV] && o->f[OUT_CSV].kind == OUTPUT_REPLACE) {
		o->processes = processes_path(o->name[OUT_CSV]);
		o->name[OUT_PROCESSES] = o->processes;
		if (!o->processes) {
			fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
			goto err;
		}
		if (output_open(&o->f[OUT_PROCESSES], o->name[OUT_PROCESSES])) {
			fprintf(stderr, "powerpin report: %s: %s\n", o->name[OUT_PROCESSES],
				strerror(errno));
			goto err;
		}
		o->open[OUT_PROCESSES] = true;
	}
	return 0;
err:
	outputs_abort(o);
	return -1;
}

static FILE *out_fp(struct report_files *o, enum report_output i)
{
	return o->open[i] ? o->f[i].fp : NULL;
}

/* an output's name in a message */
static const char *out_name(struct report_files *o, enum report_output i)
{
	return o->name[i] && output_is_stdout(o->name[i]) ? "<stdout>" : o->name[i];
}

static int outputs_write(struct report_files *o, const struct report *r,
			 const struct report_perf *rp, const char *input, const char *name)
{
	char err[512];
	int i, ret = 0;

	if (o->open[OUT_JSON] && report_write_json(r, o->f[OUT_JSON].fp))
		i = OUT_JSON, ret = -1;
	else if (o->open[OUT_PROCESSES] &&
		 report_write_processes_csv(r, o->f[OUT_PROCESSES].fp))
		i = OUT_PROCESSES, ret = -1;
	else if (o->open[OUT_FLAME] && report_write_flame(rp, name, o->f[OUT_FLAME].fp))
		i = OUT_FLAME, ret = -1;
	if (ret) {
		fprintf(stderr, "powerpin report: writing %s %s: %s\n", output_what[i],
			o->name[i], strerror(errno));
		return -1;
	}
	if (o->open[OUT_CSV] || o->open[OUT_PERFETTO] || o->open[OUT_CHROME] || o->open[OUT_HTML]) {
		const struct report_outputs out = {
			.csv = out_fp(o, OUT_CSV),
			.chrome_json = out_fp(o, OUT_CHROME),
			.perfetto = out_fp(o, OUT_PERFETTO),
			.html = out_fp(o, OUT_HTML),
			.title = name,
			.csv_name = out_name(o, OUT_CSV),
			.chrome_json_name = out_name(o, OUT_CHROME),
			.perfetto_name = out_name(o, OUT_PERFETTO),
			.html_name = out_name(o, OUT_HTML),
		};

		err[0] = '\0';
		if (report_write_outputs(r, input, &out, err, sizeof(err))) {
			report_error(err, input, name);
			return -1;
		}
	}
	return 0;
}

/*
 * Whether two output names are one file: the same name, or the same
 * regular file or FIFO under two names.  A device (/dev/null, a tty) may
 * take several outputs.
 */
static bool same_output(const char *a, const char *b)
{
	struct stat sa, sb;

	if (output_is_stdout(a) || output_is_stdout(b))
		return false;
	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
	       (S_ISREG(sa.st_mode) || S_ISFIFO(sa.st_mode));
}

/*
 * Two outputs naming one file would overwrite each other: say so and
 * return -1.  @name is indexed by enum report_output (its OUT_PROCESSES
 * unused: the process table's name is derived from the CSV's).
 */
static int outputs_distinct(const char *const *name)
{
	const char *all[OUT_COUNT];
	char *procs = name[OUT_CSV] ? processes_path(name[OUT_CSV]) : NULL;
	int i, j, ret = 0;

	memcpy(all, name, OUT_COUNT * sizeof(*all));
	all[OUT_PROCESSES] = procs;
	for (i = 0; i < OUT_COUNT && !ret; i++)
		for (j = i + 1; j < OUT_COUNT && !ret; j++)
			if (all[i] && all[j] && same_output(all[i], all[j])) {
				fprintf(stderr, "powerpin report: two outputs name the same file: %s and %s\n",
					all[i], all[j]);
				ret = -1;
			}
	free(procs);
	return ret;
}

/* Rename every file into place; after a failure the rest are dropped. */
static int outputs_commit(struct report_files *o)
{
	int i;

	for (i = 0; i < OUT_COUNT; i++) {
		if (!o->open[i])
			continue;
		o->open[i] = false;
		if (output_commit(&o->f[i])) {
			fprintf(stderr, "powerpin report: %s: %s\n", o->name[i], strerror(errno));
			outputs_abort(o);
			return -1;
		}
	}
	return 0;
}

/* Read until @len bytes or the end; bytes read, or -1. */
static ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += n;
	}
	return got;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		len -= w;
	}
	return 0;
}

/* An unlinked temporary file in @dir, or -1. */
static int spool_file(const char *dir)
{
	char *tmpl = NULL;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && asprintf(&tmpl, "%s/powerpin-report.XXXXXX", dir) >= 0) {
		/* a file system without O_TMPFILE */
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
		free(tmpl);
	}
	return fd;
}

/*
 * The input is read more than once (format sniffing, the report, then the
 * per-sample outputs), so a pipe, FIFO or device is first copied to an
 * unlinked temporary file, which its /proc/self/fd link then names.  Its
 * first block is judged before anything is copied (/dev/zero is refused at
 * once), and the copy stops at @max bytes.  Returns the descriptor (the
 * file lives as long as it is open), or -1 with a message on stderr.
 */
static int spool_input(const char *input, const char *name, unsigned long long max,
		       char *path, size_t len)
{
	const char *dir = pp_tmp_dir();
	unsigned long long total = 0;
	char buf[65536], err[512];
	int in, out = -1;
	ssize_t n;

	in = strcmp(input, "-") ? open(input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in < 0) {
		fprintf(stderr, "powerpin report: %s: %s\n", name, strerror(errno));
		return -1;
	}
	for (;;) {
		n = read_full(in, buf, sizeof(buf));
		if (n < 0) {
			fprintf(stderr, "powerpin report: %s: %s\n", name, strerror(errno));
			goto err;
		}
		if (!total && trace_input_sniff(buf, n, name, err, sizeof(err)) ==
			      TRACE_FORMAT_UNKNOWN) {
			fprintf(stderr, "powerpin report: %s\n", err);
			goto err;
		}
		if (!n)
			break;
		if (max && total + n > max) {
			fprintf(stderr, "powerpin report: %s: more than %llu bytes to copy to %s (--spool-max); give it as a file, or raise the limit\n",
				name, max, dir);
			goto err;
		}
		if (out < 0) {
			out = spool_file(dir);
			if (out < 0) {
				fprintf(stderr, "powerpin report: %s: cannot create a temporary file in %s: %s\n",
					name, dir, strerror(errno));
				goto err;
			}
		}
		if (write_all(out, buf, n)) {
			fprintf(stderr, "powerpin report: %s: copying to a temporary file in %s: %s\n",
				name, dir, strerror(errno));
			goto err;
		}
		total += n;
		if ((size_t)n < sizeof(buf))
			break;
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
		{ "chrome-json", required_argument, NULL, 'C' },
		{ "perf", required_argument, NULL, 'P' },
		{ "perf-map", required_argument, NULL, 'M' },
		{ "flame", required_argument, NULL, 'F' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "sign", required_argument, NULL, 's' },
		{ "spool-max", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *perf = NULL, *perf_map = NULL, *flame = NULL;
	struct report_options opt = { .sign = REPORT_SIGN_AUTO };
	struct report_perf rp = { 0 };
	char err[512], *end, *dir_input = NULL, spool_path[64];
	unsigned long long spool_max = REPORT_SPOOL_MAX;
	struct report_files o = { 0 };
	int c, i, ret = 1, spool_fd = -1, to_stdout = 0;
	const char *input, *name;
	struct report r;
	struct stat st;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.name[OUT_JSON] = optarg;
			break;
		case 'c':
			o.name[OUT_CSV] = optarg;
			break;
		case 'H':
			o.name[OUT_HTML] = optarg;
			break;
		case 'p':
			o.name[OUT_PERFETTO] = optarg;
			break;
		case 'C':
			o.name[OUT_CHROME] = optarg;
			break;
		case 'P':
			perf = optarg;
			break;
		case 'M':
			perf_map = optarg;
			break;
		case 'F':
			flame = optarg;
			o.name[OUT_FLAME] = optarg;
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
		case 'S':
			if (parse_size(optarg, &spool_max)) {
				fprintf(stderr, "powerpin report: --spool-max wants a byte count (K, M, G suffixes; 0 for no limit), not '%s'\n",
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
	if ((flame || perf_map) && !perf) {
		fprintf(stderr, "powerpin report: --flame and --perf-map go with --perf\n");
		return 2;
	}
	for (i = 0; i < OUT_COUNT; i++)
		to_stdout += o.name[i] && output_is_stdout(o.name[i]);
	if (to_stdout > 1) {
		fprintf(stderr, "powerpin report: only one output can go to standard output\n");
		return 2;
	}
	if (outputs_distinct(o.name))
		return 2;
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
		spool_fd = spool_input(input, name, spool_max, spool_path, sizeof(spool_path));
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
	if (perf && report_add_perf(&r, &rp, input, name, perf, perf_map))
		goto out;
	/* standard output carries the one output sent there, not the summary */
	if (!to_stdout && report_write_text(&r, stdout))
		goto out;
	if (outputs_open(&o))
		goto out;
	if (outputs_write(&o, &r, &rp, input, name)) {
		outputs_abort(&o);
		goto out;
	}
	if (outputs_commit(&o))
		goto out;
	ret = 0;
out:
	if (perf)
		report_perf_free(&rp);
	report_free(&r);
	free(o.processes);
out_input:
	if (spool_fd >= 0)
		close(spool_fd);
	free(dir_input);
	return ret;
}
