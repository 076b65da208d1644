// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report: energy, statistics, attribution and plots from a capture,
 * a trace.dat or ftrace text.  The work is in daemon/lib/report/; this file
 * parses options and writes the outputs (output.h): all of them first, then
 * each regular file renamed into place.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "trace/trace.h"
#include "base/base.h"
#include "report/report.h"
#include "profile/profile.h"

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin report [<input> | -i <input>] [options]\n"
		"\n"
		"<input> is a powerpin capture (trace.dat, or a powerpind capture directory),\n"
		"a trace.dat from `trace-cmd record -e powerpin ...`\n"
		"or ftrace text (trace, trace_pipe, systrace; the seed's write_power_ringbuffer\n"
		"lines too); \"-\" is standard input.  Without one, trace.dat in the current\n"
		"directory is read (what powerpin record and trace-cmd record write).\n"
		"A pipe, FIFO or device is copied to a temporary file first (in $TMPDIR,\n"
		"else /tmp; on Android " PP_ANDROID_DIR "/tmp), as it is read more than once;\n"
		"binary data that is not a trace.dat is refused at its first block.\n"
		"A text summary goes to stdout, unless an output does.\n"
		"\n"
		"Each FILE may be \"-\" (stdout, for one of them), a FIFO, device or /dev/fd/N\n"
		"(written through), or a file (written whole or not at all; a symlink's\n"
		"target is replaced, the link kept).\n"
		"\n"
		"  -i, --input FILE  the input, as trace-cmd report -i and perf report -i\n"
		"  --json [FILE]     everything, as JSON (\"-\" or none: stdout)\n"
		"  --csv FILE        one row per sample; the per-process, per-thread and\n"
		"                    per-slice tables go to FILE with \"-processes\",\n"
		"                    \"-threads\" and \"-slices\" before its extension\n"
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
		"  --baseline SECONDS  subtract the mean power of the first SECONDS (no longer\n"
		"                    than the capture)\n"
		"  --sign auto|discharge-negative|discharge-positive\n"
		"                    sign of discharge current in the input (default auto:\n"
		"                    from the charge counter, else the mean current)\n"
		"  --model FILE      a power_profile.xml (powerpin profile): beside each\n"
		"                    process's measured energy, what the model predicts\n"
		"                    from its CPU time, and the difference (text, JSON)\n"
		"\n"
		"What is read (every output is made from the same events; see powerpin(1)):\n"
		"  --from T          only the events from T on (seconds from the first power\n"
		"                    sample, or the first begin of a slice or marker so named)\n"
		"  --to T            ... up to T, included (seconds, or the end of that slice\n"
		"                    or marker)\n"
		"  --pid PID[,PID]   only the threads of these processes (the others' CPU\n"
		"                    time counts as <other>)\n"
		"  --tid TID[,TID]   only these threads\n"
		"  --comm NAME[,NAME]  only threads of these names (the filters combine)\n"
		"  --cpu LIST        only CPU time on these CPUs (0,2-3); the rest is <other>\n"
		"  --stat            count the events read, by kind, instead of the summary\n"
		"  -B, --instance NAME  a trace.dat with several buffers (trace-cmd record\n"
		"                    -B): read ftrace instance NAME's\n"
		"\n"
		"The text summary:\n"
		"  --top N           rows per table (default 10; all for every row)\n"
		"  --sort energy|cpu|name  order of the tables (slices: cpu sorts by duration)\n"
		"  --units J|mWh|mAh  energy unit (mAh at the capture's mean voltage)\n"
		"\n"
		"  --spool-max SIZE  copy at most SIZE bytes of a pipe, FIFO or device (default\n"
		"                    1G; K, M, G suffixes; 0 for no limit)\n"
		"  -h, --help        this help\n");
}

