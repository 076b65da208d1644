// SPDX-License-Identifier: GPL-2.0
/*
 * Gate: who consumes the powerpin events, and whether any of them would
 * record a sample right now.  The sampler reads the gauge only when one
 * would (kmod/README.md, "Gate").
 *
 * Consumers are followed per trace event file and per perf user, through
 * the events' class reg callback (struct trace_event_class.reg, public in
 * linux/trace_events.h).  The tracing core calls it with
 * TRACE_REG_REGISTER/UNREGISTER and the struct trace_event_file of every
 * tracefs instance (the top level included) that enables an event, hard or
 * in soft mode, and with TRACE_REG_PERF_* for perf.  The tracepoint's own
 * reg/unreg (TRACE_EVENT_FN) only say "first probe" and "last probe"; they
 * remain for probes that come neither through tracefs nor perf (BPF raw
 * tracepoints, another module's register_trace_*()).
 *
 * The events' class gets powerpin_event_reg() at compile time (the
 * TRACE_EVENT class initialiser names trace_event_reg, renamed below while
 * the events are defined), so every registration goes through it from the
 * moment the events appear in tracefs, at MODULE_STATE_COMING, before
 * module init, until they go at MODULE_STATE_GOING, after module exit.  It
 * does its bookkeeping and calls the exported trace_event_reg() (through
 * powerpin_trace_event_reg(), compat.h).
 *
 * A file would record when:
 *  - triggers are attached to the event itself (TRIGGER_MODE/COND): they
 *    run whatever the buffer's state, even with tracing off;
 *  - otherwise not while soft disabled (an enable_event trigger elsewhere
 *    that has not fired), nor while its pid filter leaves our thread out;
 *  - otherwise when its instance's ring buffer accepts a write: its
 *    tracing_on, a full non-overwrite buffer, tracing_cpumask.  No getter
 *    for that is exported, so a small record is reserved in that buffer and
 *    discarded at once (powerpin_buffer_accepts()).  tracing_cpumask makes
 *    the answer depend on the CPU: when no file records on the thread's
 *    CPU, the other CPUs are asked, and the sampler moves to one that does.
 * perf would record when a perf event on a powerpin event is scheduled in
 * on this CPU (system-wide, or one that follows the sampler thread or its
 * cgroup), or has a BPF program attached; when a system-wide one is
 * scheduled in on other CPUs only (perf -a -C), the sampler moves to one
 * of them, and stays on a CPU such an event takes while not all do.  Any
 * other probe is taken to record every call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "compat.h"
#include "powerpin.h"

int powerpin_event_reg(struct trace_event_call *call, enum trace_reg type,
		       void *data);

/* The class initialisers of trace.h's events name powerpin_event_reg(). */
#define trace_event_reg powerpin_event_reg
#define CREATE_TRACE_POINTS
#include "trace.h"
#undef trace_event_reg

enum powerpin_event {
	POWERPIN_EV_BATTERY,
	POWERPIN_EV_COUNTER,
	POWERPIN_NR_EVENTS,
};

/* A trace event file (one event in one tracefs instance) that enabled us. */
struct powerpin_file {
	struct list_head node;
	struct trace_event_file *file;
	enum powerpin_event event;
};

/* Registered files; a file is on the list while it is registered. */
static DEFINE_MUTEX(powerpin_gate_lock);
static LIST_HEAD(powerpin_gate_files);
static bool powerpin_gate_gone;		/* module exit: track nothing more */

/*
 * Looking at the other CPUs (an IPI each) when none records here: every one
 * at the next look after a change (a file registered or gone, a kick from
 * the sampler, a CPU found taking writes), else, while none was found, one
 * a look in turn, so that an idle consumer costs one IPI per look of the
 * thread and not one per other CPU.  Under powerpin_gate_lock.
 */
static bool powerpin_look_all = true;
static int powerpin_look_next = -1;	/* the CPU the last single look asked */
static u64 powerpin_gate_ipis;		/* IPIs sent so far (debugfs status) */

static atomic_t powerpin_nr_files[POWERPIN_NR_EVENTS];
/* the top-level instance's files (compared, never dereferenced), or NULL */
static struct trace_event_file *powerpin_top_file[POWERPIN_NR_EVENTS];
/*
 * While the top level's files are learnt at load (powerpin_learn_top_file()):
 * the files registered meanwhile.  Under the tracing core's event_mutex.
 */
