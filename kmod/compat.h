/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel interface that differs between the kernels powerpin.ko builds
 * for, in one place.  kmod/Kbuild looks at the headers of the kernel being
 * built against and defines POWERPIN_HAVE_* (never a version number:
 * distributions backport); only this file reads those macros, and the rest
 * of the module calls the helpers below.
 *
 * A port to an older kernel adds its branch here.  Where an older kernel
 * cannot give the guarantee the module relies on, the build stops with an
 * #error that says what is missing rather than building something unsafe.
 *
 * Names: a helper that gives an older kernel a newer kernel's interface
 * with the same contract keeps the kernel's name (ktime_get_ns(),
 * file_permission(), ...).  One that does less or something else there
 * (no return value, no pad attribute, no range check, the radix tree
 * under the xarray's walk calls, the driver's callback for the core's)
 * is a powerpin_* (or POWERPIN_*) name on every kernel, the kernel's own
 * function where it has one, so a reader never takes it for the kernel's.
 * What only the gauge emulator uses is in selftests/gauge/emu_compat.h.
 */
#ifndef _POWERPIN_COMPAT_H
#define _POWERPIN_COMPAT_H

#include <linux/kernel.h>
#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/power_supply.h>
#include <linux/ring_buffer.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>
#ifdef POWERPIN_HAVE_TRACE_EVENTS_H
#include <linux/trace_events.h>
#else
#include <linux/ftrace_event.h>
#endif
#ifdef POWERPIN_HAVE_XARRAY
#include <linux/xarray.h>
#else
#include <linux/radix-tree.h>
#endif
#ifdef POWERPIN_HAVE_SCHED_SIGNAL_H
#include <linux/sched/signal.h>
#else
#include <linux/sched.h>
#endif
#ifdef POWERPIN_HAVE_TIMEKEEPING_H
#include <linux/timekeeping.h>
#endif
#ifdef POWERPIN_HAVE_MINMAX_H
#include <linux/minmax.h>
#endif
#ifdef POWERPIN_HAVE_MMAP_LOCK
#include <linux/mmap_lock.h>
#endif

/* ---- GKI ------------------------------------------------------------------- */

/*
 * A GKI kernel exports only the symbols its KMI lists name (POWERPIN_KMI:
 * kmod/probes.mk; kmod/README.md, "A GKI phone").  None of android12-5.10
 * to android16-6.12 lists these, so a KMI build does without them:
 * - tracing_is_on(), trace_event_buffer_lock_reserve(),
 *   ring_buffer_lock_reserve(), ring_buffer_discard_commit(),
 *   trace_put_event_file(): the gate cannot ask a ring buffer whether it
 *   takes a write, and goes by the event files' flags alone
 *   (POWERPIN_GATE_ASKS_BUFFERS 0);
 * - power_supply_class (static from 6.9) and power_supply_for_each_device():
 *   the class is taken from a supply the power_supply core hands over
 *   (by name, or in its change notifier);
 * - schedule_hrtimeout_range(): a timer of the thread's own wakes it;
 * - empty_aops, inode_owner_or_capable(), inode_permission(): see
 *   powerpin_no_aops(), file_owner_or_capable() and file_permission();
 * - netlink_has_listeners(), netlink_capable(): a notification is built
 *   and multicast whether anyone listens or not, a request is authorised
 *   by its sender's capabilities;
 * - xas_get_order(), xa_get_order(), xas_get_mark() (and xas_find(),
 *   xas_pause() before 6.1): the residency walk steps with xa_find() and
 *   reads a folio's size and dirty and writeback flags itself.
 */
#ifdef POWERPIN_KMI
#define POWERPIN_GATE_ASKS_BUFFERS	0
#else
#define POWERPIN_GATE_ASKS_BUFFERS	1
#endif

/*
 * The top-level tracing_on: 1 or 0, or -1 where the module cannot know it
 * (a KMI build).
 */
static inline int powerpin_tracing_is_on(void)
{
#ifdef POWERPIN_KMI
	return -1;
#else
	return tracing_is_on();
#endif
}

/* ---- general ---------------------------------------------------------------- */

#ifndef READ_ONCE
#define READ_ONCE(x)		ACCESS_ONCE(x)
#define WRITE_ONCE(x, val)	(ACCESS_ONCE(x) = (val))
#endif

#ifndef __ro_after_init
#define __ro_after_init
#endif

#ifndef BIT_ULL
#define BIT_ULL(nr)		(1ULL << (nr))
#endif

#ifndef PAGE_ALIGNED
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
#endif

#ifndef U16_MAX
#define U16_MAX			((u16)~0U)
#define S16_MAX			((s16)(U16_MAX >> 1))
#define S16_MIN			((s16)(-S16_MAX - 1))
#endif
#ifndef U32_MAX
#define U32_MAX			((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX			((u64)~0ULL)
#endif

#ifndef u64_to_user_ptr
#define u64_to_user_ptr(x)	((void __user *)(uintptr_t)(x))
#endif

/*
 * Copy a string, cut to @size bytes with its NUL: strscpy() without its
 * return value, which no caller needs (strscpy() is 4.3).
 */
static inline void powerpin_strscpy(char *dst, const char *src, size_t size)
{
#ifdef POWERPIN_HAVE_STRSCPY
	strscpy(dst, src, size);
#else
	size_t len = strnlen(src, size - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
#endif
}

#ifndef POWERPIN_HAVE_KTIME_GET_NS
static inline u64 ktime_get_ns(void)
{
	return ktime_to_ns(ktime_get());
}
#endif

#ifndef POWERPIN_HAVE_KTIME_GET_BOOTTIME_NS
static inline u64 ktime_get_boottime_ns(void)
{
	return ktime_to_ns(ktime_get_boottime());
}
#endif

#ifndef POWERPIN_HAVE_KTIME_BEFORE
static inline bool ktime_before(const ktime_t a, const ktime_t b)
{
	return ktime_compare(a, b) < 0;
}
#endif

/* what ends a module parameter's value in sysfs, if the core does not */
#ifdef POWERPIN_PARAM_SHOW_ADDS_NEWLINE
#define POWERPIN_PARAM_EOL	""
#else
#define POWERPIN_PARAM_EOL	"\n"
#endif

#ifndef DEFINE_SHOW_ATTRIBUTE
#define DEFINE_SHOW_ATTRIBUTE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}
#endif

/*
 * A 32-bit kernel has no compat ioctl path; a 64-bit one before 5.5 passes
 * the 32-bit pointer through compat_ptr() itself.
 */
#ifndef POWERPIN_HAVE_COMPAT_PTR_IOCTL
#ifdef CONFIG_COMPAT
#include <linux/compat.h>
static inline long compat_ptr_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}
#else
#define compat_ptr_ioctl	NULL
#endif
#endif

/* ---- power_supply ------------------------------------------------------- */

/*
 * Walk the registered power supplies: (void *data, int (*fn)(struct device
 * *dev, void *data)).  6.9 made power_supply_class static and exports
 * power_supply_for_each_device() instead.
 */
#if defined(POWERPIN_KMI)
/* sampler.c: over the class learnt from a supply (GKI, above) */
typedef int powerpin_supply_fn(struct device *dev, void *data);
int powerpin_kmi_walk_supplies(void *data, powerpin_supply_fn *fn);
#define powerpin_for_each_supply(data, fn) \
	powerpin_kmi_walk_supplies(data, fn)
#elif defined(POWERPIN_HAVE_PSY_FOR_EACH_PSY)
/* 7.x walks supplies, not devices: hand each one's device to @fn */
struct powerpin_supply_walk {
	void *data;
	int (*fn)(struct device *dev, void *data);
};

static inline int powerpin_supply_walk_one(struct power_supply *psy, void *data)
{
	struct powerpin_supply_walk *walk = data;

	return walk->fn(&psy->dev, walk->data);
}

static inline int powerpin_walk_supplies(void *data,
					 int (*fn)(struct device *dev, void *data))
{
	struct powerpin_supply_walk walk = { .data = data, .fn = fn };

	return power_supply_for_each_psy(&walk, powerpin_supply_walk_one);
}

#define powerpin_for_each_supply(data, fn) \
	powerpin_walk_supplies(data, fn)
#elif defined(POWERPIN_HAVE_PSY_FOR_EACH)
#define powerpin_for_each_supply(data, fn) \
	power_supply_for_each_device(data, fn)
#else
#define powerpin_for_each_supply(data, fn) \
	class_for_each_device(power_supply_class, NULL, data, fn)
#endif

/*
 * A supply is held by its device between a class walk and its read: the
 * walk takes a reference (powerpin_supply_get()), the read fences itself
 * against power_supply_unregister() (powerpin_supply_lock(), which gives
 * the struct power_supply to read, or NULL once the supply is gone), and
 * powerpin_supply_put() lets go.  Nothing is held across a sleep.
 */
#ifdef POWERPIN_HAVE_PSY_DESC
static inline struct device *powerpin_supply_dev(struct power_supply *psy)
{
	return &psy->dev;
}

static inline enum power_supply_type powerpin_supply_type(struct power_supply *psy)
{
	return psy->desc->type;
}

static inline int powerpin_supply_get_property(struct power_supply *psy,
					       enum power_supply_property psp,
					       union power_supply_propval *val)
{
	return power_supply_get_property(psy, psp, val);
}
#else
/*
 * Before 4.1 (3.10): struct power_supply is the driver's own memory, with
 * the class device a pointer in it, no use count and no -ENODEV after
 * unregister.
 */
static inline struct device *powerpin_supply_dev(struct power_supply *psy)
{
	return psy->dev;
}

static inline enum power_supply_type powerpin_supply_type(struct power_supply *psy)
{
	return psy->type;
}

/*
 * 3.10's core (sysfs, uevents) takes any return >= 0 as success, and
 * drivers rely on it: hid-input's CAPACITY returns the report's length.
 */
static inline int powerpin_supply_get_property(struct power_supply *psy,
					       enum power_supply_property psp,
					       union power_supply_propval *val)
{
	int ret = psy->get_property(psy, psp, val);

	return ret > 0 ? 0 : ret;
}
#endif /* POWERPIN_HAVE_PSY_DESC */

/*
 * A vendor kernel's fuel gauge (the Nexus 6's max170xx_battery) has the
 * type POWER_SUPPLY_TYPE_BMS, which mainline never had; its charger
 * registers a "battery" of type Battery that forwards the gauge's readings.
 */
#ifdef POWERPIN_HAVE_PSY_TYPE_BMS
static inline bool powerpin_have_gauge_type(void)
{
	return true;
}

static inline bool powerpin_supply_type_is_gauge(enum power_supply_type type)
{
	return type == POWER_SUPPLY_TYPE_BMS;
}
#else
static inline bool powerpin_have_gauge_type(void)
{
	return false;
}

static inline bool powerpin_supply_type_is_gauge(enum power_supply_type type)
{
	return false;
}
#endif

/*
 * Since 5.1 device_del() starts with device_lock(dev) + kill_device(), so
 * while the supply's own device lock is held, an unregister that has begun
 * waits in device_unregister() and the driver's data (freed only after
 * unregister returns) stays alive; once it has begun, use_cnt is 0 and
 * power_supply_get_property() answers -ENODEV without calling the driver.
 * The struct power_supply is the core's, alive as long as its device.
 */
#ifdef POWERPIN_HAVE_KILL_DEVICE
static inline bool powerpin_supply_get(struct device *dev)
{
	get_device(dev);
	return true;
}

static inline bool powerpin_supply_unrecorded(struct device *dev)
{
	return false;
}

#ifdef POWERPIN_KMI
/* sampler.c: where the supplies' class is learnt (GKI, above) */
int powerpin_supply_track_init(void);
void powerpin_supply_track_exit(void);
#else
static inline int powerpin_supply_track_init(void)
{
	return 0;
}

static inline void powerpin_supply_track_exit(void)
{
}
#endif

static inline void powerpin_supply_put(struct device *dev)
{
	put_device(dev);
}

static inline struct power_supply *powerpin_supply_lock(struct device *dev)
{
	device_lock(dev);
	return dev_get_drvdata(dev);
}

static inline void powerpin_supply_unlock(struct device *dev)
{
	device_unlock(dev);
}
#else
/*
 * Before 5.1 device_del() takes no lock of the supply's own, and before
 * 4.1 nothing in the core stops a read of a supply being unregistered.
 * Drivers unregister their supply from their remove() or its devres, which
 * run with the device they are bound to (the supply's parent) locked: so
 * the fence is the parent's device lock, and under it a supply that is
 * still registered has a live driver behind it.
 *
 * The parent must be held to take that lock, and a class walk does not
 * keep it alive: the walk holds the supply's class list node, while
 * device_del() runs on and drops the supply's reference on its parent at
 * its end.  What runs before that drop is a class interface's remove_dev,
 * under the class mutex: powerpin_supply_get() (sampler.c) takes the
 * parent only for a supply that interface has not seen go, under the lock
 * remove_dev takes, and answers false for one that is going (or, for
 * a moment in device_add(), coming), and for one whose add_dev found no
 * memory to record it: powerpin_supply_unrecorded() tells that one apart.
 */
bool powerpin_supply_get(struct device *dev);
bool powerpin_supply_unrecorded(struct device *dev);
int powerpin_supply_track_init(void);
void powerpin_supply_track_exit(void);

static inline void powerpin_supply_put(struct device *dev)
{
	put_device(dev->parent);
	put_device(dev);
}

/*
 * A supply without a parent (registered by platform code or a module of
 * its own) has no lock its unregister takes: it is never read here.
 */
static inline struct power_supply *powerpin_supply_lock(struct device *dev)
{
	if (!dev->parent)
		return NULL;
	device_lock(dev->parent);
	return device_is_registered(dev) ? dev_get_drvdata(dev) : NULL;
}

static inline void powerpin_supply_unlock(struct device *dev)
{
	if (!dev->parent)
		return;
	device_unlock(dev->parent);
	/*
	 * 3.10's mutexes go to whoever takes them first, not to the waiter
	 * just woken (4.10 added the hand-off): back-to-back reads (a slow
	 * gauge, a short period) would keep a driver unbind waiting for as
	 * long as they last.  Stay off the lock a moment.
	 */
	usleep_range(100, 200);
}
#endif /* POWERPIN_HAVE_KILL_DEVICE */

/* ---- trace events ------------------------------------------------------- */

/*
 * 4.2 renamed the event types (ftrace_event_* before) and 4.1 added
 * trace_event_name(); 3.10 has no event triggers (3.14), neither has any
 * kernel before 4.4 pid filters, and 3.10's tracepoint reg hooks return
 * nothing.
 */
#ifndef POWERPIN_HAVE_TRACE_EVENTS_H
#define trace_event_call		ftrace_event_call
#define trace_event_file		ftrace_event_file
#define trace_event_class		ftrace_event_class
#define EVENT_FILE_FL_ENABLED		FTRACE_EVENT_FL_ENABLED
#define EVENT_FILE_FL_SOFT_DISABLED	FTRACE_EVENT_FL_SOFT_DISABLED
#ifdef POWERPIN_HAVE_FTRACE_EVENT_TRIGGERS
#define EVENT_FILE_FL_TRIGGER_MODE	FTRACE_EVENT_FL_TRIGGER_MODE
#define EVENT_FILE_FL_TRIGGER_COND	FTRACE_EVENT_FL_TRIGGER_COND
#else
#define EVENT_FILE_FL_TRIGGER_MODE	0
#define EVENT_FILE_FL_TRIGGER_COND	0
#endif
#define EVENT_FILE_FL_PID_FILTER	0

/* the tracing core's class reg, which the gate hands every call on to */
static inline int powerpin_trace_event_reg(struct ftrace_event_call *call,
					   enum trace_reg type, void *data)
{
	return ftrace_event_reg(call, type, data);
}

/*
 * TRACE_EVENT's class initialiser names ftrace_event_reg: give it newer
 * kernels' name, so that gate.c, which points trace_event_reg at its own
 * callback where the events are made, points the class's reg there too.
 * (After powerpin_trace_event_reg() above, which calls the kernel's.)
 */
#define ftrace_event_reg		trace_event_reg

/*
 * From 3.15 the call's name shares a union with its tracepoint, which
 * ftrace_event_name() looks through; 3.10's call has the name alone.
 */
static inline const char *trace_event_name(struct ftrace_event_call *call)
{
#ifdef POWERPIN_HAVE_FTRACE_EVENT_NAME
	return ftrace_event_name(call);
#else
	return call->name;
#endif
}

static inline bool trace_event_ignore_this_pid(struct ftrace_event_file *file)
{
	return false;
}

#else
/* the tracing core's class reg, which the gate hands every call on to */
static inline int powerpin_trace_event_reg(struct trace_event_call *call,
					   enum trace_reg type, void *data)
{
	return trace_event_reg(call, type, data);
}
#endif

/*
 * Whether a BPF program is attached to the event through perf: the call's
 * program array (4.15 on), its one program before (4.1 to 4.14), none on
 * 3.10, where BPF programs cannot attach to tracepoints.
 */
static inline bool powerpin_bpf_attached(struct trace_event_call *call)
{
#if defined(POWERPIN_HAVE_BPF_PROG_ARRAY_VALID)
	return bpf_prog_array_valid(call);
#elif defined(POWERPIN_HAVE_CALL_BPF_PROG)
	return READ_ONCE(call->prog);
#else
	return false;
#endif
}

/*
 * trace_<event>_enabled() says whether the tracepoint has probes.  Where
 * the kernel has none, the gate's own record of the tracepoint's first and
 * last probe (its reg/unreg hooks) says the same, a moment early on the
 * way in (a sample then goes nowhere).
 */
#ifndef POWERPIN_HAVE_TRACE_ENABLED
bool powerpin_gate_tp_live(int event);	/* gate.c */
#define trace_powerpin_battery_enabled()	powerpin_gate_tp_live(0)
#define trace_powerpin_counter_enabled()	powerpin_gate_tp_live(1)
#endif

/* the task a perf event follows (3.10 keeps it in a tracepoint-only field) */
#ifdef POWERPIN_HAVE_PERF_HW_TARGET
#define powerpin_perf_target(event)	((event)->hw.target)
#else
#define powerpin_perf_target(event)	((event)->hw.tp_target)
#endif

/* whether a perf event follows a cgroup (perf -G): the same field since 2.6.37 */
static inline bool powerpin_perf_cgroup(const struct perf_event *event)
{
#ifdef CONFIG_CGROUP_PERF
	return event->cgrp;
#else
	return false;
#endif
}

/*
 * A tracepoint reg hook returns an errno, or nothing (3.10).
 * POWERPIN_DEFINE_TP_REG(event, fn, arg) defines the hook
 * powerpin_<event>_tp_reg(), which calls fn(arg) and succeeds;
 * POWERPIN_TP_REG_TYPE is its return type.
 */
#ifdef POWERPIN_HAVE_TP_REGFUNC_INT
#define POWERPIN_TP_REG_TYPE		int
#define POWERPIN_DEFINE_TP_REG(event, fn, arg)				\
int powerpin_ ## event ## _tp_reg(void)					\
{									\
	fn(arg);							\
	return 0;							\
}
#else
#define POWERPIN_TP_REG_TYPE		void
#define POWERPIN_DEFINE_TP_REG(event, fn, arg)				\
void powerpin_ ## event ## _tp_reg(void)				\
{									\
	fn(arg);							\
}
#endif

/*
 * __assign_str() lost its source argument in 6.10; before, the source of
 * powerpin:powerpin_counter's track_name is the TP_PROTO argument of that name.
 */
#ifdef POWERPIN_ASSIGN_STR_ONE_ARG
#define powerpin_assign_track_name()	__assign_str(track_name)
#else
#define powerpin_assign_track_name()	__assign_str(track_name, track_name)
#endif

/*
 * The ring buffer's struct: struct trace_buffer since 5.6, struct
 * ring_buffer before (5.4, 3.10).
 */
#ifdef POWERPIN_HAVE_TRACE_BUFFER
#define powerpin_ring_buffer		trace_buffer
#else
#define powerpin_ring_buffer		ring_buffer
#endif

/*
 * Whether a page-size record that trace_event_buffer_lock_reserve() hands
 * out is in the ring buffer (and so is discarded there).  Only where
 * sub-buffers can be larger than a page (6.8); elsewhere no ring buffer
 * holds one, and a record the core gives is its per-CPU scratch record
 * for filtered events, which kernels before the length check (5.11,
 * 5.10.y, 5.4.y) hand out whatever the size.  That record has no exported
 * way back: it is left as it is, and the core takes the ring buffer for
 * that CPU's filtered events from then on (kmod/README.md, "What is
 * different on 5.4").
 */
static inline bool powerpin_page_record_in_buffer(void)
{
#ifdef POWERPIN_HAVE_RB_SUBBUF_ORDER
	return true;
#else
	return false;
#endif
}

/*
 * Reserve @len bytes in the ring buffer of @file's trace instance, for a
 * record that is discarded at once: its context word (irq flags, preempt
 * count) is never read, so it is 0 (5.12 folded the two arguments into one
 * trace_ctx; tracing_gen_ctx() itself is not usable from a module).
 */
static inline struct ring_buffer_event *
powerpin_reserve(struct powerpin_ring_buffer **rb, struct trace_event_file *file,
		 int type, unsigned long len)
{
#ifdef POWERPIN_HAVE_TRACE_CTX
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0);
#else
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0, 0);
#endif
}

