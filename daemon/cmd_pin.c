// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin file, powerpin pinlist, powerpin pin capture|apply.
 *
 * `file` and `pinlist` keep the output lines of AOSP's pintool so scripts
 * written for it keep working; the faults listed in DESIGN.md are not kept.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "file_tree.h"
#include "pin/pin.h"
#include "base/base.h"

#define ERRLEN		512
#define EMBEDDED_MAX	(16 << 20)

/* in the order current PinnerService tries them (docs/pinlist.md) */
static const char * const embedded_pinlists[] = {
	"pinlist.meta",
	"assets/pinlist.meta",
};

/* ---- small helpers --------------------------------------------------- */

static void json_ranges(FILE *out, const struct pin_ranges *r)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < r->nr; i++)
		fprintf(out, "%s{\"offset\":%llu,\"length\":%llu}", i ? "," : "",
			(unsigned long long)r->v[i].offset,
			(unsigned long long)r->v[i].length);
	fputc(']', out);
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole * 100.0 : 0.0;
}

/*
 * A decimal count, optionally with a K, M or G suffix (powers of 1024) when
 * @suffix is true.  Decimal only: "010" is ten, not eight.
 */
static int parse_decimal(const char *arg, bool suffix, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return -1;
	if (suffix) {
		switch (*end) {
		case 'k': case 'K': mul = 1ULL << 10; end++; break;
		case 'm': case 'M': mul = 1ULL << 20; end++; break;
		case 'g': case 'G': mul = 1ULL << 30; end++; break;
		}
	}
	if (*end || v > ULLONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_quota(const char *cmd, const char *arg, uint64_t *quota)
{
	unsigned long long v;

	if (parse_decimal(arg, true, &v) || !v) {
		fprintf(stderr, "powerpin %s: --quota: '%s' is not a positive decimal byte count (K, M, G suffixes allowed)\n",
			cmd, arg);
		return -1;
	}
	*quota = v;
	return 0;
}

static int parse_probe_method(const char *cmd, const char *arg,
			      enum probe_want *want)
{
	if (!strcmp(arg, "auto"))
		*want = PROBE_AUTO;
	else if (!strcmp(arg, "runs"))
		*want = PROBE_WANT_RUNS;
	else if (!strcmp(arg, "bitmap"))
		*want = PROBE_WANT_BITMAP;
	else if (!strcmp(arg, "mincore"))
		*want = PROBE_WANT_MINCORE;
	else {
		fprintf(stderr, "powerpin %s: --probe-method: '%s' is not auto, runs, bitmap or mincore\n",
			cmd, arg);
		return -1;
	}
	return 0;
}

static void say_method(const char *cmd, const char *name,
		       const struct probe_result *pr)
{
	if (pr->method == PROBE_MINCORE && pr->fallback_reason[0])
		fprintf(stderr, "powerpin %s: %s: residency via mincore (%s)\n", cmd, name,
			pr->fallback_reason);
	else
		fprintf(stderr, "powerpin %s: %s: residency via %s\n", cmd, name,
			probe_method_name(pr->method));
}

static int probe_path(const char *cmd, const char *path, enum probe_want want,
		      struct probe_result *pr)
{
	char err[ERRLEN];
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "powerpin %s: %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	ret = probe_residency(fd, path, want, NULL, pr, err, sizeof(err));
	close(fd);
	if (ret)
		fprintf(stderr, "powerpin %s: %s\n", cmd, err);
	return ret;
}

/*
 * Normalise, apply the quota and write atomically.  On success @written
 * holds exactly what went into the file.
 */
static int write_pinlist(const char *cmd, const char *path,
			 const struct pin_ranges *in, uint64_t file_size,
			 bool by_rank, uint64_t quota, struct pin_ranges *written)
{
	size_t bad = 0;

	if (pinlist_normalize(in, sysconf(_SC_PAGESIZE), file_size, by_rank, written)) {
		fprintf(stderr, "powerpin %s: %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	pinlist_apply_quota(written, quota);
	if (pinlist_write_file(path, written, &bad)) {
		if (errno == ERANGE)
			fprintf(stderr, "powerpin %s: %s: range start=%llu bytes=%llu does not fit pinlist.meta (fields are signed 32-bit, at most %d)\n",
				cmd, path, (unsigned long long)written->v[bad].offset,
				(unsigned long long)written->v[bad].length, PINLIST_FIELD_MAX);
		else
			fprintf(stderr, "powerpin %s: %s: %s\n", cmd, path, output_strerror(errno));
		pin_ranges_free(written);
		return -1;
	}
	return 0;
}

/* ---- powerpin file --------------------------------------------------- */

static void file_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin file <path> [options]\n"
		"       powerpin file <path>... [--json [FILE]] [-H] [--probe-method M]\n"
		"\n"
		"Probe a file's page-cache residency (per zip entry with --zip), filter it\n"
		"with a pinconfig, dump it and write a pinlist.meta.\n"
		"\n"
		"Without --gen-probe, --use-probe or --zip, or with several paths or a\n"
		"directory (walked, links in it not followed): the residency of every\n"
		"regular file, a line each (and a total for several), as fincore.\n"
		"\n"
		"  --gen-probe            probe the file's resident pages now\n"
		"  --use-probe FILE       use the ranges of an existing pinlist as the probe\n"
		"  --zip                  treat the file as a zip/apk: per-entry coverage\n"
		"  --pinconfig FILE       keep only the entries (and ranges) FILE names (needs --zip)\n"
		"  --dump                 print the coverages (always on without --zip)\n"
		"  -o, --output FILE      write a pinlist.meta: a file is replaced whole (a\n"
		"                         symlink's target), a FIFO or device written through,\n"
		"                         \"-\" is stdout (the text lines then go to stderr)\n"
		"  --quota BYTES          write at most BYTES (decimal; K/M/G suffixes accepted)\n"
		"  --probe-method M       auto (default), runs, bitmap or mincore\n"
		"  --json [FILE]          the same as JSON into FILE (\"-\" or none: standard\n"
		"                         output, instead of the text lines)\n"
		"  -H, --human-readable   as fincore: sizes in K, M, G (of 1024)\n"
		"  -v, --verbose          more detail\n"
		"  -h, --help             this text\n"
		"\n"
		"Without --zip, -o, --dump and --pinconfig need --gen-probe or --use-probe.\n"
		"With --zip and no probe every entry counts as wholly wanted (pinconfig-only\n"
		"pinlists).\n");
}

static void dump_entries(FILE *out, const struct zip_coverage *cov, size_t nr, bool verbose)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		const struct zip_entry *e = cov[i].entry;
		uint64_t bytes = pin_ranges_bytes(&cov[i].ranges);

		fprintf(out, "%s size(B)=%llu resident(B)=%llu resident(%%)=%g\n", e->name,
		       (unsigned long long)e->compressed_size, (unsigned long long)bytes,
		       percent(bytes, e->compressed_size));
		if (verbose)
			fprintf(out, "file_base_zip_offset=%llu\n", (unsigned long long)e->data_offset);
		fprintf(out, "file resident ranges\n");
		for (j = 0; j < cov[i].ranges.nr; j++) {
			const struct pin_range *r = &cov[i].ranges.v[j];

			fprintf(out, "zip_offset=%llu file_offset=%llu total_bytes=%llu\n",
			       (unsigned long long)r->offset,
			       (unsigned long long)(r->offset - e->data_offset),
			       (unsigned long long)r->length);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

static void json_entries(FILE *out, const struct zip_coverage *cov, size_t nr)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < nr; i++) {
		const struct zip_entry *e = cov[i].entry;

		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_string(out, e->name, SIZE_MAX);
		fprintf(out, ",\"data_offset\":%llu,\"compressed_size\":%llu,\"uncompressed_size\":%llu,\"method\":%u,\"resident_bytes\":%llu,\"ranges\":",
			(unsigned long long)e->data_offset,
			(unsigned long long)e->compressed_size,
			(unsigned long long)e->uncompressed_size, e->method,
			(unsigned long long)pin_ranges_bytes(&cov[i].ranges));
		json_ranges(out, &cov[i].ranges);
		fputc('}', out);
	}
	fputc(']', out);
}

struct file_opts {
	const char *path;
	char *const *paths;		/* every path given */
	int nr_paths;
	bool tree;			/* several paths or a directory (file_tree.h) */
	bool human;
	const char *use_probe;
	const char *pinconfig;
	const char *output;
	const char *json;		/* --json FILE, NULL without */
	uint64_t quota;
	enum probe_want want;
	bool gen_probe, zip, dump, verbose;
};

static int file_parse_tree(struct file_opts *o);

static int file_parse(int argc, char **argv, struct file_opts *o)
{
	static const struct option longopts[] = {
		{ "gen-probe",    no_argument,       NULL, 'g' },
		{ "use-probe",    required_argument, NULL, 'u' },
		{ "zip",          no_argument,       NULL, 'z' },
		{ "pinconfig",    required_argument, NULL, 'c' },
		{ "dump",         no_argument,       NULL, 'd' },
		{ "output",       required_argument, NULL, 'o' },
		{ "quota",        required_argument, NULL, 'q' },
		{ "probe-method", required_argument, NULL, 'm' },
		{ "json",         required_argument, NULL, 'j' },
		{ "verbose",      no_argument,       NULL, 'v' },
		{ "human-readable", no_argument,     NULL, 'H' },
		{ "help",         no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->quota = PINLIST_NO_QUOTA;
	optind = 0;
	json_option_normalize(argc, argv, false);
	while ((c = getopt_long(argc, argv, "o:vhH", longopts, NULL)) != -1) {
		switch (c) {
		case 'g': o->gen_probe = true; break;
		case 'u': o->use_probe = optarg; break;
		case 'z': o->zip = true; break;
		case 'c': o->pinconfig = optarg; break;
		case 'd': o->dump = true; break;
		case 'o': o->output = optarg; break;
		case 'j': o->json = optarg; break;
		case 'v': o->verbose = true; break;
		case 'q':
			if (parse_quota("file", optarg, &o->quota))
				return usage_error("powerpin file");
			break;
		case 'm':
			if (parse_probe_method("file", optarg, &o->want))
				return usage_error("powerpin file");
			break;
		case 'H': o->human = true; break;
		case 'h':
			file_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin file");
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "powerpin file: expected a <path>\n");
		return usage_error("powerpin file");
	}
	o->path = argv[optind];
	o->paths = argv + optind;
	o->nr_paths = argc - optind;
	return file_parse_tree(o);
}

/* Several paths or a directory, and what goes with one file only; as file_parse(). */
static int file_parse_tree(struct file_opts *o)
{
	struct stat st;

	/* one file without a probe or a zip: its line, as several get theirs */
	o->tree = o->nr_paths > 1 || (!stat(o->path, &st) && S_ISDIR(st.st_mode)) ||
		  (!o->zip && !o->gen_probe && !o->use_probe && !o->pinconfig && !o->output &&
		   !o->dump && o->quota == PINLIST_NO_QUOTA);
	if (o->tree && (o->zip || o->use_probe || o->pinconfig || o->output ||
			o->quota != PINLIST_NO_QUOTA)) {
		fprintf(stderr, "powerpin file: -o, --zip, --pinconfig, --use-probe and --quota take one file, not several paths or a directory\n");
		return usage_error("powerpin file");
	}
	if (o->tree)
		return -1;
	if (o->gen_probe && o->use_probe) {
		fprintf(stderr, "powerpin file: --gen-probe and --use-probe exclude each other\n");
		return usage_error("powerpin file");
	}
	if (!o->zip && !o->gen_probe && !o->use_probe) {
		fprintf(stderr, "powerpin file: -o, --dump, --quota and --pinconfig on a file that is not a zip need --gen-probe or --use-probe\n");
		return usage_error("powerpin file");
	}
	if (!o->zip && o->pinconfig) {
		fprintf(stderr, "powerpin file: --pinconfig filters zip entries and needs --zip\n");
		return usage_error("powerpin file");
	}
	return -1;
}

/*
 * The probe: resident pages now (--gen-probe) or the ranges of an existing
 * pinlist (--use-probe) within the file's @size bytes, sorted and merged,
 * in @probe.
 */
static int file_load_probe(const struct file_opts *o, uint64_t size, struct probe_result *pr,
			   struct pin_ranges *probe)
{
	struct pin_ranges raw = { 0 };
	size_t trailing = 0;
	int ret;

	if (o->gen_probe) {
		if (probe_path("file", o->path, o->want, pr))
			return -1;
		say_method("file", o->path, pr);
		*probe = pr->resident;
		memset(&pr->resident, 0, sizeof(pr->resident));
		return 0;
	}
	if (pinlist_read_file(o->use_probe, &raw, &trailing)) {
		if (errno == EBADMSG)
			fprintf(stderr, "powerpin file: --use-probe %s: %zu trailing bytes are not a whole pair: not a pinlist\n",
				o->use_probe, trailing);
		else
			fprintf(stderr, "powerpin file: --use-probe %s: %s\n", o->use_probe,
				pinlist_read_strerror(errno));
		pin_ranges_free(&raw);
		return -1;
	}
	if (!raw.nr)
		fprintf(stderr, "powerpin file: --use-probe %s: no ranges\n", o->use_probe);
	/* a page cannot be resident past the end of the file */
	pin_ranges_merge(&raw);
	ret = pin_ranges_clip(&raw, 0, size, probe);
	pin_ranges_free(&raw);
	if (ret)
		fprintf(stderr, "powerpin file: %s\n", strerror(ENOMEM));
	return ret;
}

static void file_print_json(FILE *out, const struct file_opts *o, uint64_t size,
			    const struct probe_result *pr,
			    const struct pin_ranges *probe,
			    const struct zip_coverage *cov, size_t nr,
			    const struct zip_coverage *filtered, size_t nr_filtered,
			    const struct pin_ranges *written)
{
	fprintf(out, "{\"file\":");
	json_string(out, o->path, SIZE_MAX);
	fprintf(out, ",\"size\":%llu,\"page_size\":%ld,\"probe\":", (unsigned long long)size,
	       sysconf(_SC_PAGESIZE));
	if (o->gen_probe || o->use_probe) {
		fprintf(out, "{\"source\":");
		json_string(out, o->gen_probe ? "gen-probe" : o->use_probe, SIZE_MAX);
		if (o->gen_probe) {
			fprintf(out, ",\"method\":");
			json_string(out, probe_method_name(pr->method), SIZE_MAX);
		}
		fprintf(out, ",\"resident_bytes\":%llu,\"ranges\":",
		       (unsigned long long)pin_ranges_bytes(probe));
		json_ranges(out, probe);
		fprintf(out, "}");
	} else {
		fprintf(out, "null");
	}
	if (o->zip) {
		fprintf(out, ",\"entries\":");
		json_entries(out, cov, nr);
		if (o->pinconfig) {
			fprintf(out, ",\"filtered\":");
			json_entries(out, filtered, nr_filtered);
		}
	}
	if (o->output) {
		fprintf(out, ",\"pinlist\":{\"path\":");
		json_string(out, o->output, SIZE_MAX);
		fprintf(out, ",\"total_bytes_to_pin\":%llu,\"ranges\":",
		       (unsigned long long)pin_ranges_bytes(written));
		json_ranges(out, written);
		fprintf(out, "}");
	}
	fprintf(out, "}\n");
}

/* Everything one `powerpin file` run holds. */
struct file_run {
	struct file_opts o;
	FILE *info;			/* the text lines: stdout, or stderr under -o - */
	bool say;			/* text output (not --json) */
	uint64_t size;
	struct probe_result pr;
	struct pin_ranges probe, all, written;
	struct pinconfig pc;
	struct zip_index zi;
	struct zip_coverage *cov, *filtered;
	size_t nr_filtered;
};

/* pintool's ProbeType numbers, which its -v prints */
enum { PINTOOL_PROBE_UNSET, PINTOOL_PROBE_GENERATE, PINTOOL_PROBE_CUSTOM };

static void file_verbose_header(const struct file_run *f)
{
	const struct file_opts *o = &f->o;

	fprintf(f->info, "Setting output pinlist file: %s\n", o->output ? o->output : "");
	fprintf(f->info, "Setting input file: %s\n", o->path);
	fprintf(f->info, "Setting pinconfig file: %s\n", o->pinconfig ? o->pinconfig : "");
	fprintf(f->info, "Setting custom probe file: %s\n", o->use_probe ? o->use_probe : "");
	fprintf(f->info, "Setting probe type: %d\n", o->gen_probe ? PINTOOL_PROBE_GENERATE :
		o->use_probe ? PINTOOL_PROBE_CUSTOM : PINTOOL_PROBE_UNSET);
	fprintf(f->info, "Dump enabled: %d\n", o->dump);
	fprintf(f->info, "Is Zip file: %d\n", o->zip);
	if (o->quota != PINLIST_NO_QUOTA)
		fprintf(f->info, "Set Write quota: %llu\n", (unsigned long long)o->quota);
	if (o->zip && o->use_probe)
		fprintf(f->info, "Using custom probe file: %s\n", o->use_probe);
	else if (o->zip && o->gen_probe)
		fprintf(f->info, "Generating probe\n");
}

/* -v: the pinconfig as read, and what each match asks for (archive offsets). */
static void file_verbose_pinconfig(const struct file_run *f)
{
	const struct pinconfig *pc = &f->pc;
	size_t i, j;

	fprintf(f->info, "Parsing file: %s\n", f->o.pinconfig);
	fprintf(f->info, "Finished parsing Pinconfig file\n");
	for (i = 0; i < pc->nr; i++) {
		fprintf(f->info, "file=%s\n", pc->entries[i].pattern);
		for (j = 0; j < pc->entries[i].nr_ranges; j++)
			fprintf(f->info, "offset=%llu bytes=%llu\n",
				(unsigned long long)pc->entries[i].ranges[j].offset,
				(unsigned long long)pc->entries[i].ranges[j].length);
	}
	for (i = 0; i < f->nr_filtered; i++) {
		const struct zip_entry *e = f->filtered[i].entry;
		const struct pinconfig_entry *pe = pinconfig_match(pc, e->name);

		fprintf(f->info, "Found a match: file=%s matching filter=%s\n", e->name,
			pe->pattern);
		if (!pe->nr_ranges)
			fprintf(f->info, "zip_offset=%llu bytes=%llu\n",
				(unsigned long long)e->data_offset,
				(unsigned long long)e->compressed_size);
		for (j = 0; j < pe->nr_ranges; j++)
			fprintf(f->info, "zip_offset=%llu bytes=%llu\n",
				(unsigned long long)(e->data_offset + pe->ranges[j].offset),
				(unsigned long long)pe->ranges[j].length);
	}
}

static int add_all(struct pin_ranges *all, const struct pin_ranges *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (pin_ranges_add(all, r->v[i].offset, r->v[i].length, 0))
			return -1;
	return 0;
}

/* --zip: per-entry coverages, the pinconfig's filter, the dumps; -1 ENOMEM. */
static int file_zip(struct file_run *f, bool have_probe)
{
	const struct file_opts *o = &f->o;
	const struct zip_coverage *src;
	size_t i, n;

	f->cov = zip_coverages(&f->zi, have_probe ? &f->probe : NULL);
	if (!f->cov)
		return -1;
	if (o->verbose && f->say)
		for (i = 0; i < f->zi.nr; i++)
			fprintf(f->info, "file found. name=%s offset=%llu uncompressed=%llu compressed=%llu\n\n",
				f->zi.entries[i].name,
				(unsigned long long)f->zi.entries[i].data_offset,
				(unsigned long long)f->zi.entries[i].uncompressed_size,
				(unsigned long long)f->zi.entries[i].compressed_size);
	if (o->pinconfig) {
		f->filtered = pinconfig_filter(&f->pc, f->cov, f->zi.nr, &f->nr_filtered);
		if (!f->filtered)
			return -1;
		if (o->verbose && f->say)
			file_verbose_pinconfig(f);
		if (!f->nr_filtered)
			fprintf(stderr, "powerpin file: warning: pinconfig %s matches no entry of %s\n",
				o->pinconfig, o->path);
	}
	if (o->dump && f->say) {
		fprintf(f->info, "\n----Unfiltered file coverages----\n\n");
		dump_entries(f->info, f->cov, f->zi.nr, o->verbose);
		if (o->pinconfig) {
			fprintf(f->info, "\n----Filtered file coverages----\n\n");
			dump_entries(f->info, f->filtered, f->nr_filtered, o->verbose);
		}
	}
	/* what a pinlist would hold: the filtered view if there is one */
	src = o->pinconfig ? f->filtered : f->cov;
	n = o->pinconfig ? f->nr_filtered : f->zi.nr;
	for (i = 0; i < n; i++)
		if (add_all(&f->all, &src[i].ranges))
			return -1;
	return 0;
}

/* A plain file: its probe, dumped always (as pintool does); -1 ENOMEM. */
static int file_plain(struct file_run *f)
{
	uint64_t bytes = pin_ranges_bytes(&f->probe);
	size_t i;

	if (f->say) {
		fprintf(f->info, "%s size(B)=%llu resident(B)=%llu resident(%%)=%g\n", f->o.path,
			(unsigned long long)f->size, (unsigned long long)bytes,
			percent(bytes, f->size));
		fprintf(f->info, "file resident ranges\n");
		for (i = 0; i < f->probe.nr; i++)
			fprintf(f->info, "file_offset=%llu total_bytes=%llu\n",
				(unsigned long long)f->probe.v[i].offset,
				(unsigned long long)f->probe.v[i].length);
		fprintf(f->info, "\n\n");
	}
	return add_all(&f->all, &f->probe);
}

static int file_write(struct file_run *f)
{
	const struct file_opts *o = &f->o;
	size_t i;

	if (o->verbose && f->say && o->zip)
		fprintf(f->info, o->pinconfig ? "Writing pinconfig filtered file coverages\n" :
			"Writing regular file coverages.\n");
	if (write_pinlist("file", o->output, &f->all, f->size, false, o->quota, &f->written))
		return -1;
	if (!f->say)
		return 0;
	for (i = 0; i < f->written.nr; i++)
		fprintf(f->info, "Pinlist Writing start=%llu bytes=%llu\n",
			(unsigned long long)f->written.v[i].offset,
			(unsigned long long)f->written.v[i].length);
	if (o->verbose)
		fprintf(f->info, "Finished writing pin file at: %s\n", o->output);
	return 0;
}

static void file_run_free(struct file_run *f)
{
	zip_coverages_free(f->cov, f->zi.nr);
	zip_coverages_free(f->filtered, f->nr_filtered);
	pin_ranges_free(&f->probe);
	pin_ranges_free(&f->written);
	pin_ranges_free(&f->all);
	probe_result_free(&f->pr);
	pinconfig_free(&f->pc);
	zip_index_free(&f->zi);
}

/* No output may be one of the inputs (output.h); 0, or -1 with a message. */
static int file_inputs(const struct file_opts *o)
{
	const char *const in[] = { o->path, o->use_probe, o->pinconfig };
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (in[i] && output_add_input(in[i])) {
			fprintf(stderr, "powerpin file: %s\n", strerror(errno));
			return -1;
		}
	if (o->output && output_check(o->output)) {
		fprintf(stderr, "powerpin file: %s: %s\n", o->output, output_strerror(errno));
		return -1;
	}
	if (o->json && json_output_check("powerpin file", o->json))
		return -1;
	return 0;
}

/* Check and load what the run reads; the exit status, or -1 to go on. */
static int file_load(struct file_run *f)
{
	const struct file_opts *o = &f->o;
	char err[ERRLEN];
	struct stat st;

	if (file_inputs(o))
		return 1;
	if (stat(o->path, &st)) {
		fprintf(stderr, "powerpin file: %s: %s\n", o->path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "powerpin file: %s: not a regular file\n", o->path);
		return 1;
	}
	f->size = st.st_size;
	if (o->pinconfig && pinconfig_load(o->pinconfig, &f->pc, err, sizeof(err))) {
		fprintf(stderr, "powerpin file: pinconfig: %s\n", err);
		return 1;
	}
	if ((o->gen_probe || o->use_probe) && file_load_probe(o, f->size, &f->pr, &f->probe))
		return 1;
	/*
	 * Index the archive only after probing: reading the central directory
	 * and the local headers (with readahead) brings pages into the cache.
	 */
	if (o->zip && zip_index_open(o->path, &f->zi, err, sizeof(err))) {
		fprintf(stderr, "powerpin file: %s\n", err);
		return 1;
	}
	if (o->zip)
		f->size = f->zi.file_size;
	return -1;
}

int cmd_file(int argc, char **argv)
{
	struct file_run f;
	int ret;

	memset(&f, 0, sizeof(f));
	ret = file_parse(argc, argv, &f.o);
	if (ret >= 0)
		return ret;
	if (f.o.tree) {
		const struct file_tree_opts t = {
			.want = f.o.want, .json = f.o.json, .human = f.o.human, .verbose = f.o.verbose,
		};

		return file_tree(f.o.paths, f.o.nr_paths, &t);
	}
	f.info = stdout;
	/* the text lines, unless the JSON takes their place on stdout */
	f.say = !f.o.json || !output_is_stdout(f.o.json);
	if (f.o.json && !*f.o.json)
		return json_output_check("powerpin file", f.o.json);
	/* a pinlist on stdout: the lines about it go to stderr */
	if (f.o.output && output_is_stdout(f.o.output)) {
		if (!f.say) {
			fprintf(stderr, "powerpin file: --json and a pinlist both on stdout: give one of them a file\n");
			return usage_error("powerpin file");
		}
		f.info = stderr;
	}
	ret = file_load(&f);
	if (ret >= 0)
		goto out;
	ret = 1;
	if (f.o.verbose && f.say)
		file_verbose_header(&f);
	if (f.o.zip ? file_zip(&f, f.o.gen_probe || f.o.use_probe) : file_plain(&f)) {
		fprintf(stderr, "powerpin file: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (f.o.output && file_write(&f))
		goto out;
	if (f.o.json) {
		struct output_file jf;

		if (json_output_open("powerpin file", f.o.json, &jf))
			goto out;
		file_print_json(jf.fp, &f.o, f.size, &f.pr, &f.probe, f.cov, f.zi.nr, f.filtered,
				f.nr_filtered, &f.written);
		if (json_output_commit("powerpin file", &jf))
			goto out;
	}
	ret = flush_stdout() ? 1 : 0;
out:
	file_run_free(&f);
	return ret;
}

/* ---- powerpin pinlist ------------------------------------------------ */

static void pinlist_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin pinlist <file> [--dump] [--summary] [-v] [--json [FILE]]\n"
		"\n"
		"Read a pinlist.meta strictly: a trailing partial pair is an error (exit 1)\n"
		"after the valid pairs are shown.\n"
		"\n"
		"  --dump          print each pair as start=... bytes=...\n"
		"  --summary       print total_bytes_to_pin=... (without --dump or --json:\n"
		"                  the default)\n"
		"  --json [FILE]   the same as JSON into FILE (\"-\" or none: standard\n"
		"                  output, instead of the text)\n"
		"  -v, --verbose   more detail\n"
		"  -h, --help      this text\n");
}

/* The JSON of pinlist @path into --json @json: 0, or 1 after a message. */
static int pinlist_write_json(const char *json, const char *path, const struct pin_ranges *r,
			      size_t trailing)
{
	struct output_file jf;

	if (json_output_open("powerpin pinlist", json, &jf))
		return 1;
	fprintf(jf.fp, "{\"file\":");
	json_string(jf.fp, path, SIZE_MAX);
	fprintf(jf.fp, ",\"pairs\":%zu,\"trailing_bytes\":%zu,\"total_bytes_to_pin\":%llu,\"ranges\":",
		r->nr, trailing, (unsigned long long)pin_ranges_bytes(r));
	json_ranges(jf.fp, r);
	fprintf(jf.fp, "}\n");
	return json_output_commit("powerpin pinlist", &jf);
}

/* pintool's lines: the pairs (@dump) and the total (@summary). */
static void pinlist_print(const struct pin_ranges *r, bool dump, bool summary)
{
	size_t i;

	if (dump) {
		printf("--pinlist memory ranges--\n");
		for (i = 0; i < r->nr; i++)
			printf("start=%llu bytes=%llu\n",
			       (unsigned long long)r->v[i].offset,
			       (unsigned long long)r->v[i].length);
	}
	if (summary) {
		printf("--pinlist summary--\n");
		printf("total_bytes_to_pin=%llu\n", (unsigned long long)pin_ranges_bytes(r));
	}
}

int cmd_pinlist(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump",    no_argument, NULL, 'd' },
		{ "summary", no_argument, NULL, 's' },
		{ "json",    required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help",    no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool dump = false, summary = false, verbose = false, text;
	struct pin_ranges r = { 0 };
	size_t trailing = 0;
	const char *path, *json = NULL;
	int c, ret, e;

	optind = 0;
	json_option_normalize(argc, argv, false);
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dump = true; break;
		case 's': summary = true; break;
		case 'j': json = optarg; break;
		case 'v': verbose = true; break;
		case 'h':
			pinlist_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin pinlist");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "powerpin pinlist: expected exactly one <file>\n");
		return usage_error("powerpin pinlist");
	}
	path = argv[optind];
	/* the text, unless the JSON takes its place on stdout */
	text = !json || !output_is_stdout(json);
	/* nothing asked: the summary, not a silent success */
	if (!dump && !summary && text)
		summary = true;
	if (json) {
		if (output_add_input(path)) {
			fprintf(stderr, "powerpin pinlist: %s\n", strerror(errno));
			return 1;
		}
		ret = json_output_check("powerpin pinlist", json);
		if (ret)
			return ret;
	}
	ret = pinlist_read_file(path, &r, &trailing);
	e = errno;
	if (ret && e != EBADMSG) {
		fprintf(stderr, "powerpin pinlist: %s: %s\n", path, pinlist_read_strerror(e));
		pin_ranges_free(&r);
		return 1;
	}
	if (json && pinlist_write_json(json, path, &r, trailing)) {
		pin_ranges_free(&r);
		return 1;
	}
	if (text) {
		if (verbose)
			printf("Setting file to dump: %s\n", path);
		pinlist_print(&r, dump, summary);
	}
	flush_stdout();
	if (ret)
		fprintf(stderr, "powerpin pinlist: %s: %zu trailing bytes after %zu pairs: not a whole 8-byte pair (truncated or not a pinlist)\n",
			path, trailing, r.nr);
	pin_ranges_free(&r);
	return ret ? 1 : 0;
}

/* ---- powerpin pin capture -------------------------------------------- */

struct capture_file {
	const char *path;
	char *out;
	int fd;
	uint64_t size;
	struct pin_ranges seen;		/* sorted, merged: every page seen */
	struct pin_ranges ranked;	/* pages by the tick they first appeared */
};

static void capture_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin pin capture --file PATH... [--evict] [--interval MS]\n"
		"                            [--quota BYTES] -o DIR -- CMD [ARG...]\n"
		"\n"
		"Run CMD and write DIR/<basename>.pinlist for every --file with the\n"
		"pages CMD left in the page cache.\n"
		"  --file PATH        a file to capture (repeatable)\n"
		"  --evict            drop the files' clean cached pages first (POSIX_FADV_DONTNEED)\n"
		"  --interval MS      probe every MS milliseconds while CMD runs and order each\n"
		"                     pinlist by first touch, so a quota keeps the earliest bytes\n"
		"  --quota BYTES      at most BYTES per pinlist (decimal; K/M/G suffixes accepted)\n"
		"  --probe-method M   auto (default), runs, bitmap or mincore\n"
		"  -o, --output DIR   directory for the pinlists (created if missing); \"-\"\n"
		"                     writes the one --file's pinlist to stdout (the lines\n"
		"                     about it then go to stderr, and so does CMD's stdout)\n"
		"  -v, --verbose      say how much was resident before the workload\n"
		"  -h, --help         this text\n"
		"\n"
		"Exit status: the workload's (128 + N if signal N ended it, 127 if it was\n"
		"not found, 126 if it could not be run), the pinlists written all the same;\n"
		"1 if they could not be.\n");
}

static void apply_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin pin apply <file> [--pinlist FILE] [--quota BYTES]\n"
		"\n"
		"mmap <file> and mlock the ranges of its pinlist the way Android's\n"
		"PinnerService does (clamped to the file, rounded out to pages, stopping at\n"
		"the quota), print them, and hold them until SIGTERM or SIGINT.\n"
		"  --pinlist FILE     the pinlist (default: pinlist.meta, else\n"
		"                     assets/pinlist.meta, inside <file> when it is a zip/apk,\n"
		"                     as PinnerService looks)\n"
		"  --quota BYTES      pin at most BYTES (decimal; K/M/G suffixes accepted)\n"
		"  -h, --help         this text\n");
}

