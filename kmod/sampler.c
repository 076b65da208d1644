// SPDX-License-Identifier: GPL-2.0
/*
 * Battery sampler: one kthread for the life of the module reads a
 * power_supply at absolute deadlines and writes powerpin:battery and
 * powerpin:counter events into the ftrace ring buffer.
 *
 * Gate.  The thread samples only while at least one powerpin event is
 * enabled (counted by the events' reg/unreg callbacks) and the top-level
 * tracing_on is 1 (tracing_is_on()).  With no powerpin event enabled it
 * sleeps with no timer at all; enabling an event wakes it.  tracing_on has
 * no notifier, so while an event is enabled but tracing_on is 0 the thread
 * polls it every period, clamped to 10..100 ms: a 1 ms period does not cost
 * a wakeup per millisecond while tracing is off, and `echo 1 > tracing_on`
 * starts samples within 100 ms at worst.
 *
 * Timing.  Deadlines are absolute (CLOCK_MONOTONIC, hrtimer sleep): the
 * k-th deadline of a capture is start + k * period.  A deadline that has
 * already passed when the thread gets to it (slow bus, busy CPU) is counted
 * in "missed" and skipped, so samples + missed follows wall time and late
 * samples never come in a burst.  The next sample carries
 * POWERPIN_SAMPLE_LATE.  No sleep lasts longer than 100 ms, whatever the
 * period: the thread wakes to look at the gate and goes back to sleep
 * until the same deadline, so `echo 0 > tracing_on` closes the capture
 * within 100 ms even at a 60 s period.
 *
 * Supply.  Looked up by name ("" = the first present battery-type supply)
 * only while the gate is open, and again at every deadline until found.  The
 * thread holds a plain device reference, not power_supply_get_by_name()'s
 * use count: power_supply_unregister() WARNs when a use count is still held,
 * which is exactly what a driver unbind in the middle of a capture does.
 * After unregister, power_supply_get_property() answers -ENODEV, and that is
 * how the thread notices the supply went away (counted in supply_lost).
 * A device reference keeps the struct, not the driver: an unbind running
 * while a property is being read would free the driver's data under the
 * read.  So the thread also holds the supply's parent (the device the
 * driver is bound to) and reads with the parent's device lock held, the
 * lock driver unbind takes: a read and an unbind never overlap, and after
 * an unbind the read stops at -ENODEV without calling into the driver.
 * Between two reads (gate closed, long period) a status query looks the
 * bound name up itself, so supply_present says whether the supply is still
 * registered rather than what the last read found.
 * The lookup walks the power_supply class: 6.9 made the class static and
 * exports power_supply_for_each_device() instead, older kernels export the
 * class itself for class_for_each_device() (kmod/Kbuild tells which from the
 * headers).
 *
 * Debugfs: /sys/kernel/debug/powerpin/status, read-only, one "key value"
 * line each:
 *   state            idle | waiting_supply | sampling
 *   event_enabled    1 while at least one powerpin event is enabled
 *   tracing_on       top-level tracing_on
 *   supply           configured supply name (empty = first battery)
 *   supply_bound     supply in use, empty if none
 *   supply_present   1 while a supply is bound and still registered
 *   period_us        sampling period
 *   samples          samples emitted since load (= last_seq)
 *   read_errors      samples with POWERPIN_SAMPLE_READ_ERROR
 *   missed           deadlines skipped because they had already passed
 *   supply_lost      times the bound supply went away (or was replaced
 *                    after the supply parameter changed)
 *   supply_found     times a supply was bound
 *   last_seq, last_time_ns (CLOCK_BOOTTIME), last_voltage_uv,
 *   last_current_ua, last_charge_uah, last_power_uw, last_flags
 *   kthread_pid      pid of the sampler kthread
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/power_supply.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/powerpin.h>

#include "powerpin.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* POWERPIN_PERIOD_US_MIN and _MAX come from the uapi header */
#define POWERPIN_PERIOD_US_DEFAULT	100000
#define POWERPIN_POLL_US_MIN		10000
#define POWERPIN_POLL_US_MAX		100000

