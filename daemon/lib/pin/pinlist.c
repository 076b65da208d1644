// SPDX-License-Identifier: GPL-2.0
/* Range arithmetic and the pinlist.meta encoder/decoder. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pinlist.h"
#include "base/base.h"

int pin_ranges_add(struct pin_ranges *r, uint64_t offset, uint64_t length,
		   uint64_t rank)
{
	if (length > UINT64_MAX - offset) {
		errno = ERANGE;
		return -1;
	}
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4;
		struct pin_range *v = reallocarray(r->v, cap, sizeof(*v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->nr].offset = offset;
	r->v[r->nr].length = length;
	r->v[r->nr].rank = rank;
	r->nr++;
	return 0;
}

void pin_ranges_free(struct pin_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

uint64_t pin_ranges_bytes(const struct pin_ranges *r)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < r->nr; i++)
		sum += r->v[i].length;
	return sum;
}

static int cmp_offset(const void *a, const void *b)
{
	const struct pin_range *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return 0;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct pin_range *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return cmp_offset(a, b);
}

void pin_ranges_merge(struct pin_ranges *r)
{
	size_t i, n = 0;

	if (!r->nr)
		return;
	qsort(r->v, r->nr, sizeof(*r->v), cmp_offset);
	for (i = 0; i < r->nr; i++) {
		struct pin_range *cur = &r->v[i];

		if (!cur->length)
			continue;
		if (n) {
			struct pin_range *last = &r->v[n - 1];
			uint64_t end = last->offset + last->length;

			if (cur->offset <= end) {
				uint64_t cend = cur->offset + cur->length;

				if (cend > end)
					last->length = cend - last->offset;
				if (cur->rank < last->rank)
					last->rank = cur->rank;
				continue;
			}
		}
		r->v[n++] = *cur;
	}
	r->nr = n;
}

int pin_ranges_clip(const struct pin_ranges *in, uint64_t lo, uint64_t hi,
		    struct pin_ranges *out)
{
	size_t i, a = 0, b = in->nr;

	/* an empty window (a zero-size zip entry) holds no range, not an empty one */
	if (lo >= hi)
		return 0;
	/* binary search for the first range that ends after @lo */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (in->v[m].offset + in->v[m].length <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (i = a; i < in->nr; i++) {
		uint64_t s = in->v[i].offset, e = s + in->v[i].length;

		if (e <= lo)
			continue;
		if (s >= hi)
			break;
		if (s < lo)
			s = lo;
		if (e > hi)
			e = hi;
		if (pin_ranges_add(out, s, e - s, in->v[i].rank))
			return -1;
	}
	return 0;
}

int pin_ranges_subtract(const struct pin_ranges *a, const struct pin_ranges *b,
			struct pin_ranges *out)
{
	size_t i, j = 0;

	for (i = 0; i < a->nr; i++) {
		uint64_t s = a->v[i].offset, e = s + a->v[i].length;

		while (j < b->nr && b->v[j].offset + b->v[j].length <= s)
			j++;
		for (size_t k = j; k < b->nr && s < e; k++) {
			uint64_t bs = b->v[k].offset, be = bs + b->v[k].length;

			if (bs >= e)
				break;
			if (bs > s &&
			    pin_ranges_add(out, s, bs - s, a->v[i].rank))
				return -1;
			if (be > s)
				s = be;
		}
		if (s < e && pin_ranges_add(out, s, e - s, a->v[i].rank))
			return -1;
	}
	return 0;
}

/*
 * Cut every range longer than a pinlist.meta length field holds into
 * pieces of at most PINLIST_FIELD_MAX rounded down to @page_size.  The
 * pieces start on pages, so PinnerService, which rounds each pair out to
 * pages and charges it, charges exactly the bytes of the original range.
 */
static int split_long(struct pin_ranges *r, uint64_t page_size)
{
	const uint64_t piece = PINLIST_FIELD_MAX & ~(page_size - 1);
	struct pin_ranges out = { 0 };
	bool any = false;
	size_t i;

	for (i = 0; i < r->nr; i++)
		any |= r->v[i].length > PINLIST_FIELD_MAX;
	if (!any)
		return 0;
	for (i = 0; i < r->nr; i++) {
		uint64_t off = r->v[i].offset, len = r->v[i].length;

		do {
			uint64_t n = len > PINLIST_FIELD_MAX ? piece : len;

			if (pin_ranges_add(&out, off, n, r->v[i].rank)) {
				pin_ranges_free(&out);
				return -1;
			}
			off += n;
			len -= n;
		} while (len);
	}
	pin_ranges_free(r);
	*r = out;
	return 0;
}

/*
 * Join neighbours in pin order that continue each other in the file: a
 * range first seen over two samples (read across a sampling tick) is one
 * entry, pinned in the same order as its two halves.
 */
static void join_in_order(struct pin_ranges *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr; i++) {
		struct pin_range *last = n ? &r->v[n - 1] : NULL;

		if (last && r->v[i].offset == last->offset + last->length) {
			last->length += r->v[i].length;
			continue;
		}
		r->v[n++] = r->v[i];
	}
	r->nr = n;
}

