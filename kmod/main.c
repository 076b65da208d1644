// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin.ko: battery power samples in the ftrace ring buffer, page-cache
 * residency on /dev/powerpin, and a generic netlink control family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/powerpin.h>

#include "compat.h"
#include "powerpin.h"

static long powerpin_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	switch (cmd) {
	case POWERPIN_IOC_RESIDENCY:
		return powerpin_residency_ioctl(file, cmd, arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations powerpin_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = powerpin_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice powerpin_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "powerpin",
	.fops = &powerpin_fops,
	.mode = 0600,
};

static int __init powerpin_init(void)
{
	int ret;

	ret = powerpin_gate_init();
	if (ret)
		return ret;
	ret = powerpin_netlink_init();
	if (ret)
		return ret;
	ret = powerpin_sampler_init();
	if (ret)
		goto err_netlink;
	ret = misc_register(&powerpin_misc);
	if (ret)
		goto err_sampler;
	return 0;

err_sampler:
	powerpin_sampler_exit();
err_netlink:
	powerpin_netlink_exit();
	return ret;
}

static void __exit powerpin_exit(void)
{
	misc_deregister(&powerpin_misc);
	powerpin_sampler_exit();
	powerpin_gate_exit();
	powerpin_netlink_exit();
}

module_init(powerpin_init);
module_exit(powerpin_exit);

MODULE_DESCRIPTION("Battery power samples in ftrace and page-cache residency");
MODULE_AUTHOR("powerpin developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(POWERPIN_VERSION);
