// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation logs (tiallocsample's format), then what `powerpin flame`
 * does with one: folded stacks by count and by bytes, and the page.
 */
#include <string.h>

#include "java/java.h"
#include "fuzz.h"

static void check_log(const struct alloc_log *log)
{
	uint64_t samples = 0;
	uint32_t i, k;

	FUZZ_CHECK(log->lines || log->cut_line);
	for (i = 0; i < log->nr_defs; i++) {
		const struct alloc_def *d = &log->defs[i];

		if (d->kind == ALLOC_DEF_TEXT)
			FUZZ_CHECK(d->text && !d->samples);
		if (d->kind != ALLOC_DEF_STACK)
			continue;
		/* a stack is made of "+" definitions, the thread/type/size first */
		FUZZ_CHECK(d->nr >= 1);
		FUZZ_CHECK(d->first + d->nr <= log->nr_pool);
		for (k = 0; k < d->nr; k++) {
			uint32_t e = log->pool[d->first + k];

			FUZZ_CHECK(e < log->nr_defs && log->defs[e].kind == ALLOC_DEF_TEXT);
		}
		samples += d->samples;
	}
	FUZZ_CHECK(samples == log->samples);
	FUZZ_CHECK(log->samples <= log->lines);
}

static void check_flame(const struct alloc_log *log, bool by_bytes)
{
	struct flame f;
	double total = 0;
	size_t i;

	flame_init(&f);
	FUZZ_CHECK(!flame_from_alloc_log(&f, log, by_bytes));
	for (i = 0; i < f.nr; i++) {
		FUZZ_CHECK(f.stacks[i].frames[0]);
		total += f.stacks[i].weight;
	}
	if (!by_bytes)
		FUZZ_CHECK(total == (double)log->samples && f.total == total);
	FUZZ_CHECK(!flame_write_folded(&f, fuzz_sink()));
	FUZZ_CHECK(!flame_write_html(&f, "fuzz <log>", fuzz_sink()));
	flame_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alloc_log log;
	char err[256] = "";
	/* exactly the input's bytes: a read past them is a finding */
	char *buf = malloc(size ? size : 1);

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	if (alloc_log_parse(buf, size, &log, err, sizeof(err))) {
		/* refused with the line that is wrong, nothing left behind */
		FUZZ_CHECK(!strncmp(err, "line ", 5));
		FUZZ_CHECK(!log.defs && !log.pool && !log.nr_defs);
		free(buf);
		return 0;
	}
	free(buf);
	check_log(&log);
	check_flame(&log, false);
	check_flame(&log, true);
	alloc_log_free(&log);
	return 0;
}
