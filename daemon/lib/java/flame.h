/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs: stacks (frames from the outermost caller in, joined by
 * ';') with a weight and a second figure shown beside it (samples and
 * bytes for allocations, joules and samples for energy).  Written as
 * folded stacks ("frame;frame;frame weight", what FlameGraph and
 * speedscope read) or as one self-contained HTML page with an interactive
 * SVG flame graph (search, click to zoom, tooltips).  No I/O policy: the
 * writers take a FILE.
 */
#ifndef POWERPIN_FLAME_H
#define POWERPIN_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc_log.h"

struct flame_stack {
	char *frames;
	double weight;		/* what frames are sized by */
	double other;		/* shown in tooltips */
};

struct flame {
	struct flame_stack *stacks;
	size_t nr, cap;
	uint32_t *hash;		/* index + 1, by frames */
	size_t hcap;
	double total, total_other;
	/* names and units, for the page */
	const char *weight_name, *weight_unit, *other_name, *other_unit;
	bool weight_integer, other_integer;	/* print as whole numbers */
};

void flame_init(struct flame *f);
void flame_free(struct flame *f);

/* Add @weight and @other to the stack @frames (merged with an equal one). */
int flame_add(struct flame *f, const char *frames, double weight, double other);

/* Stacks in frame order (what the writers expect). */
void flame_sort(struct flame *f);

/*
 * An allocation log's samples: each stack's frames (';' inside a frame
 * becomes ':', as mkflame.py does), weighted by sample count or by bytes
 * (@by_bytes), the other figure beside it.  A stack with no Java frames is
 * "[no Java frames]".
 */
int flame_from_alloc_log(struct flame *f, const struct alloc_log *log, bool by_bytes);

/* Writers: 0, or -1 with errno. */
int flame_write_folded(const struct flame *f, FILE *out);
int flame_write_html(const struct flame *f, const char *title, FILE *out);

#endif
