// SPDX-License-Identifier: GPL-2.0
/*
 * Battery sampler: one freezable kthread for the life of the module reads a
 * power_supply at absolute deadlines and writes powerpin:powerpin_battery
 * and powerpin:powerpin_counter events.  kmod/README.md states the rules; in
 * short:
 *
 * Gate.  The gauge is read only when at least one consumer would record
 * the sample (gate.c): the top level or a tracefs instance with the event
 * enabled and its buffer on, perf, triggers on the event, another probe.
 * With no consumer at all the thread sleeps with no timer; registrations
 * wake it.  While consumers exist but none would record (tracing_on 0, an
 * enable_event trigger not fired yet) nothing notifies a change, so the
 * thread looks again every period clamped to 10..50 ms: a consumer that
 * becomes able to record gets its first sample within about 50 ms.  After
 * 5 s of such looks with no change announced, it looks once a second
 * (first sample within about 1.1 s), so that an enabled but idle event
 * does not keep the CPU waking.  seq and the counters count recorded
 * samples only.
 *
 * Timing.  The k-th deadline of a capture is start + k * period on
 * CLOCK_MONOTONIC.  A wake-up that finds several deadlines passed (slow
 * bus, busy CPU, a system freeze) takes one sample, flagged LATE, and
 * counts the others in "missed": a deadline is counted once it has
 * passed, never before.  The next read starts at the first deadline that
 * is at least half a period after the last sample was written (not after
 * the wake-up that began it: the thread can lose the CPU anywhere between
 * the two), so two samples are never closer than half a period, whether
 * read start or write time is compared: late samples never come in a
 * burst.  A new period starts a new series of deadlines one new period
 * after the change.
 *
 * Supply.  Nothing of a supply is held between two samples: each sample
 * looks the supply up by name (a device reference, no use count), reads it
 * under the supply's own device lock, and lets go of both before the
 * thread sleeps again.  Since device_del() takes that lock (compat.h),
 * power_supply_unregister() cannot finish while a read is in progress, and
 * once it has begun the core answers -ENODEV without calling the driver.
 * The parent device is never touched.
 *
 * Freezer.  The thread is freezable and freezes only between samples, so
 * no gauge transfer happens while the system is frozen for suspend.
 *
 * Reboot.  A reboot notifier halts sampling before device_shutdown(), so
 * no gauge is read while or after its driver shuts the device down.  It
 * never waits for the thread itself: hibernation powers off or restarts
 * with every kernel thread still frozen, and kthread_stop() would wait for
 * good.  The thread holds powerpin_read_mutex around each sample only
 * (never where it freezes), and the notifier sets powerpin_halted under
 * it: at most one read in progress is waited for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/freezer.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/power_supply.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/powerpin.h>

#include "compat.h"
#include "powerpin.h"
#include "trace.h"

/* POWERPIN_PERIOD_US_MIN and _MAX come from the uapi header */
#define POWERPIN_PERIOD_US_DEFAULT	100000
/* how often the gate is looked at when nothing announces a change */
#define POWERPIN_POLL_NS_MIN		(10 * NSEC_PER_MSEC)
#define POWERPIN_POLL_NS_MAX		(50 * NSEC_PER_MSEC)
/* ... and after this long closed, with nothing announced, this often */
#define POWERPIN_IDLE_AFTER_NS		(5ULL * NSEC_PER_SEC)
#define POWERPIN_POLL_NS_IDLE		NSEC_PER_SEC

/* Configuration and counters, all under powerpin_lock. */
static DEFINE_SPINLOCK(powerpin_lock);
static u64 powerpin_trials;	/* trial samples (a KMI build's gate), debugfs */
static char powerpin_supply[POWERPIN_SUPPLY_NAME_MAX] = "max170xx_battery";
static u32 powerpin_period_us = POWERPIN_PERIOD_US_DEFAULT;
static unsigned int powerpin_supply_gen;
static struct powerpin_status powerpin_stats;
static struct task_struct *powerpin_task;

/* A wakeup request for the thread. */
static atomic_t powerpin_kicked = ATOMIC_INIT(0);
static u32 powerpin_seq;	/* kthread only, under powerpin_read_mutex */
/* no sample after a reboot notifier, see "Reboot" above */
static DEFINE_MUTEX(powerpin_read_mutex);
static bool powerpin_halted;
/* who hears of captures and supplies (netlink), set before the thread runs */
static const struct powerpin_sampler_ops *powerpin_listener;
static struct dentry *powerpin_debugfs;

/* The thread's own state; nothing else touches it, no pointer in it. */
struct powerpin_capture {
	bool open;			/* a consumer records: capture in progress */
	int moved_to;			/* the one CPU the thread was moved to, or -1 */
	bool closed;			/* the gate was seen closed since ... */
	ktime_t closed_since;		/* ... then, with no kick since */
	u32 period_us;
	u64 period_ns;
	unsigned int supply_gen;
	char supply[POWERPIN_SUPPLY_NAME_MAX];	/* configured ("" = first battery) */
	char bound[POWERPIN_SUPPLY_NAME_MAX];	/* supply read last, "" if none */
	char forwards[POWERPIN_SUPPLY_NAME_MAX];	/* refused: its gauge, "" if not */
	ktime_t next;			/* first deadline not yet sampled or missed */
	ktime_t last_written;		/* when the last sample had been written */
	bool have_written;		/* last_written is of this capture */
	bool late;			/* deadlines missed since the last sample */
	u64 missed;			/* ... by the read in progress */
	bool have_prev;
	s64 prev_voltage_uv, prev_current_ua, prev_charge_uah;
	u64 capture_samples;
	int trial_cpu;			/* the CPU of the last trial sample */
};