static bool powerpin_learning;
static struct trace_event_file *powerpin_learnt;
static int powerpin_nr_learnt;
/*
 * A KMI build, which cannot ask a buffer (compat.h, "GKI"), learns whether
 * the files' buffers take writes from the samples themselves: the events'
 * assignment, which the tracing core runs only into a record it reserved,
 * sets powerpin_landed (powerpin_gate_landed()).  While the last sample
 * that only files could take went nowhere, and from load until one lands,
 * the gate is on trial: it says no to the sampler, which then takes a
 * trial sample now and then (powerpin_gate_on_trial()).  Under
 * powerpin_gate_lock.
 */
static bool powerpin_on_trial = true;
static bool powerpin_landed;

/* the tracepoint has at least one probe, whoever attached it */
static atomic_t powerpin_tp_live[POWERPIN_NR_EVENTS];

/* who hears that consumers changed: the sampler, once it is there */
static const struct powerpin_gate_ops *powerpin_gate_listener;

#ifdef CONFIG_PERF_EVENTS
static atomic_t powerpin_perf_users[POWERPIN_NR_EVENTS];
/* the perf events open on each event that can record the thread's samples */
static atomic_t powerpin_perf_recorders[POWERPIN_NR_EVENTS];
static struct trace_event_call *powerpin_perf_call[POWERPIN_NR_EVENTS];
/* perf events scheduled in on each CPU: all, and system-wide ones that follow no cgroup */
static DEFINE_PER_CPU(int, powerpin_perf_here);
static DEFINE_PER_CPU(int, powerpin_perf_cpu_wide);
#endif

/*
 * Set (or clear, NULL) the ops told when consumers may have changed.
 * Registrations start before module init, so one may come before any
 * listener: the listener looks at the gate once it has registered.
 */
void powerpin_gate_listen(const struct powerpin_gate_ops *ops)
{
	WRITE_ONCE(powerpin_gate_listener, ops);
}

/*
 * The task that emits the events: the sampler thread, from its creation to
 * the module's unload (a perf event on it holds the module).  A perf event
 * that follows a task records the events only when it follows this one.
 */
static struct task_struct *powerpin_gate_emitter;

void powerpin_gate_set_emitter(struct task_struct *task)
{
	WRITE_ONCE(powerpin_gate_emitter, task);
}

/* Consumers may have changed: tell the listener, if there is one yet. */
static void powerpin_gate_changed(void)
{
	const struct powerpin_gate_ops *ops = READ_ONCE(powerpin_gate_listener);

	if (ops)
		ops->consumers_changed();
}

static enum powerpin_event powerpin_event_of(struct trace_event_call *call)
{
	return strcmp(trace_event_name(call), "powerpin_battery") ?
	       POWERPIN_EV_COUNTER : POWERPIN_EV_BATTERY;
}

static int powerpin_gate_add_file(enum powerpin_event event,
				  struct trace_event_file *file)
{
	struct powerpin_file *pf = kmalloc(sizeof(*pf), GFP_KERNEL);

	if (!pf)
		return -ENOMEM;
	pf->file = file;
	pf->event = event;
	mutex_lock(&powerpin_gate_lock);
	if (powerpin_gate_gone) {
		kfree(pf);
	} else {
		list_add_tail(&pf->node, &powerpin_gate_files);
		atomic_inc(&powerpin_nr_files[event]);
		powerpin_look_all = true;
	}
	mutex_unlock(&powerpin_gate_lock);
	return 0;
}