/*
 * The top-level instance's trace event file of powerpin:@event, or an
 * ERR_PTR: -EOPNOTSUPP where the kernel has no trace_get_event_file() (5.6;
 * 3.10 has none).  Only the address is kept (the file lives as long as the
 * module's events), so the reference it comes with is dropped at once.
 */
static inline struct trace_event_file *powerpin_top_event_file(const char *event)
{
#if defined(POWERPIN_HAVE_TRACE_GET_EVENT_FILE) && !defined(POWERPIN_KMI)
	struct trace_event_file *file;

	file = trace_get_event_file(NULL, "powerpin", event);
	if (!IS_ERR(file))
		trace_put_event_file(file);
	return file;
#else
	return ERR_PTR(-EOPNOTSUPP);
#endif
}

/* ---- CPUs --------------------------------------------------------------- */

/*
 * The CPUs a kernel thread runs on when nothing moved it: the housekeeping
 * CPUs of kthreads, without those isolcpus= or nohz_full= isolate (4.15;
 * hk_type since 5.18, an alias of the domain type in 7.x), all possible
 * CPUs before.
 */
#if defined(POWERPIN_HAVE_HK_TYPE_KTHREAD)
#include <linux/sched/isolation.h>
#define powerpin_kthread_cpus()		housekeeping_cpumask(HK_TYPE_KTHREAD)
#elif defined(POWERPIN_HAVE_HK_FLAG_KTHREAD)
#include <linux/sched/isolation.h>
#define powerpin_kthread_cpus()		housekeeping_cpumask(HK_FLAG_KTHREAD)
#else
#define powerpin_kthread_cpus()		cpu_possible_mask
#endif

