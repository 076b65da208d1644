// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "powerpin": sampler status, configuration and a
 * multicast group announcing capture and supply changes.
 *
 * Requests (all validated strictly: unknown attributes, wrong lengths, a
 * non-zero genl reserved field and attributes that do not belong to the
 * command are refused with -EINVAL and an extack message):
 *
 *   GET_STATUS   no attributes.  Reply: every status attribute; the last
 *                sample's readings (LAST_VOLTAGE_UV, LAST_CURRENT_UA,
 *                LAST_CHARGE_UAH, LAST_POWER_UW) only to a caller with
 *                CAP_SYS_ADMIN or CAP_PERFMON: power readings are a side
 *                channel (CVE-2020-8694).
 *   SET_CONFIG   PERIOD_US (u32, POWERPIN_PERIOD_US_MIN..MAX, else
 *                -ERANGE) and/or SUPPLY (NUL-terminated, at most 63 bytes,
 *                else -EINVAL).  Neither given: -EINVAL.  Both are checked
 *                (by the policy) before either is applied: both values are
 *                applied or neither.  Needs CAP_NET_ADMIN.
 *
 * The genetlink core answers -EPERM to SET_CONFIG without CAP_NET_ADMIN and
 * -EOPNOTSUPP to anything else (the event commands sent as requests too),
 * without an extack message.
 *
 * Events on the "events" group, sent from the sampler's kthread:
 *
 *   CAPTURE_STARTED  TIME_NS
 *   CAPTURE_STOPPED  TIME_NS, CAPTURE_SAMPLES
 *   SUPPLY_FOUND     TIME_NS, SUPPLY_BOUND
 *   SUPPLY_LOST      TIME_NS, SUPPLY_BOUND
 *
 * TIME_NS is CLOCK_BOOTTIME.  The events carry no readings, so the group
 * needs no capability.  The family lives in the initial network
 * namespace only: the sampler is global, so is its control.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <linux/powerpin.h>

#include "compat.h"
#include "powerpin.h"

enum powerpin_mcgrp {
	POWERPIN_MCGRP_EVENTS,
};

/* GET_STATUS takes no attributes: every type is "unspec", so strict
 * validation refuses any attribute that is sent.
 */
static const struct nla_policy powerpin_get_status_policy[POWERPIN_ATTR_MAX + 1] = {
};

/*
 * The range does not fit the policy's s16 bounds, so it is a full range;
 * not const because 6.1's nla_policy points to it without const.
 */
static struct powerpin_nl_range powerpin_period_range = {
	.min = POWERPIN_PERIOD_US_MIN,
	.max = POWERPIN_PERIOD_US_MAX,
};

static const struct nla_policy powerpin_set_config_policy[POWERPIN_ATTR_MAX + 1] = {
	[POWERPIN_ATTR_PERIOD_US] = POWERPIN_NLA_POLICY_FULL_RANGE(NLA_U32,
								   &powerpin_period_range),
	[POWERPIN_ATTR_SUPPLY] = { .type = NLA_NUL_STRING,
				   .len = POWERPIN_SUPPLY_NAME_MAX - 1 },
};

/*
 * Every attribute a command takes, for kernels whose family has one
 * policy for all commands (compat.h): SET_CONFIG's, as GET_STATUS takes
 * none.
 */
#define POWERPIN_GENL_FAMILY_POLICY	powerpin_set_config_policy

static struct genl_family powerpin_genl_family;