/* Read and parse a power_profile.xml (--model); 0, or -1 after a message. */
static int load_model(const char *path, struct profile_model *m)
{
	char err[256], *text;
	size_t len;
	void *buf;
	int ret;

	if (read_bounded_file(path, 1 << 20, &buf, &len)) {
		fprintf(stderr, "powerpin report: cannot read --model %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	text = realloc(buf, len + 1);
	if (!text) {
		free(buf);
		fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
		return -1;
	}
	text[len] = '\0';
	ret = profile_model_parse(text, m, err, sizeof(err));
	if (ret)
		fprintf(stderr, "powerpin report: --model %s: %s\n", path, err);
	free(text);
	return ret;
}

/* What a pipe, FIFO or device may put in $TMPDIR at most (--spool-max). */
#define REPORT_SPOOL_MAX	(1ULL << 30)

/* "foo.csv" -> "foo-processes.csv"; "foo" -> "foo-processes" */
static char *beside_path(const char *csv, const char *what)
{
	const char *dot = strrchr(csv, '.');
	const char *slash = strrchr(csv, '/');
	char *out;

	if (!dot || (slash && dot < slash))
		dot = csv + strlen(csv);
	if (asprintf(&out, "%.*s-%s%s", (int)(dot - csv), csv, what, dot) < 0)
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
	OUT_JSON, OUT_HTML, OUT_PROCESSES, OUT_THREADS, OUT_SLICES, OUT_CSV, OUT_PERFETTO,
	OUT_CHROME, OUT_FLAME, OUT_COUNT
};

static const char *const output_what[OUT_COUNT] = {
	"JSON", "HTML", "processes CSV", "threads CSV", "slices CSV", "CSV", "Perfetto trace",
	"Chrome JSON", "flame graph",
};

/* The tables written beside a CSV file, and the word their names add. */
static const struct { enum report_output out; const char *what; } beside_csv[] = {
	{ OUT_PROCESSES, "processes" }, { OUT_THREADS, "threads" }, { OUT_SLICES, "slices" },
};
#define NR_BESIDE	(sizeof(beside_csv) / sizeof(beside_csv[0]))

static bool is_beside(int i)
{
	return i == OUT_PROCESSES || i == OUT_THREADS || i == OUT_SLICES;
}

/* Every output's name into @all, the tables beside the CSV too; -1 (ENOMEM). */
static int all_names(const char *const *name, const char **all, char **beside)
{
	size_t k;

	memcpy(all, name, OUT_COUNT * sizeof(*all));
	for (k = 0; k < NR_BESIDE; k++) {
		beside[k] = name[OUT_CSV] ? beside_path(name[OUT_CSV], beside_csv[k].what) : NULL;
		all[beside_csv[k].out] = beside[k];
		if (name[OUT_CSV] && !beside[k])
			return -1;
	}
	return 0;
}

static void free_beside(char **beside)
{
	size_t k;

	for (k = 0; k < NR_BESIDE; k++)
		free(beside[k]);
}

struct report_files {
	const char *name[OUT_COUNT];
	char *beside[NR_BESIDE];	/* the names beside the CSV */
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

/* The tables beside the CSV file; 0, or -1 with a message. */
static int outputs_open_beside(struct report_files *o)
{
	const char *all[OUT_COUNT];
	size_t k;

	if (all_names(o->name, all, o->beside)) {
		fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
		return -1;
	}
	for (k = 0; k < NR_BESIDE; k++) {
		enum report_output i = beside_csv[k].out;

		o->name[i] = o->beside[k];
		if (output_open(&o->f[i], o->name[i])) {
			fprintf(stderr, "powerpin report: %s: %s\n", o->name[i],
				output_strerror(errno));
			return -1;
		}
		o->open[i] = true;
	}
	return 0;
}

static int outputs_open(struct report_files *o)
{
	int i;

	for (i = 0; i < OUT_COUNT; i++) {
		if (is_beside(i) || !o->name[i])
			continue;
		if (output_open(&o->f[i], o->name[i])) {
			fprintf(stderr, "powerpin report: %s: %s\n", o->name[i],
				output_strerror(errno));
			goto err;
		}
		o->open[i] = true;
	}
	/* the tables go beside a CSV file; a stream has no "beside" */
	if (o->open[OUT_CSV] && o->f[OUT_CSV].kind == OUTPUT_REPLACE &&
	    outputs_open_beside(o))
		goto err;
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
	else if (o->open[OUT_THREADS] && report_write_threads_csv(r, o->f[OUT_THREADS].fp))
		i = OUT_THREADS, ret = -1;
	else if (o->open[OUT_SLICES] && report_write_slices_csv(r, o->f[OUT_SLICES].fp))
		i = OUT_SLICES, ret = -1;
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
	char *beside[NR_BESIDE];
	int i, j, ret = all_names(name, all, beside);

	if (ret)
		fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
	for (i = 0; i < OUT_COUNT && !ret; i++)
		for (j = i + 1; j < OUT_COUNT && !ret; j++)
			if (all[i] && all[j] && same_output(all[i], all[j])) {
				fprintf(stderr, "powerpin report: two outputs name the same file: %s and %s\n",
					all[i], all[j]);
				ret = -1;
			}
	free_beside(beside);
	return ret;
}

/*
 * No output may be an input (output.h): the capture, --perf's data and a
 * --perf-map file.  Checked before the input is read; 0, or -1 with a
 * message.
 */
static int outputs_not_inputs(const char *const *name, const char *input, const char *perf,
			      const char *perf_map, const char *model)
{
	const char *const in[] = { input, perf, perf_map, model };
	const char *all[OUT_COUNT];
	char *beside[NR_BESIDE];
	int i, ret = all_names(name, all, beside);

	if (ret)
		fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
	for (i = 0; i < (int)(sizeof(in) / sizeof(in[0])) && !ret; i++)
		if (in[i] && output_add_input(in[i])) {
			fprintf(stderr, "powerpin report: %s\n", strerror(errno));
			ret = -1;
		}
	for (i = 0; i < OUT_COUNT && !ret; i++)
		if (all[i] && output_check(all[i])) {
			fprintf(stderr, "powerpin report: %s: %s\n", all[i], output_strerror(errno));
			ret = -1;
		}
	free_beside(beside);
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

/* What the command line asks for. */
struct report_args {
	struct report_options opt;
	const char *input;		/* as given; NULL: ./trace.dat */
	const char *perf, *perf_map;
	const char *model;		/* --model FILE */
	unsigned long long spool_max;
	struct report_files o;		/* the outputs' names */
	bool to_stdout;			/* one output is standard output */
	struct report_selection sel;	/* --from/--to/--pid/--tid/--comm */
	int *sel_pids, *sel_tids;	/* sel's lists */
	const char **sel_comms;
	struct report_filter filter;	/* the selection resolved, and --cpu */
	bool stat;			/* --stat */
};

/* Options past the single letters: codes for getopt_long. */
enum {
	OPT_FROM = 256, OPT_TO, OPT_PID, OPT_TID, OPT_COMM, OPT_CPU, OPT_TOP, OPT_SORT,
	OPT_UNITS, OPT_STAT, OPT_INSTANCE,
};

/* "12,34" appended to @list; 0, or -1 after a message. */
static int add_ids(const char *opt, const char *arg, int **list, size_t *n)
{
	const char *s = arg;
	char *end;
	long v;
	int *l;

	do {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT32_MAX || (*end && *end != ',')) {
			fprintf(stderr, "powerpin report: %s wants positive ids, as 12,34, not '%s'\n",
				opt, arg);
			return -1;
		}
		l = realloc(*list, (*n + 1) * sizeof(*l));
		if (!l) {
			fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
			return -1;
		}
		*list = l;
		l[(*n)++] = (int)v;
		s = end + 1;
	} while (*end);
	return 0;
}

/* "a,b" appended to --comm's names (pointing into @arg); 0 or -1. */
static int add_comms(char *arg, struct report_args *a)
{
	char *save = NULL, *name;
	const char **l;

	for (name = strtok_r(arg, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		l = realloc(a->sel_comms, (a->sel.nr_comms + 1) * sizeof(*l));
		if (!l) {
			fprintf(stderr, "powerpin report: %s\n", strerror(ENOMEM));
			return -1;
		}
		a->sel_comms = l;
		l[a->sel.nr_comms++] = name;
	}
	a->sel.comms = a->sel_comms;
	return 0;
}

/* --top, --sort, --units; -1 to go on, else the exit status. */
static int view_option(int c, const char *arg, struct report_args *a)
{
	static const char *const sorts[] = { "energy", "cpu", "name" };
	static const char *const units[] = { "J", "mWh", "mAh" };
	unsigned long v;
	char *end;
	int k;

	if (c == OPT_TOP) {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (!strcmp(arg, "all"))
			a->opt.top = UINT32_MAX;
		else if (!errno && end != arg && !*end && v > 0 && v < UINT32_MAX && isdigit(*arg))
			a->opt.top = (uint32_t)v;
		else
			fprintf(stderr, "powerpin report: --top wants a positive count or all, not '%s'\n",
				arg);
		return a->opt.top ? -1 : usage_error("powerpin report");
	}
	for (k = 0; k < 3; k++)
		if (c == OPT_SORT ? !strcmp(arg, sorts[k]) : !strcasecmp(arg, units[k])) {
			if (c == OPT_SORT)
				a->opt.sort = (enum report_sort)k;
			else
				a->opt.units = (enum report_units)k;
			return -1;
		}
	if (c == OPT_SORT)
		fprintf(stderr, "powerpin report: --sort wants energy, cpu or name, not '%s'\n", arg);
	else
		fprintf(stderr, "powerpin report: --units wants J, mWh or mAh, not '%s'\n", arg);
	return usage_error("powerpin report");
}

/* What is read: --from ... --stat; -1 to go on, else the exit status. */
static int filter_option(int c, char *arg, struct report_args *a)
{
	char err[256];
	int ret = 0;

	switch (c) {
	case OPT_FROM:
		a->sel.from = arg;
		return -1;
	case OPT_TO:
		a->sel.to = arg;
		return -1;
	case OPT_PID:
		ret = add_ids("--pid", arg, &a->sel_pids, &a->sel.nr_pids);
		a->sel.pids = a->sel_pids;
		break;
	case OPT_TID:
		ret = add_ids("--tid", arg, &a->sel_tids, &a->sel.nr_tids);
		a->sel.tids = a->sel_tids;
		break;
	case OPT_COMM:
		ret = add_comms(arg, a);
		break;
	case OPT_CPU:
		ret = report_filter_parse_cpus(&a->filter, arg, err, sizeof(err));
		if (ret)
			fprintf(stderr, "powerpin report: %s\n", err);
		break;
	case OPT_STAT:
		a->stat = true;
		break;
	case OPT_INSTANCE:
		a->filter.instance = arg;
		break;
	default:
		return view_option(c, arg, a);
	}
	return ret ? usage_error("powerpin report") : -1;
}

/* An output option given an empty name: a usage error, not ENOENT. */
static int empty_output(int c)
{
	static const char *const names[128] = {
		['j'] = "--json", ['c'] = "--csv", ['H'] = "--html", ['p'] = "--perfetto",
		['C'] = "--chrome-json", ['F'] = "--flame",
	};

	fprintf(stderr, "powerpin report: %s wants a file name (or - for standard output), not ''\n",
		names[c]);
	return usage_error("powerpin report");
}

/* One option of getopt's; -1 to go on, else the exit status. */
static int report_option(int c, const char *arg, struct report_args *a)
{
	static const enum report_output by_opt[128] = {
		['j'] = OUT_JSON, ['c'] = OUT_CSV, ['H'] = OUT_HTML, ['p'] = OUT_PERFETTO,
		['C'] = OUT_CHROME, ['F'] = OUT_FLAME,
	};
	char *end;

	switch (c) {
	case 'j': case 'c': case 'H': case 'p': case 'C': case 'F':
		if (!*arg)
			return empty_output(c);
		a->o.name[by_opt[c]] = arg;
		return -1;
	case 'i':
		if (a->input) {
			fprintf(stderr, "powerpin report: exactly one <input>, please\n");
			return usage_error("powerpin report");
		}
		a->input = arg;
		return -1;
	case 'P':
		a->perf = arg;
		return -1;
	case 'M':
		a->perf_map = arg;
		return -1;
	case 'm':
		a->model = arg;
		return -1;
	case 'b':
		errno = 0;
		a->opt.baseline_s = strtod(arg, &end);
		if (!errno && end != arg && !*end && isfinite(a->opt.baseline_s) &&
		    a->opt.baseline_s > 0)
			return -1;
		fprintf(stderr, "powerpin report: --baseline wants a positive number of seconds, not '%s'\n",
			arg);
		return usage_error("powerpin report");
	case 's':
		if (!strcmp(arg, "auto"))
			a->opt.sign = REPORT_SIGN_AUTO;
		else if (!strcmp(arg, "discharge-negative"))
			a->opt.sign = REPORT_SIGN_DISCHARGE_NEGATIVE;
		else if (!strcmp(arg, "discharge-positive"))
			a->opt.sign = REPORT_SIGN_DISCHARGE_POSITIVE;
		else
			break;
		return -1;
	case 'S':
		if (!parse_size(arg, &a->spool_max))
			return -1;
		fprintf(stderr, "powerpin report: --spool-max wants a byte count (K, M, G suffixes; 0 for no limit), not '%s'\n",
			arg);
		return usage_error("powerpin report");
	case 'h':
		report_usage(stdout);
		return 0;
	default:
		if (c >= OPT_FROM || c == 'B')
			return filter_option(c == 'B' ? OPT_INSTANCE : c, (char *)arg, a);
		return usage_error("powerpin report");
	}
	fprintf(stderr, "powerpin report: --sign wants auto, discharge-negative or discharge-positive, not '%s'\n",
		arg);
	return usage_error("powerpin report");
}

/* The command line into @a; -1 to go on, else the exit status. */
static int report_parse(int argc, char **argv, struct report_args *a)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
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
		{ "model", required_argument, NULL, 'm' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "stat", no_argument, NULL, OPT_STAT },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, ret, to_stdout = 0;

	memset(a, 0, sizeof(*a));
	a->opt.sign = REPORT_SIGN_AUTO;
	a->spool_max = REPORT_SPOOL_MAX;
	optind = 1;
	json_option_normalize(argc, argv, false);
	while ((c = getopt_long(argc, argv, "i:B:h", longopts, NULL)) != -1)
		if ((ret = report_option(c, optarg, a)) >= 0)
			return ret;
	if (optind < argc && !a->input)
		a->input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "powerpin report: exactly one <input>, please\n");
		return usage_error("powerpin report");
	}
	if ((a->o.name[OUT_FLAME] || a->perf_map) && !a->perf) {
		fprintf(stderr, "powerpin report: --flame and --perf-map go with --perf\n");
		return usage_error("powerpin report");
	}
	for (i = 0; i < OUT_COUNT; i++)
		to_stdout += a->o.name[i] && output_is_stdout(a->o.name[i]);
	if (to_stdout > 1) {
		fprintf(stderr, "powerpin report: only one output can go to standard output\n");
		return usage_error("powerpin report");
	}
	/* the counts would have nowhere to go: say so rather than drop them */
	if (to_stdout && a->stat) {
		fprintf(stderr, "powerpin report: --stat prints on standard output, where an output already goes (-): give that output a file\n");
		return usage_error("powerpin report");
	}
	a->to_stdout = to_stdout;
	a->opt.filter = &a->filter;
	if (outputs_distinct(a->o.name))
		return usage_error("powerpin report");
	return -1;
}

/* Where the capture is read from: a file, a spool copy, a directory's trace.dat. */
struct report_input {
	const char *path;		/* to read */
	const char *name;		/* in messages */
	char *dir_input;		/* <dir>/trace.dat */
	int spool_fd;			/* the copy of a pipe, FIFO or device, or -1 */
	char spool_path[64];
};

static void input_close(struct report_input *in)
{
	if (in->spool_fd >= 0)
		close(in->spool_fd);
	free(in->dir_input);
}

/* Find and, if need be, copy the input; 0, or -1 with a message. */
static int input_open(struct report_input *in, const struct report_args *a)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->spool_fd = -1;
	/* no input: ./trace.dat, as trace-cmd report and powerpin record */
	in->path = a->input ? a->input : "trace.dat";
	if (!a->input && access(in->path, F_OK)) {
		fprintf(stderr, "powerpin report: no <input> given and no trace.dat here: %s\n",
			strerror(errno));
		return -1;
	}
	/* a powerpind spool directory holds its capture as trace.dat */
	if (!stat(in->path, &st) && S_ISDIR(st.st_mode)) {
		if (asprintf(&in->dir_input, "%s/trace.dat", in->path) < 0) {
			in->dir_input = NULL;
			fprintf(stderr, "powerpin report: %s\n", strerror(errno));
			return -1;
		}
		in->path = in->dir_input;
	}
	in->name = strcmp(in->path, "-") ? in->path : "<stdin>";
	if (outputs_not_inputs(a->o.name, in->path, a->perf, a->perf_map, a->model))
		return -1;
	if (!strcmp(in->path, "-") || (!stat(in->path, &st) && !S_ISREG(st.st_mode))) {
		in->spool_fd = spool_input(in->path, in->name, a->spool_max, in->spool_path,
					   sizeof(in->spool_path));
		if (in->spool_fd < 0)
			return -1;
		in->path = in->spool_path;
	}
	return 0;
}