/* Configuration and counters, all under powerpin_lock. */
static DEFINE_SPINLOCK(powerpin_lock);
static char powerpin_supply[POWERPIN_SUPPLY_NAME_MAX] = "max170xx_battery";
static u32 powerpin_period_us = POWERPIN_PERIOD_US_DEFAULT;
static unsigned int powerpin_supply_gen;
static struct powerpin_status powerpin_stats;
static struct task_struct *powerpin_task;

/* Enabled powerpin events; a wakeup request for the thread. */
static atomic_t powerpin_events_enabled = ATOMIC_INIT(0);
static atomic_t powerpin_kicked = ATOMIC_INIT(0);
static u32 powerpin_seq;	/* kthread only */
static struct dentry *powerpin_debugfs;

/* The thread's own state; nothing else touches it. */
struct powerpin_capture {
	bool open;			/* gate open: capture in progress */
	u32 period_us;
	unsigned int supply_gen;
	char supply[POWERPIN_SUPPLY_NAME_MAX];
	struct power_supply *psy;	/* device reference held */
	struct device *parent;		/* psy's parent, reference held */
	bool announced;			/* psy answered once: counted as found */
	char bound[POWERPIN_SUPPLY_NAME_MAX];
	ktime_t next;			/* next deadline */
	bool late;			/* deadlines skipped since last sample */
	bool have_prev;
	s64 prev_voltage_uv, prev_current_ua, prev_charge_uah;
	u64 capture_samples;
};