/* The last sample's readings: only for callers allowed to see them. */
static int powerpin_put_readings(struct sk_buff *skb,
				 const struct powerpin_status *st)
{
	if (powerpin_nla_put_s64(skb, POWERPIN_ATTR_LAST_VOLTAGE_UV, st->last_voltage_uv,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_s64(skb, POWERPIN_ATTR_LAST_CURRENT_UA, st->last_current_ua,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_s64(skb, POWERPIN_ATTR_LAST_CHARGE_UAH, st->last_charge_uah,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_s64(skb, POWERPIN_ATTR_LAST_POWER_UW, st->last_power_uw,
				 POWERPIN_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

static int powerpin_put_status(struct sk_buff *skb,
			       const struct powerpin_status *st, bool readings)
{
	if (nla_put_u32(skb, POWERPIN_ATTR_STATE, st->state) ||
	    nla_put_u8(skb, POWERPIN_ATTR_EVENT_ENABLED, st->event_enabled) ||
	    (st->tracing_on >= 0 &&
	     nla_put_u8(skb, POWERPIN_ATTR_TRACING_ON, st->tracing_on)) ||
	    nla_put_string(skb, POWERPIN_ATTR_SUPPLY, st->supply) ||
	    nla_put_string(skb, POWERPIN_ATTR_SUPPLY_BOUND, st->supply_bound) ||
	    nla_put_u8(skb, POWERPIN_ATTR_SUPPLY_PRESENT, st->supply_present) ||
	    nla_put_u32(skb, POWERPIN_ATTR_PERIOD_US, st->period_us) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_SAMPLES, st->samples,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_READ_ERRORS, st->read_errors,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_MISSED, st->missed,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_SUPPLY_LOST, st->supply_lost,
				 POWERPIN_ATTR_PAD) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_SUPPLY_FOUND, st->supply_found,
				 POWERPIN_ATTR_PAD) ||
	    nla_put_u32(skb, POWERPIN_ATTR_LAST_SEQ, st->last_seq) ||
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_LAST_TIME_NS, st->last_time_ns,
				 POWERPIN_ATTR_PAD) ||
	    nla_put_u32(skb, POWERPIN_ATTR_LAST_FLAGS, readings ? st->last_flags :
			POWERPIN_FLAGS_WITHOUT_READINGS(st->last_flags)))
		return -EMSGSIZE;
	return readings ? powerpin_put_readings(skb, st) : 0;
}

static int powerpin_nl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct powerpin_status *st;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = powerpin_genl_check_header(info);
	if (!ret)
		ret = powerpin_genl_check_op_attrs(info, powerpin_get_status_policy);
	if (ret)
		return ret;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	powerpin_sampler_get_status(st);
	/* the snapshot's strings come from fixed arrays: make sure they end */
	st->supply[sizeof(st->supply) - 1] = '\0';
	st->supply_bound[sizeof(st->supply_bound) - 1] = '\0';

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_free;
	}
	hdr = genlmsg_put_reply(msg, info, &powerpin_genl_family, 0,
				POWERPIN_CMD_GET_STATUS);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out_msg;
	}
	ret = powerpin_put_status(msg, st, powerpin_nl_readings_allowed(skb));
	if (ret)
		goto out_msg;
	genlmsg_end(msg, hdr);
	kfree(st);
	return genlmsg_reply(msg, info);

out_msg:
	nlmsg_free(msg);
out_free:
	kfree(st);
	return ret;
}

static int powerpin_nl_set_config(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *period_attr = info->attrs[POWERPIN_ATTR_PERIOD_US];
	struct nlattr *supply_attr = info->attrs[POWERPIN_ATTR_SUPPLY];
	u32 period_us = 0;
	int ret;

	ret = powerpin_genl_check_header(info);
	if (!ret)
		ret = powerpin_genl_check_op_attrs(info, powerpin_set_config_policy);
	if (ret)
		return ret;
	if (!period_attr && !supply_attr) {
		POWERPIN_GENL_SET_ERR_MSG(info, "SET_CONFIG needs PERIOD_US or SUPPLY");
		return -EINVAL;
	}
	if (period_attr) {
		period_us = nla_get_u32(period_attr);
		/* the policy's range, checked here too for kernels without
		 * range policies
		 */
		if (period_us < powerpin_period_range.min ||
		    period_us > powerpin_period_range.max) {
			POWERPIN_GENL_SET_ERR_MSG(info, "PERIOD_US out of range");
			return -ERANGE;
		}
	}
	/* the policy has checked both values: the sampler takes both at once */
	ret = powerpin_sampler_set_config(period_attr ? &period_us : NULL,
					  supply_attr ? nla_data(supply_attr) : NULL);
	if (ret)
		POWERPIN_GENL_SET_ERR_MSG(info, "sampler refused the configuration");
	return ret;
}

static POWERPIN_GENL_CONST struct genl_ops powerpin_genl_ops[] = {
	{
		.cmd = POWERPIN_CMD_GET_STATUS,
		.doit = powerpin_nl_get_status,
		POWERPIN_GENL_OP_POLICY(powerpin_get_status_policy)
	},
	{
		.cmd = POWERPIN_CMD_SET_CONFIG,
		.doit = powerpin_nl_set_config,
		POWERPIN_GENL_OP_POLICY(powerpin_set_config_policy)
		.flags = GENL_ADMIN_PERM,
	},
};