/* --stat: the events read, by kind, after the filters; 0 or -1 (said). */
static int write_stat(const struct report_args *a, const struct report_input *in, FILE *out)
{
	struct report_event_counts c;
	char err[512];
	int k;

	if (report_count_events(in->path, &a->filter, &c, err, sizeof(err))) {
		report_error(err, in->path, in->name);
		return -1;
	}
	fprintf(out, "events read%s:\n",
		report_filter_active(&a->filter) ? " (after --from/--to, --cpu, --pid/--tid/--comm)" :
		"");
	for (k = 0; k < REPORT_EVENT_KINDS; k++)
		if (report_event_kind_name(k))
			fprintf(out, "  %-32s %12llu\n", report_event_kind_name(k),
				(unsigned long long)c.n[k]);
	return 0;
}

/* The filter made, the capture read and checked; 0 or -1 (said on stderr). */
static int report_read(struct report *r, struct report_args *a, const struct report_input *in)
{
	char err[512];

	if (report_filter_resolve(&a->filter, in->path, &a->sel, err, sizeof(err)) ||
	    report_run(r, in->path, err, sizeof(err))) {
		report_error(err, in->path, in->name);
		return -1;
	}
	if (a->opt.baseline_s > r->duration_s) {
		fprintf(stderr, "powerpin report: --baseline %g s is longer than the capture%s (%.3f s)\n",
			a->opt.baseline_s, report_filter_active(&a->filter) ? " read" : "",
			r->duration_s);
		return -1;
	}
	return 0;
}

