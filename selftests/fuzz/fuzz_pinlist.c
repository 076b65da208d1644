// SPDX-License-Identifier: GPL-2.0
/*
 * pinlist.meta decoding, and everything a pinlist goes through after it:
 * normalisation, quota, encoding, PinnerService's plan.
 */
#include <string.h>

#include "fuzz.h"
#include "pin/pin.h"

#define PAGE	4096ULL

static void check_normalized(const struct pin_ranges *r, uint64_t file_size, bool by_rank)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct pin_range *v = &r->v[i];

		FUZZ_CHECK(v->length > 0);
		FUZZ_CHECK(v->length <= PINLIST_FIELD_MAX);
		FUZZ_CHECK(v->offset % PAGE == 0);
		FUZZ_CHECK(v->offset + v->length <= file_size);
		if (!by_rank && i)
			FUZZ_CHECK(r->v[i - 1].offset + r->v[i - 1].length <= v->offset);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pin_ranges in = { 0 }, norm = { 0 }, plan = { 0 };
	size_t trailing = 0, bad, len, i;
	uint64_t file_size = 0, quota;
	uint8_t *buf = NULL;
	bool by_rank;
	int64_t charged;
	int ret;

	ret = pinlist_decode(data, size, &in, &trailing);
	FUZZ_CHECK(ret == (size % PINLIST_PAIR_BYTES ? -1 : 0));
	FUZZ_CHECK(trailing == size % PINLIST_PAIR_BYTES);
	FUZZ_CHECK(in.nr == size / PINLIST_PAIR_BYTES);

	/* every decoded field fits a signed 32-bit int: it encodes back the same */
	if (!pinlist_encode(&in, &buf, &len, &bad)) {
		FUZZ_CHECK(len == size - trailing);
		FUZZ_CHECK(!len || !memcmp(buf, data, len));
	}
	free(buf);
	buf = NULL;

	for (i = 0; i < in.nr; i++) {
		in.v[i].rank = in.nr - i;
		if (in.v[i].offset + in.v[i].length > file_size)
			file_size = in.v[i].offset + in.v[i].length;
	}
	/* a file that ends before some ranges do, and not on a page */
	file_size -= file_size / 4;
	by_rank = size & 1;
	if (!pinlist_normalize(&in, PAGE, file_size, by_rank, &norm)) {
		check_normalized(&norm, file_size, by_rank);
		quota = size > 8 ? (uint64_t)data[0] * PAGE + data[1] : PINLIST_NO_QUOTA;
		pinlist_apply_quota(&norm, quota);
		FUZZ_CHECK(pin_ranges_bytes(&norm) <= quota);
		for (i = 0; i < norm.nr; i++)
			FUZZ_CHECK(norm.v[i].length > 0);
		if (!pinlist_encode(&norm, &buf, &len, &bad))
			FUZZ_CHECK(len == norm.nr * PINLIST_PAIR_BYTES);
		free(buf);
	}
	/* PinnerService's plan never charges more than the quota */
	charged = pinlist_pinner_plan(&in, file_size, PAGE, size * PAGE, &plan);
	FUZZ_CHECK(charged >= 0);
	FUZZ_CHECK((uint64_t)charged <= size * PAGE);
	FUZZ_CHECK((uint64_t)charged == pin_ranges_bytes(&plan));

	pin_ranges_free(&plan);
	pin_ranges_free(&norm);
	pin_ranges_free(&in);
	return 0;
}
