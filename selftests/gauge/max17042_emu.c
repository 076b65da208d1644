// SPDX-License-Identifier: GPL-2.0
/* MAX17042 fuel-gauge emulator (placeholder until the emulator lands). */
#include <linux/module.h>

static int __init emu_init(void)
{
	return 0;
}

static void __exit emu_exit(void)
{
}

module_init(emu_init);
module_exit(emu_exit);
MODULE_DESCRIPTION("MAX17042 fuel-gauge emulator for powerpin tests");
MODULE_LICENSE("GPL");
