// SPDX-License-Identifier: GPL-2.0
/*
 * pinconfig text, then what `powerpin file --pinconfig` does with it: match
 * entry names and filter their coverage.
 */
#include <string.h>

#include "fuzz.h"
#include "pin/pin.h"

static struct zip_entry entries[] = {
	{ "AndroidManifest.xml", 30, 700, 2100, 8 },
	{ "classes.dex", 4096, 1 << 20, 1 << 20, 0 },
	{ "lib/arm64-v8a/libapp.so", (1 << 20) + 8192, 3 << 20, 3 << 20, 0 },
	{ "res/empty", 5 << 20, 0, 0, 0 },
};

static void check_coverage(const struct zip_coverage *c)
{
	const struct zip_entry *e = c->entry;
	size_t i;

	for (i = 0; i < c->ranges.nr; i++) {
		const struct pin_range *v = &c->ranges.v[i];

		FUZZ_CHECK(v->length > 0);
		FUZZ_CHECK(v->offset >= e->data_offset);
		FUZZ_CHECK(v->offset + v->length <= e->data_offset + e->compressed_size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zip_index zi = { entries, sizeof(entries) / sizeof(entries[0]), 6 << 20 };
	struct zip_coverage *cov, *kept;
	struct pinconfig pc = { 0 };
	size_t i, j, nr_kept = 0;
	char err[512] = "";

	if (pinconfig_parse((const char *)data, size, "fuzz", &pc, err, sizeof(err))) {
		/* an error names the file and line and leaves nothing behind */
		FUZZ_CHECK(!pc.nr && !pc.entries);
		FUZZ_CHECK(!strncmp(err, "fuzz:", 5));
		return 0;
	}
	for (i = 0; i < pc.nr; i++) {
		FUZZ_CHECK(pc.entries[i].pattern);
		FUZZ_CHECK(pc.entries[i].line >= 1);
		for (j = 0; j < pc.entries[i].nr_ranges; j++)
			FUZZ_CHECK(pc.entries[i].ranges[j].length > 0);
	}
	for (i = 0; i < zi.nr; i++) {
		const struct pinconfig_entry *pe = pinconfig_match(&pc, entries[i].name);

		FUZZ_CHECK(!pe || strstr(entries[i].name, pe->pattern));
	}
	cov = zip_coverages(&zi, NULL);
	FUZZ_CHECK(cov);
	kept = pinconfig_filter(&pc, cov, zi.nr, &nr_kept);
	FUZZ_CHECK(kept);
	FUZZ_CHECK(nr_kept <= zi.nr);
	for (i = 0; i < nr_kept; i++)
		check_coverage(&kept[i]);
	zip_coverages_free(kept, nr_kept);
	zip_coverages_free(cov, zi.nr);
	pinconfig_free(&pc);
	return 0;
}