static POWERPIN_GENL_CONST struct genl_multicast_group powerpin_genl_mcgrps[] = {
	[POWERPIN_MCGRP_EVENTS] = { .name = POWERPIN_GENL_MCGRP_EVENTS },
};

static struct genl_family powerpin_genl_family POWERPIN_GENL_FAMILY_RO = {
	.name = POWERPIN_GENL_NAME,
	.version = POWERPIN_GENL_VERSION,
	.module = THIS_MODULE,
	POWERPIN_GENL_FAMILY_OPS,
	/*
	 * resv_start_op stays 0, as for every new family: from 6.1 on the
	 * core gives every command strict validation and refuses a non-zero
	 * reserved header byte with -EINVAL (compat.h does the same where
	 * the core does not).
	 */
};

/*
 * Build and multicast one event.  @supply may be NULL; @samples is sent only
 * for CAPTURE_STOPPED.  Nothing is allocated when nobody listens.
 */
static void powerpin_nl_event(u8 cmd, u64 time_ns, u64 samples,
			      const char *supply)
{
	struct sk_buff *skb;
	void *hdr;

	if (!powerpin_genl_has_listeners(&powerpin_genl_family,
					 powerpin_genl_mcgrps,
					 POWERPIN_MCGRP_EVENTS))
		return;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &powerpin_genl_family, 0, cmd);
	if (!hdr)
		goto err;
	if (powerpin_nla_put_u64(skb, POWERPIN_ATTR_TIME_NS, time_ns,
				 POWERPIN_ATTR_PAD))
		goto err;
	if (cmd == POWERPIN_CMD_CAPTURE_STOPPED &&
	    powerpin_nla_put_u64(skb, POWERPIN_ATTR_CAPTURE_SAMPLES, samples,
				 POWERPIN_ATTR_PAD))
		goto err;
	if (supply && nla_put_string(skb, POWERPIN_ATTR_SUPPLY_BOUND, supply))
		goto err;
	genlmsg_end(skb, hdr);
	/* -ESRCH (the last listener just left) is not an error here */
	powerpin_genl_multicast(&powerpin_genl_family, powerpin_genl_mcgrps,
				skb, POWERPIN_MCGRP_EVENTS);
	return;
err:
	nlmsg_free(skb);
}

static void powerpin_netlink_capture_started(u64 time_ns)
{
	powerpin_nl_event(POWERPIN_CMD_CAPTURE_STARTED, time_ns, 0, NULL);
}

static void powerpin_netlink_capture_stopped(u64 time_ns, u64 samples)
{
	powerpin_nl_event(POWERPIN_CMD_CAPTURE_STOPPED, time_ns, samples, NULL);
}

static void powerpin_netlink_supply_found(const char *name)
{
	powerpin_nl_event(POWERPIN_CMD_SUPPLY_FOUND, ktime_get_boottime_ns(), 0,
			  name);
}

static void powerpin_netlink_supply_lost(const char *name)
{
	powerpin_nl_event(POWERPIN_CMD_SUPPLY_LOST, ktime_get_boottime_ns(), 0,
			  name);
}

static const struct powerpin_sampler_ops powerpin_netlink_sampler_ops = {
	.capture_started = powerpin_netlink_capture_started,
	.capture_stopped = powerpin_netlink_capture_stopped,
	.supply_found = powerpin_netlink_supply_found,
	.supply_lost = powerpin_netlink_supply_lost,
};

int powerpin_netlink_init(void)
{
	int ret;

	ret = powerpin_genl_register(&powerpin_genl_family, powerpin_genl_ops,
				     ARRAY_SIZE(powerpin_genl_ops),
				     powerpin_genl_mcgrps,
				     ARRAY_SIZE(powerpin_genl_mcgrps));
	if (ret) {
		pr_err("cannot register generic netlink family: %d\n", ret);
		return ret;
	}
	powerpin_sampler_listen(&powerpin_netlink_sampler_ops);
	return 0;
}

/* After powerpin_sampler_exit(): the thread announces nothing any more. */
void powerpin_netlink_exit(void)
{
	powerpin_sampler_listen(NULL);
	genl_unregister_family(&powerpin_genl_family);
}
