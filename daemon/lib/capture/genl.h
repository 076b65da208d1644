/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Client for the "powerpin" generic netlink family (uapi/linux/powerpin.h),
 * on libnl-genl-3.  Functions return 0 or -1 with errno set to the kernel's
 * answer (ENOENT: the family is not registered, i.e. powerpin.ko is not
 * loaded; EPERM: CAP_NET_ADMIN missing; ...).  pp_genl_error() gives the
 * kernel's extack message for the last failed request, if it sent one.
 */
#ifndef POWERPIN_GENL_H
#define POWERPIN_GENL_H

#include <stdbool.h>
#include <stdint.h>

struct nl_msg;

#define PP_SUPPLY_NAME_MAX 64

struct pp_status {
	uint32_t state;			/* enum powerpin_state */
	bool event_enabled;
	int tracing_on;			/* 1, 0, or -1: the module cannot tell (a KMI build) */
	bool supply_present;
	char supply[PP_SUPPLY_NAME_MAX];
	char supply_bound[PP_SUPPLY_NAME_MAX];
	uint32_t period_us;
	uint64_t samples;
	uint64_t read_errors;
	uint64_t missed;
	uint64_t supply_lost;
	uint64_t supply_found;
	uint32_t last_seq;
	uint64_t last_time_ns;
	int64_t last_voltage_uv;
	int64_t last_current_ua;
	int64_t last_charge_uah;
	int64_t last_power_uw;
	uint32_t last_flags;
	/* the last_* readings came: CAP_SYS_ADMIN or CAP_PERFMON (powerpin(4)) */
	bool has_readings;
};

/* Events from the "events" group, plus the family coming and going. */
enum pp_event_kind {
	PP_EVENT_CAPTURE_STARTED = 1,
	PP_EVENT_CAPTURE_STOPPED,
	PP_EVENT_SUPPLY_FOUND,
	PP_EVENT_SUPPLY_LOST,
	PP_EVENT_FAMILY_GONE,		/* powerpin.ko unloaded */
	PP_EVENT_FAMILY_BACK,		/* powerpin.ko loaded again, rejoined */
};

struct pp_event {
	enum pp_event_kind kind;
	uint64_t time_ns;		/* CLOCK_BOOTTIME, 0 for FAMILY_* */
	uint64_t capture_samples;	/* CAPTURE_STOPPED */
	char supply[PP_SUPPLY_NAME_MAX];	/* SUPPLY_* */
};

struct pp_genl;

/* Connect and resolve the family.  -1/ENOENT when powerpin.ko is absent. */
struct pp_genl *pp_genl_open(void);
void pp_genl_close(struct pp_genl *g);
const char *pp_genl_error(const struct pp_genl *g);

int pp_genl_get_status(struct pp_genl *g, struct pp_status *st);
/* Either argument may be NULL (not changed); both NULL is sent as is. */
int pp_genl_set_config(struct pp_genl *g, const uint32_t *period_us,
		       const char *supply);

/* Raw access for tests: a message for @cmd with header version @version,
 * and a round trip that returns the kernel's errno (0 on success). */
struct nl_msg *pp_genl_msg(struct pp_genl *g, uint8_t cmd, uint8_t version);
int pp_genl_transact(struct pp_genl *g, struct nl_msg *msg,
		     struct pp_status *reply);

/*
 * Event listener.  It also follows the generic netlink controller, so that
 * unloading and reloading powerpin.ko shows up as FAMILY_GONE/FAMILY_BACK
 * and the group is joined again by itself.  pp_genl_listen works whether or
 * not the module is loaded at that moment (*loaded tells which).
 */
struct pp_genl *pp_genl_listen(bool *loaded);
int pp_genl_fd(const struct pp_genl *g);
/* Read what is pending (non-blocking) and call @fn for each event.
 * Returns the number of events, or -1. */
int pp_genl_read_events(struct pp_genl *g,
			void (*fn)(const struct pp_event *ev, void *arg),
			void *arg);

const char *pp_state_name(uint32_t state);

#endif
