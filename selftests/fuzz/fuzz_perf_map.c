// SPDX-License-Identifier: GPL-2.0
/*
 * perf-<pid>.map files, and looking addresses up in them the way
 * `powerpin report --perf --perf-map` names JIT frames.
 */
#include <string.h>

#include "fuzz.h"
#include "java/java.h"

/* What a lookup must answer: the last symbol starting at or before @addr, if it holds it. */
static const struct perf_map_sym *slow_lookup(const struct perf_map *map, uint64_t addr)
{
	const struct perf_map_sym *last = NULL;
	size_t i;

	for (i = 0; i < map->nr; i++)
		if (map->syms[i].start <= addr)
			last = &map->syms[i];
	return last && addr - last->start < last->size ? last : NULL;
}

static void check_lookup(const struct perf_map *map, uint64_t addr)
{
	const struct perf_map_sym *s = perf_map_lookup(map, addr);

	FUZZ_CHECK(s == slow_lookup(map, addr));
	FUZZ_CHECK(!s || (s->start <= addr && addr - s->start < s->size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_map map;
	size_t i;
	/* exactly the input's bytes: a read past them is a finding */
	char *buf = malloc(size ? size : 1);

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	FUZZ_CHECK(!perf_map_parse(buf, size, &map));
	free(buf);
	for (i = 0; i < map.nr; i++) {
		const struct perf_map_sym *s = &map.syms[i];
		size_t n = strlen(s->name);

		/* sorted, one entry per start, names trimmed and on one line */
		if (i)
			FUZZ_CHECK(map.syms[i - 1].start < s->start);
		FUZZ_CHECK(n > 0 && !strchr(s->name, '\n'));
		FUZZ_CHECK(s->name[0] != ' ' && s->name[0] != '\t' && s->name[n - 1] != ' ');
	}
	/* the edges of every range, and the input's own bytes as addresses */
	for (i = 0; i < map.nr && i < 64; i++) {
		check_lookup(&map, map.syms[i].start);
		check_lookup(&map, map.syms[i].start - 1);
		check_lookup(&map, map.syms[i].start + map.syms[i].size - 1);
		check_lookup(&map, map.syms[i].start + map.syms[i].size);
	}
	for (i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, sizeof(a));
		check_lookup(&map, a);
	}
	perf_map_free(&map);
	return 0;
}
