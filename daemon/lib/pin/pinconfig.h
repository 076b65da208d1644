/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pinconfig: which zip entries (and which bytes of them) a pinlist keeps.
 *
 *   file <pattern>            starts an entry; <pattern> is matched as a
 *                             substring of zip entry names
 *   offset <n> len <n>        optional, repeatable: a byte range relative to
 *   offset <n> length <n>     the entry's data start (no range: whole entry)
 *
 * Tokens are separated by any whitespace and are at most 4095 bytes long.
 * Numbers are unsigned decimal, or hex after 0x (a leading 0 is still
 * decimal, as pintool reads them with Android's ParseUint), with an
 * optional K/M/G suffix.  Every other token, a longer token, a missing or malformed number,
 * an offset without a length, a zero length or a file without any entry is
 * an error that names file:line.
 */
#ifndef POWERPIN_PINCONFIG_H
#define POWERPIN_PINCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "zipindex.h"

struct pinconfig_range {
	uint64_t offset;
	uint64_t length;
};

struct pinconfig_entry {
	char *pattern;
	unsigned int line;		/* where `file` appeared */
	struct pinconfig_range *ranges;	/* none: the whole entry */
	size_t nr_ranges;
};

struct pinconfig {
	struct pinconfig_entry *entries;
	size_t nr;
};

/*
 * Parse @len bytes of @text; @name is used in messages.  Returns 0, or -1
 * with errno (EINVAL for a syntax error, ENOMEM) and "name:line: what" in
 * @err.  On error @pc is left empty.
 */
int pinconfig_parse(const char *text, size_t len, const char *name,
		    struct pinconfig *pc, char *err, size_t errlen);
/*
 * Read and parse the file @path: only a regular file of at most
 * PINCONFIG_FILE_MAX bytes (otherwise -1 with EISDIR, EINVAL for a device,
 * FIFO or socket, or EFBIG, and a message), so /dev/zero or a FIFO is an
 * error, not an endless read.
 */
#define PINCONFIG_FILE_MAX	(16 << 20)
int pinconfig_load(const char *path, struct pinconfig *pc, char *err,
		   size_t errlen);
void pinconfig_free(struct pinconfig *pc);

/* First entry whose pattern occurs in @name, or NULL. */
const struct pinconfig_entry *pinconfig_match(const struct pinconfig *pc,
					      const char *name);

/*
 * Filter per-entry coverages: each entry takes the first pinconfig entry
 * that matches its name (entries matching none are dropped); the matched
 * entry's ranges, relative to the entry's data and clipped to it (or the
 * whole entry when it lists none), intersect the coverage.  Every matched
 * entry gets its own ranges.  Returns the kept coverages (*nr_out of them),
 * or NULL with errno ENOMEM.
 */
struct zip_coverage *pinconfig_filter(const struct pinconfig *pc,
				      const struct zip_coverage *cov, size_t nr,
				      size_t *nr_out);

#endif