/*
 * --stat alone: the events counted, no report made (a capture with no
 * power samples can be counted too); 0 or -1 (said on stderr).
 */
static int report_stat_only(struct report_args *a, const struct report_input *in)
{
	char err[512];

	if (report_filter_resolve(&a->filter, in->path, &a->sel, err, sizeof(err))) {
		report_error(err, in->path, in->name);
		return -1;
	}
	return write_stat(a, in, stdout);
}

/* Whether an output file is asked for (beside the text summary). */
static bool any_output(const struct report_args *a)
{
	int i;

	for (i = 0; i < OUT_COUNT; i++)
		if (a->o.name[i])
			return true;
	return a->perf != NULL;
}

/* Read, then write the summary and every output; 0 or -1 (said on stderr). */
static int report_produce(struct report *r, struct report_perf *rp, struct report_args *a,
			  const struct report_input *in)
{
	char err[512];

	if (a->stat && !any_output(a))
		return report_stat_only(a, in);
	if (report_read(r, a, in))
		return -1;
	if (r->cut_line)
		fprintf(stderr, "powerpin report: %s: line %lu has no newline and is not a whole event (its writer was stopped inside it); left out\n",
			in->name, r->cut_line);
	if (r->model && report_model_run(r, in->path, err, sizeof(err))) {
		report_error(err, in->path, in->name);
		return -1;
	}
	if (a->perf && report_add_perf(r, rp, in->path, in->name, a->perf, a->perf_map))
		return -1;
	/* standard output carries the one output sent there, not the summary */
	if (!a->to_stdout && a->stat && write_stat(a, in, stdout))
		return -1;
	if (!a->to_stdout && !a->stat && report_write_text(r, stdout)) {
		stdout_error(errno);	/* close_stdout() says it */
		return -1;
	}
	if (outputs_open(&a->o))
		return -1;
	if (outputs_write(&a->o, r, rp, in->path, in->name)) {
		outputs_abort(&a->o);
		return -1;
	}
	return outputs_commit(&a->o);
}

int cmd_report(int argc, char **argv)
{
	static struct profile_model model;
	struct report_perf rp = { 0 };
	struct report_input in;
	struct report_args a;
	struct report r;
	int ret;

	ret = report_parse(argc, argv, &a);
	if (ret >= 0)
		return ret;
	if (input_open(&in, &a)) {
		input_close(&in);
		return 1;
	}
	ret = 1;
	if (a.model && load_model(a.model, &model)) {
		/* said */
	} else if (report_init(&r, &a.opt)) {
		fprintf(stderr, "powerpin report: %s\n", strerror(errno));
	} else {
		r.model = a.model ? &model : NULL;
		ret = report_produce(&r, &rp, &a, &in) ? 1 : 0;
		if (a.perf)
			report_perf_free(&rp);
		report_free(&r);
	}
	free_beside(a.o.beside);
	free(a.sel_pids);
	free(a.sel_tids);
	free(a.sel_comms);
	report_filter_free(&a.filter);
	input_close(&in);
	return ret;
}
