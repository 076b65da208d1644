// SPDX-License-Identifier: GPL-2.0
/*
 * Thread groups as the readers learn them, and sched_switch's prev_state
 * letters: what trace_input.c and trace_input_dat.c share (trace_threads.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_threads.h"

unsigned int trace_task_state_parse(const char *s, size_t len)
{
	static const char letters[] = "SDTtXZPIxKWN";
	unsigned int state = 0;
	const char *l;
	size_t i;

	if (!len)
		return TRACE_TASK_UNKNOWN;
	for (i = 0; i < len; i++) {
		if (s[i] == '|' || (s[i] == 'R' && i == 0))
			continue;
		if (s[i] == '+') {
			state |= TRACE_TASK_PREEMPTED;
			continue;
		}
		l = s[i] ? strchr(letters, s[i]) : NULL;
		if (!l)
			return TRACE_TASK_UNKNOWN;
		state |= 1U << (l - letters);
	}
	return state;
}

/* ---- thread groups -------------------------------------------------------- */

static bool pid_match(const void *ctx, uint32_t pos, const void *key)
{
	const struct trace_tgids *m = ctx;

	return m->e[pos].pid == *(const int *)key;
}

static uint32_t pid_hash(const void *ctx, uint32_t pos)
{
	const struct trace_tgids *m = ctx;

	return hash_u32((uint32_t)m->e[pos].pid);
}

static long find(const struct trace_tgids *m, int pid)
{
	return hash_index_find(&m->index, hash_u32((uint32_t)pid), pid_match, m, &pid);
}

int trace_tgids_get(const struct trace_tgids *m, int pid)
{
	long pos = find(m, pid);

	return pos < 0 ? -1 : m->e[pos].tgid;
}

int trace_tgids_learn(struct trace_tgids *m, int pid, int tgid)
{
	long pos;

	if (pid <= 0 || tgid <= 0)
		return 0;
	pos = find(m, pid);
	if (pos >= 0) {
		if (m->e[pos].tgid != tgid) {
			m->e[pos].tgid = tgid;
			m->e[pos].told = false;
		}
		return 0;
	}
	if (m->nr == m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 256;
		void *e = reallocarray(m->e, cap, sizeof(*m->e));

		if (!e)
			return -1;
		m->e = e;
		m->cap = cap;
	}
	m->e[m->nr].pid = pid;
	m->e[m->nr].tgid = tgid;
	m->e[m->nr].told = false;
	if (hash_index_add(&m->index, hash_u32((uint32_t)pid), m->nr, pid_hash, m))
		return -1;
	m->nr++;
	return 0;
}

int trace_tgids_newtask(struct trace_tgids *m, int parent, int child, uint64_t clone_flags)
{
	int tgid;

	if (!(clone_flags & TRACE_CLONE_THREAD))
		return trace_tgids_learn(m, child, child);
	tgid = trace_tgids_get(m, parent);
	return tgid > 0 ? trace_tgids_learn(m, child, tgid) : 0;
}

int trace_tgids_atrace(struct trace_tgids *m, const struct trace_event *ev)
{
	const char *s = ev->mark.text, *end;
	long tgid;
	char *stop;

	if (ev->kind != TRACE_EV_MARK || ev->pid <= 0 || ev->mark.len < 4 || !s)
		return 0;
	/* B|TGID|..., C|TGID|..., S|TGID|..., F|TGID|...: atrace's own getpid() */
	if (!strchr("BCSF", s[0]) || s[1] != '|' || !isdigit((unsigned char)s[2]))
		return 0;
	end = s + ev->mark.len;
	errno = 0;
	tgid = strtol(s + 2, &stop, 10);
	if (errno || stop >= end || *stop != '|' || tgid <= 0 || tgid > INT32_MAX)
		return 0;
	if (trace_tgids_get(m, ev->pid) > 0)
		return 0;	/* the kernel's word first */
	return trace_tgids_learn(m, ev->pid, (int)tgid);
}

long trace_tgids_parse_saved(struct trace_tgids *m, const char *stats)
{
	static const char key[] = "powerpin: tgids=";
	const char *p = stats;
	long n = 0;
	char *end;
	int pid, tgid;

	while (p && (p = strstr(p, key))) {
		p += strlen(key);
		while (*p && *p != '\n') {
			pid = (int)strtol(p, &end, 10);
			if (end == p || *end != ':')
				break;
			p = end + 1;
			tgid = (int)strtol(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (trace_tgids_learn(m, pid, tgid))
				return -1;
			n++;
			while (*p == ' ')
				p++;
		}
	}
	return n;
}

/* Tell ops->tgid about @pid once (again after its group changed). */
static void tell(struct trace_tgids *m, int pid, const struct trace_input_ops *ops, void *arg)
{
	long pos;

	if (pid <= 0 || !ops->tgid)
		return;
	pos = find(m, pid);
	if (pos < 0 || m->e[pos].told)
		return;
	m->e[pos].told = true;
	ops->tgid(pid, m->e[pos].tgid, arg);
}

int trace_tgids_announce(struct trace_tgids *m, struct trace_event *ev,
			 const struct trace_input_ops *ops, void *arg)
{
	if (ev->tgid > 0 && trace_tgids_learn(m, ev->pid, ev->tgid))
		return -1;
	if (ev->tgid <= 0 && ev->pid > 0)
		ev->tgid = trace_tgids_get(m, ev->pid);
	tell(m, ev->pid, ops, arg);
	switch (ev->kind) {
	case TRACE_EV_SWITCH:
		tell(m, ev->sw.prev_pid, ops, arg);
		tell(m, ev->sw.next_pid, ops, arg);
		break;
	case TRACE_EV_FORK:
		tell(m, ev->fork.parent_pid, ops, arg);
		tell(m, ev->fork.child_pid, ops, arg);
		break;
	case TRACE_EV_EXIT:
		tell(m, ev->exit.pid, ops, arg);
		break;
	default:
		break;
	}
	return 0;
}

void trace_tgids_free(struct trace_tgids *m)
{
	free(m->e);
	hash_index_free(&m->index);
	memset(m, 0, sizeof(*m));
}
