// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin flame: an allocation log (tiallocsample's format, from
 * tiallocsample or libpowerpin_agent.so) as folded stacks or as an
 * interactive flame graph page.  The parsing and writing are in
 * daemon/lib/java/alloc_log.c and flame*.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "java/java.h"
#include "commands.h"
#include "base/base.h"

/*
 * An allocation log larger than this is not read: 4 GiB, or 1 GiB in a
 * 32-bit process (the log is read into memory).
 */
#define FLAME_MAX_LOG_BYTES \
	(SIZE_MAX > (4ULL << 30) ? (size_t)(4ULL << 30) : (size_t)1 << 30)

static void flame_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin flame <log> [--folded] [--weight count|bytes] [-o FILE]\n"
		"\n"
		"<log> is an allocation log in tiallocsample's format (written by\n"
		"libpowerpin_agent.so or tiallocsample); \"-\" is standard input.\n"
		"\n"
		"  --folded          folded stacks (\"frame;frame;frame weight\", for FlameGraph\n"
		"                    or speedscope) instead of the flame graph page\n"
		"  --weight count|bytes\n"
		"                    size stacks by samples (default) or by bytes allocated\n"
		"  -o, --output FILE write FILE (default \"-\": standard output); a file is\n"
		"                    written whole or not at all, a FIFO or device through\n"
		"  -h, --help        this help\n");
}

/* All of standard input, at most @max bytes. */
static int read_stdin(size_t max, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap), *nb;
	ssize_t r;

	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(b);
				errno = EFBIG;
				return -1;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		r = read(STDIN_FILENO, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -1;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(b);
		errno = EFBIG;
		return -1;
	}
	*buf = b;
	*len = n;
	return 0;
}

static int write_output(const char *path, const struct flame *f, bool folded, const char *title)
{
	struct output_file out;

	if (output_open(&out, path)) {
		fprintf(stderr, "powerpin flame: %s: %s\n", path, output_strerror(errno));
		return -1;
	}
	if (folded ? flame_write_folded(f, out.fp) : flame_write_html(f, title, out.fp)) {
		fprintf(stderr, "powerpin flame: writing %s: %s\n",
			out.is_stdout ? "standard output" : path, strerror(errno));
		output_abort(&out);
		return -1;
	}
	if (output_commit(&out)) {
		fprintf(stderr, "powerpin flame: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, const char **output, bool *folded, bool *bytes)
{
	static const struct option longopts[] = {
		{ "folded", no_argument, NULL, 'f' },
		{ "weight", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			*folded = true;
			break;
		case 'w':
			if (strcmp(optarg, "count") && strcmp(optarg, "bytes")) {
				fprintf(stderr, "powerpin flame: --weight wants count or bytes, not '%s'\n",
					optarg);
				return usage_error("powerpin flame");
			}
			*bytes = !strcmp(optarg, "bytes");
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "powerpin flame: --output wants a file name (or - for standard output), not ''\n");
				return usage_error("powerpin flame");
			}
			*output = optarg;
			break;
		case 'h':
			flame_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin flame");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "powerpin flame: %s\n",
			optind == argc ? "missing <log>" : "exactly one <log>, please");
		return usage_error("powerpin flame");
	}
	return -1;
}

int cmd_flame(int argc, char **argv)
{
	const char *output = "-", *input, *name;
	bool folded = false, bytes = false;
	struct alloc_log log;
	struct flame f;
	char err[256], title[512];
	void *buf = NULL;
	size_t len = 0;
	int ret;

	ret = parse_args(argc, argv, &output, &folded, &bytes);
	if (ret >= 0)
		return ret;
	input = argv[optind];
	name = strcmp(input, "-") ? input : "<stdin>";
	if (output_add_input(input)) {
		fprintf(stderr, "powerpin flame: %s\n", strerror(errno));
		return 1;
	}
	/* the output is checked before the log is read */
	if (output_check(output)) {
		fprintf(stderr, "powerpin flame: %s: %s\n", output, output_strerror(errno));
		return 1;
	}
	if (strcmp(input, "-") ? read_bounded_file(input, FLAME_MAX_LOG_BYTES, &buf, &len) :
				 read_stdin(FLAME_MAX_LOG_BYTES, (char **)&buf, &len)) {
		if (errno == EFBIG)
			fprintf(stderr, "powerpin flame: %s: larger than %zu MiB\n", name,
				FLAME_MAX_LOG_BYTES >> 20);
		else if (errno == EINVAL)
			fprintf(stderr, "powerpin flame: %s: not a regular file: give the agent's log file, or - to read the log from standard input\n",
				name);
		else
			fprintf(stderr, "powerpin flame: %s: %s\n", name, strerror(errno));
		return 1;
	}
	ret = alloc_log_parse(buf, len, &log, err, sizeof(err));
	free(buf);
	if (ret) {
		fprintf(stderr, "powerpin flame: %s: %s\n", name, err);
		return 1;
	}
	if (log.cut_line)
		fprintf(stderr, "powerpin flame: %s: line %lu has no newline (its writer was stopped inside it); left out\n",
			name, log.cut_line);
	if (!log.samples) {
		fprintf(stderr, "powerpin flame: %s: no samples\n", name);
		alloc_log_free(&log);
		return 1;
	}
	flame_init(&f);
	ret = flame_from_alloc_log(&f, &log, bytes);
	snprintf(title, sizeof(title), "Allocations: %s (%llu samples, sized by %s)", name,
		 (unsigned long long)log.samples, bytes ? "bytes" : "sample count");
	alloc_log_free(&log);
	if (ret) {
		fprintf(stderr, "powerpin flame: out of memory\n");
		flame_free(&f);
		return 1;
	}
	ret = write_output(output, &f, folded, title) ? 1 : 0;
	flame_free(&f);
	return ret;
}
