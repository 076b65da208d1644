/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-cache residency of a whole file.
 *
 * First choice is the /dev/powerpin RESIDENCY ioctl (runs mode with a
 * cursor, or bitmap mode).  When the device is absent or refuses, mmap +
 * mincore is used, but only where mincore tells the truth: it describes the
 * page cache of a file only to a caller that owns it (or has CAP_FOWNER) or
 * could write it, and for anyone else reports every page resident (6.1 and
 * 6.12; 5.0 to 5.x reported only the caller's own mapped pages).  Otherwise
 * probing fails with a clear message.
 */
#ifndef POWERPIN_PROBE_H
#define POWERPIN_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pinlist.h"

enum probe_method {
	PROBE_NONE,
	PROBE_IOCTL_RUNS,
	PROBE_IOCTL_BITMAP,
	PROBE_MINCORE,
};

enum probe_want {
	PROBE_AUTO,		/* ioctl runs, then mincore if truthful */
	PROBE_WANT_RUNS,	/* ioctl runs mode only */
	PROBE_WANT_BITMAP,	/* ioctl bitmap mode only */
	PROBE_WANT_MINCORE,	/* mincore only (still refused if untruthful) */
};

struct probe_result {
	enum probe_method method;
	uint64_t file_size;
	uint64_t page_size;
	uint64_t nr_pages;
	uint64_t nr_resident;
	struct pin_ranges resident;	/* sorted, merged, page granular */
	char fallback_reason[160];	/* why the ioctl was not used, if so */
};

/*
 * Probe @fd (a regular file; @name is used in messages).  Returns 0, or -1
 * with errno and a message in @err.  @dev is the device path (NULL for
 * POWERPIN_DEVICE).
 */
int probe_residency(int fd, const char *name, enum probe_want want,
		    const char *dev, struct probe_result *res, char *err,
		    size_t errlen);
void probe_result_free(struct probe_result *res);
const char *probe_method_name(enum probe_method m);

/*
 * True when mincore describes @fd's page cache truthfully for this caller:
 * the kernel's can_do_mincore() rule (owner by fsuid, or CAP_FOWNER over a
 * mapped owner, or write permission on the inode), whatever @fd's mode.
 */
bool probe_mincore_truthful(int fd);

#endif
