// SPDX-License-Identifier: GPL-2.0
/* Generic netlink family "powerpin" (placeholder until the family lands). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "powerpin.h"

int powerpin_netlink_init(void)
{
	return 0;
}

void powerpin_netlink_exit(void)
{
}

void powerpin_netlink_capture_started(u64 time_ns)
{
}

void powerpin_netlink_capture_stopped(u64 time_ns, u64 samples)
{
}

void powerpin_netlink_supply_found(const char *name)
{
}

void powerpin_netlink_supply_lost(const char *name)
{
}