/* Both: `powerpin pin --help` */
static void pin_usage(FILE *out)
{
	capture_usage(out);
	fputc('\n', out);
	apply_usage(out);
}

static int capture_probe(struct capture_file *f, enum probe_want want,
			 uint64_t tick, bool say)
{
	struct pin_ranges fresh = { 0 };
	struct probe_result pr;
	char err[ERRLEN];
	int ret;

	if (probe_residency(f->fd, f->path, want, NULL, &pr, err, sizeof(err))) {
		fprintf(stderr, "powerpin pin capture: %s\n", err);
		return -1;
	}
	if (say)
		say_method("pin capture", f->path, &pr);
	if (pr.file_size > f->size)
		f->size = pr.file_size;
	ret = pin_ranges_subtract(&pr.resident, &f->seen, &fresh);
	for (size_t i = 0; !ret && i < fresh.nr; i++) {
		ret = pin_ranges_add(&f->ranked, fresh.v[i].offset, fresh.v[i].length, tick) ||
		      pin_ranges_add(&f->seen, fresh.v[i].offset, fresh.v[i].length, 0);
	}
	if (!ret)
		pin_ranges_merge(&f->seen);
	pin_ranges_free(&fresh);
	probe_result_free(&pr);
	if (ret)
		fprintf(stderr, "powerpin pin capture: %s\n", strerror(ENOMEM));
	return ret ? -1 : 0;
}