int pinlist_normalize(const struct pin_ranges *in, uint64_t page_size,
		      uint64_t file_size, bool by_rank, struct pin_ranges *out)
{
	struct pin_ranges tmp = { 0 };
	size_t i, n = 0;

	if (!page_size || (page_size & (page_size - 1))) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < in->nr; i++) {
		uint64_t s = in->v[i].offset, e = s + in->v[i].length;

		if (!in->v[i].length || s >= file_size)
			continue;
		s &= ~(page_size - 1);
		/* round up without overflowing near UINT64_MAX */
		if (e > UINT64_MAX - (page_size - 1))
			e = UINT64_MAX;
		else
			e = (e + page_size - 1) & ~(page_size - 1);
		if (e > file_size)
			e = file_size;
		if (pin_ranges_add(&tmp, s, e - s, in->v[i].rank)) {
			pin_ranges_free(&tmp);
			return -1;
		}
	}
	if (!by_rank) {
		pin_ranges_merge(&tmp);
		goto split;
	}
	/* by rank: sweep in offset order, merging only equal ranks */
	if (tmp.nr)	/* qsort(NULL, 0, ...) is undefined */
		qsort(tmp.v, tmp.nr, sizeof(*tmp.v), cmp_offset);
	for (i = 0; i < tmp.nr; i++) {
		struct pin_range cur = tmp.v[i];
		uint64_t cend = cur.offset + cur.length;

		if (n) {
			struct pin_range *last = &tmp.v[n - 1];
			uint64_t end = last->offset + last->length;

			if (cur.offset < end) {
				if (cend <= end)
					continue;
				cur.offset = end;
				cur.length = cend - end;
			}
			if (cur.offset == end && cur.rank == last->rank) {
				last->length += cur.length;
				continue;
			}
		}
		tmp.v[n++] = cur;
	}
	tmp.nr = n;
	if (tmp.nr)
		qsort(tmp.v, tmp.nr, sizeof(*tmp.v), cmp_rank);
	join_in_order(&tmp);
split:
	if (split_long(&tmp, page_size)) {
		pin_ranges_free(&tmp);
		return -1;
	}
	*out = tmp;
	return 0;
}

void pinlist_apply_quota(struct pin_ranges *r, uint64_t quota)
{
	uint64_t left = quota;
	size_t i;

	if (quota == PINLIST_NO_QUOTA)
		return;
	for (i = 0; i < r->nr && left; i++) {
		if (r->v[i].length > left)
			r->v[i].length = left;
		left -= r->v[i].length;
	}
	r->nr = i;
}

int64_t pinlist_pinner_plan(const struct pin_ranges *in, uint64_t file_size,
			    uint64_t page_size, uint64_t quota,
			    struct pin_ranges *out)
{
	uint64_t pinned = 0;
	size_t i;

	for (i = 0; i < in->nr && pinned < quota; i++) {
		uint64_t start = in->v[i].offset, len = in->v[i].length;

		if (start > file_size)
			start = file_size;
		if (len > file_size - start)
			len = file_size - start;
		if (len > quota - pinned)
			len = quota - pinned;
		len += start % page_size;
		start -= start % page_size;
		if (len % page_size)
			len += page_size - len % page_size;
		if (len > quota - pinned)
			len = quota - pinned;
		if (!len)
			continue;
		if (pin_ranges_add(out, start, len, 0))
			return -1;
		pinned += len;
	}
	return pinned;
}

int pinlist_encode(const struct pin_ranges *r, uint8_t **buf, size_t *len,
		   size_t *bad)
{
	uint8_t *p;
	size_t i;

	for (i = 0; i < r->nr; i++) {
		if (r->v[i].offset > PINLIST_FIELD_MAX ||
		    r->v[i].length > PINLIST_FIELD_MAX) {
			if (bad)
				*bad = i;
			errno = ERANGE;
			return -1;
		}
	}
	p = malloc(r->nr * PINLIST_PAIR_BYTES + 1);
	if (!p)
		return -1;
	for (i = 0; i < r->nr; i++) {
		uint32_t be[2] = { htobe32((uint32_t)r->v[i].offset),
				   htobe32((uint32_t)r->v[i].length) };

		memcpy(p + i * PINLIST_PAIR_BYTES, be, sizeof(be));
	}
	*buf = p;
	*len = r->nr * PINLIST_PAIR_BYTES;
	return 0;
}

int pinlist_decode(const uint8_t *buf, size_t len, struct pin_ranges *out,
		   size_t *trailing)
{
	size_t i;

	for (i = 0; i + PINLIST_PAIR_BYTES <= len; i += PINLIST_PAIR_BYTES) {
		uint32_t be[2];

		memcpy(be, buf + i, sizeof(be));
		if (pin_ranges_add(out, be32toh(be[0]), be32toh(be[1]), 0))
			return -1;
	}
	if (trailing)
		*trailing = len - i;
	if (len != i) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int pinlist_read_file(const char *path, struct pin_ranges *out,
		      size_t *trailing)
{
	size_t len;
	void *buf;
	int ret, e;

	if (trailing)
		*trailing = 0;
	if (read_bounded_file(path, PINLIST_FILE_MAX, &buf, &len))
		return -1;
	ret = pinlist_decode(buf, len, out, trailing);
	e = errno;
	free(buf);
	errno = e;
	return ret;
}

const char *pinlist_read_strerror(int e)
{
	switch (e) {
	case EINVAL:
		return "not a regular file";
	case EFBIG:
		return "larger than " PINLIST_FILE_MAX_TEXT ": not a pinlist";
	default:
		return strerror(e);
	}
}

int pinlist_write_file(const char *path, const struct pin_ranges *r,
		       size_t *bad)
{
	struct output_file out;
	uint8_t *buf;
	size_t len;
	int e;

	if (pinlist_encode(r, &buf, &len, bad))
		return -1;
	if (output_open(&out, path)) {
		e = errno;
		free(buf);
		errno = e;
		return -1;
	}
	if (len && fwrite(buf, 1, len, out.fp) != len) {
		e = errno;
		output_abort(&out);
		free(buf);
		errno = e ? e : EIO;
		return -1;
	}
	free(buf);
	return output_commit(&out);
}
