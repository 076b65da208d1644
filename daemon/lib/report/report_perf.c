// SPDX-License-Identifier: GPL-2.0
/* Energy per function from perf samples (report_perf.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report_filter.h"
#include "report.h"
#include "base/base.h"

#define MAP_MAX_BYTES	(256U << 20)

int report_perf_init(struct report_perf *rp, const struct report *r, const char *map_path)
{
	memset(rp, 0, sizeof(*rp));
	rp->r = r;
	rp->map_path = map_path ? map_path : pp_perf_map_dir();
	rp->ncpus = r->nr_cpus > r->nr_cpus_hint ? r->nr_cpus : r->nr_cpus_hint;
	if (rp->ncpus < 1)
		rp->ncpus = 1;
	flame_init(&rp->flame);
	rp->flame.weight_name = "J";
	rp->flame.weight_unit = "J";
	rp->flame.other_name = "samples";
	rp->flame.other_integer = true;
	return 0;
}

void report_perf_free(struct report_perf *rp)
{
	uint32_t i;

	free(rp->pt_ns);
	free(rp->pt_uw);
	for (i = 0; i < rp->nr_fns; i++) {
		free(rp->fns[i].name);
		free(rp->fns[i].dso);
	}
	free(rp->fns);
	free(rp->fn_hash);
	free(rp->order);
	for (i = 0; i < rp->nr_maps; i++)
		perf_map_free(&rp->maps[i].map);
	free(rp->maps);
	flame_free(&rp->flame);
	free(rp->buf);
	memset(rp, 0, sizeof(*rp));
}

static int power_event(const struct trace_event *ev, void *arg)
{
	struct report_perf *rp = arg;

	if (ev->kind != TRACE_EV_POWER ||
	    (ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)))
		return 0;
	if (rp->nr_pts == rp->cap_pts) {
		size_t cap = rp->cap_pts ? rp->cap_pts * 2 : 4096;
		uint64_t *t = realloc(rp->pt_ns, cap * sizeof(*t));
		double *p;

		if (!t)
			return -ENOMEM;
		rp->pt_ns = t;
		p = realloc(rp->pt_uw, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		rp->pt_uw = p;
		rp->cap_pts = cap;
	}
	rp->pt_ns[rp->nr_pts] = ev->ts_ns;
	rp->pt_uw[rp->nr_pts] = (double)ev->power.voltage_uv * (double)ev->power.current_ua * 1e-6;
	rp->nr_pts++;
	return 0;
}

int report_perf_power(struct report_perf *rp, const char *trace_path, char *err, size_t errlen)
{
	static const struct trace_input_ops ops = { .event = power_event };
	int ret = report_filter_read(trace_path, &ops, rp, rp->r->opt.filter, err, errlen);

	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret ? -1 : 0;
}

/* The perf map of @pid, loaded on first use (NULL if there is none). */
static const struct perf_map *map_of(struct report_perf *rp, int pid)
{
	struct report_perf_map *m;
	char path[4096];
	void *buf;
	size_t len;
	uint32_t i;

	for (i = 0; i < rp->nr_maps; i++)
		if (rp->maps[i].pid == pid)
			return rp->maps[i].loaded ? &rp->maps[i].map : NULL;
	m = realloc(rp->maps, (rp->nr_maps + 1) * sizeof(*m));
	if (!m)
		return NULL;
	rp->maps = m;
	m = &rp->maps[rp->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	/* a directory of perf-<pid>.map files, or one map for every process */
	snprintf(path, sizeof(path), "%s/perf-%d.map", rp->map_path, pid);
	if (read_bounded_file(path, MAP_MAX_BYTES, &buf, &len) &&
	    (errno != ENOTDIR ||
	     read_bounded_file(rp->map_path, MAP_MAX_BYTES, &buf, &len)))
		return NULL;
	m->loaded = !perf_map_parse(buf, len, &m->map);
	free(buf);
	return m->loaded ? &m->map : NULL;
}

static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

static struct report_function *function_get(struct report_perf *rp, const char *name,
					    const char *dso)
{
	struct report_function *f;
	uint32_t j, i;

	if ((rp->nr_fns + 1) * 2 > rp->fn_hcap) {
		uint32_t cap = rp->fn_hcap ? rp->fn_hcap * 2 : 1024;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return NULL;
		for (i = 0; i < rp->nr_fns; i++) {
			for (j = hash2(rp->fns[i].name, rp->fns[i].dso) & (cap - 1); h[j];
			     j = (j + 1) & (cap - 1))
				;
			h[j] = i + 1;
		}
		free(rp->fn_hash);
		rp->fn_hash = h;
		rp->fn_hcap = cap;
	}
	for (j = hash2(name, dso) & (rp->fn_hcap - 1); rp->fn_hash[j];
	     j = (j + 1) & (rp->fn_hcap - 1)) {
		f = &rp->fns[rp->fn_hash[j] - 1];
		if (!strcmp(f->name, name) && !strcmp(f->dso, dso))
			return f;
	}
	if (rp->nr_fns == rp->cap_fns) {
		uint32_t cap = rp->cap_fns ? rp->cap_fns * 2 : 256;

		f = realloc(rp->fns, cap * sizeof(*f));
		if (!f)
			return NULL;
		rp->fns = f;
		rp->cap_fns = cap;
	}
	f = &rp->fns[rp->nr_fns];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->dso = strdup(dso);
	if (!f->name || !f->dso) {
		free(f->name);
		free(f->dso);
		return NULL;
	}
	rp->fn_hash[j] = ++rp->nr_fns;
	return f;
}

/* "perf-1234.map": perf named the frame from a JIT map */
static bool is_map_dso(const char *dso)
{
	const char *base = strrchr(dso, '/');

	base = base ? base + 1 : dso;
	return !strncmp(base, "perf-", 5) && strstr(base, ".map");
}

/* A frame's function: perf's name, else the process's perf map's, else "[unknown]". */
static void frame_name(struct report_perf *rp, const struct perf_sample *s,
		       const struct perf_frame *f, const char **name, const char **dso)
{
	const struct perf_map_sym *sym;
	const struct perf_map *map;

	*name = f->sym;
	*dso = is_map_dso(f->dso) ? "JIT" : f->dso;
	if (strcmp(f->sym, "[unknown]"))
		return;
	map = map_of(rp, s->pid);
	sym = map ? perf_map_lookup(map, f->ip) : NULL;
	if (sym) {
		*name = sym->name;
		*dso = "JIT";
		rp->jit_named++;
	}
}

static int buf_room(struct report_perf *rp, size_t need)
{
	char *b;

	if (need <= rp->buf_cap)
		return 0;
	b = realloc(rp->buf, need * 2);
	if (!b)
		return -1;
	rp->buf = b;
	rp->buf_cap = need * 2;
	return 0;
}

/* Add @name to the flame stack being built at rp->buf[*len], ';' made ':'. */
static int stack_push(struct report_perf *rp, size_t *len, const char *name)
{
	size_t n = strlen(name), i;

	if (buf_room(rp, *len + n + 2))
		return -1;
	if (*len)
		rp->buf[(*len)++] = ';';
	for (i = 0; i < n; i++)
		rp->buf[(*len)++] = name[i] == ';' ? ':' : name[i];
	rp->buf[*len] = '\0';
	return 0;
}

/* The power interval holding @ts: index of its start, or -1. */
static long interval_of(const struct report_perf *rp, uint64_t ts)
{
	size_t lo = 0, hi = rp->nr_pts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rp->pt_ns[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo >= rp->nr_pts)
		return -1;
	return (long)lo - 1;
}

static bool clock_event(const char *ev)
{
	return !strncmp(ev, "cpu-clock", 9) || !strncmp(ev, "task-clock", 10);
}

int report_perf_sample(const struct perf_sample *s, void *arg)
{
	struct report_perf *rp = arg;
	struct report_function *fn;
	const char *name, *dso;
	char root[96];
	double e;
	size_t len = 0;
	long k;
	uint32_t i;

	rp->samples++;
	if (!rp->event[0])
		snprintf(rp->event, sizeof(rp->event), "%s", s->event);
	if (!clock_event(s->event)) {
		snprintf(rp->err, sizeof(rp->err),
			 "perf event '%s' does not count time: record with -e cpu-clock (perf record -e cpu-clock -g)",
			 s->event);
		return 1;
	}
	k = interval_of(rp, s->ts_ns);
	if (k < 0 || rp->pt_ns[k + 1] == rp->pt_ns[k]) {
		rp->outside++;
		return 0;
	}
	/* its share of the interval's energy: mean power x CPU time / CPUs */
	e = rp->r->sign * (rp->pt_uw[k] + rp->pt_uw[k + 1]) / 2 * 1e-6 *
	    (double)s->period * 1e-9 / rp->ncpus;
	rp->used++;
	rp->energy_j += e;
	rp->cpu_s += (double)s->period * 1e-9;
	snprintf(root, sizeof(root), "%s (%d)", s->comm, s->pid);
	if (stack_push(rp, &len, root))
		goto oom;
	for (i = s->nr_frames; i-- > 0;) {
		frame_name(rp, s, &s->frames[i], &name, &dso);
		fn = function_get(rp, name, dso);
		if (!fn)
			goto oom;
		if (fn->last_sample != rp->used) {
			/* once per sample, however often it recurs in the stack */
			fn->last_sample = rp->used;
			fn->total_j += e;
			fn->samples++;
		}
		if (!i) {
			fn->self_j += e;
			fn->self_samples++;
		}
		if (stack_push(rp, &len, name))
			goto oom;
	}
	if (!s->nr_frames && stack_push(rp, &len, "[no stack]"))
		goto oom;
	if (flame_add(&rp->flame, rp->buf, e, 1))
		goto oom;
	return 0;
oom:
	snprintf(rp->err, sizeof(rp->err), "out of memory");
	return 1;
}

static int cmp_self(const void *a, const void *b, void *arg)
{
	const struct report_perf *rp = arg;
	const struct report_function *x = &rp->fns[*(const uint32_t *)a];
	const struct report_function *y = &rp->fns[*(const uint32_t *)b];

	if (x->self_j != y->self_j)
		return x->self_j < y->self_j ? 1 : -1;
	if (x->total_j != y->total_j)
		return x->total_j < y->total_j ? 1 : -1;
	return strcmp(x->name, y->name);
}

int report_perf_finish(struct report_perf *rp, char *err, size_t errlen)
{
	uint32_t i;

	if (!rp->samples) {
		snprintf(err, errlen, "no samples in the perf data");
		return -1;
	}
	if (!rp->used) {
		snprintf(err, errlen,
			 "none of the %" PRIu64 " perf samples falls inside the capture's power samples: record both at the same time, with the same clock (perf's default and the trace's local clock, or perf record -k mono with trace-cmd record -C mono)",
			 rp->samples);
		return -1;
	}
	rp->order = calloc(rp->nr_fns + 1, sizeof(*rp->order));
	if (!rp->order) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < rp->nr_fns; i++)
		rp->order[i] = i;
	qsort_r(rp->order, rp->nr_fns, sizeof(*rp->order), cmp_self, rp);
	flame_sort(&rp->flame);
	return 0;
}