/*
 * @f is an input: no pinlist may be written over it, its own or one of
 * @files[0..@nr) checked so far (output.h).  0, or -1 with a message.
 */
static int capture_input(const struct capture_file *f, const struct capture_file *files,
			 size_t nr)
{
	size_t k;

	if (output_add_input(f->path)) {
		fprintf(stderr, "powerpin pin capture: %s\n", strerror(errno));
		return -1;
	}
	/* DIR is made once the probes work: only whether a pinlist is an input */
	for (k = 0; k < nr; k++)
		if (output_check_not_input(files[k].out)) {
			fprintf(stderr, "powerpin pin capture: %s: %s\n", files[k].out,
				output_strerror(errno));
			return -1;
		}
	return 0;
}

/* One `pin capture`: its options, its files and the SIGCHLD to give back. */
struct capture_job {
	struct capture_file *files;
	size_t nr;
	const char *dir;
	uint64_t quota;
	enum probe_want want;
	unsigned long long interval_ms;
	bool evict, verbose, to_stdout;
	FILE *info;			/* where the lines about the pinlists go */
	uint64_t tick;			/* probes so far while the workload ran */
	struct sigaction chld_old;
	bool chld_set;
};

/* One more --file, not open yet.  0, or -1 with a message. */
static int capture_add_file(struct capture_job *j, const char *path)
{
	struct capture_file *nf = reallocarray(j->files, j->nr + 1, sizeof(*nf));

	if (!nf) {
		fprintf(stderr, "powerpin pin capture: %s\n", strerror(ENOMEM));
		return -1;
	}
	j->files = nf;
	memset(&j->files[j->nr], 0, sizeof(*j->files));
	j->files[j->nr].path = path;
	j->files[j->nr].fd = -1;
	j->nr++;
	return 0;
}

