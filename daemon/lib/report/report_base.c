// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of the report's pass uses (report.c, report_attr.c,
 * report_slices.c), below all of them: growing an array, noting the first
 * allocation failure, the energy of power that is linear between two
 * samples, and an atrace counter mark read (the writers read it too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

void *report_grow(void *arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need) {
		if (n > UINT32_MAX / 2) {
			errno = ENOMEM;
			return NULL;
		}
		n *= 2;
	}
	p = realloc(arr, (size_t)n * size);
	if (!p)
		return NULL;
	memset((char *)p + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
	*cap = n;
	return p;
}

void report_oom(struct report *r)
{
	if (!r->error)
		r->error = ENOMEM;
}

double report_lin_energy(uint64_t t0, double p0, uint64_t t1, double p1, uint64_t a, uint64_t b)
{
	double dt = (double)(t1 - t0);
	double pa = p0 + (p1 - p0) * (double)(a - t0) / dt;
	double pb = p0 + (p1 - p0) * (double)(b - t0) / dt;

	return (pa + pb) / 2 * 1e-6 * (double)(b - a) / NS_PER_S;
}

int report_counter_mark(const char *s, const char *end, const char **name,
			size_t *name_len, long long *value)
{
	const char *n = memchr(s + 2, '|', end - s - 2), *bar;
	char num[32];
	size_t len;

	if (!n)
		return -1;
	n++;
	bar = memchr(n, '|', end - n);
	if (!bar || (size_t)(end - bar - 1) >= sizeof(num))
		return -1;
	len = end - bar - 1;
	memcpy(num, bar + 1, len);
	num[len] = '\0';
	*name = n;
	*name_len = bar - n;
	*value = strtoll(num, NULL, 10);
	return 0;
}
