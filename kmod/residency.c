// SPDX-License-Identifier: GPL-2.0
/* Page-cache residency ioctl (placeholder until the ioctl lands). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>

#include "powerpin.h"

long powerpin_residency_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	return -EOPNOTSUPP;
}