/*
 * The options into @j; the workload is argv[optind...].  -1 to go on, else
 * the exit status (--help, a usage error, no memory).
 */
static int capture_parse(int argc, char **argv, struct capture_job *j)
{
	static const struct option longopts[] = {
		{ "file",         required_argument, NULL, 'f' },
		{ "evict",        no_argument,       NULL, 'e' },
		{ "interval",     required_argument, NULL, 'i' },
		{ "quota",        required_argument, NULL, 'q' },
		{ "probe-method", required_argument, NULL, 'm' },
		{ "output",       required_argument, NULL, 'o' },
		{ "verbose",      no_argument,       NULL, 'v' },
		{ "help",         no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (capture_add_file(j, optarg))
				return 1;
			break;
		case 'e': j->evict = true; break;
		case 'v': j->verbose = true; break;
		case 'o': j->dir = optarg; break;
		case 'i':
			if (parse_decimal(optarg, false, &j->interval_ms) || !j->interval_ms ||
			    j->interval_ms > 3600000) {
				fprintf(stderr, "powerpin pin capture: --interval: '%s' is not a number of milliseconds (1..3600000)\n",
					optarg);
				return usage_error("powerpin pin capture");
			}
			break;
		case 'q':
			if (parse_quota("pin capture", optarg, &j->quota))
				return usage_error("powerpin pin capture");
			break;
		case 'm':
			if (parse_probe_method("pin capture", optarg, &j->want))
				return usage_error("powerpin pin capture");
			break;
		case 'h':
			capture_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin pin capture");
		}
	}
	if (!j->nr || !j->dir || optind >= argc) {
		fprintf(stderr, "powerpin pin capture: needs --file PATH, -o DIR and -- CMD\n");
		return usage_error("powerpin pin capture");
	}
	/* -o -: the one pinlist on stdout, the lines about it on stderr */
	j->to_stdout = !strcmp(j->dir, "-");
	if (j->to_stdout && j->nr > 1) {
		fprintf(stderr, "powerpin pin capture: -o - writes one pinlist to stdout; give one --file or a directory\n");
		return usage_error("powerpin pin capture");
	}
	j->info = j->to_stdout ? stderr : stdout;
	return -1;
}

