// SPDX-License-Identifier: GPL-2.0
/* Open-addressing index from hashed keys to array positions (hash_index.h). */
#include <errno.h>
#include <stdlib.h>

#include "hash_index.h"

#define HASH_MIN_CAP	64

uint32_t hash_bytes(const void *p, size_t len, uint32_t extra)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return hash_u32(h ^ extra);
}

uint32_t hash_u32(uint32_t v)
{
	/* a finaliser in the style of murmur3's: every input bit moves every output bit */
	v ^= v >> 16;
	v *= 0x85ebca6bu;
	v ^= v >> 13;
	v *= 0xc2b2ae35u;
	v ^= v >> 16;
	return v;
}

long hash_index_find(const struct hash_index *h, uint32_t hash, hash_match_fn match,
		     const void *ctx, const void *key)
{
	uint32_t j;

	if (!h->cap)
		return -1;
	for (j = hash & (h->cap - 1); h->slot[j]; j = (j + 1) & (h->cap - 1))
		if (match(ctx, h->slot[j] - 1, key))
			return (long)(h->slot[j] - 1);
	return -1;
}

static void put(uint32_t *slot, uint32_t cap, uint32_t hash, uint32_t pos)
{
	uint32_t j;

	for (j = hash & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
		;
	slot[j] = pos + 1;
}

static int grow(struct hash_index *h, hash_of_fn hash_of, const void *ctx)
{
	uint32_t cap = h->cap ? h->cap * 2 : HASH_MIN_CAP, *slot, j;

	if (!cap) {
		errno = ENOMEM;
		return -1;
	}
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (j = 0; j < h->cap; j++)
		if (h->slot[j])
			put(slot, cap, hash_of(ctx, h->slot[j] - 1), h->slot[j] - 1);
	free(h->slot);
	h->slot = slot;
	h->cap = cap;
	return 0;
}

int hash_index_add(struct hash_index *h, uint32_t hash, uint32_t pos, hash_of_fn hash_of,
		   const void *ctx)
{
	if ((uint64_t)(h->nr + 1) * 2 > h->cap && grow(h, hash_of, ctx))
		return -1;
	put(h->slot, h->cap, hash, pos);
	h->nr++;
	return 0;
}

void hash_index_free(struct hash_index *h)
{
	free(h->slot);
	h->slot = NULL;
	h->cap = h->nr = 0;
}
