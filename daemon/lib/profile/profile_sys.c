// SPDX-License-Identifier: GPL-2.0
/*
 * What powerpin profile reads from and writes to the system: the online
 * CPUs and cpufreq policies, pinning policies to a frequency and putting
 * them back, per-CPU times from /proc/stat and the battery's capacity.
 * Every path is under a root given by the caller, so tests run the same
 * code on a fake tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"

#define CPU_DIR		"/sys/devices/system/cpu"

/* @root/@rel into @buf; "" and "/" are the real root. */
static void join(char *buf, size_t len, const char *root, const char *rel)
{
	if (!root || !strcmp(root, "/"))
		root = "";
	snprintf(buf, len, "%s%s", root, rel);
}

/* A small file's first line (no newline) into @buf; 0 or -1 with errno. */
static int read_value(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	join(path, sizeof(path), root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_value(const char *root, const char *rel, const char *val)
{
	size_t len = strlen(val);
	char path[512];
	ssize_t n;
	int fd, e;

	join(path, sizeof(path), root, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, val, len);
	e = errno;
	if (close(fd) && n == (ssize_t)len)
		return -1;
	errno = n < 0 ? e : EIO;
	return n == (ssize_t)len ? 0 : -1;
}

/* "0-3,6" (online) or "0 1 2" (related_cpus) -> the CPUs in @cpus, ascending; count, or -1 with errno. */
static int parse_cpulist(const char *s, int *cpus, int max)
{
	int n = 0, a, b, c;
	char *end;

	while (*s && *s != '\n') {
		a = b = strtol(s, &end, 10);
		if (end == s || a < 0)
			return errno = EINVAL, -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return errno = EINVAL, -1;
		}
		for (c = a; c <= b; c++) {
			if (n == max)
				return errno = E2BIG, -1;
			cpus[n++] = c;
		}
		if (*end == ',' || *end == ' ')
			s = end + 1;
		else if (!*end || *end == '\n')
			s = end;
		else
			return errno = EINVAL, -1;
	}
	return n;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * The relative path of @file of policy @policy: "policyN" lives under
 * cpu/cpufreq/ (Linux 4.3 and later), "cpuN" is the older layout of 3.10
 * and 3.18, cpu/cpuN/cpufreq/ (a link to the policy's owner on the
 * policy's other CPUs).
 */
static void policy_rel(char *buf, size_t len, const char *policy, const char *file)
{
	if (!strncmp(policy, "policy", 6))
		snprintf(buf, len, CPU_DIR "/cpufreq/%s/%s", policy, file);
	else
		snprintf(buf, len, CPU_DIR "/%s/cpufreq/%s", policy, file);
}

/* The kHz values of @file of @c's policy appended to @khz[*n]; -1 with errno. */
static int read_freq_file(const char *root, const struct profile_cluster *c, const char *file,
			  unsigned int *khz, int *n)
{
	char rel[512], buf[4096], *p, *end;
	unsigned long f;

	policy_rel(rel, sizeof(rel), c->policy, file);
	if (read_value(root, rel, buf, sizeof(buf)))
		return -1;
	for (p = buf;; p = end) {
		f = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (*n == PROFILE_MAX_FREQS)
			return errno = E2BIG, -1;
		khz[(*n)++] = f;
	}
	return 0;
}

/*
 * scaling_available_frequencies and scaling_boost_frequencies (where the
 * policy has it): freqs_khz ascending, each once, and Android's order.
 */
static int read_freqs(const char *root, struct profile_cluster *c)
{
	unsigned int khz[PROFILE_MAX_FREQS];
	int n = 0, i, j;

	if (read_freq_file(root, c, "scaling_available_frequencies", khz, &n))
		return -1;
	if (read_freq_file(root, c, "scaling_boost_frequencies", khz, &n) && errno != ENOENT)
		return -1;
	if (!n)
		return errno = ENOENT, -1;
	memcpy(c->freqs_khz, khz, n * sizeof(khz[0]));
	qsort(c->freqs_khz, n, sizeof(c->freqs_khz[0]), cmp_uint);
	for (i = j = 0; i < n; i++)
		if (!j || c->freqs_khz[j - 1] != c->freqs_khz[i])
			c->freqs_khz[j++] = c->freqs_khz[i];
	c->nfreqs = j;
	/* each a binary search: n log n over the whole list */
	for (i = 0; i < n; i++) {
		unsigned int *f = bsearch(&khz[i], c->freqs_khz, c->nfreqs,
					  sizeof(c->freqs_khz[0]), cmp_uint);

		c->android_freq[i] = (unsigned char)(f - c->freqs_khz);
	}
	c->nandroid = n;
	return 0;
}

static bool is_online(const int *online, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (online[i] == cpu)
			return true;
	return false;
}

/* One policy directory into a new cluster; 1 if it has no online CPU. */
static int read_policy(const char *root, const char *name, const int *online, int nonline,
		       struct profile_cluster *c)
{
	int cpus[PROFILE_MAX_CPUS], n, i;
	char rel[512], buf[4096];

	memset(c, 0, sizeof(*c));
	snprintf(c->policy, sizeof(c->policy), "%s", name);
	policy_rel(rel, sizeof(rel), name, "related_cpus");
	if (read_value(root, rel, buf, sizeof(buf)))
		return -1;
	n = parse_cpulist(buf, cpus, PROFILE_MAX_CPUS);
	if (n < 0)
		return -1;
	c->nrelated = n;
	c->first_related = n ? cpus[0] : -1;
	for (i = 0; i < n; i++) {
		if (cpus[i] < c->first_related)
			c->first_related = cpus[i];
		if (is_online(online, nonline, cpus[i]))
			c->cpus[c->ncpus++] = cpus[i];
	}
	if (!c->ncpus)
		return 1;
	/* no list (intel_pstate, say): one speed, never pinned */
	if (read_freqs(root, c)) {
		if (errno != ENOENT)
			return -1;
		c->nfreqs = 1;
		c->freqs_khz[0] = 0;
	}
	policy_rel(rel, sizeof(rel), name, "scaling_available_governors");
	c->userspace = !read_value(root, rel, buf, sizeof(buf)) && strstr(buf, "userspace");
	return 0;
}

static int cmp_cluster(const void *a, const void *b)
{
	const struct profile_cluster *x = a, *y = b;

	return x->cpus[0] - y->cpus[0];
}

/* The cpufreq policies with online CPUs, ordered by their first CPU. */
static int read_policies(const char *root, const int *online, int nonline,
			 struct profile_topology *t)
{
	char path[512];
	struct dirent *d;
	int ret = 0;
	DIR *dir;

	join(path, sizeof(path), root, CPU_DIR "/cpufreq");
	dir = opendir(path);
	if (!dir)
		return 0;
	while (ret >= 0 && (d = readdir(dir))) {
		if (strncmp(d->d_name, "policy", 6) ||
		    strlen(d->d_name) >= sizeof(t->cluster[0].policy))
			continue;
		if (t->nclusters == PROFILE_MAX_CLUSTERS) {
			errno = E2BIG;
			ret = -1;
			break;
		}
		ret = read_policy(root, d->d_name, online, nonline, &t->cluster[t->nclusters]);
		if (ret == 0)
			t->nclusters++;
	}
	closedir(dir);
	if (ret < 0)
		return -1;
	qsort(t->cluster, t->nclusters, sizeof(t->cluster[0]), cmp_cluster);
	return 0;
}

static bool in_cluster(const struct profile_topology *t, int cpu)
{
	int c, i;

	for (c = 0; c < t->nclusters; c++)
		for (i = 0; i < t->cluster[c].ncpus; i++)
			if (t->cluster[c].cpus[i] == cpu)
				return true;
	return false;
}

/*
 * Linux 3.10 and 3.18 have no cpufreq/policyN: each online CPU's policy is
 * at cpuN/cpufreq, the same one for every CPU of related_cpus.  Read them
 * in CPU order, each policy once (as "cpuN", N its first online CPU).
 */
static int read_cpu_policies(const char *root, const int *online, int nonline,
			     struct profile_topology *t)
{
	char name[32];
	int i, ret;

	for (i = 0; i < nonline; i++) {
		if (in_cluster(t, online[i]))
			continue;
		if (t->nclusters == PROFILE_MAX_CLUSTERS)
			return errno = E2BIG, -1;
		snprintf(name, sizeof(name), "cpu%d", online[i]);
		ret = read_policy(root, name, online, nonline, &t->cluster[t->nclusters]);
		if (ret < 0 && errno == ENOENT)
			continue;		/* no cpufreq for this CPU */
		if (ret < 0)
			return -1;
		if (ret == 0)
			t->nclusters++;
	}
	return 0;
}

int profile_topology_read(const char *sysroot, struct profile_topology *t)
{
	int online[PROFILE_MAX_CPUS];
	struct profile_cluster *c;
	char buf[4096];

	memset(t, 0, sizeof(*t));
	if (read_value(sysroot, CPU_DIR "/online", buf, sizeof(buf)))
		return -1;
	t->ncpus = parse_cpulist(buf, online, PROFILE_MAX_CPUS);
	if (t->ncpus <= 0)
		return t->ncpus ? -1 : (errno = ENOENT, -1);
	if (read_policies(sysroot, online, t->ncpus, t))
		return -1;
	if (!t->nclusters && read_cpu_policies(sysroot, online, t->ncpus, t))
		return -1;
	t->cpufreq = t->nclusters > 0;
	if (t->cpufreq)
		return 0;
	/* no cpufreq: one cluster of every online CPU at one unknown speed */
	c = &t->cluster[0];
	memset(c, 0, sizeof(*c));
	memcpy(c->cpus, online, t->ncpus * sizeof(int));
	c->ncpus = t->ncpus;
	c->nfreqs = 1;
	t->nclusters = 1;
	return 0;
}

/* ---- pinning cpufreq policies ------------------------------------------ */

struct profile_freq_saved {
	int n;
	struct {
		char policy[32];
		char governor[64];
		char min[32], max[32];
	} p[PROFILE_MAX_CLUSTERS];
};

static int policy_read(const char *root, const char *policy, const char *file, char *buf,
		       size_t len)
{
	char rel[512];

	policy_rel(rel, sizeof(rel), policy, file);
	return read_value(root, rel, buf, len);
}

static int policy_write(const char *root, const char *policy, const char *file,
			const char *val)
{
	char rel[512];

	policy_rel(rel, sizeof(rel), policy, file);
	return write_value(root, rel, val);
}

struct profile_freq_saved *profile_freq_save(const char *sysroot,
					     const struct profile_topology *t)
{
	struct profile_freq_saved *s = calloc(1, sizeof(*s));
	int i;

	if (!s || !t->cpufreq)
		return s;
	for (i = 0; i < t->nclusters; i++) {
		const char *pol = t->cluster[i].policy;

		snprintf(s->p[i].policy, sizeof(s->p[i].policy), "%s", pol);
		if (policy_read(sysroot, pol, "scaling_governor", s->p[i].governor,
				sizeof(s->p[i].governor)) ||
		    policy_read(sysroot, pol, "scaling_min_freq", s->p[i].min,
				sizeof(s->p[i].min)) ||
		    policy_read(sysroot, pol, "scaling_max_freq", s->p[i].max,
				sizeof(s->p[i].max))) {
			free(s);
			return NULL;
		}
		s->n++;
	}
	return s;
}

/* min = max = @khz, whichever order the current limits allow. */
static int pin_limits(const char *root, const char *policy, const char *khz)
{
	policy_write(root, policy, "scaling_max_freq", khz);
	if (policy_write(root, policy, "scaling_min_freq", khz))
		return -1;
	return policy_write(root, policy, "scaling_max_freq", khz);
}

int profile_freq_set(const char *sysroot, const struct profile_topology *t, int cluster,
		     int freq)
{
	const struct profile_cluster *c = &t->cluster[cluster];
	char khz[32], gov[64];

	if (!t->cpufreq || !c->freqs_khz[freq])
		return 0;
	snprintf(khz, sizeof(khz), "%u", c->freqs_khz[freq]);
	if (!c->userspace)
		return pin_limits(sysroot, c->policy, khz);
	if (policy_read(sysroot, c->policy, "scaling_governor", gov, sizeof(gov)))
		return -1;
	if (strcmp(gov, "userspace") &&
	    policy_write(sysroot, c->policy, "scaling_governor", "userspace"))
		return -1;
	return policy_write(sysroot, c->policy, "scaling_setspeed", khz);
}

int profile_freq_restore(const char *sysroot, struct profile_freq_saved *s)
{
	int i, ret = 0, e = 0;

	for (i = 0; s && i < s->n; i++) {
		const char *pol = s->p[i].policy;

		/* the governor first: userspace's setspeed no longer holds the policy */
		if (policy_write(sysroot, pol, "scaling_governor", s->p[i].governor))
			ret = -1, e = errno;
		policy_write(sysroot, pol, "scaling_max_freq", s->p[i].max);
		if (policy_write(sysroot, pol, "scaling_min_freq", s->p[i].min) ||
		    policy_write(sysroot, pol, "scaling_max_freq", s->p[i].max))
			ret = -1, e = errno;
	}
	errno = e;
	return ret;
}

void profile_freq_free(struct profile_freq_saved *s)
{
	free(s);
}

/* ---- CPU time and the battery ------------------------------------------- */

int profile_cpu_times(const char *procroot, uint64_t *busy, uint64_t *total)
{
	uint64_t v[8];
	char path[512], line[512];
	unsigned int cpu;
	FILE *f;

	join(path, sizeof(path), procroot, "/proc/stat");
	f = fopen(path, "re");
	if (!f)
		return -1;
	memset(busy, 0, PROFILE_MAX_CPUS * sizeof(*busy));
	memset(total, 0, PROFILE_MAX_CPUS * sizeof(*total));
	while (fgets(line, sizeof(line), f)) {
		memset(v, 0, sizeof(v));
		if (sscanf(line, "cpu%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64, &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6]) < 5 || cpu >= PROFILE_MAX_CPUS)
			continue;
		busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6];
		total[cpu] = busy[cpu] + v[3] + v[4];
	}
	fclose(f);
	return 0;
}

void profile_cluster_busy(const struct profile_topology *t, const uint64_t *busy0,
			  const uint64_t *total0, const uint64_t *busy1,
			  const uint64_t *total1, double *busy)
{
	double sum_total = 0, mean;
	int c, i, cpu, n = 0;

	for (c = 0; c < t->nclusters; c++)
		for (i = 0; i < t->cluster[c].ncpus; i++, n++) {
			cpu = t->cluster[c].cpus[i];
			sum_total += (double)(total1[cpu] - total0[cpu]);
		}
	mean = n ? sum_total / n : 0;
	for (c = 0; c < t->nclusters; c++) {
		busy[c] = 0;
		for (i = 0; i < t->cluster[c].ncpus && mean > 0; i++) {
			cpu = t->cluster[c].cpus[i];
			busy[c] += (double)(busy1[cpu] - busy0[cpu]) / mean;
		}
	}
}

double profile_capacity_mah(const char *sysroot, const char *supply)
{
	static const char *const files[] = { "charge_full_design", "charge_full" };
	char rel[512], buf[64], *end;
	unsigned int i;
	double uah;

	for (i = 0; supply && *supply && i < 2; i++) {
		snprintf(rel, sizeof(rel), "/sys/class/power_supply/%s/%s", supply, files[i]);
		if (read_value(sysroot, rel, buf, sizeof(buf)))
			continue;
		uah = strtod(buf, &end);
		if (end != buf && uah > 0)
			return uah / 1000;
	}
	return -1;
}

/* ---- the wakelock -------------------------------------------------------- */

int profile_wakelock_hold(const char *sysroot, double timeout_s)
{
	char val[96];

	snprintf(val, sizeof(val), PROFILE_WAKELOCK " %.0f", timeout_s * 1e9);
	if (!write_value(sysroot, "/sys/power/wake_lock", val))
		return 1;
	return errno == ENOENT ? 0 : -1;
}

int profile_wakelock_release(const char *sysroot)
{
	return write_value(sysroot, "/sys/power/wake_unlock", PROFILE_WAKELOCK);
}
