// SPDX-License-Identifier: GPL-2.0
/*
 * power_profile.xml read back for `powerpin report --model`: the CPU part of
 * AOSP's format in the keys of every Android version (profile.h): 9 and
 * later (cpu.suspend, cpu.idle, cpu.active, cpu.clusters.cores as an
 * <array> or an <item>, cpu.core_speeds/core_power/cluster_power.clusterN),
 * 6 to 8.1 (cpu.speeds/active.clusterN; cpu.idle is suspend, cpu.awake
 * awake) and 5.1 and earlier (cpu.speeds, cpu.active; one cluster of every
 * CPU); a file with only Android 14's keys (cpu.scaling_policy_power and
 * cpu.scaling_step_power.policyN) is read too, its speeds unknown (the
 * kernel's policy has them, not the file), each policy's cores up to the
 * next policy's first CPU.  Where a file has keys of several versions, the newest win, as
 * the newest PowerProfile reads them.  A small tolerant scanner: the file is flat
 * (<device> holding <item>s and <array>s of <value>s) and comments may sit
 * anywhere between elements.
 */
#include <stdbool.h>
#include <stdio.h>
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

/* 1: a number, 0: empty (skipped, as PowerProfile does), -1: not a number. */
static int number(const char *s, double *v)
{
	char *end;

	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	if (*s == '<')
		return 0;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
		end++;
	return end == s || *end != '<' ? -1 : 1;
}

/* The keys of every version, as read; normalised by finish(). */
enum key_family { FAM_9, FAM_6, FAM_5, FAM_N, FAM_14 = FAM_N };

/* Android 14's per-policy keys, by the policy's number (its first CPU). */
struct policy_keys {
	int n;
	int num[PROFILE_MAX_CLUSTERS];
	double power[PROFILE_MAX_CLUSTERS];		/* scaling_policy_power */
	int nsteps[PROFILE_MAX_CLUSTERS];
	double step[PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS];	/* scaling_step_power */
};

struct model_keys {
	struct profile_model *m;
	bool have_cores_array;
	int ncores;
	int cores[PROFILE_MAX_CLUSTERS];
	double idle, awake, suspend, active;	/* items */
	bool have_awake;
	bool any[FAM_N];
	bool policy_keys;			/* Android 14's: the format, and ... */
	struct policy_keys pol;			/* ... the CPUs when nothing else is there */
	double cluster[PROFILE_MAX_CLUSTERS];
	int nspeeds[FAM_N][PROFILE_MAX_CLUSTERS], npower[FAM_N][PROFILE_MAX_CLUSTERS];
	unsigned int speeds[FAM_N][PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS];
	double power[FAM_N][PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS];
};

static void put_array(unsigned int (*speeds)[PROFILE_MAX_FREQS], int *nspeeds,
		      double (*power)[PROFILE_MAX_FREQS], int *npower, int c, int idx, double v)
{
	if (c < 0 || c >= PROFILE_MAX_CLUSTERS || idx >= PROFILE_MAX_FREQS)
		return;
	if (speeds) {
		speeds[c][idx] = (unsigned int)v;
		if (idx + 1 > nspeeds[c])
			nspeeds[c] = idx + 1;
	} else {
		power[c][idx] = v;
		if (idx + 1 > npower[c])
			npower[c] = idx + 1;
	}
}

/* @name is @prefix and a cluster number: 0 and it in @c, else -1. */
static int cluster_key(const char *name, const char *prefix, int *c)
{
	size_t len = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, len) || name[len] < '0' || name[len] > '9')
		return -1;
	v = strtol(name + len, &end, 10);
	if (*end || v >= PROFILE_MAX_CLUSTERS)
		return -1;
	*c = (int)v;
	return 0;
}

/* The slot of policy @num in @pk, added if new; -1 if @num is bad or there is no room. */
static int policy_slot(struct policy_keys *pk, const char *num)
{
	char *end;
	long v = strtol(num, &end, 10);
	int i;

	if (end == num || *end || v < 0 || v >= PROFILE_MAX_CPUS)
		return -1;
	for (i = 0; i < pk->n; i++)
		if (pk->num[i] == v)
			return i;
	if (pk->n == PROFILE_MAX_CLUSTERS)
		return -1;
	pk->num[pk->n] = (int)v;
	return pk->n++;
}

