/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation logs in tiallocsample's format (written by tiallocsample and
 * by libpowerpin_agent.so):
 *
 *   +N,text      definition N: a thread/type/size line
 *                ("jthread[T], jclass[C file: F], size[S, hex: 0xS]") or a frame
 *   =N,t;f;...   definition N: a stack, the thread/type/size index and then
 *                frame indices from the outermost caller to the allocating method
 *   N            one sample of stack N
 *
 * The parser works on a buffer (no I/O), checks every reference and says
 * which line is wrong.  A last line without its newline is a record the
 * writer did not finish (a killed VM): it is left out and noted.
 */
#ifndef POWERPIN_ALLOC_LOG_H
#define POWERPIN_ALLOC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum alloc_def_kind {
	ALLOC_DEF_NONE,
	ALLOC_DEF_TEXT,		/* "+": a thread/type/size line or a frame */
	ALLOC_DEF_STACK,	/* "=": a stack */
};

struct alloc_def {
	enum alloc_def_kind kind;
	char *text;		/* ALLOC_DEF_TEXT */
	uint32_t first;		/* ALLOC_DEF_STACK: into alloc_log.pool */
	uint32_t nr;		/* elements: the thread/type/size index, then frames */
	uint64_t samples;
	uint64_t size_bytes;	/* of one sample: the size[] of its thread/type/size line */
};

struct alloc_log {
	struct alloc_def *defs;	/* by index */
	uint32_t nr_defs;
	uint32_t *pool;
	size_t nr_pool, cap_pool;
	uint64_t samples;
	uint64_t lines;
	unsigned long cut_line;	/* a last line without newline, left out (0: none) */
};

/*
 * Parse @len bytes of @buf.  Returns 0, or -1 with "line N: what" in @err
 * (the log is freed then).
 */
int alloc_log_parse(const char *buf, size_t len, struct alloc_log *log, char *err,
		    size_t errlen);
void alloc_log_free(struct alloc_log *log);

/* The bytes of a thread/type/size line's size[N, ...], or 0. */
uint64_t alloc_log_tts_size(const char *tts);

#endif