/* Wake the thread: consumers, configuration or tracepoint probes changed. */
static void powerpin_sampler_kick(void)
{
	unsigned long irqflags;

	atomic_set(&powerpin_kicked, 1);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	if (powerpin_task)
		wake_up_process(powerpin_task);
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/*
 * Set (or clear, NULL) the ops the thread announces capture and supply
 * changes to: before powerpin_sampler_init() and after
 * powerpin_sampler_exit(), when the thread does not run.
 */
void powerpin_sampler_listen(const struct powerpin_sampler_ops *ops)
{
	WRITE_ONCE(powerpin_listener, ops);
}

static void powerpin_set_state(u32 state)
{
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.state = state;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/* ---- supply lookup ------------------------------------------------------ */

#ifndef POWERPIN_HAVE_KILL_DEVICE
/*
 * Before 5.1 (compat.h): the supplies whose parent is still held by their own
 * registration, as a class interface on power_supply_class sees them come
 * and go.  remove_dev runs in device_del() before its put_device(parent),
 * and takes powerpin_psy_mutex: a supply found here under that mutex has
 * a live parent.  Nothing here sleeps on a device lock under the mutex,
 * since device_del() may be called with the parent locked.
 */
struct powerpin_psy {
	struct list_head node;
	struct device *dev;
};

static LIST_HEAD(powerpin_psys);
static DEFINE_MUTEX(powerpin_psy_mutex);

/*
 * The supplies add_dev found no memory to record, until their remove_dev:
 * compared, never dereferenced.  Such a supply is never read, and first-
 * battery mode passes over it instead of waiting for it as for one being
 * registered.  Past POWERPIN_PSY_LOST_MAX of them, every supply not
 * recorded is passed over.  Under powerpin_psy_mutex.
 */
#define POWERPIN_PSY_LOST_MAX 4
static struct device *powerpin_psy_lost[POWERPIN_PSY_LOST_MAX];
static bool powerpin_psy_lost_more;

static int powerpin_psy_add(struct device *dev, struct class_interface *intf)
{
	struct powerpin_psy *psy = kmalloc(sizeof(*psy), GFP_KERNEL);
	int i;

	mutex_lock(&powerpin_psy_mutex);
	if (psy) {
		psy->dev = dev;
		list_add_tail(&psy->node, &powerpin_psys);
	} else {
		for (i = 0; i < POWERPIN_PSY_LOST_MAX && powerpin_psy_lost[i]; i++)
			;
		if (i < POWERPIN_PSY_LOST_MAX)
			powerpin_psy_lost[i] = dev;
		else
			powerpin_psy_lost_more = true;
	}
	mutex_unlock(&powerpin_psy_mutex);
	if (!psy) {
		pr_warn("%s: no memory to follow this supply: it is never read\n",
			dev_name(dev));
		return -ENOMEM;
	}
	return 0;
}

static void powerpin_psy_remove(struct device *dev,
				struct class_interface *intf)
{
	struct powerpin_psy *psy, *next;
	int i;

	mutex_lock(&powerpin_psy_mutex);
	list_for_each_entry_safe(psy, next, &powerpin_psys, node) {
		if (psy->dev == dev) {
			list_del(&psy->node);
			kfree(psy);
		}
	}
	for (i = 0; i < POWERPIN_PSY_LOST_MAX; i++)
		if (powerpin_psy_lost[i] == dev)
			powerpin_psy_lost[i] = NULL;
	mutex_unlock(&powerpin_psy_mutex);
}

/* @dev, which powerpin_supply_get() refused, was never recorded */
bool powerpin_supply_unrecorded(struct device *dev)
{
	bool lost;
	int i;

	mutex_lock(&powerpin_psy_mutex);
	lost = powerpin_psy_lost_more;
	for (i = 0; i < POWERPIN_PSY_LOST_MAX; i++)
		lost |= powerpin_psy_lost[i] == dev;
	mutex_unlock(&powerpin_psy_mutex);
	return lost;
}

static struct class_interface powerpin_psy_interface = {
	.add_dev = powerpin_psy_add,
	.remove_dev = powerpin_psy_remove,
};

/*
 * Hold a supply the class walk is visiting, and its parent, unless its
 * device_del() has passed remove_dev (the walk keeps @dev itself alive).
 */
bool powerpin_supply_get(struct device *dev)
{
	struct powerpin_psy *psy;
	bool live = false;

	mutex_lock(&powerpin_psy_mutex);
	list_for_each_entry(psy, &powerpin_psys, node) {
		if (psy->dev == dev) {
			live = true;
			break;
		}
	}
	if (live) {
		get_device(dev);
		get_device(dev->parent);
	}
	mutex_unlock(&powerpin_psy_mutex);
	return live;
}

int powerpin_supply_track_init(void)
{
	powerpin_psy_interface.class = power_supply_class;
	return class_interface_register(&powerpin_psy_interface);
}

void powerpin_supply_track_exit(void)
{
	class_interface_unregister(&powerpin_psy_interface);
}
#endif

#ifdef POWERPIN_KMI
/*
 * A KMI build walks the supplies of the class it learns from the first
 * supply the power_supply core hands over (compat.h, "GKI"): the one
 * configured or Android's "battery", found by name, or any supply whose
 * change the core announces (a new supply announces itself a moment after
 * it registers).  The class is the power_supply core's, built into the
 * kernel (and its module, where it is one, cannot go while this module
 * uses its calls), so it is kept without a reference.
 */
static typeof(((struct device *)NULL)->class) powerpin_psy_class;

static void powerpin_psy_class_learn(struct power_supply *psy)
{
	if (psy && !READ_ONCE(powerpin_psy_class))
		WRITE_ONCE(powerpin_psy_class, powerpin_supply_dev(psy)->class);
}

/* the power_supply core's atomic notifier chain: no sleep */
static int powerpin_psy_notified(struct notifier_block *nb,
				 unsigned long event, void *data)
{
	powerpin_psy_class_learn(data);
	return NOTIFY_DONE;
}

static struct notifier_block powerpin_psy_nb = {
	.notifier_call = powerpin_psy_notified,
};

static void powerpin_psy_class_by_name(const char *name)
{
	struct power_supply *psy;

	if (READ_ONCE(powerpin_psy_class) || !name[0])
		return;
	psy = power_supply_get_by_name(name);
	if (psy) {
		powerpin_psy_class_learn(psy);
		power_supply_put(psy);
	}
}

int powerpin_kmi_walk_supplies(void *data, powerpin_supply_fn *fn)
{
	char name[POWERPIN_SUPPLY_NAME_MAX];
	unsigned long irqflags;

	if (!READ_ONCE(powerpin_psy_class)) {
		spin_lock_irqsave(&powerpin_lock, irqflags);
		powerpin_strscpy(name, powerpin_supply, sizeof(name));
		spin_unlock_irqrestore(&powerpin_lock, irqflags);
		powerpin_psy_class_by_name(name);
		powerpin_psy_class_by_name("battery");
	}
	if (!READ_ONCE(powerpin_psy_class))
		return 0;
	return class_for_each_device(READ_ONCE(powerpin_psy_class), NULL,
				     data, fn);
}

int powerpin_supply_track_init(void)
{
	return power_supply_reg_notifier(&powerpin_psy_nb);
}

void powerpin_supply_track_exit(void)
{
	power_supply_unreg_notifier(&powerpin_psy_nb);
}
#endif

struct powerpin_lookup {
	const char *name;		/* "" = the first system battery */
	struct device *dev;		/* found: powerpin_supply_get() */
	struct device *battery;		/* first battery, held while a gauge may follow */
	bool busy;			/* a candidate could not answer yet */
	/* the named supply forwards this gauge's readings: refused */
	char gauge[POWERPIN_SUPPLY_NAME_MAX];
};

enum powerpin_supply_kind {
	PP_KIND_OTHER,		/* not a present system battery */
	PP_KIND_BATTERY,	/* type Battery */
	PP_KIND_GAUGE,		/* a vendor kernel's fuel gauge (type BMS) */
};

/*
 * The power_supply core's own rule (power_supply_is_system_supplied()): a
 * supply whose SCOPE is Device powers a peripheral (a HID mouse's battery),
 * not the system.  Returns the kind of a present system battery (a vendor
 * kernel's BMS fuel gauge counts as one), PP_KIND_OTHER for anything else,
 * -EAGAIN when the supply cannot tell yet (registering, or its driver
 * still initialising).  Called under the supply's lock: a supply that
 * answers is registered and stays so until the lock is dropped, so its
 * desc (the driver's) may be looked at.
 */
static int powerpin_supply_kind(struct power_supply *psy)
{
	union power_supply_propval val = {};
	enum power_supply_type type;
	int ret, kind;

	ret = powerpin_supply_get_property(psy, POWER_SUPPLY_PROP_SCOPE, &val);
	if (ret == -ENODEV)
		return PP_KIND_OTHER;	/* going away */
	if (ret == -EAGAIN)
		return -EAGAIN;
	type = powerpin_supply_type(psy);
	if (powerpin_supply_type_is_gauge(type))
		kind = PP_KIND_GAUGE;
	else if (type == POWER_SUPPLY_TYPE_BATTERY)
		kind = PP_KIND_BATTERY;
	else
		return PP_KIND_OTHER;
	if (!ret && val.intval == POWER_SUPPLY_SCOPE_DEVICE)
		return PP_KIND_OTHER;
	val.intval = 1;
	ret = powerpin_supply_get_property(psy, POWER_SUPPLY_PROP_PRESENT, &val);
	if (ret == -EAGAIN)
		return -EAGAIN;
	if (ret == -ENODEV)
		return PP_KIND_OTHER;
	/* a supply without PRESENT is there; a bay without a battery is not */
	return ret || val.intval ? kind : PP_KIND_OTHER;
}

static int powerpin_system_battery(struct device *dev)
{
	struct power_supply *psy;
	int ret;

	psy = powerpin_supply_lock(dev);
	ret = psy ? powerpin_supply_kind(psy) : PP_KIND_OTHER;
	powerpin_supply_unlock(dev);
	return ret;
}

/* A vendor gauge other than @data (the supply being looked up): its name. */
static int powerpin_match_gauge(struct device *dev, void *data)
{
	struct powerpin_lookup *lookup = data;
	int kind;

	if (dev == lookup->dev || !dev_get_drvdata(dev) || !powerpin_supply_get(dev))
		return 0;
	kind = powerpin_system_battery(dev);
	if (kind == PP_KIND_GAUGE)
		powerpin_strscpy(lookup->gauge, dev_name(dev), sizeof(lookup->gauge));
	powerpin_supply_put(dev);
	return kind == PP_KIND_GAUGE;
}

/*
 * On a kernel with vendor gauges, a Battery beside a gauge is the
 * charger's (shamu's smb135x "battery"), whose driver calls the gauge's
 * get_property() for voltage, current and charge without the gauge's lock:
 * reading it would read the gauge outside the fence that keeps an unbind
 * of the gauge's driver from freeing what the read uses.  Such a supply is
 * refused (its gauge named); the gauge itself is read instead in
 * first-battery mode.  Finds out with @lookup->dev held, nothing locked.
 */
static bool powerpin_forwards_gauge(struct powerpin_lookup *lookup)
{
	if (!powerpin_have_gauge_type() ||
	    powerpin_system_battery(lookup->dev) != PP_KIND_BATTERY)
		return false;
	return powerpin_for_each_supply(lookup, powerpin_match_gauge);
}

/* First-battery mode: is @dev (held) the one?  1 stops the walk. */
static int powerpin_match_first_battery(struct device *dev,
					struct powerpin_lookup *lookup)
{
	int kind = powerpin_system_battery(dev);

	if (kind != PP_KIND_BATTERY && kind != PP_KIND_GAUGE)
		powerpin_supply_put(dev);
	/* busy: retried at the next deadline, never passed over */
	if (kind == -EAGAIN) {
		lookup->busy = true;
		return 1;
	}
	if (kind == PP_KIND_OTHER)
		return 0;
	/* a vendor gauge registered later wins over a (forwarding) Battery */
	if (kind == PP_KIND_BATTERY && powerpin_have_gauge_type()) {
		if (lookup->battery)
			powerpin_supply_put(dev);
		else
			lookup->battery = dev;
		return 0;
	}
	lookup->dev = dev;
	return 1;
}

static int powerpin_match_supply(struct device *dev, void *data)
{
	struct powerpin_lookup *lookup = data;

	if (!dev_get_drvdata(dev))
		return 0;
	if (lookup->name[0] && strcmp(dev_name(dev), lookup->name))
		return 0;
	/*
	 * 3.10: one being registered or unregistered cannot be held (its
	 * parent may be gone): the first battery is then chosen at the
	 * next deadline, never passed over; one add_dev never recorded
	 * is passed over
	 */
	if (!powerpin_supply_get(dev)) {
		lookup->busy = !lookup->name[0] && !powerpin_supply_unrecorded(dev);
		return lookup->busy;
	}
	if (!lookup->name[0])
		return powerpin_match_first_battery(dev, lookup);
	lookup->dev = dev;
	return 1;
}

/*
 * Find a supply by name ("" = the first present system battery, in
 * registration order; a vendor kernel's gauge before any Battery) and hold
 * its device (powerpin_supply_get()): no use count.  NULL if there is
 * none, if the first battery cannot be chosen yet (@busy), or, when
 * @check_forwarding, if the named supply forwards a gauge's readings
 * (@gauge, when given, names that gauge; "" otherwise).  The check takes
 * every supply's lock once: it is made when a named supply is bound, not
 * at every sample.  Let go with powerpin_supply_put().
 */
static struct device *powerpin_find_supply(const char *name, bool *busy, char *gauge,
					   bool check_forwarding)
{
	struct powerpin_lookup lookup = { .name = name };

	powerpin_for_each_supply(&lookup, powerpin_match_supply);
	if (lookup.battery) {
		if (lookup.dev || lookup.busy)
			powerpin_supply_put(lookup.battery);
		else
			lookup.dev = lookup.battery;
	}
	if (lookup.dev && name[0] && check_forwarding && powerpin_forwards_gauge(&lookup)) {
		powerpin_supply_put(lookup.dev);
		lookup.dev = NULL;
	}
	if (busy)
		*busy = lookup.busy;
	if (gauge)
		powerpin_strscpy(gauge, lookup.gauge, POWERPIN_SUPPLY_NAME_MAX);
	return lookup.dev;
}

/* The supply the thread read last is gone (or no longer the one wanted). */
static void powerpin_supply_lost(struct powerpin_capture *run)
{
	unsigned long irqflags;

	run->have_prev = false;
	if (!run->bound[0])
		return;
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.supply_lost++;
	powerpin_stats.supply_present = false;
	powerpin_stats.supply_bound[0] = '\0';
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	if (powerpin_listener)
		powerpin_listener->supply_lost(run->bound);
	run->bound[0] = '\0';
}

static void powerpin_supply_found(struct powerpin_capture *run,
				  const char *name)
{
	unsigned long irqflags;

	if (run->bound[0] && !strcmp(run->bound, name))
		return;
	powerpin_supply_lost(run);
	powerpin_strscpy(run->bound, name, sizeof(run->bound));
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.supply_found++;
	powerpin_stats.supply_present = true;
	powerpin_strscpy(powerpin_stats.supply_bound, run->bound,
			 sizeof(powerpin_stats.supply_bound));
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	if (powerpin_listener)
		powerpin_listener->supply_found(run->bound);
}

/*
 * The named supply forwards @gauge's readings (powerpin_forwards_gauge()):
 * said once in the kernel log and kept in the status until it changes.
 */
static void powerpin_supply_refused(struct powerpin_capture *run, const char *gauge)
{
	unsigned long irqflags;

	if (!strcmp(run->forwards, gauge))
		return;
	powerpin_strscpy(run->forwards, gauge, sizeof(run->forwards));
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_strscpy(powerpin_stats.supply_forwards, gauge,
			 sizeof(powerpin_stats.supply_forwards));
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	if (gauge[0])
		pr_warn("%s is not read: it forwards the fuel gauge %s outside that driver's lock (set supply=%s)\n",
			run->supply, gauge, gauge);
}

/* ---- one sample ---------------------------------------------------------- */

enum powerpin_prop_idx {
	PP_VOLTAGE, PP_CURRENT, PP_CHARGE, PP_CURRENT_AVG, PP_CAPACITY,
	PP_TEMP, PP_NR_PROPS,
};

static const enum power_supply_property powerpin_props[PP_NR_PROPS] = {
	[PP_VOLTAGE] = POWER_SUPPLY_PROP_VOLTAGE_NOW,
	[PP_CURRENT] = POWER_SUPPLY_PROP_CURRENT_NOW,
	[PP_CHARGE] = POWER_SUPPLY_PROP_CHARGE_COUNTER,
	[PP_CURRENT_AVG] = POWER_SUPPLY_PROP_CURRENT_AVG,
	[PP_CAPACITY] = POWER_SUPPLY_PROP_CAPACITY,
	[PP_TEMP] = POWER_SUPPLY_PROP_TEMP,
};

static const char * const powerpin_tracks[PP_NR_PROPS] = {
	[PP_VOLTAGE] = "voltage_uv",
	[PP_CURRENT] = "current_ua",
	[PP_CHARGE] = "charge_uah",
	[PP_CURRENT_AVG] = "current_avg_ua",
	[PP_CAPACITY] = "capacity",
	[PP_TEMP] = "temp_dc",
};

/*
 * Read every property into @val under the supply's lock.  Returns false if
 * the supply is going away (-ENODEV); otherwise @ok has a bit per property
 * read and @flags says why the others were not.
 */
static bool powerpin_read_supply(struct device *dev,
				 s64 val[PP_NR_PROPS], u32 *ok, u32 *flags)
{
	union power_supply_propval pv;
	struct power_supply *psy;
	bool present;
	int i, ret;

	psy = powerpin_supply_lock(dev);
	present = psy;
	for (i = 0; i < PP_NR_PROPS && present; i++) {
		pv.intval = 0;
		ret = powerpin_supply_get_property(psy, powerpin_props[i], &pv);
		val[i] = ret ? 0 : pv.intval;
		switch (ret) {
		case 0:
			*ok |= BIT(i);
			break;
		case -ENODEV:
			present = false;
			break;
		case -EINVAL:
		case -ENODATA:
		case -EOPNOTSUPP:
			*flags |= POWERPIN_SAMPLE_MISSING;
			break;
		case -EAGAIN:
			*flags |= POWERPIN_SAMPLE_AGAIN |
				  POWERPIN_SAMPLE_READ_ERROR;
			break;
		default:
			*flags |= POWERPIN_SAMPLE_READ_ERROR;
			break;
		}
	}
	powerpin_supply_unlock(dev);
	return present;
}

static void powerpin_fill_sample(struct powerpin_capture *run,
				 struct powerpin_sample *s,
				 const s64 val[PP_NR_PROPS], u32 flags)
{
	s->voltage_uv = val[PP_VOLTAGE];
	s->current_ua = val[PP_CURRENT];
	s->charge_uah = val[PP_CHARGE];
	s->power_uw = div_s64(s->voltage_uv * s->current_ua, 1000000);
	s->current_avg_ua = val[PP_CURRENT_AVG];
	s->capacity = val[PP_CAPACITY];
	s->temp_dc = val[PP_TEMP];
	if (run->have_prev && s->voltage_uv == run->prev_voltage_uv &&
	    s->current_ua == run->prev_current_ua &&
	    s->charge_uah == run->prev_charge_uah)
		flags |= POWERPIN_SAMPLE_REPEATED;
	if (run->late)
		flags |= POWERPIN_SAMPLE_LATE;
	s->flags = flags;
}

/* What powerpin_gate_emit() hands to the events. */
struct powerpin_emission {
	struct powerpin_sample *s;
	const s64 *val;
	u32 ok;
};

/* Preemption is off: number the sample and write its events. */
static void powerpin_emit_events(void *arg)
{
	struct powerpin_emission *em = arg;
	int i;

	em->s->seq = ++powerpin_seq;
	trace_powerpin_battery(em->s);
	if (!trace_powerpin_counter_enabled())
		return;
	for (i = 0; i < PP_NR_PROPS; i++)
		if (em->ok & BIT(i))
			trace_powerpin_counter(powerpin_tracks[i], em->val[i]);
	if ((em->ok & BIT(PP_VOLTAGE)) && (em->ok & BIT(PP_CURRENT)))
		trace_powerpin_counter("power_uw", em->s->power_uw);
}

/*
 * A sample was written: count it and the deadlines missed before it (only
 * then, so that samples + missed are the deadlines up to the last written
 * sample's).
 */
static void powerpin_count_sample(const struct powerpin_capture *run,
				  const struct powerpin_sample *s)
{
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.state = POWERPIN_STATE_SAMPLING;
	powerpin_stats.samples++;
	powerpin_stats.missed += run->missed;
	powerpin_stats.last_deadline_ns =
		ktime_to_ns(ktime_sub_ns(run->next, run->period_ns));
	if (s->flags & POWERPIN_SAMPLE_READ_ERROR)
		powerpin_stats.read_errors++;
	powerpin_stats.last_seq = s->seq;
	powerpin_stats.last_time_ns = ktime_get_boottime_ns();
	powerpin_stats.last_voltage_uv = s->voltage_uv;
	powerpin_stats.last_current_ua = s->current_ua;
	powerpin_stats.last_charge_uah = s->charge_uah;
	powerpin_stats.last_power_uw = s->power_uw;
	powerpin_stats.last_flags = s->flags;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/*
 * One sample: look the supply up, read it, and emit it if a consumer still
 * records (tracing_on may have gone to 0 during the read: then the sample
 * goes nowhere and is not counted).  Returns whether it was emitted.
 * Holds nothing when it returns.
 */
static bool powerpin_take_sample(struct powerpin_capture *run)
{
	struct powerpin_sample s = {};
	char name[POWERPIN_SUPPLY_NAME_MAX];
	struct powerpin_emission em;
	struct device *dev;
	s64 val[PP_NR_PROPS];
	u32 ok = 0, flags = 0;
	bool present, busy;
	u64 t0;

	/* a named supply already bound was checked when it was bound */
	dev = powerpin_find_supply(run->supply, &busy, name,
				   strcmp(run->bound, run->supply));
	powerpin_supply_refused(run, dev ? "" : name);
	if (!dev) {
		/* a busy first battery is not lost: it is retried */
		if (!busy)
			powerpin_supply_lost(run);
		powerpin_set_state(POWERPIN_STATE_WAITING_SUPPLY);
		return false;
	}
	powerpin_strscpy(name, dev_name(dev), sizeof(name));
	t0 = ktime_get_ns();
	present = powerpin_read_supply(dev, val, &ok, &flags);
	s.read_ns = ktime_get_ns() - t0;
	powerpin_supply_put(dev);
	if (!present) {
		powerpin_supply_lost(run);
		powerpin_set_state(POWERPIN_STATE_WAITING_SUPPLY);
		return false;
	}
	powerpin_supply_found(run, name);

	powerpin_fill_sample(run, &s, val, flags);
	em.s = &s;
	em.val = val;
	em.ok = ok;
	/* tracing_on 0 during the read: the sample goes nowhere, uncounted */
	if (!powerpin_gate_emit(powerpin_emit_events, &em))
		return false;
	run->late = false;
	run->capture_samples++;
	run->have_prev = true;
	run->prev_voltage_uv = s.voltage_uv;
	run->prev_current_ua = s.current_ua;
	run->prev_charge_uah = s.charge_uah;
	powerpin_count_sample(run, &s);
	return true;
}

/* ---- the thread ---------------------------------------------------------- */

/* A new series of deadlines begins at run->next (for the status file). */
static void powerpin_series_start(ktime_t start)
{
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.series_start_ns = ktime_to_ns(start);
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/* A capture's state, its series beginning at @start (not yet announced). */
static void powerpin_capture_begin(struct powerpin_capture *run, ktime_t start)
{
	run->open = true;
	run->capture_samples = 0;
	run->late = false;
	run->have_written = false;
	run->have_prev = false;
	run->next = start;
}

/* The series start, the state and the listener learn of the capture. */
static void powerpin_capture_announce(struct powerpin_capture *run,
				      ktime_t start)
{
	powerpin_series_start(start);
	powerpin_set_state(run->bound[0] ? POWERPIN_STATE_SAMPLING :
			   POWERPIN_STATE_WAITING_SUPPLY);
	if (powerpin_listener)
		powerpin_listener->capture_started(ktime_get_boottime_ns());
}

static void powerpin_capture_open(struct powerpin_capture *run)
{
	ktime_t start = ktime_get();

	powerpin_capture_begin(run, start);
	powerpin_capture_announce(run, start);
}

/*
 * Run on @cpu: a CPU where a consumer records and some other CPU has none
 * (tracing_cpumask, perf -a -C), so that the read and the write both
 * happen there: pinned even where the thread runs already, since the read
 * sleeps.  Kept until the capture closes.  @cpu -1: any CPU does, the
 * thread stays where it runs.
 */
static void powerpin_move_to(struct powerpin_capture *run, int cpu)
{
	if (cpu < 0 || run->moved_to == cpu)
		return;
	if (!set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		run->moved_to = cpu;
}

/* Back to where kernel threads run, not onto isolated CPUs. */
static void powerpin_move_home(struct powerpin_capture *run)
{
	if (run->moved_to >= 0 && !set_cpus_allowed_ptr(current, powerpin_kthread_cpus()))
		run->moved_to = -1;
}

static void powerpin_capture_close(struct powerpin_capture *run)
{
	powerpin_move_home(run);
	if (!run->open)
		return;
	run->open = false;
	powerpin_set_state(POWERPIN_STATE_IDLE);
	if (powerpin_listener)
		powerpin_listener->capture_stopped(ktime_get_boottime_ns(),
						   run->capture_samples);
}

/* Pick up a new period or supply name. */
static void powerpin_apply_config(struct powerpin_capture *run)
{
	unsigned long irqflags;
	bool supply_changed;
	u32 period_us;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	period_us = powerpin_period_us;
	supply_changed = run->supply_gen != powerpin_supply_gen;
	if (supply_changed) {
		run->supply_gen = powerpin_supply_gen;
		powerpin_strscpy(run->supply, powerpin_supply, sizeof(run->supply));
	}
	spin_unlock_irqrestore(&powerpin_lock, irqflags);

	if (supply_changed) {
		powerpin_supply_lost(run);
		powerpin_supply_refused(run, "");
	}
	if (period_us != run->period_us) {
		run->period_us = period_us;
		run->period_ns = (u64)period_us * NSEC_PER_USEC;
		/*
		 * A new series of deadlines, one new period after the change;
		 * the old series' phase is not kept and nothing is missed.
		 */
		if (run->open) {
			run->next = ktime_add_ns(ktime_get(), run->period_ns);
			powerpin_series_start(run->next);
		}
	}
}

/*
 * When the next read may start: the first deadline from run->next on that
 * is at least half a period after the last sample of the capture was
 * written.  The deadlines before it are missed when they have passed
 * (powerpin_account_deadlines()).
 */
static ktime_t powerpin_next_read(const struct powerpin_capture *run)
{
	ktime_t not_before;
	u64 skip;

	if (!run->have_written)
		return run->next;
	not_before = ktime_add_ns(run->last_written, div_u64(run->period_ns, 2));
	if (!ktime_before(run->next, not_before))
		return run->next;
	skip = div64_u64(ktime_to_ns(ktime_sub(not_before, run->next)) +
			 run->period_ns - 1, run->period_ns);
	return ktime_add_ns(run->next, skip * run->period_ns);
}

/*
 * A read begins at @now (@now >= run->next): the sample stands for the
 * latest deadline that has passed; the others, passed too, are missed (and
 * counted if the sample is written), and the sample is LATE.  No deadline
 * still to come is touched.
 */
static void powerpin_account_deadlines(struct powerpin_capture *run,
				       ktime_t now)
{
	run->missed = div64_u64(ktime_to_ns(ktime_sub(now, run->next)),
				run->period_ns);
	run->next = ktime_add_ns(run->next, (run->missed + 1) * run->period_ns);
	if (run->missed)
		run->late = true;
}

/*
 * Enter the refrigerator if the system is freezing.  A capture that was
 * frozen has a gap (suspend to idle also stops CLOCK_MONOTONIC, so no
 * deadline need have passed): its next sample carries LATE.
 */
static void powerpin_freeze_point(struct powerpin_capture *run)
{
	if (try_to_freeze() && run->open)
		run->late = true;
}

/* the thread's timer, where it has its own (compat.h); one thread at a time */
static struct powerpin_sleeper powerpin_sleeper;

/*
 * Sleep until @deadline (absolute, CLOCK_MONOTONIC) or a kick, then enter
 * the refrigerator if the system is freezing.  Holds nothing.
 */
static void powerpin_sleep_until(struct powerpin_capture *run, ktime_t deadline,
				 u64 slack_ns)
{
	set_current_state(TASK_INTERRUPTIBLE);
	if (!atomic_read(&powerpin_kicked) && !kthread_should_stop())
		powerpin_sleep_hrtimeout(&powerpin_sleeper, deadline, slack_ns);
	__set_current_state(TASK_RUNNING);
	powerpin_freeze_point(run);
}

/* Sleep with no timer until a consumer comes or the module goes. */
static void powerpin_sleep_idle(struct powerpin_capture *run)
{
	set_current_state(TASK_INTERRUPTIBLE);
	if (!atomic_read(&powerpin_kicked) && !kthread_should_stop())
		schedule();
	__set_current_state(TASK_RUNNING);
	powerpin_freeze_point(run);
}

/*
 * How long to sleep before the next look at a closed gate (@now): about a
 * period, 10..50 ms; once a second when it has been closed for
 * POWERPIN_IDLE_AFTER_NS with no change announced (a kick).
 */
static u64 powerpin_poll_ns(struct powerpin_capture *run, ktime_t now)
{
	if (!run->closed) {
		run->closed = true;
		run->closed_since = now;
	}
	if (!ktime_before(now, ktime_add_ns(run->closed_since,
					    POWERPIN_IDLE_AFTER_NS)))
		return POWERPIN_POLL_NS_IDLE;
	return clamp_t(u64, run->period_ns, POWERPIN_POLL_NS_MIN,
		       POWERPIN_POLL_NS_MAX);
}

/*
 * The sample of the deadline due at @now, under powerpin_read_mutex and
 * unless halted for a reboot.  Returns whether it was written.
 */
static bool powerpin_sample_now(struct powerpin_capture *run, ktime_t now)
{
	bool written;

	powerpin_account_deadlines(run, now);
	mutex_lock(&powerpin_read_mutex);
	written = !powerpin_halted && powerpin_take_sample(run);
	mutex_unlock(&powerpin_read_mutex);
	if (written) {
		/* after the events' timestamps: the distance is from there */
		run->last_written = ktime_get();
		run->have_written = true;
	}
	return written;
}

/*
 * A KMI build's look at a closed gate (gate.c, powerpin_gate_on_trial()):
 * a sample whose write tells whether the files' buffers take writes again,
 * the only way that build has to see tracing_on come back.  A capture is
 * begun for it and announced only if it landed, when it goes on at the
 * period; otherwise it is dropped unannounced.  Returns whether it landed.
 */
static bool powerpin_trial_sample(struct powerpin_capture *run)
{
	unsigned long irqflags;
	ktime_t start;
	int cpu;

	/*
	 * Each trial on the next online CPU: a tracing_cpumask may let the
	 * files' buffers take writes on some CPUs only (the gate of a full
	 * build asks the other CPUs instead).  One that lands keeps the
	 * thread there until the capture closes, as the other gate does.
	 */
	cpu = cpumask_next(run->trial_cpu, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	run->trial_cpu = cpu;
	/* pinned even where it runs already: a landed capture stays there */
	powerpin_move_to(run, cpu);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_trials++;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	start = ktime_get();
	powerpin_capture_begin(run, start);
	if (!powerpin_sample_now(run, start)) {
		run->open = false;
		powerpin_move_home(run);
		return false;
	}
	powerpin_capture_announce(run, start);
	run->closed = false;
	return true;
}

/*
 * One turn of the thread with at least one consumer: sample when the next
 * read may start, otherwise sleep towards it, looking at the gate at least
 * every POWERPIN_POLL_NS_MAX.
 */
static void powerpin_sampler_turn(struct powerpin_capture *run)
{
	ktime_t now, wake, due;
	bool trial;
	u64 poll;
	int cpu;

	if (!powerpin_gate_would_record(&cpu)) {
		powerpin_capture_close(run);
		trial = powerpin_gate_on_trial();
		if (trial && powerpin_trial_sample(run))
			return;
		now = ktime_get();
		poll = powerpin_poll_ns(run, now);
		/* a trial reads the gauge: no more than POWERPIN_POLL_NS_MAX apart */
		if (trial)
			poll = max_t(u64, poll, POWERPIN_POLL_NS_MAX);
		powerpin_sleep_until(run, ktime_add_ns(now, poll), div_u64(poll, 10));
		return;
	}
	run->closed = false;
	powerpin_move_to(run, cpu);
	if (!run->open)
		powerpin_capture_open(run);
	now = ktime_get();
	due = powerpin_next_read(run);
	if (ktime_before(now, due)) {
		wake = ktime_add_ns(now, POWERPIN_POLL_NS_MAX);
		if (ktime_before(wake, due))
			powerpin_sleep_until(run, wake, NSEC_PER_MSEC);
		else
			powerpin_sleep_until(run, due,
					     min_t(u64, div_u64(run->period_ns, 1000),
						   NSEC_PER_MSEC));
		return;
	}
	powerpin_sample_now(run, now);
}

static int powerpin_sampler_thread(void *unused)
{
	struct powerpin_capture run = {
		.supply_gen = UINT_MAX, .trial_cpu = -1, .moved_to = -1,
	};

	powerpin_sleeper_init(&powerpin_sleeper);
	set_freezable();
	while (!kthread_should_stop()) {
		/* a freeze that began during a read: no further read first */
		powerpin_freeze_point(&run);
		/* consume kicks before looking at what they announce */
		if (atomic_xchg(&powerpin_kicked, 0)) {
			run.closed = false;	/* a change: look often again, */
			powerpin_gate_look_everywhere();	/* on every CPU */
		}
		powerpin_apply_config(&run);
		if (READ_ONCE(powerpin_halted)) {
			/* halted for a reboot: idle until the module goes */
			powerpin_capture_close(&run);
			powerpin_sleep_idle(&run);
		} else if (powerpin_gate_has_consumers()) {
			powerpin_sampler_turn(&run);
		} else {
			powerpin_capture_close(&run);
			powerpin_sleep_idle(&run);
		}
	}
	powerpin_capture_close(&run);
	return 0;
}

/* ---- configuration ------------------------------------------------------- */

/*
 * Set the period and/or the supply name (NULL: leave it).  Both are checked
 * before either is applied, so a refused call changes nothing.
 */
int powerpin_sampler_set_config(const u32 *period_us, const char *supply)
{
	unsigned long irqflags;

	if (period_us && (*period_us < POWERPIN_PERIOD_US_MIN ||
			  *period_us > POWERPIN_PERIOD_US_MAX))
		return -EINVAL;
	if (supply &&
	    strnlen(supply, POWERPIN_SUPPLY_NAME_MAX) >= POWERPIN_SUPPLY_NAME_MAX)
		return -EINVAL;
	spin_lock_irqsave(&powerpin_lock, irqflags);
	if (period_us)
		powerpin_period_us = *period_us;
	if (supply && strcmp(powerpin_supply, supply)) {
		powerpin_strscpy(powerpin_supply, supply, sizeof(powerpin_supply));
		powerpin_supply_gen++;
	}
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	powerpin_sampler_kick();
	return 0;
}

/* Whether a supply of that name is registered: nothing is held or read. */
static int powerpin_supply_named(struct device *dev, void *name)
{
	return dev_get_drvdata(dev) && !strcmp(dev_name(dev), name);
}

/*
 * Snapshot for netlink and debugfs (process context: the class walk may
 * sleep).  The thread notices a supply that went away only at its next
 * read, a whole period later or, with the gate closed, not at all; so the
 * bound name is looked up again here, a name compare per registered supply
 * with no reference taken and no property read: any local user may ask.
 */
void powerpin_sampler_get_status(struct powerpin_status *st)
{
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	*st = powerpin_stats;
	powerpin_strscpy(st->supply, powerpin_supply, sizeof(st->supply));
	st->period_us = powerpin_period_us;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	st->event_enabled = powerpin_gate_has_consumers();
	st->tracing_on = powerpin_tracing_is_on();

	st->supply_bound[sizeof(st->supply_bound) - 1] = '\0';
	if (st->supply_present && st->supply_bound[0] &&
	    !powerpin_for_each_supply(st->supply_bound, powerpin_supply_named)) {
		st->supply_present = false;
		st->supply_bound[0] = '\0';
	}
}

static int powerpin_param_set_period(const char *val,
				     const struct kernel_param *kp)
{
	u32 period_us;

	if (kstrtou32(val, 0, &period_us))
		return -EINVAL;
	return powerpin_sampler_set_config(&period_us, NULL);
}

static int powerpin_param_get_period(char *buf, const struct kernel_param *kp)
{
	unsigned long irqflags;
	u32 period_us;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	period_us = powerpin_period_us;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	return scnprintf(buf, PAGE_SIZE, "%u" POWERPIN_PARAM_EOL, period_us);
}

static const struct kernel_param_ops powerpin_period_ops = {
	.set = powerpin_param_set_period,
	.get = powerpin_param_get_period,
};
module_param_cb(period_us, &powerpin_period_ops, NULL, 0644);
MODULE_PARM_DESC(period_us, "Sampling period in microseconds, 1000..60000000 (default 100000)");

static int powerpin_param_set_supply(const char *val,
				     const struct kernel_param *kp)
{
	char name[POWERPIN_SUPPLY_NAME_MAX];
	size_t len = strcspn(val, "\n");

	if (len >= sizeof(name))
		return -EINVAL;
	memcpy(name, val, len);
	name[len] = '\0';
	return powerpin_sampler_set_config(NULL, name);
}

static int powerpin_param_get_supply(char *buf, const struct kernel_param *kp)
{
	unsigned long irqflags;
	int len;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	len = scnprintf(buf, PAGE_SIZE, "%s" POWERPIN_PARAM_EOL, powerpin_supply);
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	return len;
}

static const struct kernel_param_ops powerpin_supply_ops = {
	.set = powerpin_param_set_supply,
	.get = powerpin_param_get_supply,
};
module_param_cb(supply, &powerpin_supply_ops, NULL, 0644);
MODULE_PARM_DESC(supply, "power_supply to sample (default max170xx_battery; empty: first battery)");

/* ---- debugfs -------------------------------------------------------------- */

static const char * const powerpin_state_names[] = {
	[POWERPIN_STATE_IDLE] = "idle",
	[POWERPIN_STATE_WAITING_SUPPLY] = "waiting_supply",
	[POWERPIN_STATE_SAMPLING] = "sampling",
};

static int powerpin_status_show(struct seq_file *m, void *unused)
{
	struct powerpin_status st;
	unsigned long irqflags;
	pid_t pid = 0;
	u64 trials;

	powerpin_sampler_get_status(&st);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	if (powerpin_task)
		pid = task_pid_nr(powerpin_task);
	trials = powerpin_trials;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);

	seq_printf(m, "state %s\n", st.state < ARRAY_SIZE(powerpin_state_names) ?
		   powerpin_state_names[st.state] : "unknown");
	seq_printf(m, "event_enabled %d\n", st.event_enabled);
	if (st.tracing_on < 0)
		seq_puts(m, "tracing_on unknown\n");
	else
		seq_printf(m, "tracing_on %d\n", st.tracing_on);
	seq_printf(m, "supply %s\n", st.supply);
	seq_printf(m, "supply_bound %s\n", st.supply_bound);
	seq_printf(m, "supply_present %d\n", st.supply_present);
	seq_printf(m, "supply_forwards %s\n", st.supply_forwards);
	seq_printf(m, "period_us %u\n", st.period_us);
	seq_printf(m, "samples %llu\n", st.samples);
	seq_printf(m, "read_errors %llu\n", st.read_errors);
	seq_printf(m, "missed %llu\n", st.missed);
	seq_printf(m, "series_start_ns %llu\n", st.series_start_ns);
	seq_printf(m, "last_deadline_ns %llu\n", st.last_deadline_ns);
	seq_printf(m, "supply_lost %llu\n", st.supply_lost);
	seq_printf(m, "supply_found %llu\n", st.supply_found);
	seq_printf(m, "last_seq %u\n", st.last_seq);
	seq_printf(m, "last_time_ns %llu\n", st.last_time_ns);
	/* the readings as netlink gives them: to CAP_SYS_ADMIN or CAP_PERFMON */
	if (powerpin_readings_allowed()) {
		seq_printf(m, "last_voltage_uv %lld\n", st.last_voltage_uv);
		seq_printf(m, "last_current_ua %lld\n", st.last_current_ua);
		seq_printf(m, "last_charge_uah %lld\n", st.last_charge_uah);
		seq_printf(m, "last_power_uw %lld\n", st.last_power_uw);
		seq_printf(m, "last_flags 0x%x\n", st.last_flags);
	} else {
		seq_printf(m, "last_flags 0x%x\n",
			   POWERPIN_FLAGS_WITHOUT_READINGS(st.last_flags));
	}
	seq_printf(m, "kthread_pid %d\n", pid);
	seq_printf(m, "gate_ipis %llu\n", (unsigned long long)powerpin_gate_ipi_count());
	seq_printf(m, "gate_trials %llu\n", (unsigned long long)trials);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(powerpin_status);

/* ---- init/exit ------------------------------------------------------------ */

/*
 * End the thread (module exit, or a failed init) and wait for it: it
 * closes the capture on its way out and holds no supply.  Kicks after that
 * wake nobody.
 */
static void powerpin_sampler_stop(void)
{
	struct task_struct *task;
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	task = powerpin_task;
	powerpin_task = NULL;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	if (task)
		kthread_stop(task);
}

/*
 * Reboot, halt and power-off call the reboot notifiers before
 * device_shutdown(): sampling ends here, before any driver shuts down the
 * gauge's bus or device.  Only a read in progress is waited for, never the
 * thread, which may be frozen for good (hibernation's power-off).  A
 * thread that still runs closes its capture and idles; the module stays
 * loaded.
 */
static int powerpin_reboot_notify(struct notifier_block *nb,
				  unsigned long action, void *unused)
{
	u32 seq;

	mutex_lock(&powerpin_read_mutex);
	powerpin_halted = true;
	seq = powerpin_seq;
	mutex_unlock(&powerpin_read_mutex);
	powerpin_sampler_kick();
	pr_info("sampler stopped before devices shut down (last seq %u)\n", seq);
	return NOTIFY_DONE;
}

static struct notifier_block powerpin_reboot_nb = {
	.notifier_call = powerpin_reboot_notify,
};

static const struct powerpin_gate_ops powerpin_sampler_gate_ops = {
	.consumers_changed = powerpin_sampler_kick,
};

int powerpin_sampler_init(void)
{
	struct task_struct *task;
	unsigned long irqflags;
	int ret;

	ret = powerpin_supply_track_init();
	if (ret)
		return ret;
	/* first: a change announced before the thread runs is kept (kicked) */
	powerpin_gate_listen(&powerpin_sampler_gate_ops);
	task = kthread_create(powerpin_sampler_thread, NULL, "powerpin-sample");
	if (IS_ERR(task)) {
		powerpin_gate_listen(NULL);
		powerpin_supply_track_exit();
		return PTR_ERR(task);
	}
	powerpin_gate_set_emitter(task);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_task = task;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	ret = register_reboot_notifier(&powerpin_reboot_nb);
	if (ret) {
		powerpin_gate_set_emitter(NULL);
		powerpin_sampler_stop();
		powerpin_gate_listen(NULL);
		powerpin_supply_track_exit();
		return ret;
	}
	wake_up_process(task);

	powerpin_debugfs = debugfs_create_dir("powerpin", NULL);
	debugfs_create_file("status", 0444, powerpin_debugfs, NULL,
			    &powerpin_status_fops);
	return 0;
}

void powerpin_sampler_exit(void)
{
	powerpin_gate_listen(NULL);
	debugfs_remove_recursive(powerpin_debugfs);
	powerpin_debugfs = NULL;

	unregister_reboot_notifier(&powerpin_reboot_nb);
	powerpin_sampler_stop();
	/* no probe of ours may still run when the module text goes */
	tracepoint_synchronize_unregister();
	powerpin_supply_track_exit();
}
