/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zip entries and where their data sits in the archive.
 *
 * The central directory (ZIP64 included) and the local headers are read
 * directly, so any compression method and any local header whose CRC or
 * sizes disagree with the central directory can be indexed; extraction
 * (zip_read_entry) goes through minizip.  data_offset is the first byte
 * after the entry's local header, name and local extra field, so zipalign
 * padding (which lives in the local extra field) and ZIP64 local extra
 * blocks are accounted for.
 */
#ifndef POWERPIN_ZIPINDEX_H
#define POWERPIN_ZIPINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "pinlist.h"

struct zip_entry {
	char *name;
	uint64_t data_offset;		/* from the start of the archive */
	uint64_t compressed_size;	/* bytes at data_offset */
	uint64_t uncompressed_size;
	unsigned int method;		/* 0 stored, 8 deflated, ... */
};

struct zip_index {
	struct zip_entry *entries;
	size_t nr;
	uint64_t file_size;
};

/*
 * Index every entry of @path.  Returns 0, or -1 with errno and a message in
 * @err: EINVAL for a file that is not a zip archive or is malformed (no end
 * record, a central directory that lies past the end of the file or is cut
 * short, a bad local header, entry data that runs past the end of the file
 * or into the central directory), or the I/O errno.
 */
int zip_index_open(const char *path, struct zip_index *zi, char *err,
		   size_t errlen);
void zip_index_free(struct zip_index *zi);

/* Index of the entry named exactly @name, or -1. */
long zip_index_find(const struct zip_index *zi, const char *name);

/* An entry and the byte ranges of it that are wanted (archive offsets). */
struct zip_coverage {
	const struct zip_entry *entry;
	struct pin_ranges ranges;
};

/*
 * Per-entry coverage: @probe (sorted, merged; archive offsets) clipped to
 * each entry's data, or each entry's whole data when @probe is NULL.
 * Returns an array of zi->nr coverages, or NULL with errno ENOMEM.
 */
struct zip_coverage *zip_coverages(const struct zip_index *zi,
				   const struct pin_ranges *probe);
void zip_coverages_free(struct zip_coverage *cov, size_t nr);

/* Read and inflate one entry into a malloc'ed buffer (at most @max bytes). */
int zip_read_entry(const char *path, const char *name, size_t max,
		   void **buf, size_t *len, char *err, size_t errlen);

#endif
