/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel interface that differs between the kernels powerpin.ko builds
 * for, in one place.  kmod/Kbuild looks at the headers of the kernel being
 * built against and defines POWERPIN_HAVE_* (never a version number:
 * distributions backport); only this file reads those macros, and the rest
 * of the module calls the helpers below.
 *
 * A port to an older kernel adds its branch here.  Where an older kernel
 * cannot give the guarantee the module relies on, the build stops with an
 * #error that says what is missing rather than building something unsafe.
 */
#ifndef _POWERPIN_COMPAT_H
#define _POWERPIN_COMPAT_H

#include <linux/dcache.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/power_supply.h>
#include <linux/ring_buffer.h>
#include <linux/trace_events.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

/* ---- power_supply ------------------------------------------------------- */

/*
 * Walk the registered power supplies: (void *data, int (*fn)(struct device
 * *dev, void *data)).  6.9 made power_supply_class static and exports
 * power_supply_for_each_device() instead.
 */
#ifdef POWERPIN_HAVE_PSY_FOR_EACH
#define powerpin_for_each_supply(data, fn) \
	power_supply_for_each_device(data, fn)
#else
#define powerpin_for_each_supply(data, fn) \
	class_for_each_device(power_supply_class, NULL, data, fn)
#endif

/* The supply's own device (a pointer, not embedded, before 4.1). */
static inline struct device *powerpin_supply_dev(struct power_supply *psy)
{
	return &psy->dev;
}

/*
 * Fence a property read against power_supply_unregister().  Since 5.1
 * device_del() starts with device_lock(dev) + kill_device(), so while the
 * supply's own device lock is held, an unregister that has begun waits in
 * device_unregister() and the driver's data (freed only after unregister
 * returns) stays alive; once it has begun, use_cnt is 0 and
 * power_supply_get_property() answers -ENODEV without calling the driver.
 * Kernels whose device_del() takes no device lock have no such fence on
 * the supply itself.
 */
#ifdef POWERPIN_HAVE_KILL_DEVICE
static inline void powerpin_supply_lock(struct power_supply *psy)
{
	device_lock(powerpin_supply_dev(psy));
}

static inline void powerpin_supply_unlock(struct power_supply *psy)
{
	device_unlock(powerpin_supply_dev(psy));
}
#else
/* see kmod/README.md, "Supply: lookup and lifetime" */
#error "powerpin: no read fence against power_supply_unregister() here"
#endif

/* ---- trace events ------------------------------------------------------- */

/*
 * __assign_str() lost its source argument in 6.10; before, the source of
 * powerpin:counter's track_name is the TP_PROTO argument of that name.
 */
#ifdef POWERPIN_ASSIGN_STR_ONE_ARG
#define powerpin_assign_track_name()	__assign_str(track_name)
#else
#define powerpin_assign_track_name()	__assign_str(track_name, track_name)
#endif

/*
 * Reserve @len bytes in the ring buffer of @file's trace instance, for a
 * record that is discarded at once: its context word (irq flags, preempt
 * count) is never read, so it is 0 (5.12 folded the two arguments into one
 * trace_ctx; tracing_gen_ctx() itself is not usable from a module).
 */
static inline struct ring_buffer_event *
powerpin_reserve(struct trace_buffer **rb, struct trace_event_file *file,
		 int type, unsigned long len)
{
#ifdef POWERPIN_HAVE_TRACE_CTX
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0);
#else
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0, 0);
#endif
}

/* ---- page cache --------------------------------------------------------- */

/*
 * Order of the entry @xas points at.  xas_get_order() is mainline since
 * 6.10 (some distributions backport it); xa_get_order() (5.10) answers the
 * same from the root, one tree walk per entry.
 */
static inline unsigned int powerpin_xas_order(struct xa_state *xas)
{
#ifdef POWERPIN_HAVE_XAS_GET_ORDER
	return xas_get_order(xas);
#else
	return xa_get_order(xas->xa, xas->xa_index);
#endif
}

/*
 * The inode whose page cache holds @file's data: overlayfs (and any file
 * system with d_real) reads and maps the real upper or lower file, never
 * the overlay inode's own, empty mapping.
 */
static inline struct inode *powerpin_data_inode(struct file *file)
{
	return d_real_inode(file->f_path.dentry);
}

/* ---- generic netlink ---------------------------------------------------- */

/*
 * The genetlink header check new families get from the core.  Since 6.1 a
 * family whose resv_start_op is 0 (ours) has every command's reserved
 * header byte and unknown nlmsg_flags refused with -EINVAL by the core;
 * older kernels have no resv_start_op and check neither, so the module does
 * it itself, with the same errno and message.
 */
static inline int powerpin_genl_check_header(struct genl_info *info)
{
#ifndef POWERPIN_HAVE_GENL_RESV_START_OP
	u16 flags = info->nlhdr->nlmsg_flags;

	if (info->genlhdr->reserved) {
		GENL_SET_ERR_MSG(info, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		GENL_SET_ERR_MSG(info, "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
#endif
	return 0;
}

#endif /* _POWERPIN_COMPAT_H */
