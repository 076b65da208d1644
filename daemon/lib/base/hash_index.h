/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index from keys to positions in an array the caller owns: open
 * addressing with linear probing, grown to keep it at most half full, so a
 * lookup or an insertion costs O(1) on average however many entries there
 * are.  The caller hashes its keys and says whether an entry matches; the
 * index stores only positions.  No deletion: the report's tables only grow.
 */
#ifndef POWERPIN_HASH_INDEX_H
#define POWERPIN_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hash_index {
	uint32_t *slot;		/* position + 1; 0 is empty */
	uint32_t cap;		/* a power of two, or 0 */
	uint32_t nr;
};

/* Does the entry at @pos hold the key in @key? */
typedef bool (*hash_match_fn)(const void *ctx, uint32_t pos, const void *key);
/* The hash of the entry at @pos (to rehash when the index grows). */
typedef uint32_t (*hash_of_fn)(const void *ctx, uint32_t pos);

/* Position of the entry with @key and @hash, or -1. */
long hash_index_find(const struct hash_index *h, uint32_t hash, hash_match_fn match,
		     const void *ctx, const void *key);

/*
 * Record that position @pos holds a key of @hash (not already present).
 * Returns 0, or -1 with errno ENOMEM (the index is then unchanged).
 */
int hash_index_add(struct hash_index *h, uint32_t hash, uint32_t pos, hash_of_fn hash_of,
		   const void *ctx);

void hash_index_free(struct hash_index *h);

/* FNV-1a over @len bytes, then @extra (a second part of the key). */
uint32_t hash_bytes(const void *p, size_t len, uint32_t extra);
/* A 32-bit integer key, mixed so that consecutive values spread. */
uint32_t hash_u32(uint32_t v);

#endif
