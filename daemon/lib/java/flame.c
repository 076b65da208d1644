// SPDX-License-Identifier: GPL-2.0
/* Flame graphs: folded stacks and the interactive HTML page (flame.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

#define NO_FRAMES	"[no Java frames]"

void flame_init(struct flame *f)
{
	memset(f, 0, sizeof(*f));
	f->weight_name = "weight";
	f->weight_unit = "";
	f->other_name = "";
	f->other_unit = "";
}

void flame_free(struct flame *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->stacks[i].frames);
	free(f->stacks);
	free(f->hash);
	flame_init(f);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int rehash(struct flame *f, size_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h));
	size_t i, j;

	if (!h)
		return -1;
	for (i = 0; i < f->nr; i++) {
		for (j = hash_str(f->stacks[i].frames) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
			;
		h[j] = (uint32_t)i + 1;
	}
	free(f->hash);
	f->hash = h;
	f->hcap = cap;
	return 0;
}

int flame_add(struct flame *f, const char *frames, double weight, double other)
{
	struct flame_stack *s;
	size_t j;

	if ((f->nr + 1) * 2 > f->hcap && rehash(f, f->hcap ? f->hcap * 2 : 1024))
		return -1;
	for (j = hash_str(frames) & (f->hcap - 1); f->hash[j]; j = (j + 1) & (f->hcap - 1)) {
		s = &f->stacks[f->hash[j] - 1];
		if (!strcmp(s->frames, frames))
			goto found;
	}
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;

		s = realloc(f->stacks, cap * sizeof(*s));
		if (!s)
			return -1;
		f->stacks = s;
		f->cap = cap;
	}
	s = &f->stacks[f->nr];
	s->frames = strdup(frames);
	if (!s->frames)
		return -1;
	s->weight = s->other = 0;
	f->hash[j] = (uint32_t)++f->nr;
found:
	s->weight += weight;
	s->other += other;
	f->total += weight;
	f->total_other += other;
	return 0;
}

/* A byte's rank: the end of the stack, then ';' (a frame's end), then the rest. */
static int frame_rank(unsigned char c)
{
	return c == '\0' ? 0 : c == ';' ? 1 : c + 1;
}

/*
 * Frame by frame: a stack sorts before the stacks it is a prefix of, and
 * a frame before the frames it is a prefix of, so stacks that share
 * leading frames are next to each other (what the page's tree needs).
 */
static int cmp_frames(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const struct flame_stack *)a)->frames;
	const unsigned char *y = (const unsigned char *)((const struct flame_stack *)b)->frames;

	for (; *x && *x == *y; x++, y++)
		;
	return frame_rank(*x) - frame_rank(*y);
}

void flame_sort(struct flame *f)
{
	if (f->nr)	/* an empty graph has no array: qsort wants one */
		qsort(f->stacks, f->nr, sizeof(*f->stacks), cmp_frames);
	rehash(f, f->hcap ? f->hcap : 1024);
}

static int add_stack(struct flame *f, const struct alloc_log *log, const struct alloc_def *d,
		     bool by_bytes, char **buf, size_t *cap)
{
	double count = (double)d->samples, bytes = (double)d->samples * (double)d->size_bytes;
	size_t len = 0, n;
	uint32_t i;
	char *p;

	for (i = 1; i < d->nr; i++) {
		const char *t = log->defs[log->pool[d->first + i]].text;

		n = strlen(t);
		if (len + n + 2 > *cap) {
			size_t c = (len + n + 2) * 2;

			p = realloc(*buf, c);
			if (!p)
				return -1;
			*buf = p;
			*cap = c;
		}
		if (len)
			(*buf)[len++] = ';';
		for (p = *buf + len; *t; t++)
			*p++ = *t == ';' ? ':' : *t;
		len += n;
		(*buf)[len] = '\0';
	}
	return flame_add(f, len ? *buf : NO_FRAMES, by_bytes ? bytes : count,
			 by_bytes ? count : bytes);
}

int flame_from_alloc_log(struct flame *f, const struct alloc_log *log, bool by_bytes)
{
	char *buf = NULL;
	size_t cap = 0;
	uint32_t i;
	int ret = 0;

	f->weight_name = by_bytes ? "bytes" : "samples";
	f->other_name = by_bytes ? "samples" : "bytes";
	f->weight_integer = f->other_integer = true;
	for (i = 0; i < log->nr_defs && !ret; i++)
		if (log->defs[i].kind == ALLOC_DEF_STACK && log->defs[i].samples)
			ret = add_stack(f, log, &log->defs[i], by_bytes, &buf, &cap);
	free(buf);
	if (!ret)
		flame_sort(f);
	return ret;
}

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

static void print_num(FILE *out, double v, bool integer)
{
	if (integer)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.9g", v);
}

int flame_write_folded(const struct flame *f, FILE *out)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		fputs(f->stacks[i].frames, out);
		fputc(' ', out);
		print_num(out, f->stacks[i].weight, f->weight_integer);
		fputc('\n', out);
	}
	return finish(out);
}
