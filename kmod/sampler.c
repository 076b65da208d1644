// SPDX-License-Identifier: GPL-2.0
/* Battery sampler kthread (placeholder until the sampler lands). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/string.h>
#include <linux/powerpin.h>

#include "powerpin.h"

int powerpin_sampler_init(void)
{
	return 0;
}

void powerpin_sampler_exit(void)
{
}

void powerpin_sampler_get_status(struct powerpin_status *st)
{
	memset(st, 0, sizeof(*st));
}

int powerpin_sampler_set_period(u32 period_us)
{
	return -EOPNOTSUPP;
}

int powerpin_sampler_set_supply(const char *name)
{
	return -EOPNOTSUPP;
}
