/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both trace readers (trace_input.c, trace_input_dat.c) share below
 * the event interface: the thread groups they learn as they read, and the
 * prev_state letters.  A leaf: it calls neither reader, so the readers'
 * dependencies run one way (trace_input.c -> trace_input_dat.c -> here).
 *
 * A thread's group (tgid) comes only from what the kernel recorded:
 *   - ftrace text's "(tgid)" column (options/record-tgid), for the task
 *     that wrote each line;
 *   - the saved_tgids table powerpin record stores in a trace.dat
 *     ("powerpin: tgids=PID:TGID ..." lines, docs/capture-format.md);
 *   - task:task_newtask, whose clone_flags say whether the new task is a
 *     thread of its creator (CLONE_THREAD) or a process of its own.
 * sched_process_fork alone cannot tell a thread from a process (it has no
 * clone flags), so it teaches nothing here.  A thread none of these name
 * has no known group, and readers leave its tgid at -1.
 */
#ifndef POWERPIN_TRACE_THREADS_H
#define POWERPIN_TRACE_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "trace_input.h"

#define TRACE_CLONE_THREAD	0x00010000ULL	/* the kernel's CLONE_THREAD */

struct trace_tgids {
	struct {
		int pid, tgid;
		bool told;		/* handed to ops->tgid since it was learned */
	} *e;
	uint32_t nr, cap;
	struct hash_index index;	/* pid -> e */
};

/* @pid is in thread group @tgid (both > 0).  Returns 0, -1 out of memory. */
int trace_tgids_learn(struct trace_tgids *m, int pid, int tgid);
/* Its group, or -1 when not known. */
int trace_tgids_get(const struct trace_tgids *m, int pid);
/*
 * task_newtask: @parent made @child with @clone_flags.  A thread joins its
 * parent's group (when that is known); anything else leads its own.
 */
int trace_tgids_newtask(struct trace_tgids *m, int parent, int child, uint64_t clone_flags);
/*
 * An atrace write (B|TGID|..., C|TGID|..., S|, F|) names its writer's
 * group (atrace writes getpid()): learn it when the kernel has not said
 * one, so a thread the writer later makes with CLONE_THREAD joins it.
 * Returns 0, -1 out of memory.
 */
int trace_tgids_atrace(struct trace_tgids *m, const struct trace_event *ev);
/*
 * The "powerpin: tgids=PID:TGID ..." lines of a trace.dat's CPUSTAT text
 * (NULL: none).  Returns the pairs learned, or -1 out of memory.
 */
long trace_tgids_parse_saved(struct trace_tgids *m, const char *stats);
/*
 * Before @ev is delivered: fill its writer's tgid when known, and tell
 * ops->tgid the group of every task @ev names that it has not been told.
 * Returns 0, -1 out of memory.
 */
int trace_tgids_announce(struct trace_tgids *m, struct trace_event *ev,
			 const struct trace_input_ops *ops, void *arg);
void trace_tgids_free(struct trace_tgids *m);

#endif