/*
 * The pinlist file @j->files[@i] goes to, which no earlier --file may
 * share.  0, or -1 with a message.
 */
static int capture_name_pinlist(struct capture_job *j, size_t i)
{
	struct capture_file *f = &j->files[i];
	const char *base = strrchr(f->path, '/');
	size_t k;
	int n;

	base = base ? base + 1 : f->path;
	n = j->to_stdout ? asprintf(&f->out, "-") :
			   asprintf(&f->out, "%s/%s.pinlist", j->dir, base);
	if (n < 0) {
		f->out = NULL;
		fprintf(stderr, "powerpin pin capture: %s\n", strerror(ENOMEM));
		return -1;
	}
	for (k = 0; k < i; k++)
		if (!strcmp(j->files[k].out, f->out)) {
			fprintf(stderr, "powerpin pin capture: %s and %s would both write %s\n",
				j->files[k].path, f->path, f->out);
			return -1;
		}
	return 0;
}

/*
 * --evict: drop @f's clean cached pages, and check that they went.  The
 * kernel keeps a page another task holds for an instant (an LRU batch not
 * yet drained, a reader that has not let go), so a busy machine can leave
 * a few behind: ask again for up to a second, then say what stayed, since
 * it will count as read before the workload.  0, or -1 with a message.
 */