/* An array value: @idx of @name. */
static void store_value(struct model_keys *k, const char *name, int idx, double v)
{
	static const struct { const char *prefix; enum key_family fam; bool speeds; } keys[] = {
		{ "cpu.core_speeds.cluster", FAM_9, true },
		{ "cpu.core_power.cluster", FAM_9, false },
		{ "cpu.speeds.cluster", FAM_6, true },
		{ "cpu.active.cluster", FAM_6, false },
	};
	unsigned int i;
	int c;

	if (!strcmp(name, "cpu.clusters.cores")) {
		k->have_cores_array = true;
		if (idx < PROFILE_MAX_CLUSTERS) {
			k->cores[idx] = (int)(v + 0.5);
			k->ncores = idx + 1 > k->ncores ? idx + 1 : k->ncores;
		}
		return;
	}
	if (!strcmp(name, "cpu.speeds") || !strcmp(name, "cpu.active")) {
		k->any[FAM_5] = true;
		put_array(name[4] == 's' ? k->speeds[FAM_5] : NULL, k->nspeeds[FAM_5],
			  k->power[FAM_5], k->npower[FAM_5], 0, idx, v);
		return;
	}
	if (!strncmp(name, "cpu.scaling_step_power.policy", 29)) {
		int p = policy_slot(&k->pol, name + 29);

		k->policy_keys = true;
		if (p >= 0 && idx < PROFILE_MAX_FREQS) {
			k->pol.step[p][idx] = v;
			if (idx + 1 > k->pol.nsteps[p])
				k->pol.nsteps[p] = idx + 1;
		}
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (cluster_key(name, keys[i].prefix, &c))
			continue;
		k->any[keys[i].fam] = true;
		put_array(keys[i].speeds ? k->speeds[keys[i].fam] : NULL, k->nspeeds[keys[i].fam],
			  k->power[keys[i].fam], k->npower[keys[i].fam], c, idx, v);
	}
}

/* An item: cpu.clusters.cores as an item is one cluster of that many cores. */
static void store_item(struct model_keys *k, const char *name, double v)
{
	int c;

	if (!strcmp(name, "cpu.idle"))
		k->idle = v;
	else if (!strcmp(name, "cpu.suspend"))
		k->suspend = v;
	else if (!strcmp(name, "cpu.awake"))
		k->awake = v, k->have_awake = true;
	else if (!strcmp(name, "cpu.active"))
		k->active = v;
	else if (!strcmp(name, "cpu.clusters.cores") && !k->have_cores_array)
		k->cores[0] = (int)(v + 0.5), k->ncores = 1;
	else if (!strncmp(name, "cpu.scaling_policy_power.policy", 31)) {
		int p = policy_slot(&k->pol, name + 31);

		k->policy_keys = true;
		if (p >= 0)
			k->pol.power[p] = v;
	}
	else if (!cluster_key(name, "cpu.cluster_power.cluster", &c))
		k->cluster[c] = v;
}

/* The <value>s of the array whose body starts at @p; returns its end. */
static const char *array_values(struct model_keys *k, const char *name, const char *p,
				char *err, size_t errlen)
{
	const char *end = strstr(p, "</array>"), *v;
	double x;
	int idx = 0, r;

	if (!end) {
		snprintf(err, errlen, "array %s has no </array>", name);
		return NULL;
	}
	for (v = strstr(p, "<value>"); v && v < end; v = strstr(v, "<value>")) {
		v += 7;
		r = number(v, &x);
		if (r < 0) {
			snprintf(err, errlen, "value %d of %s is not a number", idx, name);
			return NULL;
		}
		if (r > 0)
			store_value(k, name, idx++, x);
	}
	return end + 8;
}

/* One <item> or <array> at @p (just past '<'); the text after it, or NULL. */
static const char *element(struct model_keys *k, const char *p, char *err, size_t errlen)
{
	const char *gt = strchr(p, '>');
	char name[96];
	double v;
	int r;

	if (!gt || attr_name(p, gt, name, sizeof(name)))
		return gt ? gt + 1 : NULL;
	if (!strncmp(p, "array", 5))
		return array_values(k, name, gt + 1, err, errlen);
	if (gt[-1] == '/')
		return gt + 1;			/* <item name="x"/> */
	r = number(gt + 1, &v);
	if (r < 0) {
		snprintf(err, errlen, "item %s is not a number", name);
		return NULL;
	}
	if (r > 0)
		store_item(k, name, v);
	return gt + 1;
}