static void powerpin_sampler_kick(void)
{
	unsigned long irqflags;

	atomic_xchg(&powerpin_kicked, 1);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	if (powerpin_task)
		wake_up_process(powerpin_task);
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/*
 * Tracepoint reg/unreg callbacks of both events: each runs when its event
 * gets its first probe or loses its last one.  unreg may also run after
 * powerpin_sampler_exit(), when the module's events are torn down; then
 * there is no thread left to wake.
 */
int powerpin_trace_reg(void)
{
	atomic_inc(&powerpin_events_enabled);
	powerpin_sampler_kick();
	return 0;
}

void powerpin_trace_unreg(void)
{
	atomic_dec(&powerpin_events_enabled);
	powerpin_sampler_kick();
}

static void powerpin_set_state(u32 state)
{
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.state = state;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/* ---- supply lookup ------------------------------------------------------ */

struct powerpin_lookup {
	const char *name;
	struct device *dev;
	struct device *parent;
};

/*
 * The first battery's "present" is read inside the class walk, where
 * sleeping on a device lock is not wanted: a parent that is busy binding or
 * unbinding is passed over this time and looked at again on the next try.
 */
static bool powerpin_battery_absent(struct power_supply *psy)
{
	union power_supply_propval val = {};
	struct device *parent = psy->dev.parent;
	bool absent;

	if (parent && !device_trylock(parent))
		return true;
	absent = !power_supply_get_property(psy, POWER_SUPPLY_PROP_PRESENT,
					    &val) && !val.intval;
	if (parent)
		device_unlock(parent);
	return absent;
}

static int powerpin_match_supply(struct device *dev, void *data)
{
	struct powerpin_lookup *lookup = data;
	struct power_supply *psy = dev_get_drvdata(dev);

	if (!psy)
		return 0;
	if (lookup->name[0]) {
		if (strcmp(dev_name(dev), lookup->name))
			return 0;
	} else {
		if (!psy->desc || psy->desc->type != POWER_SUPPLY_TYPE_BATTERY)
			return 0;
		/* a bay without a battery: look further */
		if (powerpin_battery_absent(psy))
			return 0;
	}
	lookup->dev = get_device(dev);
	lookup->parent = get_device(dev->parent);
	return 1;
}

/*
 * Find a supply by name ("" = the first present battery) and take a
 * reference on it and, if @parent is given, on its parent device.
 */
static struct power_supply *powerpin_find_supply(const char *name,
						 struct device **parent)
{
	struct powerpin_lookup lookup = { .name = name };

#ifdef POWERPIN_HAVE_PSY_FOR_EACH
	power_supply_for_each_device(&lookup, powerpin_match_supply);
#else
	class_for_each_device(power_supply_class, NULL, &lookup,
			      powerpin_match_supply);
#endif
	if (!lookup.dev)
		return NULL;
	if (parent)
		*parent = lookup.parent;
	else
		put_device(lookup.parent);
	return dev_get_drvdata(lookup.dev);
}

static void powerpin_release_supply(struct powerpin_capture *run, bool lost)
{
	unsigned long irqflags;

	if (!run->psy)
		return;
	put_device(&run->psy->dev);
	put_device(run->parent);
	run->psy = NULL;
	run->parent = NULL;
	if (run->announced && lost) {
		spin_lock_irqsave(&powerpin_lock, irqflags);
		powerpin_stats.supply_lost++;
		powerpin_stats.supply_present = false;
		powerpin_stats.supply_bound[0] = '\0';
		spin_unlock_irqrestore(&powerpin_lock, irqflags);
		powerpin_netlink_supply_lost(run->bound);
	}
	run->announced = false;
	run->have_prev = false;
	run->bound[0] = '\0';
}

static void powerpin_announce_supply(struct powerpin_capture *run)
{
	unsigned long irqflags;

	strscpy(run->bound, dev_name(&run->psy->dev), sizeof(run->bound));
	run->announced = true;
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.supply_found++;
	powerpin_stats.supply_present = true;
	strscpy(powerpin_stats.supply_bound, run->bound,
		sizeof(powerpin_stats.supply_bound));
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	powerpin_netlink_supply_found(run->bound);
}

/* ---- one sample ---------------------------------------------------------- */

/*
 * Whether an event has its probes attached: the tracepoint key's count, as
 * trace_<event>_enabled() would say, read as plain data.
 */
#define powerpin_event_on(event) static_key_enabled(&__tracepoint_##event.key)

/*
 * Events are written through the tracepoints' iterators, as __DO_TRACE()
 * does when an event has several probes, instead of trace_battery() and
 * trace_counter().  Those inline a jump-label branch and a static call that
 * are rewritten each time an event is enabled or disabled; under qemu TCG
 * the thread running through them around such a rewrite hit stale int3
 * bytes and oopsed (100 load/unload cycles with events being enabled).  The
 * iterator is plain code, and the key count keeps trace_<event>()'s
 * "only when enabled" rule.
 */
static void powerpin_emit_battery(const struct powerpin_sample *s)
{
	if (!powerpin_event_on(battery))
		return;
	preempt_disable_notrace();
	__traceiter_battery(NULL, s);
	preempt_enable_notrace();
}

static void powerpin_emit_counter(const char *track_name, s64 value)
{
	preempt_disable_notrace();
	__traceiter_counter(NULL, track_name, value);
	preempt_enable_notrace();
}

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
 * Read every property into @val.  Returns false if the supply is gone
 * (-ENODEV); otherwise @ok has a bit per property read and @flags says why
 * the others were not.
 */
static bool powerpin_read_supply(struct power_supply *psy,
				 s64 val[PP_NR_PROPS], u32 *ok, u32 *flags)
{
	union power_supply_propval pv;
	int i, ret;

	for (i = 0; i < PP_NR_PROPS; i++) {
		pv.intval = 0;
		ret = power_supply_get_property(psy, powerpin_props[i], &pv);
		val[i] = ret ? 0 : pv.intval;
		switch (ret) {
		case 0:
			*ok |= BIT(i);
			break;
		case -ENODEV:
			return false;
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
	return true;
}

static void powerpin_take_sample(struct powerpin_capture *run)
{
	struct powerpin_sample s = {};
	s64 val[PP_NR_PROPS];
	unsigned long irqflags;
	u32 ok = 0, flags = 0;
	bool present;
	u64 t0;
	int i;

	if (!run->psy) {
		run->psy = powerpin_find_supply(run->supply, &run->parent);
		if (!run->psy) {
			powerpin_set_state(POWERPIN_STATE_WAITING_SUPPLY);
			return;
		}
	}
	if (!powerpin_event_on(battery) && !powerpin_event_on(counter))
		return;

	t0 = ktime_get_ns();
	if (run->parent)
		device_lock(run->parent);
	present = powerpin_read_supply(run->psy, val, &ok, &flags);
	if (run->parent)
		device_unlock(run->parent);
	if (!present) {
		powerpin_release_supply(run, true);
		powerpin_set_state(POWERPIN_STATE_WAITING_SUPPLY);
		return;
	}
	s.read_ns = ktime_get_ns() - t0;
	if (!run->announced)
		powerpin_announce_supply(run);
	/* tracing_on went to 0 during the read: this sample goes nowhere */
	if (!tracing_is_on())
		return;

	s.voltage_uv = val[PP_VOLTAGE];
	s.current_ua = val[PP_CURRENT];
	s.charge_uah = val[PP_CHARGE];
	s.power_uw = div_s64(s.voltage_uv * s.current_ua, 1000000);
	s.current_avg_ua = val[PP_CURRENT_AVG];
	s.capacity = val[PP_CAPACITY];
	s.temp_dc = val[PP_TEMP];
	if (run->have_prev && s.voltage_uv == run->prev_voltage_uv &&
	    s.current_ua == run->prev_current_ua &&
	    s.charge_uah == run->prev_charge_uah)
		flags |= POWERPIN_SAMPLE_REPEATED;
	if (run->late)
		flags |= POWERPIN_SAMPLE_LATE;
	s.flags = flags;
	s.seq = ++powerpin_seq;
	run->late = false;
	run->have_prev = true;
	run->prev_voltage_uv = s.voltage_uv;
	run->prev_current_ua = s.current_ua;
	run->prev_charge_uah = s.charge_uah;
	run->capture_samples++;

	powerpin_emit_battery(&s);
	if (powerpin_event_on(counter)) {
		for (i = 0; i < PP_NR_PROPS; i++)
			if (ok & BIT(i))
				powerpin_emit_counter(powerpin_tracks[i], val[i]);
		if ((ok & BIT(PP_VOLTAGE)) && (ok & BIT(PP_CURRENT)))
			powerpin_emit_counter("power_uw", s.power_uw);
	}

	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_stats.state = POWERPIN_STATE_SAMPLING;
	powerpin_stats.samples++;
	if (flags & POWERPIN_SAMPLE_READ_ERROR)
		powerpin_stats.read_errors++;
	powerpin_stats.last_seq = s.seq;
	powerpin_stats.last_time_ns = ktime_get_boottime_ns();
	powerpin_stats.last_voltage_uv = s.voltage_uv;
	powerpin_stats.last_current_ua = s.current_ua;
	powerpin_stats.last_charge_uah = s.charge_uah;
	powerpin_stats.last_power_uw = s.power_uw;
	powerpin_stats.last_flags = s.flags;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
}

/* ---- the thread ---------------------------------------------------------- */

static void powerpin_gate_open(struct powerpin_capture *run)
{
	run->open = true;
	run->capture_samples = 0;
	run->late = false;
	run->have_prev = false;
	run->next = ktime_get();
	powerpin_set_state(run->announced ? POWERPIN_STATE_SAMPLING :
			   POWERPIN_STATE_WAITING_SUPPLY);
	powerpin_netlink_capture_started(ktime_get_boottime_ns());
}

static void powerpin_gate_close(struct powerpin_capture *run)
{
	if (!run->open)
		return;
	run->open = false;
	powerpin_set_state(POWERPIN_STATE_IDLE);
	powerpin_netlink_capture_stopped(ktime_get_boottime_ns(),
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
		strscpy(run->supply, powerpin_supply, sizeof(run->supply));
	}
	spin_unlock_irqrestore(&powerpin_lock, irqflags);

	if (supply_changed)
		powerpin_release_supply(run, true);
	if (period_us != run->period_us) {
		run->period_us = period_us;
		/* keep the phase of a running capture, start from the new period */
		if (run->open)
			run->next = ktime_add_us(ktime_get(), period_us);
	}
}

/* Sleep until @deadline (absolute, CLOCK_MONOTONIC) or a kick. */
static void powerpin_sleep_until(ktime_t deadline, u64 slack_ns)
{
	set_current_state(TASK_INTERRUPTIBLE);
	if (atomic_read(&powerpin_kicked) || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	schedule_hrtimeout_range(&deadline, slack_ns, HRTIMER_MODE_ABS);
	__set_current_state(TASK_RUNNING);
}

/* Sleep with no timer until an event is enabled or the module goes. */
static void powerpin_sleep_idle(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	if (!atomic_read(&powerpin_kicked) && !kthread_should_stop())
		schedule();
	__set_current_state(TASK_RUNNING);
}

static int powerpin_sampler_thread(void *unused)
{
	struct powerpin_capture run = { .supply_gen = UINT_MAX };
	u64 period_ns, behind;
	ktime_t now;

	while (!kthread_should_stop()) {
		/* consume kicks before looking at what they announce */
		atomic_xchg(&powerpin_kicked, 0);
		powerpin_apply_config(&run);
		period_ns = (u64)run.period_us * NSEC_PER_USEC;

		if (atomic_read(&powerpin_events_enabled) <= 0) {
			powerpin_gate_close(&run);
			powerpin_sleep_idle();
			continue;
		}
		if (!tracing_is_on()) {
			powerpin_gate_close(&run);
			powerpin_sleep_until(ktime_add_us(ktime_get(),
							  clamp_t(u32, run.period_us,
								  POWERPIN_POLL_US_MIN,
								  POWERPIN_POLL_US_MAX)),
					     period_ns / 100);
			continue;
		}
		if (!run.open)
			powerpin_gate_open(&run);

		now = ktime_get();
		if (ktime_before(now, run.next)) {
			/*
			 * A long period still looks at the gate every
			 * POWERPIN_POLL_US_MAX; the deadline stays where it is.
			 */
			ktime_t poll = ktime_add_us(now, POWERPIN_POLL_US_MAX);

			if (ktime_before(poll, run.next))
				powerpin_sleep_until(poll, NSEC_PER_MSEC);
			else
				powerpin_sleep_until(run.next, period_ns / 1000);
			continue;
		}
		/* deadlines that passed while we were away are skipped */
		behind = div64_u64(ktime_to_ns(ktime_sub(now, run.next)),
				   period_ns);
		if (behind) {
			unsigned long irqflags;

			spin_lock_irqsave(&powerpin_lock, irqflags);
			powerpin_stats.missed += behind;
			spin_unlock_irqrestore(&powerpin_lock, irqflags);
			run.next = ktime_add_ns(run.next, behind * period_ns);
			run.late = true;
		}
		powerpin_take_sample(&run);
		run.next = ktime_add_ns(run.next, period_ns);
	}
	powerpin_gate_close(&run);
	powerpin_release_supply(&run, false);
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
		strscpy(powerpin_supply, supply, sizeof(powerpin_supply));
		powerpin_supply_gen++;
	}
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	powerpin_sampler_kick();
	return 0;
}

/*
 * Snapshot for netlink and debugfs (process context: the class walk may
 * sleep).  The thread notices a supply that went away only at its next
 * read, a whole period later or, with the gate closed, not at all; so the
 * bound name is looked up again here, a name compare per registered supply
 * and no property read.
 */
void powerpin_sampler_get_status(struct powerpin_status *st)
{
	struct power_supply *psy;
	unsigned long irqflags;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	*st = powerpin_stats;
	strscpy(st->supply, powerpin_supply, sizeof(st->supply));
	st->period_us = powerpin_period_us;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	st->event_enabled = atomic_read(&powerpin_events_enabled) > 0;
	st->tracing_on = tracing_is_on();

	st->supply_bound[sizeof(st->supply_bound) - 1] = '\0';
	if (st->supply_present && st->supply_bound[0]) {
		psy = powerpin_find_supply(st->supply_bound, NULL);
		if (psy) {
			put_device(&psy->dev);
		} else {
			st->supply_present = false;
			st->supply_bound[0] = '\0';
		}
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
	return scnprintf(buf, PAGE_SIZE, "%u\n", period_us);
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
	len = scnprintf(buf, PAGE_SIZE, "%s\n", powerpin_supply);
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

	powerpin_sampler_get_status(&st);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	if (powerpin_task)
		pid = task_pid_nr(powerpin_task);
	spin_unlock_irqrestore(&powerpin_lock, irqflags);

	seq_printf(m, "state %s\n", st.state < ARRAY_SIZE(powerpin_state_names) ?
		   powerpin_state_names[st.state] : "unknown");
	seq_printf(m, "event_enabled %d\n", st.event_enabled);
	seq_printf(m, "tracing_on %d\n", st.tracing_on);
	seq_printf(m, "supply %s\n", st.supply);
	seq_printf(m, "supply_bound %s\n", st.supply_bound);
	seq_printf(m, "supply_present %d\n", st.supply_present);
	seq_printf(m, "period_us %u\n", st.period_us);
	seq_printf(m, "samples %llu\n", st.samples);
	seq_printf(m, "read_errors %llu\n", st.read_errors);
	seq_printf(m, "missed %llu\n", st.missed);
	seq_printf(m, "supply_lost %llu\n", st.supply_lost);
	seq_printf(m, "supply_found %llu\n", st.supply_found);
	seq_printf(m, "last_seq %u\n", st.last_seq);
	seq_printf(m, "last_time_ns %llu\n", st.last_time_ns);
	seq_printf(m, "last_voltage_uv %lld\n", st.last_voltage_uv);
	seq_printf(m, "last_current_ua %lld\n", st.last_current_ua);
	seq_printf(m, "last_charge_uah %lld\n", st.last_charge_uah);
	seq_printf(m, "last_power_uw %lld\n", st.last_power_uw);
	seq_printf(m, "last_flags 0x%x\n", st.last_flags);
	seq_printf(m, "kthread_pid %d\n", pid);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(powerpin_status);

/* ---- init/exit ------------------------------------------------------------ */

int powerpin_sampler_init(void)
{
	struct task_struct *task;
	unsigned long irqflags;

	task = kthread_create(powerpin_sampler_thread, NULL, "powerpin-sample");
	if (IS_ERR(task))
		return PTR_ERR(task);
	spin_lock_irqsave(&powerpin_lock, irqflags);
	powerpin_task = task;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	wake_up_process(task);

	powerpin_debugfs = debugfs_create_dir("powerpin", NULL);
	debugfs_create_file("status", 0444, powerpin_debugfs, NULL,
			    &powerpin_status_fops);
	return 0;
}

void powerpin_sampler_exit(void)
{
	struct task_struct *task;
	unsigned long irqflags;

	debugfs_remove_recursive(powerpin_debugfs);
	powerpin_debugfs = NULL;

	spin_lock_irqsave(&powerpin_lock, irqflags);
	task = powerpin_task;
	powerpin_task = NULL;
	spin_unlock_irqrestore(&powerpin_lock, irqflags);
	/* the thread closes the gate and drops its supply on the way out */
	if (task)
		kthread_stop(task);
	/* no probe of ours may still run when the module text goes */
	tracepoint_synchronize_unregister();
}