static int capture_evict(struct capture_file *f, enum probe_want want)
{
	const struct timespec pause = { 0, 20 * 1000000 };
	uint64_t left = 0;
	char err[ERRLEN];
	int i;

	for (i = 0; i < 50; i++) {
		struct probe_result pr;

		if (i)
			nanosleep(&pause, NULL);
		/* dirty pages are not dropped: write them back first */
		fdatasync(f->fd);
		errno = posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
		if (errno) {
			fprintf(stderr, "powerpin pin capture: %s: evict: %s\n", f->path,
				strerror(errno));
			return -1;
		}
		if (probe_residency(f->fd, f->path, want, NULL, &pr, err, sizeof(err))) {
			fprintf(stderr, "powerpin pin capture: %s\n", err);
			return -1;
		}
		left = pin_ranges_bytes(&pr.resident);
		probe_result_free(&pr);
		if (!left)
			return 0;
	}
	fprintf(stderr, "powerpin pin capture: %s: warning: %llu bytes stay cached after --evict (mapped, locked or in use by another task); they count as read before the workload\n",
		f->path, (unsigned long long)left);
	return 0;
}

/*
 * Open @j->files[@i], a regular file no pinlist is written over, and with
 * --evict drop its clean cached pages.  0, or -1 with a message.
 */
