/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte ranges of a file and the pinlist.meta format that carries them.
 *
 * pinlist.meta (what Android's PinnerService reads from an APK): no header,
 * repeated pairs of big-endian 32-bit offset and length, offsets from the
 * start of the file.  PinnerService reads both as *signed* ints, so a field
 * above INT32_MAX would be taken as negative and clamped to 0: the encoder
 * refuses such values instead of writing a list that pins the wrong bytes.
 */
#ifndef POWERPIN_PINLIST_H
#define POWERPIN_PINLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PINLIST_FIELD_MAX	INT32_MAX	/* largest offset or length */
#define PINLIST_NO_QUOTA	UINT64_MAX
#define PINLIST_PAIR_BYTES	8

struct pin_range {
	uint64_t offset;
	uint64_t length;
	uint64_t rank;		/* first-touch order (capture); 0 otherwise */
};

struct pin_ranges {
	struct pin_range *v;
	size_t nr;
	size_t cap;
};

/* All return 0, or -1 with errno set (ENOMEM, EINVAL, ERANGE, ...). */
int pin_ranges_add(struct pin_ranges *r, uint64_t offset, uint64_t length,
		   uint64_t rank);
void pin_ranges_free(struct pin_ranges *r);
uint64_t pin_ranges_bytes(const struct pin_ranges *r);

/* Sort by offset and merge overlapping or touching ranges, in place. */
void pin_ranges_merge(struct pin_ranges *r);

/*
 * Append to @out the parts of @in (sorted, merged) that fall in [lo, hi).
 * Ranks are carried over.
 */
int pin_ranges_clip(const struct pin_ranges *in, uint64_t lo, uint64_t hi,
		    struct pin_ranges *out);

/* Append to @out the parts of @a not covered by @b (both sorted, merged). */
int pin_ranges_subtract(const struct pin_ranges *a, const struct pin_ranges *b,
			struct pin_ranges *out);

/*
 * Turn arbitrary ranges into what a pinlist should hold: each range's start
 * rounded down and end rounded up to @page_size, ends clamped to @file_size,
 * empty ranges dropped, overlapping and touching ranges merged.
 *
 * Without @by_rank the result is sorted by offset.  With @by_rank it is
 * sorted by (rank, offset): ranges touched first come first, so a quota keeps
 * the earliest-needed bytes.  Ranges of different rank are then kept apart
 * even when they touch; where they overlap (only possible at a partial page),
 * the bytes go to the range that starts first.
 *
 * Last, a range longer than PINLIST_FIELD_MAX is cut into consecutive
 * pieces of at most PINLIST_FIELD_MAX rounded down to @page_size, so that
 * each fits a pair; the pieces touch.  Offsets are left alone: one above
 * PINLIST_FIELD_MAX stays an error for pinlist_encode().
 */
int pinlist_normalize(const struct pin_ranges *in, uint64_t page_size,
		      uint64_t file_size, bool by_rank, struct pin_ranges *out);

/*
 * Keep the first @quota bytes, in order: the range that crosses the quota is
 * shortened, later ones dropped.  No empty range is ever left behind.
 * PINLIST_NO_QUOTA keeps everything.
 */
void pinlist_apply_quota(struct pin_ranges *r, uint64_t quota);

/*
 * Encode to big-endian pairs.  -1 with errno ERANGE if any field exceeds
 * PINLIST_FIELD_MAX; *bad (if non-NULL) is then the index of that range.
 */
int pinlist_encode(const struct pin_ranges *r, uint8_t **buf, size_t *len,
		   size_t *bad);

/*
 * Decode strictly: every whole pair goes to @out; a trailing partial pair is
 * left out, its size stored in *trailing, and the call returns -1 with errno
 * EBADMSG.  An empty buffer is a valid, empty pinlist.
 */
int pinlist_decode(const uint8_t *buf, size_t len, struct pin_ranges *out,
		   size_t *trailing);

/*
 * What PinnerService locks for @in (in pinlist order): each range clamped to
 * @file_size, rounded out to pages, shortened to what is left of @quota
 * (PINLIST_NO_QUOTA: none) and charged in full, overlaps included; it stops
 * once the quota is used.  As in PinnerService, rounding happens after the
 * clamp, so a range at or past the end of a file whose size is not a page
 * multiple still locks (and is charged) the file's last page.  The ranges
 * to mlock go to @out (one may end mid-page at the quota; mlock rounds it
 * up).  Returns the bytes charged, or -1 with errno ENOMEM.
 */
int64_t pinlist_pinner_plan(const struct pin_ranges *in, uint64_t file_size,
			    uint64_t page_size, uint64_t quota,
			    struct pin_ranges *out);

/*
 * Read a whole pinlist file (pinlist_decode rules; I/O errors from errno).
 * Only a regular file of at most PINLIST_FILE_MAX bytes is read: anything
 * else is refused with EISDIR (a directory), EINVAL (a device, FIFO or
 * socket) or EFBIG, before a byte is read.  pinlist_read_strerror() words
 * those for messages.
 */
#define PINLIST_FILE_MAX	(64 << 20)	/* 8 Mi pairs */
#define PINLIST_FILE_MAX_TEXT	"64 MiB"
int pinlist_read_file(const char *path, struct pin_ranges *out,
		      size_t *trailing);
const char *pinlist_read_strerror(int e);

/*
 * Encode and write to @path as output_open() names it: "-" is standard
 * output, a FIFO or device is written through, a regular file (a symlink's
 * target) is replaced atomically.
 */
int pinlist_write_file(const char *path, const struct pin_ranges *r,
		       size_t *bad);

#endif
