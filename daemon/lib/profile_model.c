// SPDX-License-Identifier: GPL-2.0
/*
 * power_profile.xml read back for `powerpin report --model`: the CPU part of
 * AOSP's format (cpu.idle, cpu.suspend, cpu.clusters.cores,
 * cpu.core_speeds.clusterN, cpu.core_power.clusterN,
 * cpu.cluster_power.clusterN).  A small tolerant scanner: the file is flat
 * (<device> holding <item>s and <array>s of <value>s) and comments may sit
 * anywhere between elements.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* The element's name="..." into @name; 0, or -1 when it has none. */
static int attr_name(const char *tag, const char *end, char *name, size_t len)
{
	const char *p = strstr(tag, "name=\""), *q;

	if (!p || p > end)
		return -1;
	p += 6;
	q = strchr(p, '"');
	if (!q || q > end || (size_t)(q - p) >= len)
		return -1;
	memcpy(name, p, q - p);
	name[q - p] = '\0';
	return 0;
}

static int number(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
		end++;
	return end == s || *end != '<' ? -1 : 0;
}

/* Where one named value goes: an item, or value @idx of an array. */
static int store(struct profile_model *m, const char *name, int idx, double v)
{
	int c;

	if (!strcmp(name, "cpu.idle") && idx < 0)
		m->idle_ma = v;
	else if (!strcmp(name, "cpu.suspend") && idx < 0)
		m->suspend_ma = v;
	else if (!strcmp(name, "cpu.clusters.cores") && idx >= 0 && idx < PROFILE_MAX_CLUSTERS) {
		m->cores[idx] = (int)v;
		if (idx + 1 > m->nclusters)
			m->nclusters = idx + 1;
	} else if (sscanf(name, "cpu.cluster_power.cluster%d", &c) == 1 && idx < 0 &&
		   c >= 0 && c < PROFILE_MAX_CLUSTERS) {
		m->cluster_ma[c] = v;
	} else if (sscanf(name, "cpu.core_speeds.cluster%d", &c) == 1 && idx >= 0 &&
		   c >= 0 && c < PROFILE_MAX_CLUSTERS && idx < PROFILE_MAX_FREQS) {
		m->speeds_khz[c][idx] = (unsigned int)v;
	} else if (sscanf(name, "cpu.core_power.cluster%d", &c) == 1 && idx >= 0 &&
		   c >= 0 && c < PROFILE_MAX_CLUSTERS && idx < PROFILE_MAX_FREQS) {
		m->core_ma[c][idx] = v;
		if (idx + 1 > m->nspeeds[c])
			m->nspeeds[c] = idx + 1;
	}
	return 0;
}

/* The <value>s of the array whose body starts at @p; returns its end. */
static const char *array_values(struct profile_model *m, const char *name, const char *p,
				char *err, size_t errlen)
{
	const char *end = strstr(p, "</array>"), *v;
	double x;
	int idx = 0;

	if (!end) {
		snprintf(err, errlen, "array %s has no </array>", name);
		return NULL;
	}
	for (v = strstr(p, "<value>"); v && v < end; v = strstr(v, "<value>"), idx++) {
		v += 7;
		if (number(v, &x)) {
			snprintf(err, errlen, "value %d of %s is not a number", idx, name);
			return NULL;
		}
		store(m, name, idx, x);
	}
	return end + 8;
}

/* One <item> or <array> at @p (just past '<'); the text after it, or NULL. */
static const char *element(struct profile_model *m, const char *p, char *err, size_t errlen)
{
	const char *gt = strchr(p, '>');
	char name[96];
	double v;

	if (!gt || attr_name(p, gt, name, sizeof(name)))
		return gt ? gt + 1 : NULL;
	if (!strncmp(p, "array", 5))
		return array_values(m, name, gt + 1, err, errlen);
	if (number(gt + 1, &v)) {
		snprintf(err, errlen, "item %s is not a number", name);
		return NULL;
	}
	store(m, name, -1, v);
	return gt + 1;
}

int profile_model_parse(const char *text, struct profile_model *m, char *err, size_t errlen)
{
	const char *p;
	int c;

	memset(m, 0, sizeof(*m));
	err[0] = '\0';
	p = strstr(text, "<device name=\"Android\"");
	if (!p) {
		snprintf(err, errlen, "no <device name=\"Android\"> element: not a power_profile.xml");
		return -1;
	}
	while (p && (p = strchr(p + 1, '<'))) {
		p++;
		/* AOSP's own file has an example <array> inside a comment */
		if (!strncmp(p, "!--", 3))
			p = strstr(p, "-->");
		else if (!strncmp(p, "item", 4) || !strncmp(p, "array", 5))
			p = element(m, p, err, errlen);
		if (!p && err[0])
			return -1;
	}
	if (!m->nclusters) {
		snprintf(err, errlen, "no cpu.clusters.cores");
		return -1;
	}
	for (c = 0; c < m->nclusters; c++)
		if (!m->nspeeds[c]) {
			snprintf(err, errlen, "no cpu.core_power.cluster%d", c);
			return -1;
		}
	return 0;
}

double profile_model_core_ma(const struct profile_model *m)
{
	double sum = 0;
	int c, cores = 0;

	for (c = 0; c < m->nclusters; c++) {
		sum += m->cores[c] * m->core_ma[c][m->nspeeds[c] - 1];
		cores += m->cores[c];
	}
	return cores ? sum / cores : 0;
}