/* Which version's keys describe the CPUs: 9+ first, as PowerProfile of 9+ reads. */
static int pick_family(const struct model_keys *k, char *err, size_t errlen)
{
	if (k->any[FAM_9])
		return FAM_9;
	if (k->any[FAM_6])
		return FAM_6;
	if (k->any[FAM_5])
		return FAM_5;
	if (k->pol.n)
		return FAM_14;
	snprintf(err, errlen, "no CPU power keys (cpu.core_power.clusterN, cpu.active.clusterN, cpu.active or cpu.scaling_step_power.policyN)");
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Android 14's policies alone as clusters, in CPU order: policy N's cores
 * are N up to the next policy's first CPU, the last one's every CPU from
 * N on; the speeds are unknown (0), each step's power a busy core's.
 */
static int finish_policies(struct model_keys *k, char *err, size_t errlen)
{
	struct profile_model *m = k->m;
	int order[PROFILE_MAX_CLUSTERS], c, i;

	for (i = 0; i < k->pol.n; i++)
		order[i] = k->pol.num[i] * PROFILE_MAX_CLUSTERS + i;
	qsort(order, k->pol.n, sizeof(order[0]), cmp_int);
	m->format = PROFILE_XML_14;
	m->nclusters = k->pol.n;
	for (c = 0; c < m->nclusters; c++) {
		int p = order[c] % PROFILE_MAX_CLUSTERS;

		if (!k->pol.nsteps[p]) {
			snprintf(err, errlen, "no cpu.scaling_step_power.policy%d", k->pol.num[p]);
			return -1;
		}
		m->cores[c] = c + 1 < m->nclusters ?
			      order[c + 1] / PROFILE_MAX_CLUSTERS - k->pol.num[p] :
			      PROFILE_MODEL_ALL_CPUS;
		m->nspeeds[c] = k->pol.nsteps[p];
		memcpy(m->core_ma[c], k->pol.step[p], sizeof(m->core_ma[c]));
		m->cluster_ma[c] = k->pol.power[p];
	}
	m->suspend_ma = k->suspend;
	m->idle_ma = k->idle;
	m->active_ma = k->active;
	return 0;
}

/* The keys of family @fam into the model; 0, or -1 with a message. */
static int finish(struct model_keys *k, int fam, char *err, size_t errlen)
{
	static const char *const power_key[FAM_N] = {
		"cpu.core_power.cluster", "cpu.active.cluster", "cpu.active",
	};
	struct profile_model *m = k->m;
	int c;

	if (fam == FAM_14)
		return finish_policies(k, err, errlen);
	m->format = fam == FAM_9 ? (k->policy_keys ? PROFILE_XML_14 : PROFILE_XML_9) :
		    fam == FAM_6 ? PROFILE_XML_6 : PROFILE_XML_5;
	m->nclusters = fam == FAM_5 ? 1 : k->ncores;
	if (!m->nclusters) {
		snprintf(err, errlen, "no cpu.clusters.cores");
		return -1;
	}
	for (c = 0; c < m->nclusters; c++) {
		m->cores[c] = fam == FAM_5 && !k->ncores ? PROFILE_MODEL_ALL_CPUS : k->cores[c];
		m->nspeeds[c] = k->npower[fam][c];
		if (!m->nspeeds[c]) {
			if (fam == FAM_5)
				snprintf(err, errlen, "no %s", power_key[fam]);
			else
				snprintf(err, errlen, "no %s%d", power_key[fam], c);
			return -1;
		}
		memcpy(m->speeds_khz[c], k->speeds[fam][c], sizeof(m->speeds_khz[c]));
		memcpy(m->core_ma[c], k->power[fam][c], sizeof(m->core_ma[c]));
		m->cluster_ma[c] = fam == FAM_9 ? k->cluster[c] : 0;
	}
	/* before 9, cpu.idle is the suspend current and cpu.awake the awake one */
	m->suspend_ma = fam == FAM_9 ? k->suspend : k->idle;
	m->idle_ma = fam == FAM_9 ? k->idle : k->awake;
	m->active_ma = fam == FAM_9 ? k->active : 0;
	return 0;
}

int profile_model_parse(const char *text, struct profile_model *m, char *err, size_t errlen)
{
	struct model_keys *k = calloc(1, sizeof(*k));
	const char *p;
	int fam = -1;

	memset(m, 0, sizeof(*m));
	err[0] = '\0';
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	k->m = m;
	p = strstr(text, "<device name=\"Android\"");
	if (!p)
		snprintf(err, errlen, "no <device name=\"Android\"> element: not a power_profile.xml");
	/* each step leaves @p just past what it read: a tag may follow at once */
	if (p)
		p++;
	while (p && (p = strchr(p, '<'))) {
		p++;
		/* AOSP's own file has an example <array> inside a comment */
		if (!strncmp(p, "!--", 3))
			p = strstr(p, "-->");
		else if (!strncmp(p, "item", 4) || !strncmp(p, "array", 5))
			p = element(k, p, err, errlen);
	}
	if (!err[0])
		fam = pick_family(k, err, errlen);
	if (fam >= 0 && finish(k, fam, err, errlen))
		fam = -1;
	free(k);
	return fam < 0 ? -1 : 0;
}

double profile_model_core_ma(const struct profile_model *m)
{
	double sum = 0, cores = 0;
	int c;

	for (c = 0; c < m->nclusters; c++) {
		sum += (double)m->cores[c] * m->core_ma[c][m->nspeeds[c] - 1];
		cores += m->cores[c];
	}
	return cores ? sum / cores : 0;
}

double profile_model_base_ma(const struct profile_model *m)
{
	return m->suspend_ma + m->idle_ma;
}
