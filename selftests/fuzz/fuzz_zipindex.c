// SPDX-License-Identifier: GPL-2.0
/*
 * The zip index (central directory, ZIP64, local headers) of an archive,
 * per-entry coverage of a probe, and extraction through minizip.
 */
#include <string.h>

#include "fuzz.h"
#include "pin/pin.h"

#define ENTRY_MAX_BYTES	(1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct pin_ranges probe = { 0 };
	struct zip_index zi = { 0 };
	struct zip_coverage *cov;
	char err[512] = "";
	size_t i, j, len;
	void *buf;

	if (zip_index_open(path, &zi, err, sizeof(err))) {
		FUZZ_CHECK(err[0]);
		FUZZ_CHECK(!zi.nr);
		return 0;
	}
	FUZZ_CHECK(zi.file_size == size);
	for (i = 0; i < zi.nr; i++) {
		const struct zip_entry *e = &zi.entries[i];

		FUZZ_CHECK(e->name);
		/* the index promises data inside the file */
		FUZZ_CHECK(e->data_offset <= size);
		FUZZ_CHECK(e->compressed_size <= size - e->data_offset);
		FUZZ_CHECK(zip_index_find(&zi, e->name) >= 0);
	}
	/* every other page resident */
	for (i = 0; i < size; i += 8192)
		FUZZ_CHECK(!pin_ranges_add(&probe, i, 4096, 0));
	cov = zip_coverages(&zi, &probe);
	FUZZ_CHECK(cov);
	for (i = 0; i < zi.nr; i++) {
		const struct zip_entry *e = cov[i].entry;

		for (j = 0; j < cov[i].ranges.nr; j++) {
			const struct pin_range *v = &cov[i].ranges.v[j];

			FUZZ_CHECK(v->length > 0);
			FUZZ_CHECK(v->offset >= e->data_offset);
			FUZZ_CHECK(v->offset + v->length <= e->data_offset + e->compressed_size);
		}
	}
	zip_coverages_free(cov, zi.nr);
	pin_ranges_free(&probe);
	/* extraction of the first few entries, bounded */
	for (i = 0; i < zi.nr && i < 4; i++) {
		if (!zip_read_entry(path, zi.entries[i].name, ENTRY_MAX_BYTES, &buf, &len,
				    err, sizeof(err))) {
			FUZZ_CHECK(len <= ENTRY_MAX_BYTES);
			free(buf);
		}
	}
	zip_index_free(&zi);
	return 0;
}
