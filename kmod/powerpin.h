/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpin.ko internals shared between its files.  Each concern exposes an
 * init/exit pair and the few calls listed here; nothing else is global.
 *
 * Layers, from the top; a file calls only into the layers below it:
 *
 *   main.c       module init/exit, /dev/powerpin
 *   netlink.c    generic netlink family      (calls the sampler)
 *   sampler.c    sampling kthread            (calls the gate)
 *   gate.c       trace events and consumers
 *   residency.c  residency ioctl             (calls nothing of the module)
 *   compat.h, trace.h, powerpin.h            (headers, no state)
 *
 * A lower layer tells an upper one of a change through the ops the upper
 * one registers with it (struct powerpin_gate_ops, struct
 * powerpin_sampler_ops), never by calling it by name.
 * scripts/house-check --kmod fails on a call that runs upward.
 */
#ifndef _POWERPIN_INTERNAL_H
#define _POWERPIN_INTERNAL_H

#include <linux/types.h>
#include <linux/fs.h>
#include <linux/power_supply.h>

#define POWERPIN_SUPPLY_NAME_MAX	64

/* A snapshot of the sampler for status queries (netlink, debugfs). */
struct powerpin_status {
	u32 state;			/* enum powerpin_state */
	bool event_enabled;
	int tracing_on;			/* 1, 0, or -1: not known (a KMI build) */
	bool supply_present;
	char supply[POWERPIN_SUPPLY_NAME_MAX];		/* configured */
	char supply_bound[POWERPIN_SUPPLY_NAME_MAX];	/* in use */
	/* the named supply is refused: it forwards this gauge's readings */
	char supply_forwards[POWERPIN_SUPPLY_NAME_MAX];
	u32 period_us;
	u64 samples;
	u64 read_errors;
	u64 missed;
	u64 series_start_ns;	/* CLOCK_MONOTONIC: first deadline of the series */
	u64 last_deadline_ns;	/* CLOCK_MONOTONIC: the last sample's deadline */
	u64 supply_lost;
	u64 supply_found;
	u32 last_seq;
	u64 last_time_ns;
	s64 last_voltage_uv;
	s64 last_current_ua;
	s64 last_charge_uah;
	s64 last_power_uw;
	u32 last_flags;
};

/*
 * gate.c: who consumes the powerpin events.  It announces that consumers may
 * have changed (a registration, a perf user, a tracepoint's first or last
 * probe) to the ops registered with powerpin_gate_listen() (the sampler's),
 * from any context a trace event reg callback runs in.
 */
struct powerpin_gate_ops {
	void (*consumers_changed)(void);
};

void powerpin_gate_listen(const struct powerpin_gate_ops *ops);
void powerpin_gate_set_emitter(struct task_struct *task);
bool powerpin_gate_has_consumers(void);
bool powerpin_gate_would_record(int *cpu);
void powerpin_gate_look_everywhere(void);
u64 powerpin_gate_ipi_count(void);
bool powerpin_gate_emit(void (*emit)(void *arg), void *arg);
bool powerpin_gate_on_trial(void);
bool powerpin_gate_tp_live(int event);	/* for compat.h */
int powerpin_gate_init(void);
void powerpin_gate_exit(void);

/*
 * sampler.c.  It announces capture and supply changes, from its thread, to
 * the ops registered with powerpin_sampler_listen() (netlink's); times are
 * CLOCK_BOOTTIME.
 */
struct powerpin_sampler_ops {
	void (*capture_started)(u64 time_ns);
	void (*capture_stopped)(u64 time_ns, u64 samples);
	void (*supply_found)(const char *name);
	void (*supply_lost)(const char *name);
};

void powerpin_sampler_listen(const struct powerpin_sampler_ops *ops);
int powerpin_sampler_init(void);
void powerpin_sampler_exit(void);
void powerpin_sampler_get_status(struct powerpin_status *st);
int powerpin_sampler_set_config(const u32 *period_us, const char *supply);

/* residency.c */
long powerpin_residency_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg);

/* netlink.c: listens to the sampler from init to exit */
int powerpin_netlink_init(void);
void powerpin_netlink_exit(void);

#endif /* _POWERPIN_INTERNAL_H */
