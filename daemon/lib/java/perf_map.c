// SPDX-License-Identifier: GPL-2.0
/* perf-<pid>.map parsing and lookup (perf_map.h); no I/O. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "perf_map.h"

/* Hex with an optional 0x; returns the character after it, or NULL. */
static const char *read_hex(const char *s, const char *end, uint64_t *v)
{
	const char *start;

	*v = 0;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	start = s;
	for (; s < end && isxdigit((unsigned char)*s); s++) {
		if (*v >> 60)
			return NULL;
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
					   tolower((unsigned char)*s) - 'a' + 10);
	}
	return s > start ? s : NULL;
}

static int parse_line(struct perf_map *map, const char *s, const char *end, uint32_t lineno)
{
	struct perf_map_sym *sym;
	uint64_t start, size;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s == end)
		return 0;
	if (memchr(s, '\0', (size_t)(end - s)))
		goto bad;	/* a text file: a NUL would end the name early */
	s = read_hex(s, end, &start);
	if (!s || s == end || (*s != ' ' && *s != '\t'))
		goto bad;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	s = read_hex(s, end, &size);
	if (!s || s == end || (*s != ' ' && *s != '\t'))
		goto bad;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		goto bad;
	if (map->nr == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 1024;

		sym = realloc(map->syms, cap * sizeof(*sym));
		if (!sym)
			return -1;
		map->syms = sym;
		map->cap = cap;
	}
	sym = &map->syms[map->nr];
	sym->name = strndup(s, (size_t)(end - s));
	if (!sym->name)
		return -1;
	sym->start = start;
	sym->size = size;
	sym->line = lineno;
	map->nr++;
	return 0;
bad:
	map->bad_lines++;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct perf_map_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int perf_map_parse(const char *buf, size_t len, struct perf_map *map)
{
	const char *s = buf, *end = buf + len, *nl;
	uint32_t lineno = 0;
	size_t i, n = 0;

	memset(map, 0, sizeof(*map));
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (parse_line(map, s, nl, ++lineno)) {
			perf_map_free(map);
			return -1;
		}
		s = nl + 1;
	}
	if (map->nr)	/* an empty map has no array: qsort wants one */
		qsort(map->syms, map->nr, sizeof(*map->syms), cmp_sym);
	/* of entries at one start, the later line stays */
	for (i = 0; i < map->nr; i++) {
		if (n && map->syms[n - 1].start == map->syms[i].start) {
			free(map->syms[n - 1].name);
			map->syms[n - 1] = map->syms[i];
			continue;
		}
		map->syms[n++] = map->syms[i];
	}
	map->nr = n;
	return 0;
}

void perf_map_free(struct perf_map *map)
{
	size_t i;

	for (i = 0; i < map->nr; i++)
		free(map->syms[i].name);
	free(map->syms);
	memset(map, 0, sizeof(*map));
}

const struct perf_map_sym *perf_map_lookup(const struct perf_map *map, uint64_t addr)
{
	size_t lo = 0, hi = map->nr;

	/* the last symbol starting at or before addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (addr - map->syms[lo - 1].start < map->syms[lo - 1].size)
		return &map->syms[lo - 1];
	return NULL;
}