static int capture_open_file(struct capture_job *j, size_t i)
{
	struct capture_file *f = &j->files[i];
	struct stat st;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		fprintf(stderr, "powerpin pin capture: %s: %s\n", f->path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "powerpin pin capture: %s: not a regular file\n", f->path);
		return -1;
	}
	if (capture_input(f, j->files, i + 1))
		return -1;
	f->size = st.st_size;
	return j->evict ? capture_evict(f, j->want) : 0;
}

/*
 * Before the workload: every file named, opened and probed once, and the
 * output directory made.  0, or -1 with a message.
 */
static int capture_prepare(struct capture_job *j)
{
	size_t i;

	for (i = 0; i < j->nr; i++) {
		struct capture_file *f = &j->files[i];

		if (capture_name_pinlist(j, i) || capture_open_file(j, i))
			return -1;
		/* the probe must work before the workload is worth running */
		if (capture_probe(f, j->want, 0, true))
			return -1;
		if (j->verbose)
			fprintf(stderr, "powerpin pin capture: %s: %llu bytes resident before the workload\n",
				f->path, (unsigned long long)pin_ranges_bytes(&f->seen));
		if (!j->interval_ms) {
			/* without an interval only the final state counts */
			pin_ranges_free(&f->seen);
			pin_ranges_free(&f->ranked);
		}
	}
	if (!j->to_stdout && mkdir(j->dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "powerpin pin capture: %s: %s\n", j->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Fork and exec the workload @cmd.  Its pid, or -1 with a message. */
static pid_t capture_start(struct capture_job *j, char **cmd)
{
	struct sigaction chld_dfl = { .sa_handler = SIG_DFL };
	pid_t pid;

	/*
	 * An inherited SIGCHLD of SIG_IGN makes the kernel reap the workload
	 * by itself, and waitpid() would fail with ECHILD instead of giving
	 * its status.
	 */
	sigaction(SIGCHLD, &chld_dfl, &j->chld_old);
	j->chld_set = true;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "powerpin pin capture: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid) {
		/* the workload gets SIGCHLD the way it was given to us */
		sigaction(SIGCHLD, &j->chld_old, NULL);
		if (j->to_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(EXIT_NOT_EXECUTABLE);
		exec_command("powerpin pin capture", cmd);
	}
	return pid;
}

/*
 * Wait for the workload to end, with --interval probing every file each
 * interval while it runs.  0 with its *@status, or with *@wait_err when
 * waitpid() failed; -1 when a probe failed (the workload then killed).
 */
static int capture_wait(struct capture_job *j, pid_t pid, int *status, int *wait_err)
{
	size_t i;

	for (;;) {
		pid_t w;

		if (j->interval_ms) {
			struct timespec ts = {
				.tv_sec = j->interval_ms / 1000,
				.tv_nsec = (j->interval_ms % 1000) * 1000000,
			};

			w = waitpid(pid, status, WNOHANG);
			if (w == pid)
				break;
			if (w < 0 && errno != EINTR) {
				*wait_err = errno;
				break;
			}
			nanosleep(&ts, NULL);
			j->tick++;
			for (i = 0; i < j->nr; i++)
				if (capture_probe(&j->files[i], j->want, j->tick, false))
					goto reap;
			continue;
		}
		w = waitpid(pid, status, 0);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			*wait_err = errno;
			break;
		}
	}
	return 0;
reap:
	kill(pid, SIGTERM);
	waitpid(pid, status, 0);
	return -1;
}

/*
 * After the workload: every file probed a last time, its pinlist written
 * and said.  0, or -1 with a message.
 */
static int capture_write(struct capture_job *j)
{
	size_t i;

	j->tick++;
	for (i = 0; i < j->nr; i++) {
		struct capture_file *f = &j->files[i];
		struct pin_ranges written = { 0 };
		uint64_t bytes;

		if (capture_probe(f, j->want, j->tick, false))
			return -1;
		if (write_pinlist("pin capture", f->out, &f->ranked, f->size,
				  j->interval_ms != 0, j->quota, &written))
			return -1;
		bytes = pin_ranges_bytes(&f->seen);
		fprintf(j->info, "%s size(B)=%llu resident(B)=%llu resident(%%)=%g\n", f->path,
		       (unsigned long long)f->size, (unsigned long long)bytes,
		       percent(bytes, f->size));
		fprintf(j->info, "pinlist=%s total_bytes_to_pin=%llu\n", f->out,
		       (unsigned long long)pin_ranges_bytes(&written));
		pin_ranges_free(&written);
	}
	return 0;
}

/* The workload's end, said when it failed, as our exit status (time(1)). */
static int capture_status(int status, int wait_err)
{
	if (wait_err) {
		fprintf(stderr, "powerpin pin capture: waiting for the workload: %s\n",
			strerror(wait_err));
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "powerpin pin capture: workload exited with status %d\n",
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "powerpin pin capture: workload killed by signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	return wait_exit_status(status);
}

static void capture_job_free(struct capture_job *j)
{
	size_t i;

	if (j->chld_set)
		sigaction(SIGCHLD, &j->chld_old, NULL);
	for (i = 0; i < j->nr; i++) {
		if (j->files[i].fd >= 0)
			close(j->files[i].fd);
		free(j->files[i].out);
		pin_ranges_free(&j->files[i].seen);
		pin_ranges_free(&j->files[i].ranked);
	}
	free(j->files);
}

static int pin_capture(int argc, char **argv)
{
	struct capture_job j = {
		.quota = PINLIST_NO_QUOTA, .want = PROBE_AUTO, .info = stdout,
	};
	int status = 0, wait_err = 0, ret;
	pid_t pid;

	ret = capture_parse(argc, argv, &j);
	if (ret >= 0)
		goto out;
	ret = 1;
	if (capture_prepare(&j))
		goto out;
	pid = capture_start(&j, argv + optind);
	if (pid < 0 || capture_wait(&j, pid, &status, &wait_err) || capture_write(&j))
		goto out;
	/* the pinlists are written; the status is the workload's, as with time(1) */
	ret = capture_status(status, wait_err);
out:
	capture_job_free(&j);
	return ret;
}

/* ---- powerpin pin apply ---------------------------------------------- */

static volatile sig_atomic_t apply_stop;

static void on_stop(int sig)
{
	apply_stop = sig;
}

static int load_apply_pinlist(const char *file, const char *pinlist,
			      struct pin_ranges *r)
{
	char err[ERRLEN];
	size_t trailing, i, len;
	void *buf;

	if (pinlist) {
		if (!pinlist_read_file(pinlist, r, &trailing))
			return 0;
		if (errno == EBADMSG)
			fprintf(stderr, "powerpin pin apply: %s: %zu trailing bytes are not a whole pair\n",
				pinlist, trailing);
		else
			fprintf(stderr, "powerpin pin apply: %s: %s\n", pinlist,
				pinlist_read_strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(embedded_pinlists) / sizeof(embedded_pinlists[0]); i++) {
		if (zip_read_entry(file, embedded_pinlists[i], EMBEDDED_MAX, &buf, &len,
				   err, sizeof(err))) {
			if (errno == ENOENT)
				continue;
			fprintf(stderr, "powerpin pin apply: %s; no --pinlist given\n", err);
			return -1;
		}
		if (pinlist_decode(buf, len, r, &trailing)) {
			fprintf(stderr, "powerpin pin apply: %s!/%s: %s\n", file,
				embedded_pinlists[i], errno == EBADMSG ?
				"trailing partial pair" : strerror(errno));
			free(buf);
			return -1;
		}
		free(buf);
		fprintf(stderr, "powerpin pin apply: using %s!/%s\n", file, embedded_pinlists[i]);
		return 0;
	}
	fprintf(stderr, "powerpin pin apply: %s: no --pinlist given and no pinlist.meta or assets/pinlist.meta inside\n",
		file);
	return -1;
}

/* One `pin apply`: the file, its pinlist, what is pinned, and the signals. */
struct apply_job {
	const char *file, *pinlist;
	uint64_t quota;
	int fd;
	struct stat st;
	uint8_t *map;
	struct pin_ranges r, plan;	/* the pinlist; what PinnerService pins */
	sigset_t old;			/* the caller's signal mask */
	bool sig_set;
};

/* The options into @j.  -1 to go on, else the exit status. */
static int apply_parse(int argc, char **argv, struct apply_job *j)
{
	static const struct option longopts[] = {
		{ "pinlist", required_argument, NULL, 'p' },
		{ "quota",   required_argument, NULL, 'q' },
		{ "help",    no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': j->pinlist = optarg; break;
		case 'q':
			if (parse_quota("pin apply", optarg, &j->quota))
				return usage_error("powerpin pin apply");
			break;
		case 'h':
			apply_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin pin apply");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "powerpin pin apply: expected exactly one <file>\n");
		return usage_error("powerpin pin apply");
	}
	j->file = argv[optind];
	return -1;
}

/* Open the file, a non-empty regular one, and read its pinlist. */
static int apply_open(struct apply_job *j)
{
	j->fd = open(j->file, O_RDONLY | O_CLOEXEC);
	if (j->fd < 0 || fstat(j->fd, &j->st)) {
		fprintf(stderr, "powerpin pin apply: %s: %s\n", j->file, strerror(errno));
		return -1;
	}
	if (!S_ISREG(j->st.st_mode) || !j->st.st_size) {
		fprintf(stderr, "powerpin pin apply: %s: not a non-empty regular file\n", j->file);
		return -1;
	}
	return load_apply_pinlist(j->file, j->pinlist, &j->r);
}

/* From here on SIGTERM/SIGINT wait for the release (apply_hold()). */
static void apply_catch_stop(struct apply_job *j)
{
	struct sigaction sa = { 0 };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &j->old);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	j->sig_set = true;
}

/*
 * mmap the file and mlock the ranges PinnerService would, printing each and
 * the total.  0, or -1 with a message.
 */
static int apply_lock(struct apply_job *j)
{
	uint64_t size = j->st.st_size, ps = sysconf(_SC_PAGESIZE);
	int64_t charged;
	size_t i;

	j->map = mmap(NULL, size, PROT_READ, MAP_SHARED, j->fd, 0);
	if (j->map == MAP_FAILED) {
		j->map = NULL;
		fprintf(stderr, "powerpin pin apply: mmap %s: %s\n", j->file, strerror(errno));
		return -1;
	}
	/* PinnerService's loop: clamp, round out to pages, charge, stop at quota */
	charged = pinlist_pinner_plan(&j->r, size, ps, j->quota, &j->plan);
	if (charged < 0) {
		fprintf(stderr, "powerpin pin apply: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < j->plan.nr; i++) {
		const struct pin_range *p = &j->plan.v[i];

		if (mlock(j->map + p->offset, p->length)) {
			fprintf(stderr, "powerpin pin apply: mlock start=%llu bytes=%llu: %s%s\n",
				(unsigned long long)p->offset, (unsigned long long)p->length,
				strerror(errno), errno == ENOMEM || errno == EPERM ?
				" (RLIMIT_MEMLOCK too low, or no CAP_IPC_LOCK)" : "");
			return -1;
		}
		printf("start=%llu bytes=%llu\n", (unsigned long long)p->offset,
		       (unsigned long long)p->length);
	}
	printf("total_bytes_pinned=%llu\n", (unsigned long long)charged);
	flush_stdout();
	fprintf(stderr, "powerpin pin apply: holding %llu bytes of %s; SIGTERM or SIGINT releases them\n",
		(unsigned long long)charged, j->file);
	return 0;
}

/* Hold the pages until SIGTERM or SIGINT. */
static void apply_hold(const struct apply_job *j)
{
	sigset_t suspend;

	/*
	 * Wait with the caller's mask minus the two release signals: a mask
	 * inherited with them blocked would otherwise never let them in.
	 */
	suspend = j->old;
	sigdelset(&suspend, SIGTERM);
	sigdelset(&suspend, SIGINT);
	while (!apply_stop)
		sigsuspend(&suspend);
}

static void apply_job_free(struct apply_job *j)
{
	if (j->sig_set)
		sigprocmask(SIG_SETMASK, &j->old, NULL);
	if (j->map)
		munmap(j->map, j->st.st_size);
	if (j->fd >= 0)
		close(j->fd);
	pin_ranges_free(&j->r);
	pin_ranges_free(&j->plan);
}

static int pin_apply(int argc, char **argv)
{
	struct apply_job j = { .quota = PINLIST_NO_QUOTA, .fd = -1 };
	int ret;

	ret = apply_parse(argc, argv, &j);
	if (ret >= 0)
		return ret;
	ret = 1;
	if (!apply_open(&j)) {
		apply_catch_stop(&j);
		if (!apply_lock(&j)) {
			apply_hold(&j);
			ret = 0;
		}
	}
	apply_job_free(&j);
	return ret;
}

int cmd_pin(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "powerpin pin: missing subcommand (capture or apply)\n");
		return usage_error("powerpin pin");
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		pin_usage(stdout);
		return 0;
	}
	/* getopt's messages start with argv[0] */
	if (!strcmp(argv[1], "capture")) {
		argv[1] = (char *)"powerpin pin capture";
		return pin_capture(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "apply")) {
		argv[1] = (char *)"powerpin pin apply";
		return pin_apply(argc - 1, argv + 1);
	}
	fprintf(stderr, "powerpin pin: unknown subcommand '%s' (capture or apply)\n", argv[1]);
	return usage_error("powerpin pin");
}
