// SPDX-License-Identifier: GPL-2.0
/*
 * From what `powerpin report` is asked to select (--from/--to by name,
 * --pid/--tid/--comm) to the filter of report_filter.h, through a first,
 * unfiltered pass that names the slices, markers and threads of the input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_filter.h"

/* The first slice or marker span of a name to begin: its begin and end. */
struct named_span {
	const char *name;
	bool found;
	uint64_t begin_ns, end_ns;
};

struct select_pass {
	struct named_span from, to;
};

static void span_seen(struct named_span *n, const char *name, const struct report_open_slice *o)
{
	if (!n->name || strcmp(n->name, name))
		return;
	if (n->found && n->begin_ns <= o->begin_ns)
		return;
	n->found = true;
	n->begin_ns = o->begin_ns;
	n->end_ns = o->end_ns;
}

static void select_slice_done(const struct report *r, const struct report_open_slice *o,
			      bool unterminated, void *arg)
{
	struct select_pass *p = arg;
	const char *name = r->slice_stats[o->stat].name;

	span_seen(&p->from, name, o);
	span_seen(&p->to, name, o);
}

static bool int_in(int v, const int *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static bool thread_selected(const struct report_task *t, const struct report_selection *s)
{
	int tgid = t->tgid > 0 ? t->tgid : t->pid;
	size_t i;

	if (s->nr_pids && !int_in(tgid, s->pids, s->nr_pids))
		return false;
	if (s->nr_tids && !int_in(t->pid, s->tids, s->nr_tids))
		return false;
	if (!s->nr_comms)
		return true;
	for (i = 0; i < s->nr_comms; i++)
		if (!strcmp(t->comm, s->comms[i]))
			return true;
	return false;
}

/* The threads of @r that @s selects, into @f; 0, or -1 with a message. */
static int select_threads(struct report_filter *f, const struct report *r,
			  const struct report_selection *s, char *err, size_t errlen)
{
	int *tids = malloc((r->nr_tasks + 1) * sizeof(*tids));
	size_t n = 0;
	uint32_t i;
	int ret;

	if (!tids) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < r->nr_tasks; i++)
		if (thread_selected(&r->tasks[i], s))
			tids[n++] = r->tasks[i].pid;
	ret = n ? report_filter_set_tids(f, tids, n) : -1;
	if (!n)
		snprintf(err, errlen, "no thread in the input matches --pid, --tid and --comm");
	else if (ret)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	free(tids);
	return ret;
}

/* A bound given as a name: the span found, or -1 with a message. */
static int name_bound(const struct named_span *n, bool end, const char *opt, uint64_t *ns,
		      char *err, size_t errlen)
{
	if (!n->found) {
		snprintf(err, errlen, "%s %s: no slice or marker of that name in the input (nor a number of seconds)",
			 opt, n->name);
		return -1;
	}
	*ns = end ? n->end_ns : n->begin_ns;
	return 0;
}

/* The first pass: names and threads; 0 or -1 with a message. */
static int select_pass(struct report_filter *f, const char *path,
		       const struct report_selection *s, struct select_pass *p,
		       char *err, size_t errlen)
{
	struct report r;
	int ret = -1;

	if (report_init(&r, NULL)) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	r.slice_done = select_slice_done;
	r.slice_done_arg = p;
	if (report_run(&r, path, err, errlen))
		goto out;
	if (p->from.name && name_bound(&p->from, false, "--from", &f->from_ns, err, errlen))
		goto out;
	/* --to a name: the end of the same span when --from names it too */
	if (p->to.name && name_bound(&p->to, true, "--to", &f->to_ns, err, errlen))
		goto out;
	if ((s->nr_pids || s->nr_tids || s->nr_comms) &&
	    select_threads(f, &r, s, err, errlen))
		goto out;
	ret = 0;
out:
	report_free(&r);
	return ret;
}

int report_filter_resolve(struct report_filter *f, const char *path,
			  const struct report_selection *s, char *err, size_t errlen)
{
	struct select_pass p = { 0 };

	if (s->from) {
		f->have_from = true;
		f->from_abs = !report_filter_parse_seconds(s->from, &f->from_ns);
		p.from.name = f->from_abs ? s->from : NULL;
	}
	if (s->to) {
		f->have_to = true;
		f->to_abs = !report_filter_parse_seconds(s->to, &f->to_ns);
		p.to.name = f->to_abs ? s->to : NULL;
	}
	if (!p.from.name && !p.to.name && !s->nr_pids && !s->nr_tids && !s->nr_comms)
		return 0;
	return select_pass(f, path, s, &p, err, errlen);
}