/* An unregister for a file never seen (before tracking, after exit) is fine. */
static void powerpin_gate_remove_file(struct trace_event_file *file)
{
	struct powerpin_file *pf, *found = NULL;

	mutex_lock(&powerpin_gate_lock);
	list_for_each_entry(pf, &powerpin_gate_files, node) {
		if (pf->file == file) {
			found = pf;
			list_del(&pf->node);
			atomic_dec(&powerpin_nr_files[pf->event]);
			powerpin_look_all = true;
			break;
		}
	}
	mutex_unlock(&powerpin_gate_lock);
	kfree(found);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * Whether @event can record a sample the sampler thread emits: not one
 * that excludes the kernel (the events fire in kernel context; any user may
 * open such a counter on their own task, with perf_event_paranoid <= 2),
 * nor one that follows another task (only the sampler thread emits).
 * The same answer at open and close, and the target is only compared:
 * before 4.x kernels perf holds no reference on it, so at close it may be
 * gone.
 */
static bool powerpin_perf_can_record(const struct perf_event *event)
{
	const struct task_struct *task = powerpin_perf_target(event);

	return !event->attr.exclude_kernel &&
	       (!task || task == READ_ONCE(powerpin_gate_emitter));
}

/*
 * TRACE_REG_PERF_ADD/DEL run on the CPU the perf event is scheduled on,
 * possibly inside the scheduler: count, never wake anyone from here.
 */
static void powerpin_gate_perf_sched(struct perf_event *event, int delta)
{
	if (!powerpin_perf_can_record(event))
		return;
	this_cpu_add(powerpin_perf_here, delta);
	/* a cgroup's is scheduled in only while a task of that cgroup runs */
	if (!powerpin_perf_target(event) && !powerpin_perf_cgroup(event))
		this_cpu_add(powerpin_perf_cpu_wide, delta);
}

static int powerpin_perf_reg(struct trace_event_call *call,
			     enum trace_reg type, void *data)
{
	enum powerpin_event event = powerpin_event_of(call);
	int ret;

	switch (type) {
	/*
	 * No wake-up for perf's probe coming or going: the perf events that
	 * can record announce themselves as they open and close.
	 */
	case TRACE_REG_PERF_REGISTER:
		WRITE_ONCE(powerpin_perf_call[event], call);
		atomic_inc(&powerpin_perf_users[event]);
		ret = powerpin_trace_event_reg(call, type, data);
		if (ret)
			atomic_dec(&powerpin_perf_users[event]);
		return ret;
	case TRACE_REG_PERF_UNREGISTER:
		ret = powerpin_trace_event_reg(call, type, data);
		atomic_dec(&powerpin_perf_users[event]);
		return ret;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
		/* only a perf event that can record is a consumer to wake for */
		if (powerpin_perf_can_record(data)) {
			atomic_add(type == TRACE_REG_PERF_OPEN ? 1 : -1,
				   &powerpin_perf_recorders[event]);
			powerpin_gate_changed();
		}
		break;
	case TRACE_REG_PERF_ADD:
		powerpin_gate_perf_sched(data, 1);
		break;
	case TRACE_REG_PERF_DEL:
		powerpin_gate_perf_sched(data, -1);
		break;
	default:
		break;
	}
	/* 0 for ADD/DEL: the core still queues the event on its CPU */
	return powerpin_trace_event_reg(call, type, data);
}

static bool powerpin_perf_registered(enum powerpin_event event)
{
	return atomic_read(&powerpin_perf_users[event]) > 0;
}

/* a BPF program runs on perf's probe of @event (it may record anything) */
static bool powerpin_perf_bpf(enum powerpin_event event)
{
	struct trace_event_call *call = READ_ONCE(powerpin_perf_call[event]);

	return call && powerpin_bpf_attached(call);
}

/* a perf event that can record is open on one of the events */
static bool powerpin_perf_recorders_open(void)
{
	int i;

	for (i = 0; i < POWERPIN_NR_EVENTS; i++)
		if (powerpin_perf_registered(i) &&
		    atomic_read(&powerpin_perf_recorders[i]) > 0)
			return true;
	return false;
}

/* a BPF program runs on perf's probe of one of the events */
static bool powerpin_perf_bpf_any(void)
{
	int i;

	for (i = 0; i < POWERPIN_NR_EVENTS; i++)
		if (powerpin_perf_registered(i) && powerpin_perf_bpf(i))
			return true;
	return false;
}

/*
 * Whether perf records a sample emitted now on this CPU: a BPF program on
 * a perf event runs wherever the event fires; a perf event records only
 * what is emitted on a CPU it is scheduled in on.
 */
static bool powerpin_perf_records(void)
{
	return powerpin_perf_bpf_any() ||
	       (this_cpu_read(powerpin_perf_here) > 0 &&
		powerpin_perf_recorders_open());
}

/*
 * Before a read, when nothing records on this CPU: another online CPU a
 * system-wide perf event is scheduled in on (perf -a -C 0, or a counter
 * opened with pid -1 on one CPU), or -1.  Read off the per-CPU counts,
 * no IPI.
 */
static int powerpin_perf_cpu_elsewhere(void)
{
	int cpu, here = raw_smp_processor_id();

	if (!powerpin_perf_recorders_open())
		return -1;
	for_each_online_cpu(cpu)
		if (cpu != here && READ_ONCE(per_cpu(powerpin_perf_cpu_wide, cpu)) > 0)
			return cpu;
	return -1;
}

/*
 * Before a read, when perf records on this CPU: this CPU when only
 * system-wide events that some online CPU lacks take the sample here (the
 * thread must then not wander off during the read), else -1.
 */
static int powerpin_perf_pin_here(void)
{
	int cpu, here = raw_smp_processor_id();
	int wide = READ_ONCE(per_cpu(powerpin_perf_cpu_wide, here));

	if (wide <= 0 || wide != READ_ONCE(per_cpu(powerpin_perf_here, here)) ||
	    powerpin_perf_bpf_any())
		return -1;
	for_each_online_cpu(cpu)
		if (READ_ONCE(per_cpu(powerpin_perf_cpu_wide, cpu)) <= 0)
			return here;
	return -1;
}

/* perf on @event could record: a perf event that can, or a BPF program */
static bool powerpin_perf_consumes(enum powerpin_event event)
{
	return powerpin_perf_registered(event) &&
	       (atomic_read(&powerpin_perf_recorders[event]) > 0 ||
		powerpin_perf_bpf(event));
}
#else
static int powerpin_perf_reg(struct trace_event_call *call,
			     enum trace_reg type, void *data)
{
	return powerpin_trace_event_reg(call, type, data);
}

static bool powerpin_perf_records(void)
{
	return false;
}

static int powerpin_perf_cpu_elsewhere(void)
{
	return -1;
}

static int powerpin_perf_pin_here(void)
{
	return -1;
}

static bool powerpin_perf_registered(enum powerpin_event event)
{
	return false;
}

static bool powerpin_perf_consumes(enum powerpin_event event)
{
	return false;
}
#endif

/* The class reg callback of both events (see the top of this file). */
int powerpin_event_reg(struct trace_event_call *call, enum trace_reg type,
		       void *data)
{
	int ret;

	switch (type) {
	case TRACE_REG_REGISTER:
		/* on the list first: the first probe is never "unknown" */
		ret = powerpin_gate_add_file(powerpin_event_of(call), data);
		if (ret)
			return ret;
		ret = powerpin_trace_event_reg(call, type, data);
		if (ret) {
			powerpin_gate_remove_file(data);
		} else if (powerpin_learning) {
			powerpin_learnt = data;
			powerpin_nr_learnt++;
		}
		break;
	case TRACE_REG_UNREGISTER:
		ret = powerpin_trace_event_reg(call, type, data);
		powerpin_gate_remove_file(data);
		break;
	default:
		return powerpin_perf_reg(call, type, data);
	}
	powerpin_gate_changed();
	return ret;
}

/*
 * Tracepoint first probe / last probe, whoever attaches it.  A file's and
 * perf's registrations wake the thread themselves (and perf's only for a
 * perf event that can record): the probe of another wakes it here.
 */
static void powerpin_tp_changed(enum powerpin_event event)
{
	if (!atomic_read(&powerpin_nr_files[event]) &&
	    !powerpin_perf_registered(event))
		powerpin_gate_changed();
}

static void powerpin_tp_reg(enum powerpin_event event)
{
	atomic_set(&powerpin_tp_live[event], 1);
	powerpin_tp_changed(event);
}

static void powerpin_tp_unreg(enum powerpin_event event)
{
	atomic_set(&powerpin_tp_live[event], 0);
	powerpin_tp_changed(event);
}

/* powerpin_battery_tp_reg() and powerpin_counter_tp_reg() */
POWERPIN_DEFINE_TP_REG(battery, powerpin_tp_reg, POWERPIN_EV_BATTERY)

void powerpin_battery_tp_unreg(void)
{
	powerpin_tp_unreg(POWERPIN_EV_BATTERY);
}

POWERPIN_DEFINE_TP_REG(counter, powerpin_tp_reg, POWERPIN_EV_COUNTER)

void powerpin_counter_tp_unreg(void)
{
	powerpin_tp_unreg(POWERPIN_EV_COUNTER);
}

/* For compat.h, on kernels without trace_<event>_enabled(). */
bool powerpin_gate_tp_live(int event)
{
	return atomic_read(&powerpin_tp_live[event]);
}

/*
 * A probe that came through neither a trace event file nor perf (a BPF raw
 * tracepoint, a module's register_trace_powerpin_battery()): the tracepoint
 * has probes but none we know of.  Such a probe sees every call from the
 * moment it is in place (trace_<event>_enabled()).
 */
static bool powerpin_other_probe(enum powerpin_event event)
{
	bool on;

	if (!atomic_read(&powerpin_tp_live[event]) ||
	    atomic_read(&powerpin_nr_files[event]) ||
	    powerpin_perf_registered(event))
		return false;
	/* the first probe's reg runs before the probe is in place */
	on = event == POWERPIN_EV_BATTERY ? trace_powerpin_battery_enabled() :
	     trace_powerpin_counter_enabled();
	return on;
}

/*
 * Whether @file's instance buffer takes a write now, on this CPU.  Only
 * objects the core made are handed to it:
 *
 * - trace_event_buffer_lock_reserve() with the registered file itself
 *   names the file's instance buffer in @buffer as its first step, whatever
 *   it answers.  The request is a page: more than the per-CPU scratch
 *   record the core hands out for a filtered or soft disabled file can
 *   hold (it checks that since 5.11 and 5.10.y; 3.10 has no scratch
 *   record), so the answer is a record in the buffer, discarded at once, or
 *   none (a page fits no buffer of one-page sub-buffers; a record there is
 *   the scratch one of a kernel without that check, left alone: see
 *   powerpin_page_record_in_buffer());
 * - then the buffer itself is asked (ring_buffer_lock_reserve()) for a
 *   small record, discarded at once: it takes it exactly when an event's
 *   write would be taken (tracing_on, a full non-overwrite buffer,
 *   tracing_cpumask for this CPU).
 *
 * powerpin_gate_init() checks at load time that the core does so.
 */
static bool powerpin_buffer_accepts(struct trace_event_file *file)
{
	struct powerpin_ring_buffer *buffer = NULL;
	struct ring_buffer_event *rec;
	bool accepts = false;

	/* a KMI build cannot ask: the file's flags decide (kmod/README.md) */
	if (!POWERPIN_GATE_ASKS_BUFFERS)
		return true;
	/*
	 * On one CPU throughout: before 5.11 the core reads this CPU's scratch
	 * record and bumps its counter without disabling preemption itself
	 * (its own callers are tracepoints, preemption off), so a migration in
	 * between would write over another CPU's event.
	 */
	preempt_disable();
	rec = powerpin_reserve(&buffer, file, file->event_call->event.type,
			       PAGE_SIZE);
	if (rec && powerpin_page_record_in_buffer()) {
		ring_buffer_discard_commit(buffer, rec);
		accepts = true;
	} else if (buffer) {
		rec = ring_buffer_lock_reserve(buffer, sizeof(u64));
		if (rec) {
			ring_buffer_discard_commit(buffer, rec);
			accepts = true;
		}
	}
	preempt_enable();
	return accepts;
}

static bool powerpin_file_records(struct trace_event_file *file)
{
	unsigned long flags = READ_ONCE(file->flags);
	bool ignored;

	if (!(flags & EVENT_FILE_FL_ENABLED))
		return false;
	if (flags & (EVENT_FILE_FL_TRIGGER_MODE | EVENT_FILE_FL_TRIGGER_COND))
		return true;
	if (flags & EVENT_FILE_FL_SOFT_DISABLED)
		return false;
	if (flags & EVENT_FILE_FL_PID_FILTER) {
		preempt_disable();
		ignored = trace_event_ignore_this_pid(file);
		preempt_enable();
		if (ignored)
			return false;
	}
	return powerpin_buffer_accepts(file);
}

/*
 * Any consumer at all: a file (soft disabled included), perf that can
 * record, a probe of the tracepoint's that is not perf's.
 */
bool powerpin_gate_has_consumers(void)
{
	int i;

	for (i = 0; i < POWERPIN_NR_EVENTS; i++)
		if (atomic_read(&powerpin_nr_files[i]) || powerpin_perf_consumes(i) ||
		    (atomic_read(&powerpin_tp_live[i]) && !powerpin_perf_registered(i)))
			return true;
	return false;
}

static bool powerpin_any_other_probe(void)
{
	int i;

	for (i = 0; i < POWERPIN_NR_EVENTS; i++)
		if (powerpin_other_probe(i))
			return true;
	return false;
}

/* With powerpin_gate_lock held. */
static bool powerpin_files_record(void)
{
	struct powerpin_file *pf;

	list_for_each_entry(pf, &powerpin_gate_files, node)
		if (powerpin_file_records(pf->file))
			return true;
	return false;
}

/*
 * Triggers on an enabled file: they run whatever its buffer's state (a KMI
 * build).  ENABLED comes last, once the core's probe is in place.
 */
static bool powerpin_files_triggered(void)
{
	struct powerpin_file *pf;
	unsigned long flags;

	list_for_each_entry(pf, &powerpin_gate_files, node) {
		flags = READ_ONCE(pf->file->flags);
		if ((flags & EVENT_FILE_FL_ENABLED) &&
		    (flags & (EVENT_FILE_FL_TRIGGER_MODE | EVENT_FILE_FL_TRIGGER_COND)))
			return true;
	}
	return false;
}

/*
 * Consumers that record a sample emitted now whatever the files' buffers
 * do: another probe, perf, and (a KMI build) triggers.
 */
static bool powerpin_others_record(void)
{
	return powerpin_any_other_probe() || powerpin_perf_records() ||
	       (!POWERPIN_GATE_ASKS_BUFFERS && powerpin_files_triggered());
}

/*
 * The gate's one decision: whether at least one consumer records a sample
 * emitted now on this CPU (@here: preemption off, the emit itself; else
 * before a read, on the CPU the thread runs on).  A KMI build's files are
 * believed only off trial, and only at the emit while on it.  With
 * powerpin_gate_lock held.
 */
static bool powerpin_gate_records(bool here)
{
	if (powerpin_others_record())
		return true;
	if (!POWERPIN_GATE_ASKS_BUFFERS && powerpin_on_trial && !here)
		return false;
	return powerpin_files_record();
}

/* The events' assignment ran: a consumer took the sample (trace.h). */
void powerpin_gate_landed(void)
{
	powerpin_landed = true;
}

/*
 * Whether the sampler should take a trial sample (a KMI build): files
 * would record by their flags, nothing else would, and the last sample
 * they alone could take went nowhere (or none was taken yet).  The trial
 * sample's powerpin_gate_emit() ends the trial when it lands.
 */
bool powerpin_gate_on_trial(void)
{
	bool trial;

	if (POWERPIN_GATE_ASKS_BUFFERS)
		return false;
	mutex_lock(&powerpin_gate_lock);
	trial = powerpin_on_trial && !powerpin_others_record() &&
		powerpin_files_record();
	mutex_unlock(&powerpin_gate_lock);
	return trial;
}

/*
 * Whether @pf's buffer could take a write on another CPU than the
 * thread's (tracing_cpumask).  Not a file whose pid filter decides (that
 * answer is for the CPU the thread runs on), nor the top level's while
 * tracing is off there (tracing_is_on(): off on every CPU).
 */
static bool powerpin_file_elsewhere(const struct powerpin_file *pf)
{
	unsigned long flags = READ_ONCE(pf->file->flags);

	if (!POWERPIN_GATE_ASKS_BUFFERS || !(flags & EVENT_FILE_FL_ENABLED) ||
	    (flags & (EVENT_FILE_FL_SOFT_DISABLED | EVENT_FILE_FL_PID_FILTER)))
		return false;
	return pf->file != powerpin_top_file[pf->event] ||
	       powerpin_tracing_is_on() > 0;
}

/* On the CPU asked (an IPI); the asker holds powerpin_gate_lock. */
static void powerpin_files_accept_here(void *arg)
{
	struct powerpin_file *pf;
	bool *accepts = arg;

	list_for_each_entry(pf, &powerpin_gate_files, node) {
		if (powerpin_file_elsewhere(pf) &&
		    powerpin_buffer_accepts(pf->file)) {
			*accepts = true;
			return;
		}
	}
}

/* Whether a file records on @cpu, another online CPU (an IPI). */
static bool powerpin_files_accept_on(int cpu)
{
	bool accepts = false;

	powerpin_gate_ipis++;
	return !smp_call_function_single(cpu, powerpin_files_accept_here, &accepts, 1) &&
	       accepts;
}

/* The IPIs the gate sent to ask other CPUs, since load. */
u64 powerpin_gate_ipi_count(void)
{
	u64 n;

	mutex_lock(&powerpin_gate_lock);
	n = powerpin_gate_ipis;
	mutex_unlock(&powerpin_gate_lock);
	return n;
}

/*
 * With powerpin_gate_lock held, when no file records on this CPU: another
 * online CPU where one would, or -1.  After a change every other CPU is
 * asked, the first that takes writes answering; while none did, one other
 * CPU a look, in turn (see powerpin_look_all).
 */
static int powerpin_files_record_elsewhere(void)
{
	struct powerpin_file *pf;
	bool any = false;
	int cpu, here = raw_smp_processor_id();

	list_for_each_entry(pf, &powerpin_gate_files, node)
		any |= powerpin_file_elsewhere(pf);
	if (!any)
		return -1;
	if (powerpin_look_all) {
		powerpin_look_all = false;
		for_each_online_cpu(cpu) {
			if (cpu != here && powerpin_files_accept_on(cpu)) {
				powerpin_look_all = true;	/* a capture: follow it */
				return cpu;
			}
		}
		return -1;
	}
	cpu = powerpin_look_next;
	do {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	} while (cpu == here && cpu != powerpin_look_next && num_online_cpus() > 1);
	powerpin_look_next = cpu;
	if (cpu == here || cpu >= nr_cpu_ids || !powerpin_files_accept_on(cpu))
		return -1;
	powerpin_look_all = true;
	return cpu;
}

/* The next look asks every other CPU: something may have changed. */
void powerpin_gate_look_everywhere(void)
{
	mutex_lock(&powerpin_gate_lock);
	powerpin_look_all = true;
	mutex_unlock(&powerpin_gate_lock);
}

/*
 * Whether a sample would be recorded by at least one consumer: the check
 * before a read.  @cpu is -1 when it would be wherever it is written, else
 * the CPU to write it on: nothing records on the thread's CPU, and a
 * system-wide perf event is scheduled in on @cpu, or a file records there
 * (tracing_cpumask); or perf records only on some CPUs, this one of
 * them.  Process context (takes a mutex, reserves in ring buffers); cheap:
 * a few atomic reads and one or two reservations per enabled file, and an
 * IPI per other CPU when none records here.
 */
bool powerpin_gate_would_record(int *cpu)
{
	bool records;

	*cpu = -1;
	mutex_lock(&powerpin_gate_lock);
	records = powerpin_gate_records(false);
	if (records) {
		*cpu = powerpin_perf_pin_here();
	} else {
		*cpu = powerpin_perf_cpu_elsewhere();
		if (*cpu < 0)
			*cpu = powerpin_files_record_elsewhere();
		records = *cpu >= 0;
	}
	mutex_unlock(&powerpin_gate_lock);
	return records;
}

/*
 * Emit a sample through @emit if at least one consumer records it, deciding
 * and emitting on one CPU with preemption off (perf records per CPU) and
 * with no file registered or unregistered in between.  Returns whether it
 * was emitted: only then is the sample counted.
 */
bool powerpin_gate_emit(void (*emit)(void *arg), void *arg)
{
	bool records, others;

	mutex_lock(&powerpin_gate_lock);
	preempt_disable();
	/* powerpin_gate_records(true), with the others' answer kept */
	others = powerpin_others_record();
	records = others || powerpin_files_record();
	if (records) {
		powerpin_landed = false;
		emit(arg);
		/* a KMI build: the files alone took it only if it landed */
		if (!POWERPIN_GATE_ASKS_BUFFERS && !others) {
			records = powerpin_landed;
			powerpin_on_trial = !records;
		}
	}
	preempt_enable();
	mutex_unlock(&powerpin_gate_lock);
	return records;
}

/*
 * Load-time self-test of what the gate relies on in the tracing core; the
 * module refuses to load where it does not hold:
 * - the events' class reg callback is powerpin_event_reg(), or the gate
 *   would never see a consumer;
 * - trace_event_buffer_lock_reserve() names the file's ring buffer even
 *   when it cannot reserve, and that buffer refuses a write while tracing
 *   is off (checked at the top level, whose state tracing_is_on() gives).
 * The top level's file comes from trace_get_event_file() (5.6), before
 * that from powerpin_learn_top_file().
 */
static int powerpin_gate_check_reserve(struct trace_event_file *file)
{
	struct powerpin_ring_buffer *buffer = NULL;
	struct ring_buffer_event *rec;
	bool off;

	preempt_disable();	/* as in powerpin_buffer_accepts() */
	rec = powerpin_reserve(&buffer, file, file->event_call->event.type,
			       PAGE_SIZE);
	if (rec && powerpin_page_record_in_buffer())
		ring_buffer_discard_commit(buffer, rec);
	preempt_enable();
	if (!buffer) {
		pr_err("trace_event_buffer_lock_reserve() names no ring buffer: the gate cannot tell whether a consumer records; not loading\n");
		return -EOPNOTSUPP;
	}
	off = !powerpin_tracing_is_on();
	if (off && powerpin_buffer_accepts(file) && !powerpin_tracing_is_on()) {
		pr_err("the top-level ring buffer takes a write with tracing off: the gate cannot tell whether a consumer records; not loading\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The top level's file of powerpin:@name where no trace_get_event_file()
 * names it (before 5.6): the event is enabled there for a moment with
 * trace_set_clr_event() (exported since 2.6.33, and in every GKI KMI),
 * whose class reg call hands the gate that file, then disabled again.  The
 * tracing core calls reg with its event_mutex held, so no registration
 * falls inside that call; one just before it (an instance enabling the
 * event during the load) makes the answer unknown: NULL, and the gate
 * works without the top level's file, as it did.  Nothing is emitted
 * meanwhile: the sampler does not run yet.
 */
static struct trace_event_file *powerpin_learn_top_file(const char *name)
{
	struct trace_event_file *file = NULL;
	int ret;

	powerpin_learning = true;
	powerpin_nr_learnt = 0;
	ret = trace_set_clr_event("powerpin", name, 1);
	powerpin_learning = false;
	if (ret || !powerpin_nr_learnt) {
		pr_info("powerpin:%s: the top level's trace event file is not known (%d)\n",
			name, ret);
		return NULL;
	}
	if (powerpin_nr_learnt == 1)
		file = powerpin_learnt;
	trace_set_clr_event("powerpin", name, 0);
	return file;
}

int powerpin_gate_init(void)
{
	static const char * const names[POWERPIN_NR_EVENTS] = {
		[POWERPIN_EV_BATTERY] = "powerpin_battery",
		[POWERPIN_EV_COUNTER] = "powerpin_counter",
	};
	struct trace_event_file *file;
	int i, ret;

	if (event_powerpin_battery.class->reg != powerpin_event_reg ||
	    event_powerpin_counter.class->reg != powerpin_event_reg) {
		pr_err("the events' class reg callback is not the gate's: it would see no consumer; not loading\n");
		return -EOPNOTSUPP;
	}
	/* a KMI build asks no buffer, so it needs no top-level file */
	if (!POWERPIN_GATE_ASKS_BUFFERS)
		return 0;
	for (i = 0; i < POWERPIN_NR_EVENTS; i++) {
		file = powerpin_top_event_file(names[i]);
		if (PTR_ERR(file) == -EOPNOTSUPP) {
			file = powerpin_learn_top_file(names[i]);
			if (!file)
				continue;
		}
		if (IS_ERR(file)) {
			pr_err("no top-level trace event file for powerpin:%s (%ld); not loading\n",
			       names[i], PTR_ERR(file));
			return PTR_ERR(file);
		}
		ret = powerpin_gate_check_reserve(file);
		if (ret)
			return ret;
		powerpin_top_file[i] = file;
	}
	return 0;
}

/*
 * Module exit: the events' files are unregistered only after exit, when
 * the module's events go; forget them now and track nothing more.
 */
void powerpin_gate_exit(void)
{
	struct powerpin_file *pf, *next;

	mutex_lock(&powerpin_gate_lock);
	powerpin_gate_gone = true;
	list_for_each_entry_safe(pf, next, &powerpin_gate_files, node) {
		list_del(&pf->node);
		kfree(pf);
	}
	mutex_unlock(&powerpin_gate_lock);
}
