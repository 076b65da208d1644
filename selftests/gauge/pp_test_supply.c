// SPDX-License-Identifier: GPL-2.0
/*
 * pp_test_supply: a test-only battery, "pp_test_battery", registered with
 * no parent device, the way some platform code and test drivers register
 * theirs.  powerpin's guest tests check that the sampler reads such a
 * supply as safely as one with a parent, also while the module that owns
 * it is being unloaded in the middle of a read.
 *
 * Parameters (/sys/module/pp_test_supply/parameters/):
 *   read_delay_ms  every property read sleeps this long first (0)
 *   reads          property reads so far (read-only)
 *   slow_every, slow_us
 *                  every slow_every-th CAPACITY read (one per sample) also
 *                  sleeps slow_us, on a high-resolution timer (0: none)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/power_supply.h>

#include "emu_compat.h"

#define PP_TEST_VOLTAGE_UV	3900000
#define PP_TEST_CURRENT_UA	(-120000)
#define PP_TEST_CAPACITY	55

static unsigned int read_delay_ms;
module_param(read_delay_ms, uint, 0644);
MODULE_PARM_DESC(read_delay_ms, "Sleep this long in every property read");

static unsigned int reads;
module_param(reads, uint, 0444);
MODULE_PARM_DESC(reads, "Property reads so far");

static unsigned int slow_every;
module_param(slow_every, uint, 0644);
MODULE_PARM_DESC(slow_every, "Every slow_every-th CAPACITY read sleeps slow_us (0: none)");

static unsigned int slow_us;
module_param(slow_us, uint, 0644);
MODULE_PARM_DESC(slow_us, "How long a slow CAPACITY read sleeps, in microseconds");

static unsigned int capacity_reads;
static struct power_supply *pp_test_psy;

/* A slow read now and then: the reader wakes late for its next deadline. */
static void pp_test_maybe_slow(void)
{
	unsigned int every = READ_ONCE(slow_every), us = READ_ONCE(slow_us);

	if (every && ++capacity_reads % every == 0 && us)
		usleep_range(us, us + 50);
}

static POWERPIN_PSY_PROPERTIES_CONST enum power_supply_property pp_test_props[] = {
	POWER_SUPPLY_PROP_PRESENT,
	POWER_SUPPLY_PROP_VOLTAGE_NOW,
	POWER_SUPPLY_PROP_CURRENT_NOW,
	POWER_SUPPLY_PROP_CAPACITY,
};

static int pp_test_get_property(struct power_supply *psy,
				enum power_supply_property psp,
				union power_supply_propval *val)
{
	msleep(READ_ONCE(read_delay_ms));
	WRITE_ONCE(reads, READ_ONCE(reads) + 1);
	switch (psp) {
	case POWER_SUPPLY_PROP_PRESENT:
		val->intval = 1;
		return 0;
	case POWER_SUPPLY_PROP_VOLTAGE_NOW:
		val->intval = PP_TEST_VOLTAGE_UV;
		return 0;
	case POWER_SUPPLY_PROP_CURRENT_NOW:
		val->intval = PP_TEST_CURRENT_UA;
		return 0;
	case POWER_SUPPLY_PROP_CAPACITY:
		pp_test_maybe_slow();
		val->intval = PP_TEST_CAPACITY;
		return 0;
	default:
		return -EINVAL;
	}
}

static const struct power_supply_desc pp_test_desc = {
	.name = "pp_test_battery",
	.type = POWER_SUPPLY_TYPE_BATTERY,
	.properties = pp_test_props,
	.num_properties = ARRAY_SIZE(pp_test_props),
	.get_property = pp_test_get_property,
};

static int __init pp_test_init(void)
{
	pp_test_psy = power_supply_register(NULL, &pp_test_desc, NULL);
	return PTR_ERR_OR_ZERO(pp_test_psy);
}

static void __exit pp_test_exit(void)
{
	power_supply_unregister(pp_test_psy);
}

module_init(pp_test_init);
module_exit(pp_test_exit);

MODULE_DESCRIPTION("Test-only parentless battery for powerpin's guest tests");
MODULE_LICENSE("GPL");