/* ---- sleeping ----------------------------------------------------------- */

#include <linux/hrtimer.h>

/*
 * The sampler thread's timed sleep: schedule_hrtimeout_range() on an
 * absolute CLOCK_MONOTONIC deadline with @slack_ns of slack, the caller
 * having set its task state.  A KMI build has no schedule_hrtimeout_range()
 * (only android13-5.15's list names it): there a timer of the thread's own
 * wakes it, as schedule_hrtimeout_range() does with its own timer on the
 * stack.  The timer is the caller's (one thread, one timer), set up once by
 * powerpin_sleeper_init(): never on the stack, which debug-object kernels
 * would want annotated.
 */
struct powerpin_sleeper {
#ifdef POWERPIN_KMI
	struct hrtimer timer;
	struct task_struct *task;
#endif
};

#ifdef POWERPIN_KMI
static inline enum hrtimer_restart powerpin_sleeper_wake(struct hrtimer *timer)
{
	struct powerpin_sleeper *s = container_of(timer, struct powerpin_sleeper,
						  timer);

	wake_up_process(s->task);
	return HRTIMER_NORESTART;
}
#endif

static inline void powerpin_sleeper_init(struct powerpin_sleeper *s)
{
#if defined(POWERPIN_KMI) && defined(POWERPIN_HAVE_HRTIMER_SETUP)
	hrtimer_setup(&s->timer, powerpin_sleeper_wake, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
#elif defined(POWERPIN_KMI)
	hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	s->timer.function = powerpin_sleeper_wake;
#endif
}

static inline void powerpin_sleep_hrtimeout(struct powerpin_sleeper *s,
					    ktime_t deadline, u64 slack_ns)
{
#ifdef POWERPIN_KMI
	/* a wake-up between the start and schedule() makes schedule() return */
	s->task = current;
	hrtimer_start_range_ns(&s->timer, deadline, slack_ns, HRTIMER_MODE_ABS);
	schedule();
	hrtimer_cancel(&s->timer);
#else
	schedule_hrtimeout_range(&deadline, slack_ns, HRTIMER_MODE_ABS);
#endif
}

/* ---- page cache --------------------------------------------------------- */

#include <linux/magic.h>
#include <linux/pagemap.h>

/* superblock magics of pseudo file systems newer than some kernels */
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC		0x74726163
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

#ifndef IS_DAX
#define IS_DAX(inode)		((void)(inode), 0)
#endif

#ifndef POWERPIN_HAVE_FILE_OWNER_OR_CAPABLE
/* not const: file_mnt_idmap() takes a const file only from 6.7 */
static inline bool file_owner_or_capable(struct file *file)
{
#if defined(POWERPIN_HAVE_INODE_OWNER_IDMAP)
	return inode_owner_or_capable(file_mnt_idmap(file), file_inode(file));
#elif defined(POWERPIN_HAVE_INODE_OWNER_USERNS)
	return inode_owner_or_capable(file_mnt_user_ns(file), file_inode(file));
#else
	return inode_owner_or_capable(file->f_inode);
#endif
}
#endif

#ifndef POWERPIN_HAVE_FILE_PERMISSION
static inline int file_permission(struct file *file, int mask)
{
	return inode_permission(file_inode(file), mask);
}
#endif

/*
 * Whether the caller owns @file's inode or may act as its owner
 * (file_owner_or_capable()), and whether it may write the file
 * (file_permission(MAY_WRITE) == 0).  No KMI list has inode_permission(),
 * and android14-6.1's lacks inode_owner_or_capable(): a KMI build uses
 * inode_owner_or_capable() and generic_permission() (the mode bits, ACLs
 * and capabilities, without the file system's own permission call and
 * the LSM's) where the tree's lists name them (kmod/probes.mk), else the
 * owner is the caller's fsuid with no idmapped mount looked through,
 * CAP_FOWNER and CAP_DAC_OVERRIDE are the initial namespace's, and only
 * that capability gives write permission: stricter than the kernel's.
 */
static inline bool powerpin_file_owner_or_capable(struct file *file)
{
#if defined(POWERPIN_KMI) && !defined(POWERPIN_KMI_HAS_INODE_OWNER_OR_CAPABLE)
	return uid_eq(current_fsuid(), file_inode(file)->i_uid) ||
	       capable(CAP_FOWNER);
#else
	return file_owner_or_capable(file);
#endif
}

static inline bool powerpin_file_may_write(struct file *file)
{
#if defined(POWERPIN_KMI) && defined(POWERPIN_KMI_HAS_GENERIC_PERMISSION)
#if defined(POWERPIN_HAVE_INODE_OWNER_IDMAP)
	return generic_permission(file_mnt_idmap(file), file_inode(file),
				  MAY_WRITE) == 0;
#elif defined(POWERPIN_HAVE_INODE_OWNER_USERNS)
	return generic_permission(file_mnt_user_ns(file), file_inode(file),
				  MAY_WRITE) == 0;
#else
	return generic_permission(file_inode(file), MAY_WRITE) == 0;
#endif
#elif defined(POWERPIN_KMI)
	return capable(CAP_DAC_OVERRIDE);
#else
	return file_permission(file, MAY_WRITE) == 0;
#endif
}

/*
 * Whether @ops is empty_aops or one like it: no operation at all, so the
 * mapping never caches file data.  Compared by content, which needs no
 * symbol (a KMI build has no empty_aops).
 */
static inline bool powerpin_no_aops(const struct address_space_operations *ops)
{
	return !ops || !memchr_inv(ops, 0, sizeof(*ops));
}

/*
 * copy_struct_from_user() (5.4): copy what both sides know, zero what only
 * the kernel knows, and refuse (E2BIG) non-zero bytes only the caller knows.
 */
static inline int powerpin_copy_struct_from_user(void *dst, size_t ksize,
						 const void __user *src,
						 size_t usize)
{
#ifdef POWERPIN_HAVE_COPY_STRUCT_FROM_USER
	return copy_struct_from_user(dst, ksize, src, usize);
#else
	size_t size = min(ksize, usize);
	size_t i;
	u8 byte;

	if (usize > ksize) {
		for (i = ksize; i < usize; i++) {
			if (get_user(byte, (const u8 __user *)src + i))
				return -EFAULT;
			if (byte)
				return -E2BIG;
		}
	} else if (usize < ksize) {
		memset(dst + size, 0, ksize - size);
	}
	return copy_from_user(dst, src, size) ? -EFAULT : 0;
#endif
}

/*
 * The page-cache walk of the residency ioctl, under RCU: the xarray's own
 * walk API (POWERPIN_XA_STATE() declares a struct powerpin_xa_state, and
 * the powerpin_xas_*() calls are xas_*()) where the page cache is an
 * xarray (4.20 on); before, the same calls over the radix tree.
 */
#if defined(POWERPIN_KMI) && defined(POWERPIN_HAVE_FOLIO) && \
	defined(POWERPIN_KMI_HAS_XAS_FIND) && defined(POWERPIN_KMI_HAS_XAS_PAUSE)
/*
 * A KMI build whose lists export xas_find() and xas_pause() (6.1 on)
 * walks as a full build does, reading only the entry's order and marks
 * off the folio (powerpin_folio_mark(), powerpin_xas_order()).
 */
#define POWERPIN_KMI_XAS
#endif

#ifdef POWERPIN_KMI
/*
 * PAGECACHE_TAG_DIRTY or _WRITEBACK of a page-cache entry (not a value),
 * from the folio's own flags: read under RCU with no reference, as the
 * page cache's own lookups read a folio before they pin it (its struct
 * stays memory); a folio freed meanwhile gives a stale bit, as a mark
 * read a moment later would.
 */
static inline bool powerpin_folio_mark(void *entry, xa_mark_t mark)
{
#ifdef POWERPIN_HAVE_FOLIO
	struct folio *folio = entry;

	if (mark == PAGECACHE_TAG_DIRTY)
		return folio_test_dirty(folio);
	return mark == PAGECACHE_TAG_WRITEBACK && folio_test_writeback(folio);
#else
	struct page *page = entry;

	if (mark == PAGECACHE_TAG_DIRTY)
		return PageDirty(page);
	return mark == PAGECACHE_TAG_WRITEBACK && PageWriteback(page);
#endif
}
#endif

#if defined(POWERPIN_HAVE_XARRAY) && (!defined(POWERPIN_KMI) || defined(POWERPIN_KMI_XAS))
#define powerpin_page_cache(mapping)	(&(mapping)->i_pages)
#define powerpin_xa_state		xa_state
#define POWERPIN_XA_STATE(name, xa, index)	XA_STATE(name, xa, index)
#define powerpin_xa_is_value		xa_is_value
#define powerpin_xas_find		xas_find
#define powerpin_xas_for_each		xas_for_each
#define powerpin_xas_retry		xas_retry
#define powerpin_xas_pause		xas_pause
#ifdef POWERPIN_KMI_XAS
/*
 * The folio at the walk's index, read again from its node by xas_reload():
 * NULL where a truncate, an eviction (a shadow now) or a split took it away
 * since the walk found it.
 */
static inline struct folio *powerpin_xas_folio(struct xa_state *xas)
{
	void *entry = xas_reload(xas);

	if (!entry || xa_is_value(entry) || xa_is_internal(entry))
		return NULL;
	return entry;
}

/* a mark of the folio the walk is at; none on a folio gone since */
static inline bool powerpin_xas_get_mark(struct xa_state *xas, xa_mark_t mark)
{
	struct folio *folio = powerpin_xas_folio(xas);

	return folio && powerpin_folio_mark(folio, mark);
}
#else
#define powerpin_xas_get_mark		xas_get_mark
#endif
#elif defined(POWERPIN_KMI)
/*
 * A KMI build (GKI, 5.10 on): the same walk calls over xa_find(), which
 * every GKI branch exports (xas_find() and xas_pause() only 6.1's and
 * later, xas_get_mark() and the entry's order none).  Each step is a
 * lookup from the root, under the RCU the walk holds; the entry's order
 * and marks come from the folio (powerpin_xas_order(),
 * powerpin_xas_get_mark()).
 */
#define powerpin_page_cache(mapping)	(&(mapping)->i_pages)
#define powerpin_xa_is_value		xa_is_value

struct powerpin_xa_state {
	struct xarray *xa;
	unsigned long next;		/* where the next lookup starts */
	bool done;			/* the index space is exhausted */
	unsigned long xa_index;		/* index of the entry returned last */
	void *entry;			/* that entry */
};

#define POWERPIN_XA_STATE(name, array, index)				\
	struct powerpin_xa_state name = { .xa = (array), .next = (index) }

static inline void *powerpin_xas_find(struct powerpin_xa_state *xas,
				      unsigned long max)
{
	unsigned long index = xas->next;
	void *entry;

	if (xas->done || index > max)
		return NULL;
	entry = xa_find(xas->xa, &index, max, XA_PRESENT);
	if (!entry) {
		xas->done = true;
		return NULL;
	}
	xas->xa_index = index;
	xas->entry = entry;
	xas->next = index + 1;
	xas->done = !xas->next;
	return entry;
}

#define powerpin_xas_for_each(xas, entry, max)				\
	for (; ((entry) = powerpin_xas_find(xas, max)); )

/* xa_find() retries by itself */
static inline bool powerpin_xas_retry(struct powerpin_xa_state *xas,
				      const void *entry)
{
	return false;
}

/* PAGECACHE_TAG_DIRTY or _WRITEBACK of the folio returned last */
static inline bool powerpin_xas_get_mark(struct powerpin_xa_state *xas,
					 xa_mark_t mark)
{
	return powerpin_folio_mark(xas->entry, mark);
}

/* each lookup is from the root: nothing to let go of */
static inline void powerpin_xas_pause(struct powerpin_xa_state *xas)
{
}
#else
/*
 * Before 4.20 the page cache is a radix tree.  These are the few xarray
 * walk calls the residency ioctl makes, over radix_tree_next_chunk() and
 * radix_tree_next_slot() under RCU: present slots in index order, each one
 * page (no large folios in those page caches), exceptional entries
 * (shmem's swap entries) as values, marks read from the tree's tags.
 * Entries are only looked at, never dereferenced.
 */
#ifdef POWERPIN_HAVE_I_PAGES
#define powerpin_page_cache(mapping)	(&(mapping)->i_pages)
#else
#define powerpin_page_cache(mapping)	(&(mapping)->page_tree)
#endif

struct powerpin_xa_state {
	struct radix_tree_root *root;
	struct radix_tree_iter iter;
	/* NULL: look up again from next; RCU pointers from 4.11 */
#ifdef POWERPIN_HAVE_RADIX_RCU_SLOTS
	void __rcu **slot;
#else
	void **slot;
#endif
	unsigned long next;
	unsigned long xa_index;		/* index of the entry returned last */
};

#define POWERPIN_XA_STATE(name, tree, index)				\
	struct powerpin_xa_state name = { .root = (tree), .next = (index) }

static inline bool powerpin_xa_is_value(const void *entry)
{
	return radix_tree_exceptional_entry((void *)entry);
}

/* The entry at xas->slot or a later present slot, if at most @max. */
static inline void *powerpin_xas_entry(struct powerpin_xa_state *xas,
				       unsigned long max)
{
	void *entry;

	for (; xas->slot; xas->slot = radix_tree_next_slot(xas->slot, &xas->iter, 0)) {
		if (xas->iter.index > max)
			break;
		entry = radix_tree_deref_slot(xas->slot);
		if (!entry)
			continue;	/* deleted since the chunk was found */
		xas->xa_index = xas->iter.index;
		xas->next = xas->iter.index + 1;
		return entry;
	}
	xas->slot = NULL;
	return NULL;
}

static inline void *powerpin_xas_find(struct powerpin_xa_state *xas,
				      unsigned long max)
{
	void *entry;

	for (;;) {
		radix_tree_iter_init(&xas->iter, xas->next);
		xas->slot = radix_tree_next_chunk(xas->root, &xas->iter, 0);
		if (!xas->slot)
			return NULL;
		entry = powerpin_xas_entry(xas, max);
		/* a chunk whose slots all emptied: go on after it */
		if (entry || xas->iter.index > max || !xas->iter.next_index)
			return entry;
		xas->next = xas->iter.next_index;
	}
}

static inline void *powerpin_xas_next_entry(struct powerpin_xa_state *xas,
					    unsigned long max)
{
	void *entry;

	if (!xas->slot)
		return powerpin_xas_find(xas, max);
	xas->slot = radix_tree_next_slot(xas->slot, &xas->iter, 0);
	entry = powerpin_xas_entry(xas, max);
	if (entry || xas->iter.index > max || !xas->iter.next_index)
		return entry;
	xas->next = xas->iter.next_index;
	return powerpin_xas_find(xas, max);
}

/* the first powerpin_xas_next_entry() looks up: POWERPIN_XA_STATE() has no slot */
#define powerpin_xas_for_each(xas, entry, max)				\
	for (; ((entry) = powerpin_xas_next_entry(xas, max)); )

/* The tree changed shape under the walk: look the same index up again. */
static inline bool powerpin_xas_retry(struct powerpin_xa_state *xas,
				      const void *entry)
{
	if (!radix_tree_deref_retry((void *)entry))
		return false;
	xas->slot = NULL;
	xas->next = xas->xa_index;
	return true;
}

static inline bool powerpin_xas_get_mark(struct powerpin_xa_state *xas,
					 unsigned int tag)
{
	return radix_tree_tag_get(xas->root, xas->xa_index, tag);
}

/* Let the walk drop RCU: the next lookup starts after the current entry. */
static inline void powerpin_xas_pause(struct powerpin_xa_state *xas)
{
	xas->slot = NULL;
}
#endif /* POWERPIN_HAVE_XARRAY */

/*
 * Order of the entry @xas points at.  xas_get_order() is mainline since
 * 6.10 (some distributions backport it); xa_get_order() (5.10) answers the
 * same from the root, one tree walk per entry.  Before it (5.4) the page
 * cache stores a huge page as one entry per page, and a radix tree page
 * cache has no large folios: every entry is one page.
 */
static inline unsigned int powerpin_xas_order(struct powerpin_xa_state *xas)
{
#if defined(POWERPIN_KMI_XAS)
	/*
	 * The folio's own order, believed only while the entry is still the
	 * one the walk is at (a large folio is one multi-index entry); a
	 * value entry (a shadow), or a folio gone since the walk found it,
	 * counts one page at a time.
	 */
	struct folio *folio = powerpin_xas_folio(xas);
	unsigned int order;

	if (!folio)
		return 0;
	order = min_t(unsigned int, folio_order(folio), BITS_PER_LONG / 2);
	return xas_reload(xas) == folio ? order : 0;
#elif defined(POWERPIN_KMI)
	/*
	 * A KMI build: the folio's own order, read as its flags are
	 * (powerpin_xas_get_mark()), believed only while the entry is still
	 * where it was found and never beyond what an index can hold; the
	 * next lookup starts after the entry's pages.  A value entry (a
	 * shadow) counts one page at a time.  Before large folios in the page
	 * cache (5.16) a huge page is one entry per page.
	 */
	unsigned int order = 0;
	unsigned long end;

#ifdef POWERPIN_HAVE_FOLIO
	if (!xa_is_value(xas->entry)) {
		order = min_t(unsigned int, folio_order(xas->entry),
			      BITS_PER_LONG / 2);
		if (order && xa_load(xas->xa, xas->xa_index) != xas->entry)
			order = 0;
	}
#endif
	end = round_down(xas->xa_index, 1UL << order) + (1UL << order);
	if (end > xas->next)
		xas->next = end;
	xas->done = !xas->next || !end;
	return order;
#elif defined(POWERPIN_HAVE_XAS_GET_ORDER)
	return xas_get_order(xas);
#elif defined(POWERPIN_HAVE_XA_GET_ORDER)
	return xa_get_order(xas->xa, xas->xa_index);
#else
	return 0;
#endif
}

/*
 * Whether @file's file system is stacked on others (overlayfs, FUSE with
 * passthrough, ecryptfs), so that its reads and mappings may use another
 * file's page cache.  s_stack_depth came with overlayfs (3.18); before it
 * no file system handed a mapping to another file's cache.
 */
static inline bool powerpin_file_is_stacked(const struct file *file)
{
#ifdef POWERPIN_HAVE_S_STACK_DEPTH
	return file_inode(file)->i_sb->s_stack_depth > 0;
#else
	return false;
#endif
}

/*
 * The inode whose page cache holds @file's data: overlayfs (and any file
 * system with d_real) reads and maps the real upper or lower file, never
 * the overlay inode's own, empty mapping.  Before 4.19 an overlayfs open
 * gives a file of the real inode itself (only its path is the overlay's):
 * that inode holds the data, where d_real_inode() of the path would name
 * the upper file after a copy-up, for a file opened on the lower one
 * before it too.
 */
static inline struct inode *powerpin_data_inode(struct file *file)
{
#ifdef POWERPIN_HAVE_D_REAL_INODE
	if (powerpin_file_is_stacked(file))
		return d_real_inode(file->f_path.dentry);
#endif
	/* no overlayfs before 3.18: a file's own inode holds its pages */
	return file_inode(file);
}

/* mmap_read_lock() (5.8) wraps the mmap_sem that older kernels name. */
static inline void powerpin_mmap_read_lock(struct mm_struct *mm)
{
#ifdef POWERPIN_HAVE_MMAP_LOCK
	mmap_read_lock(mm);
#else
	down_read(&mm->mmap_sem);
#endif
}

static inline void powerpin_mmap_read_unlock(struct mm_struct *mm)
{
#ifdef POWERPIN_HAVE_MMAP_LOCK
	mmap_read_unlock(mm);
#else
	up_read(&mm->mmap_sem);
#endif
}

/* ---- generic netlink ---------------------------------------------------- */

#include <linux/powerpin.h>

/* An extack message; none before 4.12, where the errno is the whole answer. */
#ifdef GENL_SET_ERR_MSG
#define POWERPIN_GENL_SET_ERR_MSG(info, msg)	GENL_SET_ERR_MSG(info, msg)
#else
static inline void powerpin_genl_no_ext_ack(struct genl_info *info,
					    const char *msg)
{
}

#define POWERPIN_GENL_SET_ERR_MSG(info, msg)	powerpin_genl_no_ext_ack(info, msg)
#endif

/*
 * 64-bit attributes.  Before 4.7 they go without an alignment pad
 * attribute: @padattr is not used there.
 */
static inline int powerpin_nla_put_u64(struct sk_buff *skb, int type, u64 value,
				       int padattr)
{
#ifdef POWERPIN_HAVE_NLA_PUT_64BIT
	return nla_put_u64_64bit(skb, type, value, padattr);
#else
	return nla_put(skb, type, sizeof(value), &value);
#endif
}

static inline int powerpin_nla_put_s64(struct sk_buff *skb, int type, s64 value,
				       int padattr)
{
#ifdef POWERPIN_HAVE_NLA_PUT_64BIT
	return nla_put_s64(skb, type, value, padattr);
#else
	return powerpin_nla_put_u64(skb, type, (u64)value, padattr);
#endif
}

/*
 * Generic netlink families, by kernel:
 *   up to 3.12   ops and groups registered one by one, global group ids
 *   3.13 to 4.9  ops and groups handed over at registration
 *   4.10 on      the family carries its ops and groups
 * and their attributes:
 *   up to 5.1    parsed leniently by the core, each command's policy
 *   5.2 to 5.9   validated strictly, one policy for the family
 *   5.10 on      validated strictly, each command's own policy
 * Where the core is lenient (unknown types, lengths other than the type's
 * and trailing bytes pass, a short attribute gets -ERANGE), the family
 * has no maxattr, so the core parses nothing: it parses in its pre_doit,
 * refuses what newer kernels' strict validation refuses, with -EINVAL,
 * and then hands the attributes to the command (requests run one at a
 * time under genl_mutex, so one table serves them all).
 */
#ifdef POWERPIN_HAVE_GENL_REGISTER_MC_GROUP
/* lists link the ops and groups in, so they cannot be const */
#define POWERPIN_GENL_CONST
#else
#define POWERPIN_GENL_CONST	const
#endif

#ifndef POWERPIN_HAVE_GENL_STRICT
/* why an attribute does not pass its command's policy */
enum powerpin_genl_bad {
	POWERPIN_GENL_ATTR_OK,
	POWERPIN_GENL_ATTR_UNKNOWN,	/* type 0 or past the highest */
	POWERPIN_GENL_ATTR_UNSUPPORTED,	/* NLA_UNSPEC: not for this command */
	POWERPIN_GENL_ATTR_INVALID,	/* wrong length, unterminated string */
	POWERPIN_GENL_ATTR_NESTED,	/* NLA_F_NESTED on a plain attribute */
	POWERPIN_GENL_ATTR_RANGE,	/* a string longer than its policy's len */
};

static inline enum powerpin_genl_bad
powerpin_genl_check_attr(const struct nlattr *nla, const struct nla_policy *policy)
{
	static const u8 fixed_len[] = {
		[NLA_U8] = 1, [NLA_U16] = 2, [NLA_U32] = 4, [NLA_U64] = 8,
	};
	int type = nla_type(nla), len = nla_len(nla);
	const struct nla_policy *pt;
	size_t str_len;

	if (!type || type > POWERPIN_ATTR_MAX || !policy)
		return POWERPIN_GENL_ATTR_UNKNOWN;
	pt = &policy[type];
	/* in the strict core's order: length, the nested flag, then the type */
	switch (pt->type) {
	case NLA_U8:
	case NLA_U16:
	case NLA_U32:
	case NLA_U64:
		if (len != fixed_len[pt->type])
			return POWERPIN_GENL_ATTR_INVALID;
		break;
	case NLA_NUL_STRING:
		break;
	default:
		return POWERPIN_GENL_ATTR_UNSUPPORTED;
	}
	if (nla->nla_type & NLA_F_NESTED)
		return POWERPIN_GENL_ATTR_NESTED;
	if (pt->type != NLA_NUL_STRING)
		return POWERPIN_GENL_ATTR_OK;
	/* a NUL within the first len + 1 bytes, then no more than len bytes */
	str_len = strnlen(nla_data(nla), len);
	if (str_len == (size_t)len || (pt->len && str_len > pt->len))
		return POWERPIN_GENL_ATTR_INVALID;
	if (pt->len && len - (((const char *)nla_data(nla))[len - 1] == '\0') > pt->len)
		return POWERPIN_GENL_ATTR_RANGE;
	return POWERPIN_GENL_ATTR_OK;
}

/* -EINVAL, with the strict core's message where acks carry one (4.12) */
static inline int powerpin_genl_refuse(struct genl_info *info,
				       enum powerpin_genl_bad why)
{
	switch (why) {
	case POWERPIN_GENL_ATTR_UNKNOWN:
		POWERPIN_GENL_SET_ERR_MSG(info, "Unknown attribute type");
		break;
	case POWERPIN_GENL_ATTR_UNSUPPORTED:
		POWERPIN_GENL_SET_ERR_MSG(info, "Unsupported attribute");
		break;
	case POWERPIN_GENL_ATTR_NESTED:
		POWERPIN_GENL_SET_ERR_MSG(info, "NLA_F_NESTED not expected");
		break;
	case POWERPIN_GENL_ATTR_RANGE:
		POWERPIN_GENL_SET_ERR_MSG(info, "Attribute failed policy validation");
		return -ERANGE;
	default:
		POWERPIN_GENL_SET_ERR_MSG(info, "Attribute failed policy validation");
		break;
	}
	return -EINVAL;
}

static inline int powerpin_genl_strict_pre_doit(POWERPIN_GENL_CONST struct genl_ops *ops,
						struct sk_buff *skb,
						struct genl_info *info)
{
	static struct nlattr *attrs[POWERPIN_ATTR_MAX + 1];
	enum powerpin_genl_bad why;
	struct nlattr *nla;
	int rem;

	if (info->genlhdr->reserved) {
		POWERPIN_GENL_SET_ERR_MSG(info, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	memset(attrs, 0, sizeof(attrs));
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		why = powerpin_genl_check_attr(nla, ops->policy);
		if (why != POWERPIN_GENL_ATTR_OK)
			return powerpin_genl_refuse(info, why);
		attrs[nla_type(nla)] = nla;
	}
	/*
	 * Bytes left over are refused; a final attribute without its padding
	 * (rem < 0 after NLA_ALIGN) is accepted, as nla_parse() does.
	 */
	if (rem > 0) {
		POWERPIN_GENL_SET_ERR_MSG(info, "bytes leftover after parsing attributes");
		return -EINVAL;
	}
	info->attrs = attrs;
	return 0;
}

#define POWERPIN_GENL_OP_POLICY(pol)	.policy = (pol),
#endif /* !POWERPIN_HAVE_GENL_STRICT */

#if defined(POWERPIN_HAVE_GENL_REGISTER_MC_GROUP) || \
	defined(POWERPIN_HAVE_GENL_REGISTER_OPS_GROUPS)
/*
 * Up to 4.9: the family asks for an id, and it is on a list its
 * unregistering writes (so not __ro_after_init)
 */
#define POWERPIN_GENL_FAMILY_OPS					\
	.id = GENL_ID_GENERATE,						\
	.pre_doit = powerpin_genl_strict_pre_doit
#define POWERPIN_GENL_FAMILY_RO
#endif

#if defined(POWERPIN_HAVE_GENL_REGISTER_MC_GROUP)
static inline int powerpin_genl_register(struct genl_family *family,
					 struct genl_ops *ops, size_t n_ops,
					 struct genl_multicast_group *grps,
					 size_t n_grps)
{
	size_t i;
	int ret;

	ret = genl_register_family_with_ops(family, ops, n_ops);
	if (ret)
		return ret;
	for (i = 0; i < n_grps; i++) {
		ret = genl_register_mc_group(family, &grps[i]);
		if (ret) {
			genl_unregister_family(family);
			return ret;
		}
	}
	return 0;
}

static inline bool powerpin_genl_has_listeners(struct genl_family *family,
					       const struct genl_multicast_group *grps,
					       unsigned int group)
{
	return netlink_has_listeners(init_net.genl_sock, grps[group].id);
}

static inline void powerpin_genl_multicast(struct genl_family *family,
					   const struct genl_multicast_group *grps,
					   struct sk_buff *skb, unsigned int group)
{
	genlmsg_multicast(skb, 0, grps[group].id, GFP_KERNEL);
}
#else /* 3.13 on */
#if defined(POWERPIN_HAVE_GENL_REGISTER_OPS_GROUPS)
/* 3.13 to 4.9 */
static inline int powerpin_genl_register(struct genl_family *family,
					 const struct genl_ops *ops, size_t n_ops,
					 const struct genl_multicast_group *grps,
					 size_t n_grps)
{
	return _genl_register_family_with_ops_grps(family, ops, n_ops, grps, n_grps);
}
#else
/* 4.10 on: netlink.c's tables, powerpin_genl_ops[] and powerpin_genl_mcgrps[] */
#define POWERPIN_GENL_FAMILY_TABLES					\
	.ops = powerpin_genl_ops,					\
	.n_ops = ARRAY_SIZE(powerpin_genl_ops),				\
	.mcgrps = powerpin_genl_mcgrps,					\
	.n_mcgrps = ARRAY_SIZE(powerpin_genl_mcgrps)
#define POWERPIN_GENL_FAMILY_RO		__ro_after_init
#if !defined(POWERPIN_HAVE_GENL_STRICT)
/* 4.10 to 5.1 */
#define POWERPIN_GENL_FAMILY_OPS					\
	POWERPIN_GENL_FAMILY_TABLES,					\
	.pre_doit = powerpin_genl_strict_pre_doit
#elif defined(POWERPIN_HAVE_GENL_OP_POLICY)
/* 5.10 on: a command's attribute policy is its own, with its own maxattr */
#define POWERPIN_GENL_FAMILY_OPS					\
	POWERPIN_GENL_FAMILY_TABLES,					\
	.maxattr = POWERPIN_ATTR_MAX
#define POWERPIN_GENL_OP_POLICY(pol)					\
	.policy = (pol),						\
	.maxattr = POWERPIN_ATTR_MAX,
#else
/*
 * 5.2 to 5.9 (5.4): one policy for the whole family, every command's
 * attributes (netlink.c's POWERPIN_GENL_FAMILY_POLICY), validated
 * strictly by the core; each command refuses the attributes of the
 * others itself (powerpin_genl_check_op_attrs()).
 */
#define POWERPIN_GENL_FAMILY_OPS					\
	POWERPIN_GENL_FAMILY_TABLES,					\
	.maxattr = POWERPIN_ATTR_MAX,					\
	.policy = POWERPIN_GENL_FAMILY_POLICY
/* validate 0: strict validation (@pol is in the family's policy) */
#define POWERPIN_GENL_OP_POLICY(pol)	.validate = 0 * sizeof(pol),
#endif

static inline int powerpin_genl_register(struct genl_family *family,
					 const struct genl_ops *ops, size_t n_ops,
					 const struct genl_multicast_group *grps,
					 size_t n_grps)
{
	return genl_register_family(family);
}
#endif

/*
 * group numbers are the family's own (3.18 on: genl_has_listeners(), which
 * takes the genetlink socket on 3.18 and its namespace from 3.19)
 */
static inline bool powerpin_genl_has_listeners(struct genl_family *family,
					       const struct genl_multicast_group *grps,
					       unsigned int group)
{
#if defined(POWERPIN_KMI)
	/* no netlink_has_listeners() in a KMI: build it, multicast it */
	return true;
#elif defined(POWERPIN_HAVE_GENL_HAS_LISTENERS_SK)
	return genl_has_listeners(family, init_net.genl_sock, group);
#else
	return genl_has_listeners(family, &init_net, group);
#endif
}

static inline void powerpin_genl_multicast(struct genl_family *family,
					   const struct genl_multicast_group *grps,
					   struct sk_buff *skb, unsigned int group)
{
	genlmsg_multicast(family, skb, 0, group, GFP_KERNEL);
}
#endif

/*
 * A policy for an attribute of type @tp in @range (a struct
 * powerpin_nl_range: the kernel's netlink_range_validation where it has
 * one); no range policies before 5.2, where it checks the type only and the
 * command checks the range itself.
 */
#ifdef NLA_POLICY_FULL_RANGE
#define powerpin_nl_range	netlink_range_validation
#define POWERPIN_NLA_POLICY_FULL_RANGE(tp, range)	NLA_POLICY_FULL_RANGE(tp, range)
#else
struct powerpin_nl_range {
	u64 min, max;
};

#define POWERPIN_NLA_POLICY_FULL_RANGE(tp, range)			\
	{ .type = (tp), .len = 0 * sizeof((range)->max) }
#endif

/*
 * The genetlink header check new families get from the core.  Since 6.1 a
 * family whose resv_start_op is 0 (ours) has every command's reserved
 * header byte and unknown nlmsg_flags refused with -EINVAL by the core;
 * older kernels have no resv_start_op and check neither, so the module does
 * it itself, with the same errno and message.
 */
static inline int powerpin_genl_check_header(struct genl_info *info)
{
#ifndef POWERPIN_HAVE_GENL_RESV_START_OP
	u16 flags = info->nlhdr->nlmsg_flags;

	if (info->genlhdr->reserved) {
		POWERPIN_GENL_SET_ERR_MSG(info, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		POWERPIN_GENL_SET_ERR_MSG(info, "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
#endif
	return 0;
}

/*
 * Refuse the attributes @info carries that the command's @policy does not
 * take (NLA_UNSPEC there), as the core's strict validation does with a
 * command's own policy.  Only where the family has one policy for all
 * commands (5.2 to 5.9); elsewhere the core has done it.
 */
static inline int powerpin_genl_check_op_attrs(struct genl_info *info,
					       const struct nla_policy *policy)
{
#if defined(POWERPIN_HAVE_GENL_STRICT) && !defined(POWERPIN_HAVE_GENL_OP_POLICY)
	int type;

	for (type = 1; type <= POWERPIN_ATTR_MAX; type++) {
		if (info->attrs[type] && policy[type].type == NLA_UNSPEC) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[type],
					    "Unsupported attribute");
			return -EINVAL;
		}
	}
#endif
	return 0;
}

/*
 * Whether the sender of netlink request @skb may see live power readings
 * (kmod/README.md, "Netlink"): CAP_SYS_ADMIN, or CAP_PERFMON where the
 * kernel has it, held by the sender and the socket's opener as
 * GENL_ADMIN_PERM checks them; before netlink_capable() (3.15) by the
 * sender, whose context a request runs in.
 */
static inline bool powerpin_nl_readings_allowed(struct sk_buff *skb)
{
#if defined(POWERPIN_HAVE_NETLINK_CAPABLE_SKB) && !defined(POWERPIN_KMI)
#ifdef CAP_PERFMON
	if (netlink_capable(skb, CAP_PERFMON))
		return true;
#endif
	return netlink_capable(skb, CAP_SYS_ADMIN);
#else
	/* a KMI build: the sender alone too (no netlink_capable() in 5.15's) */
#ifdef CAP_PERFMON
	if (capable(CAP_PERFMON))
		return true;
#endif
	return capable(CAP_SYS_ADMIN);
#endif
}

/*
 * Whether the task reading a file (debugfs status) may see live power
 * readings: the rule of powerpin_nl_readings_allowed() for the reader,
 * whose context a read runs in.
 */
static inline bool powerpin_readings_allowed(void)
{
#ifdef CAP_PERFMON
	if (capable(CAP_PERFMON))
		return true;
#endif
	return capable(CAP_SYS_ADMIN);
}

/*
 * A sample's flags as someone without the readings may see them:
 * REPEATED says whether the readings changed, so it goes with them.
 */
#define POWERPIN_FLAGS_WITHOUT_READINGS(flags)	((flags) & ~(u32)POWERPIN_SAMPLE_REPEATED)

#endif /* _POWERPIN_COMPAT_H */
