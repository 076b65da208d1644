/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-<pid>.map files (perf, simpleperf, libpowerpin_agent.so): one
 * "<start> <size> <name>" line per symbol, start and size in hex with or
 * without 0x, the name the rest of the line with its surrounding spaces
 * trimmed (it may hold spaces).  Parsed from a buffer (no I/O); lookups
 * by address.  Where ranges overlap, the entry that starts last before the
 * address wins, and of two at the same start the later line.
 */
#ifndef POWERPIN_PERF_MAP_H
#define POWERPIN_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>

struct perf_map_sym {
	uint64_t start, size;
	char *name;
	uint32_t line;
};

struct perf_map {
	struct perf_map_sym *syms;	/* by start */
	size_t nr, cap;
	unsigned long bad_lines;	/* lines that are not "<hex> <hex> <name>" */
};

/* Returns 0 (lines that do not parse are counted and skipped), -1 out of memory. */
int perf_map_parse(const char *buf, size_t len, struct perf_map *map);
void perf_map_free(struct perf_map *map);

/* The symbol whose range holds @addr, or NULL. */
const struct perf_map_sym *perf_map_lookup(const struct perf_map *map, uint64_t addr);

#endif
